#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Generate the host's description of every binary layout from the C headers.

    tools/gen_layouts.py HEADER... [--constants-only HEADER...] -o build/gen/scion_layouts.py
    tools/gen_layouts.py --c-wire HEADER... -o build/gen/chan_wire_layouts.h

The kernel's headers are the one source of the wire and record formats
(scion/chan_proto.h, scion/chan_reply.h, scion/recfmt.h, scion/dof.h,
scion/errno.h). This reads them and writes a Python module holding, for
each header, its integer and string #defines and enum members
(CONSTANTS) and its structures (STRUCTS: size, alignment and each
member's offset, type and element count), which
host/scionhost/layouts.py turns into struct formats. The host code
never spells a layout again. --constants-only headers give only their
constants: the values records hold whose header is an API's (the graft
API's outcome and event codes, which recfmt.h's records carry), not a
wire or record format. HEADERS lists every header read, as
#include names them, so a test can compile against the same set.

The reader knows the subset of C these headers use for layouts: members
of the fixed-width integer types, char, enums, arrays of a constant
length, nested structures declared earlier, and a flexible array last;
offsets follow the x86-64 System V rules (natural alignment). A
structure with anything else (a pointer, a union, a bit-field) is left
out whole, so no half-understood layout reaches Python; a #define that
is not an integer or string expression is left out too.
tests/integration/test_layouts.py compiles a program against the
headers that prints every offset, size and constant the generated module
holds and fails on any difference.

--c-wire writes, from the same reading of the same headers, the
kernel's side: for every structure a C descriptor (struct
chan_wire_layout, scion/chan_wire.h) listing its multi-byte integer
members (offset, size, element count; nested structures flattened,
bytes and chars left out, a flexible array left out), which the kernel's
one byte-order routine (kernel/channel/wire.c) swaps on a big-endian
machine. Each descriptor entry comes with a _Static_assert of its offset
and size against the compiler's, so a descriptor that disagrees with the
header does not build. Unlike the host's module, --c-wire leaves no
structure out: one with a member it cannot describe (a pointer, a union,
a bit-field, an unknown type) stops the generation with a message naming
that member, since a structure left out would cross the wire unturned.
"""
import argparse
import os
import pprint
import re
import sys

# C type -> (size, Python struct code); alignment equals size.
SCALARS = {
    "uint8_t": (1, "B"), "int8_t": (1, "b"), "char": (1, "c"), "bool": (1, "?"),
    "uint16_t": (2, "H"), "int16_t": (2, "h"),
    "uint32_t": (4, "I"), "int32_t": (4, "i"),
    "uint64_t": (8, "Q"), "int64_t": (8, "q"),
}
ENUM_SIZE = 4      # GCC's: unsigned when no member is negative
SIGNED_ENUMS = set()
COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+(.+?)[ \t]*$", re.M)
ENUM = re.compile(r"\benum\s+(\w+)\s*\{(.*?)\}\s*;", re.S)
STRUCT = re.compile(r"\bstruct\s+(\w+)\s*\{(.*?)\}\s*;", re.S)
MEMBER = re.compile(r"^(?:const\s+)?(struct\s+\w+|enum\s+\w+|\w+)\s+(.+)$", re.S)
DECLARATOR = re.compile(r"^([A-Za-z_]\w*)\s*(?:\[\s*([^\]]*)\s*\])?$")
INT_SUFFIX = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b")
SAFE_EXPR = re.compile(r"^[0-9a-fA-FxX\s()+\-*/%<>|&~^]+$")


class LayoutError(Exception):
    pass


# <stdint.h>'s limits, which headers use as "none" markers.
LIMITS = {"UINT8_MAX": 0xff, "UINT16_MAX": 0xffff, "UINT32_MAX": 0xffffffff,
          "UINT64_MAX": 0xffffffffffffffff, "INT32_MAX": 0x7fffffff,
          "INT64_MAX": 0x7fffffffffffffff}


def evaluate(expr, known):
    """An integer constant expression of #define or enum, or None."""
    known = {**LIMITS, **known}
    expr = INT_SUFFIX.sub(r"\1", expr.strip())
    expr = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: str(known[m.group()])
                  if isinstance(known.get(m.group()), int) else m.group(), expr)
    if not SAFE_EXPR.match(expr) or re.search(r"[A-Za-z_]", re.sub(r"0[xX][0-9a-fA-F]+", "", expr)):
        return None
    try:
        value = eval(expr.replace("/", "//"), {"__builtins__": {}})    # digits and operators only
    except (SyntaxError, TypeError, ZeroDivisionError):
        return None
    return value if isinstance(value, int) else None


