# SPDX-License-Identifier: BSD-2-Clause
"""The `scion trace` consumer (host/scionhost/dconsumer.py) without
QEMU: synthetic dtc metadata, records and aggregation chunks laid out as
kernel/include/scion/dof.h says, and the exact text illumos dtrace(1M)
prints for them: default and quiet records, printf conversions, printa
of every aggregating function, histograms, joined aggregations, the
aggsort* options, clear/trunc/normalize, drops, errors, exit and the
aggregations printed at the end.

Run alone with `python3 tests/integration/test_dconsumer.py`."""

import io
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
from scionhost.dconsumer import FAULTS, Consumer
from scionhost.layouts import C, layout

M64 = (1 << 64) - 1
# The trace records of scion/dof.h, as the kernel writes them.
RECHDR = layout("dof_rechdr", "epid", "probe_id", "timestamp")
AGGENT = layout("dof_aggent", "agg", "keybytes", "valbytes")
STATUS = layout("dof_status", "dynvar_drops", "spec_drops", "spec_unavail", "agg_drops", "errors",
                "flags", "exit_status", "filled_cpus")
ERROR = layout("dof_error", "epid", "action", "pc", "fault", "addr")
PROBES = {1: ("dtrace", "", "", "BEGIN"), 2: ("dtrace", "", "", "END"),
          3: ("dtrace", "", "", "ERROR"),
          12: ("fbt", "kernel", "bcache_read", "entry"),
          13: ("fbt", "kernel", "bcache_read", "return"),
          14: ("fbt", "kernel", "vfs_read", "entry"),
          15: ("fbt", "kernel", "vfs_read", "return")}
SYMBOLS = [(0xffffffff80101000, 0x100, "bcache_read"), (0xffffffff80102000, 0x80, "vfs_read")]
BCACHE, VFS = SYMBOLS[0][0], SYMBOLS[1][0]
HEAD = "CPU     ID                    FUNCTION:NAME\n"
HIST = "           value  ------------- Distribution ------------- count    \n"


def symbolize(addr, return_address=False):
    look = addr - 1 if return_address else addr
    for start, size, name in SYMBOLS:
        if start <= look < start + size:
            return "kernel`%s+0x%x" % (name, addr - start) if addr > start else "kernel`" + name
    return None


# --- metadata and data as dtc and the kernel lay them out -----------------------

class Layout:
    """A clause's record: fields at 16, 24, ... (each at a multiple of 8)."""

    def __init__(self):
        self.size, self.fields = 16, []

    def _add(self, typ, size, **kw):
        d = {"offset": self.size, "type": typ, "size": size, "signed": kw.get("signed", True),
             "width": kw.get("width", 8), "sym": kw.get("sym", "none"),
             "frames": kw.get("frames", 0)}
        self.fields.append(size)
        self.size += (size + 7) & ~7
        return d

    def int(self, width=8, signed=True, sym="none"):
        return self._add("int", 8, width=width, signed=signed, sym=sym)

    def str(self, size=32):
        return self._add("string", size)

    def stack(self, frames):
        return self._add("stack", 8 * frames, frames=frames)

    def record(self, epid, probe, ts, *values):
        out = RECHDR.pack(epid=epid, probe_id=probe, timestamp=ts)
        for size, v in zip(self.fields, values):
            if isinstance(v, int):
                v = (v & M64).to_bytes(8, "little")
            elif isinstance(v, str):
                v = v.encode()
            elif isinstance(v, list):
                v = b"".join((x & M64).to_bytes(8, "little") for x in v)
            v = v.ljust(size, b"\0")
            out += v + b"\0" * (-len(v) % 8)
        return out


def key(typ="int", size=8, width=8, signed=True, sym="none"):
    return {"type": typ, "size": size, "signed": signed, "width": width, "sym": sym, "frames": 0}


def agg(aid, func, keys=(), name="", lq=None, llq=None):
    return {"id": aid, "name": name, "func": func, "keys": list(keys), "lquantize": lq,
            "llquantize": llq}


def entry(aid, keys, vals):
    """One struct dof_aggent as the kernel writes it: keys are ints, (text,
    size) or bytes, each item padded to 8 bytes."""
    kb = b"".join((k & M64).to_bytes(8, "little") if isinstance(k, int) else
                  k if isinstance(k, bytes) else k[0].encode().ljust((k[1] + 7) & ~7, b"\0")
                  for k in keys)
    out = AGGENT.pack(agg=aid, keybytes=len(kb), valbytes=8 * len(vals)) + kb + \
        b"".join((v & M64).to_bytes(8, "little") for v in vals)     # values: D's u64s
    return out + b"\0" * (-len(out) % 8)


def status(dyn=0, spec=0, unavail=0, aggd=0, errors=0, flags=0, exit_status=0, filled=0):
    return STATUS.pack(dynvar_drops=dyn, spec_drops=spec, spec_unavail=unavail, agg_drops=aggd,
                       errors=errors, flags=flags, exit_status=exit_status, filled_cpus=filled)


