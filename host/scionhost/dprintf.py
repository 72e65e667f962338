# SPDX-License-Identifier: BSD-2-Clause
"""printf() and printa() formats, and the text helpers of the trace
consumer (dconsumer.py), formatted the way illumos dtrace(1M) prints.

A format is split into conversions as dtrace's libdtrace does; each is
then printed with C printf rules (flags # 0 - + space, width,
precision: Python's % operator, which follows C but for the few
cases c_int names), with dtrace's choices on top: a precision of 0 counts as
none, a negative * width left-justifies, '?' is a width of 16, %d of an
unsigned value prints as %u, the value's own width (1, 2, 4 or 8 bytes)
decides how it is read (a size prefix h, l, ll names that width: the
compiler checked it), %p is bare hex, %a/%A print kernel symbols, %Y
prints a walltimestamp as "2024 Jan  5 10:11:12" in local time.
"""

import re
import struct
import time

M64 = (1 << 64) - 1
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
INT_CONVS = "diuoxXp"
FLOAT_CONVS = "eEfgG"


class FormatError(Exception):
    """A format that does not fit its values (the compiler should have refused it)."""


def signed(value, nbytes=8):
    """value's low nbytes bytes as a two's complement integer."""
    bits = nbytes * 8
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def unsigned(value, nbytes=8):
    return value & ((1 << (nbytes * 8)) - 1)


def int_column(value, width, is_signed, quiet=False):
    """An integer as trace() and a printa() key print it: at dtrace's column
    width for its size (" %3d", " %5d", " %8d", " %16d"; bare when quiet).
    A 1-, 2- or 4-byte value is read as its type says (signed or not: the
    record description's "signed"); an 8-byte one as a long long, as dtrace
    reads it. (illumos reads a narrow one by its size alone: 1 and 2 bytes
    unsigned, 4 signed, so it prints trace((int8_t)-1) as 255.)"""
    w = width if width in (1, 2, 4) else 8
    v = signed(value, w) if is_signed or w == 8 else unsigned(value, w)
    return ("%d" if quiet else {8: " %16d", 4: " %8d", 2: " %5d", 1: " %3d"}[w]) % v


def cdiv(a, b):
    """C's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


class Int:
    """An integer as recorded: value (its bits), the D type's width in bytes,
    its signedness, and the normalization it is divided by when printed."""
    __slots__ = ("value", "width", "signed", "normal")

    def __init__(self, value, width=8, is_signed=True, normal=1):
        self.value, self.width, self.signed, self.normal = value, width, is_signed, normal

    def as_signed(self, nbytes=None):
        n = nbytes or self.width
        v = signed(self.value, n)
        if n < 8:
            return cdiv(v, signed(self.normal, 4) or 1)
        return cdiv(v, signed(self.normal) or 1)

    def as_unsigned(self, nbytes=None):
        n = nbytes or self.width
        return unsigned(self.value, n) // (unsigned(self.normal, 4 if n < 8 else 8) or 1)


class Float:
    """A float or double as recorded: its bits (4 or 8 bytes, the machine's
    IEEE 754 value, sent little-endian like every datum)."""
    __slots__ = ("value",)

    def __init__(self, bits, width):
        fmt = "<f" if width == 4 else "<d"
        self.value = struct.unpack(fmt, (bits & ((1 << (8 * width)) - 1)).to_bytes(width,
                                                                                   "little"))[0]


def float_column(value, quiet=False):
    """trace() of a float or double: %g, at the column width of an 8-byte integer."""
    return ("%g" if quiet else " %16g") % value


class Str:
    """A string as recorded: its bytes, NUL-padded."""
    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data

    def text(self):
        return decode(self.data)


class Text:
    """Output that ignores the conversion (a histogram printed by %@)."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


def decode(data):
    """A C string (up to the first NUL) as text."""
    return data.split(b"\0", 1)[0].decode("utf-8", "replace")


# --- C printf --------------------------------------------------------------

def c_int(value, conv, flags, width, prec):
    """One integer conversion as C's printf prints it; value is already
    signed (d, i) or unsigned (u, o, x, X). Python's % operator does the
    work; it differs from C in four places, handled first: '#' with o
    (C raises the precision until the first digit is 0, Python writes
    0o), '#' with x or X of zero (C writes no 0x), '0' with a precision
    and '+' or ' ' with an unsigned conversion (C ignores the flag)."""
    if conv not in "di":
        flags = flags.replace("+", "").replace(" ", "")
    if "-" in flags:
        flags = flags.replace("0", "")
    if prec == 0 and value == 0:          # C prints no digits (dtrace passes no 0 precision)
        text = ("0" if conv == "o" and "#" in flags else
                "+" if "+" in flags else " " if " " in flags else "")
        return c_str(text, flags, width)
    if prec is not None:
        flags = flags.replace("0", "")
    if "#" in flags and (conv == "o" or value == 0):
        if conv == "o":
            digits = "%o" % value
            if not digits.startswith("0"):
                prec = max(prec or 0, len(digits) + 1)
        flags = flags.replace("#", "")
        if prec is not None and "0" in flags:    # the zeros pad, as C's 0 flag does
            prec, flags = max(prec, width), flags.replace("0", "")
    spec = "%" + "".join(f for f in "#0-+ " if f in flags) + (str(width) if width else "")
    if prec is not None:
        spec += ".%d" % prec
    return (spec + ("d" if conv in "diu" else conv)) % value


