# SPDX-License-Identifier: BSD-2-Clause
"""The kernel's binary layouts and constants, as the build generated them
from the C headers (tools/gen_layouts.py -> build/gen/scion_layouts.py).

Nothing here spells a layout: C is the only source. C holds each header's
constants by name (C.CHAN_OP_STATUS, C.REC_MAGIC); layout(NAME) is struct
NAME as a Layout: its size, a struct.Struct of the same size (padding
included, members in order, nested structures flattened, a flexible
array left out), and unpack/pack by member name ("head.size" for a
member of a nested structure; arrays are lists, char arrays bytes).
tests/integration/test_layouts.py checks every offset and constant here
against the compiler's.

A missing generated file (the tree was never built) ends the program
with one line saying to run make.
"""

import importlib.util
import os
import struct
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
GENERATED = os.path.join(REPO, "build", "gen", "scion_layouts.py")


def _load():
    path = os.environ.get("SCION_LAYOUTS") or GENERATED
    if not os.path.exists(path):
        sys.stderr.write(f"scion: {path} is missing (the layouts generated from the kernel's "
                         "headers): run `make` first\n")
        raise SystemExit(1)
    spec = importlib.util.spec_from_file_location("scion_layouts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_GEN = _load()


class _Constants:
    """Every header's constants as attributes, and by header."""

    def __init__(self, by_header):
        self.by_header = by_header
        for values in by_header.values():
            self.__dict__.update(values)


C = _Constants(_GEN.CONSTANTS)


class Layout:
    """One C structure: size, struct (a struct.Struct), fields (flattened
    (name, offset, code, count)), names (what unpack's tuple holds, in order)."""

    def __init__(self, name):
        info = _GEN.STRUCTS[name]
        self.name, self.size = name, info["size"]
        self.fields = list(_flatten(info["fields"], ""))
        fmt, names, at = ["<"], [], 0
        for fname, offset, code, count in self.fields:
            if count == 0:
                continue                    # a flexible array: the records after it
            if code.startswith("struct "):
                raise ValueError(f"struct {name}: {fname} is an array of structures, "
                                 "which layout() does not take apart")
            if offset > at:
                fmt.append(f"{offset - at}x")
            width = struct.calcsize("<" + code)
            if code == "c":
                fmt.append(f"{count or 1}s")
            else:
                fmt.append(f"{count or 1}{code}")
            names.append((fname, code, count))
            at = offset + width * (count or 1)
        if self.size > at:
            fmt.append(f"{self.size - at}x")
        self.struct = struct.Struct("".join(fmt))
        assert self.struct.size == self.size, (name, self.struct.format, self.size)
        self.names = names

    def ordered(self, *names):
        """The struct.Struct, after checking that its members are names, in this order:
        a hot loop unpacks positionally, says what it expects, and fails at import
        (not with wrong numbers) when the header has moved on."""
        have = tuple(n for n, _, _ in self.names)
        if have != names:
            raise ImportError(f"struct {self.name} now has members {', '.join(have)}; the "
                              f"code reading it expects {', '.join(names)}")
        return self.struct

    def unpack(self, data, offset=0):
        """{member: value} of the structure at offset in data."""
        values = self.struct.unpack_from(data, offset)
        out, i = {}, 0
        for fname, code, count in self.names:
            if code == "c" or not count:
                out[fname] = values[i]
                i += 1
            else:
                out[fname] = list(values[i:i + count])
                i += count
        return out

    def pack(self, **values):
        """The structure's bytes; members not given are zero, a name that is no member
        is a TypeError (the header renamed it: a zero must not go out instead)."""
        known = {n for fname, _, _ in self.names for n in (fname, fname.replace(".", "__"))}
        unknown = sorted(set(values) - known)
        if unknown:
            raise TypeError(f"struct {self.name} has no member {', '.join(unknown)}")
        flat = []
        for fname, code, count in self.names:
            value = values.get(fname.replace(".", "__"), values.get(fname))
            if code == "c":
                flat.append(value if isinstance(value, bytes) else (value or "").encode())
            elif not count:
                flat.append(value or 0)
            else:
                value = list(value or [])
                flat.extend(value + [0] * (count - len(value)))
        return self.struct.pack(*flat)


def _flatten(fields, prefix):
    for fname, offset, code, count in fields:
        if code.startswith("struct ") and count is None:
            inner = _GEN.STRUCTS[code[len("struct "):]]
            for sub in _flatten(inner["fields"], f"{prefix}{fname}."):
                yield (sub[0], offset + sub[1], sub[2], sub[3])
        else:
            yield (prefix + fname, offset, code, count)


_CACHE = {}


def layout(name, *members):
    """struct name of the kernel's headers as a Layout. members, when given, are the
    members the caller packs and reads, in order: a header that has moved on (a member
    added, removed, renamed or moved) fails at import rather than with wrong bytes;
    a member's type or size the generated description follows by itself."""
    if name not in _CACHE:
        _CACHE[name] = Layout(name)
    if members:
        _CACHE[name].ordered(*members)
    return _CACHE[name]


def structs():
    """The names of every structure the generated description holds."""
    return list(_GEN.STRUCTS)


def text(raw):
    """A NUL-padded char array as text."""
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace")