def quantize(*values):
    """127 quantize buckets holding values (as the kernel counts them)."""
    b = [0] * 127
    for v in values:
        if v == 0:
            b[63] += 1
        elif v > 0:
            b[63 + v.bit_length()] += 1
        else:
            b[63 - (-v).bit_length()] += 1
    return b


class Session:
    """A Consumer over clauses [(probe id, layout or None, actions)]:
    clause i has EPID i + 1."""

    def __init__(self, clauses, aggs=(), quiet=False, localtime=time.gmtime, kind=Consumer,
                 clock=time.monotonic, **options):
        meta = {"options": dict(options, quiet=int(quiet)), "aggs": list(aggs), "clauses": []}
        epids = {}
        for i, (probe, layout, actions) in enumerate(clauses):
            meta["clauses"].append({"index": i, "probes": ["%s:%s:%s:%s" % PROBES[probe]],
                                    "record": True, "default_action": not actions,
                                    "size": layout.size if layout else 16, "actions": actions})
            epids[i + 1] = (i, probe)
        self.out, self.err = io.StringIO(), io.StringIO()
        self.consumer = kind(meta, epids, PROBES.get, symbolize, self.out, self.err,
                             localtime=localtime, clock=clock)

    def snap(self, records=(), aggs=b"", stat=None):
        """records: [(cpu, bytes)] or [(cpu, bytes, drops)]; aggs: one chunk or [(cpu, chunk)]."""
        recs = [r if len(r) == 3 else (r[0], r[1], 0) for r in records]
        chunks = [(0, aggs)] if isinstance(aggs, bytes) else list(aggs)
        self.consumer.snapshot(recs, chunks, stat)
        return self

    def text(self, finish=True):
        if finish:
            self.consumer.finish()
        return self.out.getvalue()


def rec(epid, probe, ts, *values):
    return Layout().record(epid, probe, ts, *values)


def expect(ctx, name, got, want):
    detail = ""
    if got != want:
        gl, wl = got.splitlines(True), want.splitlines(True)
        i = next((i for i, (g, w) in enumerate(zip(gl, wl)) if g != w), min(len(gl), len(wl)))
        detail = "line %d: got %r, expected %r" % (i + 1, gl[i] if i < len(gl) else "<end>",
                                                   wl[i] if i < len(wl) else "<end>")
    ctx.result(name, got == want, detail)


# --- records -------------------------------------------------------------------

def _record_session(quiet):
    a, stk, p = Layout(), Layout(), Layout()
    fields = [a.int(), a.int(width=4), a.int(width=2), a.int(width=1, signed=False), a.str(),
              a.int(sym="func")]
    frames = stk.stack(4)
    s, v = p.str(), p.int()
    s_ = Session([(1, a, [{"kind": "trace", "data": d} for d in fields]),
                  (12, None, []),
                  (12, stk, [{"kind": "stack", "data": frames}]),
                  (2, p, [{"kind": "printf", "format": "%s=%d\n", "args": [s, v]}])], quiet=quiet)
    cpu0 = a.record(1, 1, 100, -5, -1, -1, 200, "hello", BCACHE + 0x12) + \
        stk.record(3, 12, 400, [BCACHE + 0x12, VFS + 0x10, 0xffff800000001234, 0])
    cpu1 = rec(2, 12, 300) + p.record(4, 2, 500, "x", 7)
    return s_.snap([(0, cpu0), (1, cpu1)]).text()


def job_records(ctx):
    stack = ("\n" + " " * 14 + "kernel`bcache_read+0x12\n" + " " * 14 + "kernel`vfs_read+0x10\n" +
             " " * 14 + "0xffff800000001234\n")
    expect(ctx, "default-output", _record_session(False),
           HEAD +
           "  0      1" + " " * 27 + ":BEGIN " + " " * 15 + "-5" + " " * 7 + "-1    -1 200"
           "  hello" + " " * 28 + "  kernel`bcache_read" + " " * 32 + "\n" +
           "  1     12" + " " * 16 + "bcache_read:entry \n" +
           "  0     12" + " " * 16 + "bcache_read:entry " + stack + "\n" +
           "  1      2" + " " * 29 + ":END x=7\n\n" +
           "\n")
    expect(ctx, "quiet-output", _record_session(True),
           "-5-1-1200hello  kernel`bcache_read" + " " * 32 + stack + "x=7\n" + "\n")

    # a string dtrace does not take for one (empty, or bytes after its NUL) is dumped
    lay = Layout()
    d = lay.str(16)
    s = Session([(1, lay, [{"kind": "trace", "data": d}] * 1)], quiet=True)
    dump = ("\n" + " " * 11 + "  0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n"
            + " " * 9 + "0:" + " 00" * 16 + "  " + "." * 16 + "\n")
    expect(ctx, "empty-string-dumps", s.snap([(0, lay.record(1, 1, 1, ""))]).text(False), dump)
    s = Session([(1, lay, [{"kind": "trace", "data": d}])], quiet=True)
    expect(ctx, "binary-string-dumps", s.snap([(0, lay.record(1, 1, 1, b"ab\x01c"))]).text(False),
           "\n" + " " * 11 + "  0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n"
           + " " * 9 + "0: 61 62 01 63" + " 00" * 12 + "  ab.c" + "." * 12 + "\n")