def c_str(text, flags, width, prec=None):
    """%s: precision truncates, width pads (Python's %s, as C's)."""
    spec = "%" + ("-" if "-" in flags else "") + (str(width) if width else "")
    return (spec + ("" if prec is None else ".%d" % prec) + "s") % text


# --- format parsing --------------------------------------------------------

class Conv:
    """A piece of a format: the literal text before a conversion, then the
    conversion (name None for the trailing text)."""
    __slots__ = ("prefix", "name", "flags", "width", "prec", "dynwidth", "dynprec", "agg")

    def __init__(self, prefix):
        self.prefix, self.name, self.flags = prefix, None, ""
        self.width, self.prec, self.dynwidth, self.dynprec = 0, 0, False, False
        self.agg = False


_FLAG_CHARS = {"#": "#", "+": "+", " ": " ", "'": "'"}


def parse(fmt):
    """Split fmt into Convs the way libdtrace does: a '0' is a flag only
    before any digit and clears '-', a '-' clears '0'."""
    pieces, i, start, n = [], 0, 0, len(fmt)
    while True:
        i = fmt.find("%", start)
        if i < 0:
            if start < n or not pieces:
                pieces.append(Conv(fmt[start:]))
            return pieces
        c = Conv(fmt[start:i])
        pieces.append(c)
        flags, digits, dot, j = set(), 0, False, i + 1
        while j < n:
            ch = fmt[j]
            if ch.isdigit():
                if not dot and not digits and ch == "0":
                    flags.add("0")
                    flags.discard("-")
                    j += 1
                    continue
                m = re.match(r"\d+", fmt[j:])
                if dot:
                    c.prec = int(m.group())
                else:
                    c.width = int(m.group())
                digits += 1
                j += len(m.group())
            elif ch in _FLAG_CHARS:
                flags.add(ch)
                j += 1
            elif ch == "-":
                flags.add("-")
                flags.discard("0")
                j += 1
            elif ch == "*":
                if dot:
                    c.dynprec = True
                else:
                    c.dynwidth = True
                j += 1
            elif ch == ".":
                dot, digits = True, 0
                j += 1
            elif ch == "@":
                c.agg = True
                j += 1
            elif ch == "?":             # dtrace: the width of a 64-bit pointer in hex
                c.width = 16
                j += 1
            elif ch in "hlLw":          # size prefixes: the value's width says it
                j += 1
            else:
                break
        if j >= n:
            raise FormatError(f"format ends inside conversion {fmt[i:]!r}")
        c.name = fmt[j]
        c.flags = "".join(f for f in "#0-+' " if f in flags)
        start = j + 1


# --- conversions -----------------------------------------------------------

def getint(arg):
    """A * width or precision: the argument as a C int."""
    if not isinstance(arg, Int):
        raise FormatError("a * width or precision needs an integer")
    return signed(signed(arg.value, arg.width), 4)


def wall_time(ns, localtime=time.localtime):
    """A walltimestamp as dtrace's %Y prints it (ctime's fields, year first)."""
    tm = localtime(cdiv(signed(ns), 1000000000))
    return "%d %s %2d %02d:%02d:%02d" % (tm.tm_year, MONTHS[tm.tm_mon - 1], tm.tm_mday,
                                        tm.tm_hour, tm.tm_min, tm.tm_sec)


_OFFSET = re.compile(r"\+0x([0-9a-fA-F]+)$")


def addr2str(addr, symbolize, return_address=False):
    """A kernel address as module`symbol+0xoff (module`symbol at the
    symbol's first byte, as dtrace prints it), or 0x... when unknown."""
    name = (symbolize(addr, return_address=True) if return_address else symbolize(addr)) \
        if symbolize else None
    if not name:
        return "0x%x" % addr
    m = _OFFSET.search(name)
    return name[:m.start()] if m and int(m.group(1), 16) == 0 else name