def read_constants(text, known):
    """#defines (integers and strings) and enum members, in order of appearance."""
    found = {}
    items = [(m.start(), "define", m) for m in DEFINE.finditer(text)] + \
            [(m.start(), "enum", m) for m in ENUM.finditer(text)]
    for _, kind, m in sorted(items, key=lambda item: item[0]):
        if kind == "define":
            name, value = m.group(1), m.group(2)
            if "(" in name:
                continue
            string = re.fullmatch(r'"([^"\\]*)"', value)
            number = evaluate(value, {**known, **found})
            if string:
                found[name] = string.group(1)
            elif number is not None:
                found[name] = number
            continue
        following = 0
        values = []
        for entry in m.group(2).split(","):
            entry = entry.strip()
            if not entry:
                continue
            name, _, value = entry.partition("=")
            name = name.strip()
            if value.strip():
                following = evaluate(value, {**known, **found})
                if following is None:
                    raise LayoutError(f"enum {m.group(1)}: cannot evaluate {entry!r}")
            found[name] = following
            values.append(following)
            following += 1
        if any(v < 0 for v in values):
            SIGNED_ENUMS.add(m.group(1))
    return found


def member_type(ctype, structs):
    """(size, align, code) of a member's C type; code is a struct code or 'struct NAME'."""
    ctype = " ".join(ctype.split())
    if ctype in SCALARS:
        size, code = SCALARS[ctype]
        return size, size, code
    if ctype.startswith("enum "):
        return ENUM_SIZE, ENUM_SIZE, "i" if ctype[5:] in SIGNED_ENUMS else "I"
    if ctype.startswith("struct ") and ctype[7:] in structs:
        inner = structs[ctype[7:]]
        return inner["size"], inner["align"], ctype
    return None