def job_timestamp_order(ctx):
    lay = Layout()
    d = lay.int()
    s = Session([(1, lay, [{"kind": "printf", "format": "%d ", "args": [d]}])], quiet=True)
    s.snap([(0, lay.record(1, 1, 50, 1) + lay.record(1, 1, 300, 4) + lay.record(1, 1, 300, 5)),
            (1, lay.record(1, 1, 100, 2) + lay.record(1, 1, 300, 6)),
            (2, lay.record(1, 1, 200, 3))])
    expect(ctx, "merged-by-timestamp-stable", s.text(False), "1 2 3 4 5 6 ")


def job_flowindent(ctx):
    s = Session([(12, None, []), (14, None, []), (15, None, []), (13, None, []), (1, None, [])],
                flowindent=1)
    s.snap([(0, rec(5, 1, 1) + rec(1, 12, 2) + rec(2, 14, 3) + rec(3, 15, 4) + rec(4, 13, 5))])
    line = lambda name: "  0 " + name.ljust(41) + " \n"  # noqa: E731
    expect(ctx, "flowindent", s.text(False),
           "CPU FUNCTION" + " " * 33 + "\n" + line("| :BEGIN") + line(" -> bcache_read") +
           line("   -> vfs_read") + line("   <- vfs_read") + line(" <- bcache_read"))


# --- printf --------------------------------------------------------------------

PRINTF_CASES = [
    ("%d %i %u|%5d|%-5d|%05d|%+d|% d|%x|%X|%#x|%#o|%o\n",
     [(-42, 4), (7, 4), (3000000000, 4, False), 42, 42, 42, 42, 42, 255, 255, 255, 8, 8],
     "-42 7 3000000000|   42|42   |00042|+42| 42|ff|FF|0xff|010|10\n"),
    ("%d|%d|%u|%x|%d|%u\n", [(M64, 8, False), -1, (-1, 4), (-1, 2), (-2, 1), (-2, 1)],
     "18446744073709551615|-1|4294967295|ffff|-2|254\n"),
    ("%c%c|%3c|%-3c|\n", [104, 105, 120, 121], "hi|  x|y  |\n"),
    ("%s|%10s|%-10s|%.3s|%*s|%-*s|%.*s|%*d|%.0s|\n",
     ["hello", "hello", "hello", "hello", (7, 4), "abc", (7, 4), "abc", (2, 4), "abc", (-6, 4), 42,
      "hi"],
     "hello|     hello|hello     |hel|    abc|abc    |ab|42    |hi|\n"),
    ("%p %a %a %A %a\n", [(BCACHE + 0x12, 8, False), BCACHE + 0x12, VFS, 0x1234, BCACHE],
     "ffffffff80101012 kernel`bcache_read+0x12 kernel`vfs_read 0x1234 kernel`bcache_read\n"),
    # size prefixes name the value's own type (the compiler checks it): read at its width
    ("%hd %hx %hu %ld %lld %lu %llx %lx|%?d|%-?x|\n",
     [(-2, 2), (-1, 2), (-1, 2, False), -1, 5, (-1, 8, False), (-1, 8, False), -1, 42, 255],
     "-2 ffff 65535 -1 5 18446744073709551615 ffffffffffffffff ffffffffffffffff|"
     "              42|ff              |\n"),
    ("%Y|%22Y|%-22Y|\n", [1062609821 * 10**9 + 5] * 3,
     "2003 Sep  3 17:23:41|  2003 Sep  3 17:23:41|2003 Sep  3 17:23:41  |\n"),
    ("100%% %d%%\n", [5], "100% 5%\n"),
    ("%#X %#o %.5d %8.3d %-+6d|%0-5d|%-05d|%+.2d\n", [0, 0, 42, 42, 42, 7, 7, -3],
     "0 0 00042      042 +42   |7    |00007|-03\n"),
    ("no conversions\n", [], "no conversions\n"),
]


def job_printf(ctx):
    """(%Y in UTC: Session passes time.gmtime as the consumer's localtime.)"""
    for i, (fmt, args, want) in enumerate(PRINTF_CASES):
        lay, ds, values = Layout(), [], []
        for a in args:
            if isinstance(a, str):
                ds.append(lay.str())
                values.append(a)
            else:
                v, w, sg = (a + (True,))[:3] if isinstance(a, tuple) else (a, 8, True)
                ds.append(lay.int(width=w, signed=sg))
                values.append(v)
        s = Session([(1, lay, [{"kind": "printf", "format": fmt, "args": ds}])], quiet=True)
        expect(ctx, "printf-%d %r" % (i + 1, fmt),
               s.snap([(0, lay.record(1, 1, 1, *values))]).text(False), want)


# --- printa ----------------------------------------------------------------------

def _printa_session(aggs, printas, **options):
    acts = [{"kind": "printa", "format": f, "aggs": ids} for f, ids in printas]
    return Session([(2, None, acts)], aggs, quiet=True, **options)


