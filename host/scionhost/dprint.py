# SPDX-License-Identifier: BSD-2-Clause
"""print(): a value laid out by its C type, as illumos dtrace prints it.

dtc describes the value's type in the program's JSON (the print action's
"ctype", host/dtrace/dt_print_type.c has the layout); the record holds the
value: the bytes of a struct, union or array as they lie in the kernel's
memory, or an integer, pointer or string as trace() records it. Members
print one a line as `name = value`, four spaces deeper per level, a struct
or union inside braces; integers in hex, pointers in hex (NULL for 0, a
function pointer by its symbol), enums by their enumerator's name,
chars quoted, arrays as `[ a, b ]` and char arrays as their string. A
value that is not a struct or union prints after its type's name
(`int 0x2a`).
"""

import struct

from .dprintf import addr2str, signed, unsigned

INDENT = 4


def _int_text(t, value):
    """An integer of type t (value: its bits, of t's size) as print() writes it."""
    size = t.get("size", 8)
    if t["kind"] == "enum":
        v = signed(value, size)
        for name, number in t.get("values", []):
            if number == v:
                return name
        return "0x%x" % unsigned(value, size)
    if t.get("bool"):
        return "true" if unsigned(value, size) else "false"
    if t.get("char") and size == 1:
        c = unsigned(value, 1)
        return "'%s'" % chr(c) if 0x20 <= c < 0x7f and c not in (0x27, 0x5c) else "'\\%03o'" % c
    return "0x%x" % unsigned(value, size)


def _pointer_text(t, value, symbolize):
    if value == 0:
        return "NULL"
    if t.get("func"):
        return addr2str(value, symbolize)
    return "0x%x" % value


class _Layout:
    """Formats a value's bytes (mem) by its type description."""

    def __init__(self, mem, big_endian, symbolize):
        self.mem, self.order, self.symbolize = mem, "big" if big_endian else "little", symbolize

    def number(self, off, size):
        return int.from_bytes(self.mem[off:off + size], self.order)

    def value(self, t, off, depth):
        kind = t["kind"]
        size = t.get("size", 8)
        if off + size > len(self.mem):
            return "?"      # cannot be: dtc described the bytes the kernel recorded
        if kind in ("int", "enum"):
            return _int_text(t, self.number(off, size))
        if kind == "pointer":
            return _pointer_text(t, self.number(off, 8), self.symbolize)
        if kind == "float":
            fmt = (">" if self.order == "big" else "<") + ("f" if size == 4 else "d")
            return "%g" % struct.unpack(fmt, self.mem[off:off + size])[0]
        if kind == "array":
            return self.array(t, off, depth)
        if kind in ("struct", "union"):
            return self.members(t, off, depth)
        return "[ " + " ".join("%02x" % b for b in self.mem[off:off + size]) + " ]"

    def array(self, t, off, depth):
        elem, count = t["elem"], t.get("count", 0)
        if elem["kind"] == "int" and elem.get("char") and elem.get("size") == 1:
            raw = self.mem[off:off + count].split(b"\0", 1)[0]
            return '[ "%s" ]' % raw.decode("utf-8", "replace")
        step = elem.get("size", 8) if elem["kind"] != "pointer" else 8
        items = [self.value(elem, off + i * step, depth) for i in range(count)]
        return "[ " + ", ".join(items) + " ]"

    def members(self, t, off, depth):
        pad = " " * (INDENT * (depth + 1))
        lines = ["{"]
        for m in t.get("members", []):
            mt, moff = m["type"], off + m["offset"]
            if "bits" in m:
                unit = self.number(moff, mt.get("size", 4))
                bits = (unit >> m["shift"]) & ((1 << m["bits"]) - 1)
                if mt.get("signed") and bits >> (m["bits"] - 1):
                    bits -= 1 << m["bits"]
                text = _int_text(mt, unsigned(bits, mt.get("size", 4)))
            else:
                text = self.value(mt, moff, depth + 1)
            lines.append("%s%s = %s" % (pad, m["name"], text))
        lines.append(" " * (INDENT * depth) + "}")
        return "\n".join(lines)


def print_value(ctype, raw, arg, big_endian, symbolize):
    """The text of print(x): ctype x's type description, raw the recorded bytes of
    a struct, union or array (else None), arg the recorded integer or string (an
    Int or Str of dprintf) otherwise."""
    kind = ctype.get("kind") if ctype else "unknown"
    name = (ctype or {}).get("name", "?")
    if raw is not None:
        text = _Layout(raw, big_endian, symbolize).value(ctype or {"kind": "unknown",
                                                                 "size": len(raw)}, 0, 0)
        return "%s %s" % (name, text)
    if kind == "string":
        return '%s "%s"' % (name, arg.text())
    if kind == "pointer":
        return "%s %s" % (name, _pointer_text(ctype, unsigned(arg.value, 8), symbolize))
    if kind in ("int", "enum"):
        return "%s %s" % (name, _int_text(ctype, arg.value))
    return "%s 0x%x" % (name, unsigned(arg.value, 8))