def convert(c, arg, flags, width, prec, symbolize, localtime=time.localtime):
    """The text of one conversion c of arg."""
    if isinstance(arg, Text):
        return arg.text
    name = c.name
    if isinstance(arg, Str):
        if name == "s":
            return c_str(arg.text(), flags, width, prec)
        raise FormatError(f"%{name} cannot print a string")
    if isinstance(arg, Float):
        if name not in FLOAT_CONVS:
            raise FormatError(f"%{name} cannot print a floating-point value")
        spec = "%" + "".join(f for f in "#0-+ " if f in flags) + (str(width) if width else "")
        return (spec + ("" if prec is None else ".%d" % prec) + name) % arg.value
    if not isinstance(arg, Int):
        raise FormatError(f"%{name} cannot print this value")
    if name in "aA":
        return c_str(addr2str(arg.as_unsigned(8 if arg.width == 8 else 4), symbolize),
                     flags, width, prec)
    if name == "Y":
        return c_str(wall_time(arg.as_unsigned(8), localtime), flags, width, prec)
    if name == "c":
        return c_str(chr(arg.as_signed() & 0xff), flags, width)
    if name not in INT_CONVS:
        raise FormatError(f"%{name} is not a conversion")
    if name in "di" and not arg.signed:
        name = "u"
    if name in "di":
        return c_int(arg.as_signed(), name, flags, width, prec)
    return c_int(arg.as_unsigned(), "x" if name == "p" else name, flags, width, prec)


def render(pieces, args, aggs=(), symbolize=None, localtime=time.localtime):
    """Text of a parsed format: args feed the conversions (and their *
    widths) in order; aggs feed the %@ conversions, the last one again
    when there are more %@ than aggs. localtime turns seconds into a
    struct_time for %Y."""
    out, it, cur = [], iter(args), 0
    for c in pieces:
        out.append(c.prefix)
        if c.name is None:
            continue
        if c.name == "%":
            out.append("%")
            continue
        try:
            width = getint(next(it)) if c.dynwidth else c.width
            prec = getint(next(it)) if c.dynprec else c.prec
            if c.agg:
                if not aggs:
                    raise FormatError("%@ without an aggregation")
                arg = aggs[cur]
                cur = min(cur + 1, len(aggs) - 1)
            else:
                arg = next(it)
        except StopIteration:
            raise FormatError("the format has more conversions than values") from None
        flags = c.flags if width >= 0 else c.flags + "-"
        out.append(convert(c, arg, flags, abs(width), prec if prec > 0 else None, symbolize,
                           localtime))
    return "".join(out)


# --- dtrace's other text ---------------------------------------------------

def _printable(b):
    return 0x20 <= b < 0x7f or b in b"\t\n\v\f\r\b\a"


def print_bytes(data, width, quiet, raw=False):
    """A traced byte string: as a string when it looks like one (printable
    bytes, then only NULs), else as a hex dump (so "" dumps, as in dtrace)."""
    if not data:
        return ""
    if not raw:
        i = 0
        while i < len(data) and _printable(data[i]):
            i += 1
        if i == len(data):
            return "  " + c_str(data.decode("utf-8", "replace"), "-", abs(width))
        if data[i] == 0 and i > 0 and not any(data[i:]):
            text = data[:i].decode("utf-8", "replace")
            if quiet:
                return text
            return " " + (" " if width < 0 else "") + c_str(text, "-" if width < 0 else "",
                                                            abs(width))
    lines = ["\n" + " " * 11 + "".join("  %x" % i for i in range(16)) + "  0123456789abcdef\n"]
    for off in range(0, len(data), 16):
        row = data[off:off + 16]
        hexes = "".join(" %02x" % b for b in row) + "   " * (16 - len(row))
        chars = "".join(chr(b) if 0x20 <= b <= 0x7e else "." for b in row)
        lines.append("     %5x:%s  %s\n" % (off, hexes, chars))
    return "".join(lines)


def print_stack(data, indent, symbolize):
    """stack(): a newline, then a frame a line (module`symbol+0xoff),
    indented, up to the first zero PC. Frames after the first are return
    addresses, named by the byte before them."""
    out = ["\n"]
    for off in range(0, len(data) - 7, 8):
        pc = int.from_bytes(data[off:off + 8], "little")
        if pc == 0:
            break
        out.append(" " * indent + addr2str(pc, symbolize, return_address=off > 0) + "\n")
    return "".join(out)


def sym_name(addr, symbolize):
    """func()/sym(): module`symbol without the offset, or 0x... ."""
    name = symbolize(addr) if symbolize else None
    return _OFFSET.sub("", name) if name else "0x%x" % addr


def sym_start(addr, symbolize):
    """The address of the symbol holding addr (addr itself when unknown)."""
    name = symbolize(addr) if symbolize else None
    m = _OFFSET.search(name) if name else None
    return addr - int(m.group(1), 16) if m else addr