def job_printa_functions(ctx):
    aggs = [agg(0, "count", [key("string", 32)]), agg(1, "sum", [key(width=4)]),
            agg(2, "min", [key("string", 32), key()]), agg(3, "max"),
            agg(4, "avg", [key(width=1, signed=False)]), agg(5, "stddev"),
            agg(6, "count", [key(sym="func")])]
    data = (entry(0, [("sshd", 32)], [3]) + entry(0, [("init", 32)], [10]) +
            entry(0, [("bash", 32)], [3]) + entry(1, [5], [-20]) + entry(1, [-3], [100]) +
            entry(2, [("b", 32), 2], [4]) + entry(2, [("a", 32), 1], [-7]) + entry(3, [], [99]) +
            entry(4, [7], [3, 61]) + entry(4, [200], [1, -5]) +
            entry(5, [], [8, 40, 232, 0]) +
            entry(6, [BCACHE + 0x12], [2]) + entry(6, [VFS + 4], [1]) +
            entry(6, [BCACHE + 0x20], [3]))
    s = _printa_session(aggs, [(None, [i]) for i in range(7)]).snap([(0, rec(1, 2, 1))], data)
    expect(ctx, "default-printa-each-function", s.text(),
           "\n" + "  bash" + " " * 62 + "3\n" + "  sshd" + " " * 62 + "3\n" +
           "  init" + " " * 61 + "10\n" +
           "\n" + " " * 8 + "5" + " " * 14 + "-20\n" + " " * 7 + "-3" + " " * 14 + "100\n" +
           "\n" + "  a" + " " * 65 + "1" + " " * 15 + "-7\n" + "  b" + " " * 65 + "2" + " " * 16 +
           "4\n" +
           "\n" + " " * 15 + "99\n" +
           "\n" + " 200" + " " * 15 + "-5\n" + "   7" + " " * 15 + "20\n" +
           "\n" + " " * 16 + "2\n" +
           "\n" + "  kernel`vfs_read" + " " * 51 + "1\n" + "  kernel`bcache_read" + " " * 48 +
           "5\n" +
           "\n")


def job_printa_formats(ctx):
    aggs = [agg(0, "count", [key(sym="func")]), agg(1, "count", [key("stack", 16)]),
            agg(2, "avg"), agg(3, "quantize", [key("string", 16)]),
            agg(4, "count", [key(), key("string", 12), key(width=2, signed=False)])]
    frames = b"".join(x.to_bytes(8, "little") for x in (BCACHE + 0x12, VFS + 0x10))
    data = (entry(0, [BCACHE + 0x12], [2]) + entry(0, [BCACHE + 0x20], [3]) +
            entry(0, [VFS + 4], [1]) + entry(1, [frames], [4]) + entry(2, [], [2, -10]) +
            entry(3, [("q", 16)], quantize(1)) + entry(4, [-2, ("k", 12), 0xfffe], [1]) +
            entry(4, [-2, ("k", 12), 0xfffe], [2]))
    # the same key with its string packed to its 12 bytes (no padding) merges too
    packed = ((M64 - 1).to_bytes(8, "little") + b"k".ljust(12, b"\0") +
              (0xfffe).to_bytes(8, "little"))
    data += AGGENT.pack(agg=4, keybytes=len(packed), valbytes=8) + packed + \
        (4).to_bytes(8, "little") + b"\0" * 4
    printas = [("%a %@u\n", [0]), (None, [1]), ("%@d\n", [2]), (None, [2]), ("%s %@d|\n", [3]),
               ("%x %5.1s %d %@x\n", [4])]
    s = _printa_session(aggs, printas).snap([(0, rec(1, 2, 1))], data)
    bar = lambda n: "|" + "@" * n + " " * (40 - n)  # noqa: E731
    expect(ctx, "printa-formats-and-key-kinds", s.text(),
           "kernel`vfs_read 1\nkernel`bcache_read 5\n" +
           "\n\n" + " " * 14 + "kernel`bcache_read+0x12\n" + " " * 14 + "kernel`vfs_read+0x10\n" +
           " " * 16 + "4\n" +
           "9223372036854775803\n" +       # dtrace divides a printa("%@d") average unsigned
           "\n" + " " * 15 + "-5\n" +
           "q \n" + HIST + "               0 " + bar(0) + " 0        \n"
           "               1 " + bar(40) + " 1        \n"
           "               2 " + bar(0) + " 0        \n" "|\n" +
           "fffffffffffffffe     k 65534 7\n" +
           "\n")


