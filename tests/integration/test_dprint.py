# SPDX-License-Identifier: BSD-2-Clause
"""print() laid out by its C type (host/scionhost/dprint.py, the type
description of host/dtrace/dt_print_type.c), without QEMU: dtc compiles a
program declaring a struct of every kind of member (chars, signed and
unsigned integers, signed and unsigned bit-fields, a bool through a
typedef, an enum with a value it does not name, a char array, an int
array, a nested struct, a union, pointers, a float); Python's ctypes,
which lays structs out as the C compiler does, fills the same struct with
known values; the print action's description and those bytes must give
exactly the text illumos dtrace prints, for the little-endian kernel
and (dtc -B, ctypes' big-endian structures) the big-endian one."""

import ctypes
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "host"))
from scionhost.dprint import print_value  # noqa: E402

DECLS = """
enum colour { RED, GREEN = 5, BLUE };
struct inner { short s; unsigned char u8; };
union word { unsigned int u; char c; };
struct sample {
	char c;
	signed char nonprint;
	int neg;
	unsigned int f3 : 3;
	int sf5 : 5;
	unsigned int f20 : 20;
	unsigned long big;
	enum colour col;
	enum colour odd;
	char name[6];
	int arr[3];
	struct inner in;
	union word w;
	struct sample *next;
	void *nothing;
	double d;
};
BEGIN { print(*(struct sample *)alloca(sizeof (struct sample))); }
"""

EXPECTED = """struct sample {
    c = 'A'
    nonprint = '\\001'
    neg = 0xfffffffe
    f3 = 0x5
    sf5 = 0xfffffffd
    f20 = 0xabcde
    big = 0xfedcba9876543210
    col = GREEN
    odd = 0x9
    name = [ "hi" ]
    arr = [ 0x1, 0xffffffff, 0x3 ]
    in = {
        s = 0xfff9
        u8 = 0xc8
    }
    w = {
        u = 0x44444444
        c = 'D'
    }
    next = 0x1000
    nothing = NULL
    d = 2.5
}"""


def ctypes_struct(base):
    class Inner(base):
        _fields_ = [("s", ctypes.c_short), ("u8", ctypes.c_ubyte)]

    class Sample(base):
        _fields_ = [("c", ctypes.c_char), ("nonprint", ctypes.c_byte), ("neg", ctypes.c_int),
                    ("f3", ctypes.c_uint, 3), ("sf5", ctypes.c_int, 5),
                    ("f20", ctypes.c_uint, 20), ("big", ctypes.c_ulong), ("col", ctypes.c_int),
                    ("odd", ctypes.c_int), ("name", ctypes.c_char * 6),
                    ("arr", ctypes.c_int * 3), ("inner", Inner), ("w", ctypes.c_uint),
                    ("next", ctypes.c_uint64), ("nothing", ctypes.c_uint64),
                    ("d", ctypes.c_double)]

    s = Sample()
    s.c, s.nonprint, s.neg = b"A", 1, -2
    s.f3, s.sf5, s.f20 = 5, -3, 0xabcde
    s.big, s.col, s.odd = 0xfedcba9876543210, 5, 9
    s.name = b"hi"
    s.arr[0], s.arr[1], s.arr[2] = 1, -1, 3
    s.inner.s, s.inner.u8 = -7, 200
    s.w = 0x44444444        # union word: its u, whose first byte is its c
    s.next, s.nothing, s.d = 0x1000, 0, 2.5
    return bytes(s)


def print_action(big_endian):
    dtc = os.path.join(ROOT, "build", "host", "dtc")
    argv = [dtc] + (["-B"] if big_endian else []) + ["-n", DECLS]
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(r.stderr)
    return json.loads(r.stdout)["clauses"][0]["actions"][0]


def check(ctx, name, big_endian):
    try:
        act = print_action(big_endian)
    except RuntimeError as e:
        ctx.result(name, False, str(e))
        return
    base = ctypes.BigEndianStructure if big_endian else ctypes.LittleEndianStructure
    raw = ctypes_struct(base)
    ok = act["kind"] == "print" and act["big_endian"] == big_endian and \
        act["data"]["size"] == len(raw)
    text = print_value(act["ctype"], raw, None, big_endian, None) if ok else ""
    ctx.result(name, ok and text == EXPECTED, f"size {act['data']['size']} vs {len(raw)}:\n"
               f"{text}\n--- expected ---\n{EXPECTED}")


def job_print_layout(ctx):
    check(ctx, "little-endian", False)
    check(ctx, "big-endian", True)