def read_struct(name, body, constants, structs, strict=False):
    """A structure's layout, or None when it uses what this reader does not know
    (strict: a LayoutError naming the member instead, so no structure is left out
    unseen)."""
    def unknown(declaration):
        if strict:
            raise LayoutError(f"struct {name}: cannot describe the member "
                              f"{' '.join(declaration.split())!r}")
        return None

    offset, align, fields = 0, 1, []
    declarations = [d.strip() for d in body.split(";") if d.strip()]
    for k, declaration in enumerate(declarations):
        if "(" in declaration or ":" in declaration or "*" in declaration or \
                declaration.startswith("union"):
            return unknown(declaration)
        m = MEMBER.match(declaration)
        kind = member_type(m.group(1), structs) if m else None
        if not kind:
            return unknown(declaration)
        size, member_align, code = kind
        for declarator in m.group(2).split(","):
            d = DECLARATOR.match(declarator.strip())
            if not d:
                return unknown(declaration)
            count = None
            if d.group(2) is not None:
                if d.group(2) == "":
                    if k != len(declarations) - 1:
                        return unknown(declaration)
                    count = 0       # a flexible array: no bytes of its own
                else:
                    count = evaluate(d.group(2), constants)
                    if count is None or count <= 0:
                        return unknown(declaration)
            offset = -(-offset // member_align) * member_align
            fields.append((d.group(1), offset, code, count))
            offset += size * (1 if count is None else count)
            align = max(align, member_align)
    if not fields:
        return unknown(body)
    return {"size": -(-offset // align) * align, "align": align, "fields": fields}


def read_header(path, known_constants, structs, strict=False):
    with open(path) as f:
        text = COMMENTS.sub(" ", f.read())
    text = re.sub(r"\\\n", " ", text)
    constants = read_constants(text, known_constants)
    own_structs = {}
    for m in STRUCT.finditer(text):
        layout = read_struct(m.group(1), m.group(2), {**known_constants, **constants},
                             {**structs, **own_structs}, strict)
        if layout:
            own_structs[m.group(1)] = layout
    return constants, own_structs


def include_name(path):
    """How #include names a header: the path after its include/ folder."""
    parts = os.path.normpath(path).split(os.sep)
    return "/".join(parts[len(parts) - 1 - parts[::-1].index("include") + 1:]) \
        if "include" in parts else os.path.basename(path)


def generate(headers, constants_only=()):
    constants, structs, all_constants, included = {}, {}, {}, []
    for path in list(headers) + list(constants_only):
        name = os.path.basename(path)
        if name in constants:
            raise LayoutError(f"two headers named {name}: CONSTANTS is keyed by file name")
        c, s = read_header(path, all_constants, structs)
        constants[name] = c
        all_constants.update(c)
        included.append(include_name(path))
        if path in constants_only:
            continue
        for sname, layout in s.items():
            structs[sname] = dict(layout, header=name)
    sources = " ".join(os.path.relpath(h) for h in list(headers) + list(constants_only))
    return (f'# Generated by tools/gen_layouts.py from {sources}: do not edit.\n'
            f'"""The layouts and constants of the kernel\'s headers, for the host\n'
            f'(host/scionhost/layouts.py reads this)."""\n\n'
            f"# Every header read, as #include names it; those read for constants alone.\n"
            f"HEADERS = {pprint.pformat(included, width=100)}\n"
            f"CONSTANT_HEADERS = {pprint.pformat([include_name(h) for h in constants_only], width=100)}\n\n"
            f"CONSTANTS = {pprint.pformat(constants, width=100, sort_dicts=False)}\n\n"
            f"# name: size, align, header, fields [(name, offset, code, count)]; code is a\n"
            f"# struct code ('c': char) or 'struct NAME'; count None: one, 0: a flexible array.\n"
            f"STRUCTS = {pprint.pformat(structs, width=100, sort_dicts=False)}\n")


def wire_fields(layout, structs, prefix="", base=0):
    """(path, offset, size, count) of every multi-byte integer member, nested ones flattened."""
    for fname, offset, code, count in layout["fields"]:
        if count == 0:
            continue                        # a flexible array: not part of the structure
        if code.startswith("struct "):
            inner = structs[code[len("struct "):]]
            for k in range(count or 1):
                path = f"{prefix}{fname}" + (f"[{k}]" if count else "")
                yield from wire_fields(inner, structs, path + ".",
                                       base + offset + k * inner["size"])
            continue
        size = SCALAR_CODES.get(code)
        if size and size > 1:
            yield (prefix + fname, base + offset, size, count or 1)


# struct code -> bytes (enums are "i" or "I": four bytes, as in SCALARS)
SCALAR_CODES = {code: size for size, code in SCALARS.values()}


def generate_c_wire(headers):
    """The kernel's per-structure wire descriptors (a C header), from headers."""
    structs, all_constants, order = {}, {}, []
    for path in headers:
        # Strict: a structure of a wire header that cannot be described would
        # cross the wire unconverted, so the build stops and names its member.
        try:
            c, s = read_header(path, all_constants, structs, strict=True)
        except LayoutError as e:
            raise LayoutError(f"{path}: {e}") from None
        all_constants.update(c)
        for sname, layout in s.items():
            structs[sname] = layout
            order.append(sname)
    sources = " ".join(os.path.relpath(h) for h in headers)
    out = [f"/* Generated by tools/gen_layouts.py --c-wire from {sources}: do not edit. */",
           "/*",
           " * Each structure's multi-byte integer members (offset, size, count), for",
           " * the channel's byte-order conversion (scion/chan_wire.h); every entry is",
           " * checked against the compiler's offsetof and sizeof.",
           " */",
           "#ifndef CHAN_WIRE_LAYOUTS_H", "#define CHAN_WIRE_LAYOUTS_H", "",
           "#include <stddef.h>", "#include <scion/chan_wire.h>"]
    out += [f"#include <{include_name(h)}>" for h in headers]
    out.append("")
    for sname in order:
        fields = list(wire_fields(structs[sname], structs))
        if any(count > 255 or offset > 0xffff for _, offset, _, count in fields):
            raise LayoutError(f"struct {sname}: too large for a wire descriptor")
        array = "NULL"
        if fields:
            array = f"chan_wire_fields_{sname}"
            out.append(f"static const struct chan_wire_field {array}[] __attribute__((unused)) = {{")
            out += [f"\t{{ {offset}, {size}, {count} }},\t/* {path} */"
                    for path, offset, size, count in fields]
            out.append("};")
            for path, offset, size, count in fields:
                member = re.sub(r"\[\d+\]$", "", path) if count > 1 else path
                out.append(f"_Static_assert(offsetof(struct {sname}, {path}) == {offset} && "
                           f"sizeof(((struct {sname} *)0)->{member}) == {size * count}, "
                           f"\"{sname}.{path}: descriptor differs\");")
        out.append(f"static const struct chan_wire_layout chan_wire_{sname} __attribute__((unused)) = "
                   f"{{ \"{sname}\", {structs[sname]['size']}, {len(fields)}, {array} }};")
        out.append(f"_Static_assert(sizeof(struct {sname}) == {structs[sname]['size']}, "
                   f"\"{sname}: size differs\");")
        out.append("")
    out.append("/* Every descriptor, for the host's check (tests/integration/test_layouts.py). */")
    out.append("#define CHAN_WIRE_ALL(X) \\")
    out += [f"\tX({sname}) \\" for sname in order]
    out += ["", "#endif", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("headers", nargs="+")
    ap.add_argument("--constants-only", nargs="+", default=[], metavar="HEADER",
                    help="headers whose constants (not structures) the host reads")
    ap.add_argument("--c-wire", action="store_true",
                    help="write the kernel's C wire descriptors of the headers' structures")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    try:
        text = generate_c_wire(args.headers) if args.c_wire else \
            generate(args.headers, args.constants_only)
    except (OSError, LayoutError) as e:
        sys.exit(f"gen_layouts: {e}")
    tmp = args.output + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.output)


if __name__ == "__main__":
    main()