def job_histograms(ctx):
    aggs = [agg(0, "quantize"), agg(1, "quantize", [key("string", 16)]),
            agg(2, "lquantize", [], lq=[0, 10, 2]),
            agg(3, "lquantize", [key(width=4)], lq=[0, 10, 2])]
    both = [0] * 127
    both[64], both[65] = -3, 1
    data = (entry(0, [], quantize(0, 1, 1, 3, 5, 5, 5, 5, 100)) +
            entry(1, [("neg", 16)], quantize(-1, -3, -3, 0)) + entry(1, [("mixed", 16)], both) +
            entry(2, [], [1, 0, 2, 0, 0, 0, 3]) + entry(3, [7], [0] * 7))
    s = _printa_session(aggs, [(None, [0]), (None, [1]), (None, [2]), (None, [3])])
    bar = lambda n: "|" + "@" * n + " " * (40 - n)  # noqa: E731
    expect(ctx, "quantize-lquantize", s.snap([(0, rec(1, 2, 1))], data).text(),
           "\n\n" + HIST +
           "              -1 " + bar(0) + " 0        \n"
           "               0 " + bar(4) + " 1        \n"
           "               1 " + bar(9) + " 2        \n"
           "               2 " + bar(4) + " 1        \n"
           "               4 " + bar(18) + " 4        \n"
           "               8 " + bar(0) + " 0        \n"
           "              16 " + bar(0) + " 0        \n"
           "              32 " + bar(0) + " 0        \n"
           "              64 " + bar(4) + " 1        \n"
           "             128 " + bar(0) + " 0        \n"
           "\n"
           "\n  neg" + " " * 47 + "\n" + HIST +
           "              -4 " + bar(0) + " 0        \n"
           "              -2 " + bar(20) + " 2        \n"
           "              -1 " + bar(10) + " 1        \n"
           "               0 " + bar(10) + " 1        \n"
           "               1 " + bar(0) + " 0        \n"
           "\n"
           "  mixed" + " " * 45 + "\n" + HIST +
           "               0 " + " " * 20 + "|" + " " * 20 + " 0        \n"
           "               1 " + " " * 5 + "@" * 15 + "|" + " " * 20 + " -3       \n"
           "               2 " + " " * 20 + "|" + "@" * 5 + " " * 15 + " 1        \n"
           "               4 " + " " * 20 + "|" + " " * 20 + " 0        \n"
           "\n"
           "\n\n" + HIST +
           "             < 0 " + bar(7) + " 1        \n"
           "               0 " + bar(0) + " 0        \n"
           "               2 " + bar(13) + " 2        \n"
           "               4 " + bar(0) + " 0        \n"
           "               6 " + bar(0) + " 0        \n"
           "               8 " + bar(0) + " 0        \n"
           "           >= 10 " + bar(20) + " 3        \n"
           "\n"
           "\n        7\n" + HIST +
           "             < 0 " + bar(0) + " 0        \n"
           "               0 " + bar(0) + " 0        \n"
           "               2 " + bar(0) + " 0        \n"
           "\n"
           "\n")


def job_printa_joined(ctx):
    aggs = [agg(0, "count", [key("string", 16)], "c"), agg(1, "sum", [key("string", 16)], "s")]
    data = (entry(0, [("a", 16)], [2]) + entry(0, [("b", 16)], [5]) +
            entry(1, [("b", 16)], [10]) + entry(1, [("z", 16)], [7]))
    printas = [(None, [0, 1]), ("%-4s %@3d %@3d\n", [0, 1]), ("%s:%@d:%@d:%@d\n", [1, 0])]
    s = _printa_session(aggs, printas).snap([(0, rec(1, 2, 1))], data)
    expect(ctx, "joined-by-key-zero-filled", s.text(),
           "\n" + "  z" + " " * 65 + "0" + " " * 16 + "7\n" +
           "  a" + " " * 65 + "2" + " " * 16 + "0\n" +
           "  b" + " " * 65 + "5" + " " * 15 + "10\n" +
           "z      0   7\na      2   0\nb      5  10\n" +
           "a:0:2:2\nz:7:0:0\nb:10:5:5\n" + "\n")
    s = _printa_session(aggs, printas[1:2], aggsortpos=1).snap([(0, rec(1, 2, 1))], data)
    expect(ctx, "aggsortpos", s.text(), "a      2   0\nz      0   7\nb      5  10\n\n")
    s = _printa_session(aggs, printas[1:2], aggsortkey=1, aggsortrev=1)
    expect(ctx, "joined-aggsortkey-aggsortrev", s.snap([(0, rec(1, 2, 1))], data).text(),
           "z      0   7\nb      5  10\na      2   0\n\n")
    # '@' after flags and width, as dtrace reads it; a third %@ prints the last aggregation again
    s = _printa_session(aggs, [("%s [%5@d] [%-5@u] [%@d]\n", [0, 1])])
    expect(ctx, "width-before-@-and-reuse", s.snap([(0, rec(1, 2, 1))], data).text(),
           "z [    0] [7    ] [7]\na [    2] [0    ] [0]\nb [    5] [10   ] [10]\n\n")


def job_sorting(ctx):
    aggs = [agg(0, "count", [key("string", 16), key(width=4)])]
    data = (entry(0, [("x", 16), 2], [1]) + entry(0, [("y", 16), 1], [1]) +
            entry(0, [("a", 16), 3], [2]) + entry(0, [("b", 16), 0], [3]))
    cases = [({}, "x 2 1\ny 1 1\na 3 2\nb 0 3\n"),
             ({"aggsortkey": 1}, "a 3 2\nb 0 3\nx 2 1\ny 1 1\n"),
             ({"aggsortkey": 1, "aggsortkeypos": 1}, "b 0 3\ny 1 1\nx 2 1\na 3 2\n"),
             ({"aggsortkeypos": 1}, "y 1 1\nx 2 1\na 3 2\nb 0 3\n"),
             ({"aggsortrev": 1}, "b 0 3\na 3 2\ny 1 1\nx 2 1\n"),
             ({"aggsortrev": 1, "aggsortkey": 1}, "y 1 1\nx 2 1\nb 0 3\na 3 2\n"),
             ({"aggsortkeypos": 7}, "x 2 1\ny 1 1\na 3 2\nb 0 3\n")]
    for opts, want in cases:
        s = _printa_session(aggs, [("%s %d %@d\n", [0])], **opts)
        expect(ctx, "sort " + (",".join("%s=%d" % kv for kv in opts.items()) or "default"),
               s.snap([(0, rec(1, 2, 1))], data).text(False), want)
    # keys compare as dtrace stores them: a negative int sorts after the positives
    aggs = [agg(0, "sum", [key(width=4)])]
    s = _printa_session(aggs, [("%d ", [0])], aggsortkey=1)
    data = entry(0, [-1], [0]) + entry(0, [2], [0]) + entry(0, [0], [0])
    expect(ctx, "signed-keys-sort-unsigned", s.snap([(0, rec(1, 2, 1))], data).text(False),
           "0 2 -1 ")


def job_clear_trunc_normalize(ctx):
    lay = Layout()
    two, minus1, ten = lay.int(), lay.int(), lay.int()
    p = {"kind": "printa", "format": "%d %@d\n", "aggs": [0]}
    acts = [p, {"kind": "normalize", "agg": 0, "data": ten}, p,
            {"kind": "denormalize", "agg": 0}, {"kind": "trunc", "agg": 0, "data": two}, p,
            {"kind": "trunc", "agg": 0, "data": minus1}, p, {"kind": "clear", "agg": 0}, p,
            {"kind": "trunc", "agg": 0, "data": None}, p]
    s = Session([(2, lay, acts)], [agg(0, "sum", [key(width=4)])], quiet=True)
    data = entry(0, [3], [30]) + entry(0, [1], [10]) + entry(0, [4], [40]) + entry(0, [2], [20])
    expect(ctx, "clear-trunc-normalize", s.snap([(0, lay.record(1, 2, 1, 2, -1, 10))], data).text(),
           "1 10\n2 20\n3 30\n4 40\n" "1 1\n2 2\n3 3\n4 4\n" "3 30\n4 40\n" "3 30\n" "3 0\n"
           "\n")

    # normalize() divides the entries it finds; later ones print as they are
    norm = Layout()
    by = norm.int()
    s = Session([(1, norm, [{"kind": "normalize", "agg": 0, "data": by}]), (2, None, [p])],
                [agg(0, "sum", [key(width=4)])], quiet=True)
    s.snap([(0, norm.record(1, 1, 1, 10))], entry(0, [1], [10]) + entry(0, [2], [20]))
    s.snap([(0, rec(2, 2, 2))], entry(0, [1], [5]) + entry(0, [9], [90]))
    expect(ctx, "normalize-then-new-entries", s.text(), "1 1\n2 2\n9 90\n\n")

    aggs = [agg(0, "quantize"), agg(1, "avg"), agg(2, "sum", [key(width=4)])]
    s = Session([(1, norm, [{"kind": "normalize", "agg": i, "data": by} for i in range(3)] +
                  [{"kind": "printa", "format": None, "aggs": [0]},
                   {"kind": "printa", "format": None, "aggs": [1]},
                   {"kind": "printa", "format": "%d %@d\n", "aggs": [2]}])], aggs, quiet=True)
    s.snap([(0, norm.record(1, 1, 1, 2))],
           entry(0, [], quantize(1, 1, 1, 1, 2, 2)) + entry(1, [], [2, 41]) + entry(2, [1], [-7]))
    bar = lambda n: "|" + "@" * n + " " * (40 - n)  # noqa: E731
    expect(ctx, "normalized-printa", s.text(),
           "\n\n" + HIST + "               0 " + bar(0) + " 0        \n"
           "               1 " + bar(27) + " 2        \n"
           "               2 " + bar(13) + " 1        \n"
           "               4 " + bar(0) + " 0        \n" "\n"
           "\n" + " " * 15 + "10\n" "1 -3\n" "\n")


def job_merging(ctx):
    aggs = [agg(0, "count", [key("string", 16)]), agg(1, "min"), agg(2, "max"), agg(3, "avg"),
            agg(4, "stddev"), agg(5, "stddev")]
    s = _printa_session(aggs, [(None, [i]) for i in range(6)])
    x, y = (1 << 32) - 1, (1 << 32) + 1
    s.snap([], [(0, entry(0, [("k", 16)], [3]) + entry(1, [], [-5]) + entry(2, [], [7]) +
                 entry(3, [], [2, 10]) + entry(4, [], [1, x, x * x & M64, x * x >> 64]) +
                 entry(5, [], [1, y, y * y & M64, y * y >> 64])),
                (1, entry(0, [("k", 16)], [4]) + entry(1, [], [3]) + entry(2, [], [12]) +
                 entry(3, [], [1, -4]) + entry(4, [], [1, x, x * x & M64, x * x >> 64]) +
                 entry(5, [], [1, 3 * y, 9 * y * y & M64, 9 * y * y >> 64]))])
    s.snap([(0, rec(1, 2, 9))], [(1, entry(1, [], [-9]) + entry(2, [], [8]))])
    expect(ctx, "merged-across-cpus-and-snapshots", s.text(),
           "\n  k" + " " * 65 + "7\n" + "\n" + " " * 15 + "-9\n" + "\n" + " " * 15 + "12\n" +
           "\n" + " " * 16 + "2\n" + "\n" + " " * 16 + "0\n" +
           "\n" + " " * 7 + "4294967297\n" + "\n")


def pcs(*frames, depth=3):
    """A stack() key of depth frames: the PCs, then zeros."""
    return b"".join(pc.to_bytes(8, "little") for pc in frames + (0,) * (depth - len(frames)))


def job_stack_keys(ctx):
    """@[stack()] = count(): entries with the same frames merge across CPUs and
    snapshots; each prints as dtrace prints a stack key (a newline, a frame a
    line under stackindent, unknown PCs in hex, then the value)."""
    stack3 = dict(key("stack", 24), frames=3)
    aggs = [agg(0, "count", [stack3]), agg(1, "sum", [dict(key("stack", 8), frames=1), key()])]
    s = _printa_session(aggs, [])
    s.snap([], [(0, entry(0, [pcs(BCACHE + 0x12, VFS + 4)], [2])),
                (1, entry(0, [pcs(BCACHE + 0x12, VFS + 4)], [3]) +
                 entry(0, [pcs(VFS + 8)], [1]) + entry(1, [pcs(VFS, depth=1), 9], [40]))])
    s.snap([], [(1, entry(0, [pcs(0x1234, BCACHE + 0x10)], [1]) + entry(1, [pcs(VFS, depth=1), 9], [2]))])
    frame = " " * 14
    expect(ctx, "stack-keys", s.text(),
           "\n" + "\n" + frame + "kernel`vfs_read+0x8\n" + " " * 16 + "1\n" +
           "\n" + frame + "0x1234\n" + frame + "kernel`bcache_read+0x10\n" + " " * 16 + "1\n" +
           "\n" + frame + "kernel`bcache_read+0x12\n" + frame + "kernel`vfs_read+0x4\n" +
           " " * 16 + "5\n" +
           "\n" + frame + "kernel`vfs_read\n" + " " * 16 + "9" + " " * 15 + "42\n")
    s = _printa_session(aggs[:1], [], stackindent=4)
    s.snap([], entry(0, [pcs(VFS + 8, BCACHE + 0x10)], [7]))
    expect(ctx, "stack-keys-stackindent", s.text(),
           "\n\n    kernel`vfs_read+0x8\n    kernel`bcache_read+0x10\n" + " " * 16 + "7\n")


# --- drops, errors, exit and the end -----------------------------------------------

def job_messages(ctx):
    s = Session([(1, None, []), (12, None, [])])
    err = lambda epid, action, pc, fault, addr, ts=5: (  # noqa: E731
        RECHDR.pack(epid=C.DOF_EPID_ERROR, probe_id=12, timestamp=ts) +
        ERROR.pack(epid=epid, action=action, pc=pc, fault=fault, addr=addr))
    s.snap([(0, err(2, 1, 8, 1, 0) + err(2, 0, 3, 3, 0, 6), 1),
            (2, err(2, 2, 4, 2, 0x1001, 7) + err(2, 1, C.DIF_PC_NONE, 42, 0, 8), 5)],
           stat=status(dyn=2, unavail=1, aggd=1))
    s.snap(stat=status(dyn=2, spec=3, unavail=4, aggd=1))
    head = "dtrace: error on enabled probe ID 2 (ID 12: fbt:kernel:bcache_read:entry): "
    expect(ctx, "drops-and-errors", s.err.getvalue(),
           "dtrace: 2 dynamic variable drops\n"
           "dtrace: 1 failed speculation (no speculative buffer available)\n"
           "dtrace: 1 aggregation drop\n" +
           head + "invalid address (0x0) in action #1 at DIF offset 8\n" +
           head + "divide-by-zero in predicate at DIF offset 3\n" +
           head + "invalid alignment (0x1001) in action #2 at DIF offset 4\n" +
           head + "unknown fault in action #1\n"
           "dtrace: 1 drop on CPU 0\n"
           "dtrace: 5 drops on CPU 2\n"
           "dtrace: 3 speculative drops\n"
           "dtrace: 3 failed speculations (no speculative buffer available)\n")
    expect(ctx, "errors-print-no-record-line", s.text(False), "")

    with open(os.path.join(ROOT, "kernel", "trace", "dif_exec.c")) as f:
        c_names = re.findall(r'\[DIF_FAULT_\w+\]\s*=\s*"([^"]*)"', f.read())
    # The kernel's one name dtrace has no word for is printed as dtrace would.
    c_names = ["illegal operation" if n == "illegal argument" else n for n in c_names]
    ctx.result("fault-names-match-dif_exec.c", tuple(c_names) == FAULTS,
               "dif_exec.c %r, dconsumer.py %r" % (c_names, FAULTS))


def job_exit(ctx):
    lay = Layout()
    status_d = lay.int(width=4)
    acts = [{"kind": "printf", "format": "bye\n", "args": []}, {"kind": "exit", "data": status_d}]
    s = Session([(1, lay, acts)], quiet=True)
    s.snap([(0, lay.record(1, 1, 1, 3))])
    ctx.result("exit-quiet", (s.text(), s.consumer.exited, s.consumer.exit_status) ==
               ("bye\n\n", True, 3), repr((s.text(False), s.consumer.exited)))
    s = Session([(1, lay, acts[1:])])
    s.snap([(0, lay.record(1, 1, 1, -1))])
    ctx.result("exit-default-output", (s.text(), s.consumer.exit_status) ==
               (HEAD + "  0      1" + " " * 27 + ":BEGIN \n\n", -1), repr(s.text(False)))
    s = Session([(1, None, [])], quiet=True)
    s.snap(stat=status(flags=1, exit_status=4))
    ctx.result("exit-from-status", (s.consumer.exited, s.consumer.exit_status) == (True, 4),
               repr((s.consumer.exited, s.consumer.exit_status)))


def job_finish(ctx):
    aggs = [agg(0, "sum", [key(width=4)], "a"), agg(1, "count", [], "b"),
            agg(2, "count", [key(width=4)], "p"), agg(3, "count", [], "e")]
    acts = [{"kind": "printa", "format": "printed %d %@d\n", "aggs": [2]},
            {"kind": "printa", "format": "%@d\n", "aggs": [3]}]
    for opts, want in (({}, " " * 8 + "2" + " " * 16 + "1\n" + " " * 8 + "1" + " " * 16 + "5\n" +
                        " " * 16 + "3\n" + " " * 16 + "1\n"),
                       ({"aggsortrev": 1}, " " * 16 + "1\n" + " " * 16 + "3\n" + " " * 8 + "1" +
                        " " * 16 + "5\n" + " " * 8 + "2" + " " * 16 + "1\n")):
        s = Session([(1, None, acts)], aggs, quiet=True, **opts)
        s.snap([(0, rec(1, 1, 1))], entry(0, [1], [5]) + entry(0, [2], [1]) + entry(1, [], [3]) +
               entry(2, [7], [1]))
        s.snap([], entry(2, [8], [1]) + entry(3, [], [1]))
        expect(ctx, "finish " + (",".join(opts) or "default"), s.text(),
               "printed 7 1\n" + "\n" + want)


JOBS = [job_records, job_timestamp_order, job_flowindent, job_printf, job_printa_functions,
        job_printa_formats,
        job_histograms, job_printa_joined, job_sorting, job_clear_trunc_normalize, job_merging,
        job_stack_keys, job_messages, job_exit, job_finish]


if __name__ == "__main__":
    class Ctx:
        def __init__(self):
            self.results = []

        def result(self, name, ok, detail=""):
            self.results.append((name, ok, detail))

    ctx = Ctx()
    for job in JOBS:
        job(ctx)
    for name, ok, detail in ctx.results:
        print(("ok     %s" % name) if ok else ("FAILED %s: %s" % (name, detail)))
    failed = sum(not ok for _, ok, _ in ctx.results)
    print("%d passed, %d failed" % (len(ctx.results) - failed, failed))
    sys.exit(1 if failed else 0)


def job_printf_conversions_as_libc(ctx):
    """dprintf's integer and string conversions (Python's % with C's exceptions)
    print what the C library's snprintf prints, over every flag, width and
    precision combination of a grid."""
    import ctypes
    import itertools
    from scionhost.dprintf import c_int, c_str
    libc = ctypes.CDLL(None)
    buf = ctypes.create_string_buffer(256)
    wrong = []
    for flags, width, prec, conv in itertools.product(
            ["", "#", "0", "-", "+", " ", "#0", "-#", "+0", " 0", "-0", "#-0+", "+ ", "#0 +"],
            [0, 1, 5, 12], [None, 0, 1, 3, 8], "dioxXu"):
        for v in (0, 1, 7, 8, 255, 4096, 123456789, -1, -42, (1 << 63) - 1):
            v = v if conv in "di" else v & ((1 << 64) - 1)
            spec = f"%{flags}{width or ''}{'' if prec is None else f'.{prec}'}ll{conv}"
            libc.snprintf(buf, 256, spec.encode(), ctypes.c_longlong(v))
            got = c_int(v, conv, "".join(f for f in "#0-+ " if f in flags), width, prec)
            if got != buf.value.decode():
                wrong.append(f"{spec} of {v}: C {buf.value.decode()!r}, here {got!r}")
    for flags, width, prec in itertools.product(["", "-"], [0, 3, 10], [None, 0, 2, 20]):
        spec = f"%{flags}{width or ''}{'' if prec is None else f'.{prec}'}s"
        libc.snprintf(buf, 256, spec.encode(), b"hello")
        if c_str("hello", flags, width, prec) != buf.value.decode():
            wrong.append(f"{spec}: C {buf.value.decode()!r}")
    ctx.result("as-snprintf", not wrong, f"{len(wrong)} differ: " + "; ".join(wrong[:5]))
