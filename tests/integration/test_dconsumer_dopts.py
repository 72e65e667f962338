# SPDX-License-Identifier: BSD-2-Clause
"""The `scion trace` consumer without QEMU, for what issue 27 added (the
helpers and the rest are test_dconsumer.py's): llquantize histograms,
-x oformat=json's lines parsed back, aggrate holding snapshots back until
its tick, bufpolicy=fill's report, and floats printed from their bits.

Run alone with `python3 tests/run_tests.py --only dconsumer_dopts`."""

import json

from scionhost.djson import JsonConsumer
from scionhost.layouts import C
from test_dconsumer import (HIST, Layout, Session, _printa_session, agg, entry, expect, key, rec,
                            status)


def job_llquantize(ctx):
    # llquantize(x, 10, 0, 2, 10): < 1, 1..9 by 1, 10..90 by 10, 100..900 by 100, >= 1000
    # (29 buckets); llquantize(x, 10, 1, 2, 10): < 10, 10..90, 100..900, >= 1000 (20)
    aggs = [agg(0, "llquantize", llq=[10, 0, 2, 10, 29]),
            agg(1, "llquantize", [key(width=1)], llq=[10, 1, 2, 10, 20]),
            agg(2, "llquantize", llq=[10, 0, 2, 10, 29])]
    first = [0] * 29
    first[11], first[12] = 1, 2            # 20, 30, 30
    low = [0] * 20
    low[0], low[19] = 1, 1                 # 5 (below 10), 5000 (at or above 1000)
    data = entry(0, [], first) + entry(1, [-1], low) + entry(2, [], [0] * 29)
    s = _printa_session(aggs, [(None, [0]), (None, [1]), (None, [2])])
    bar = lambda n: "|" + "@" * n + " " * (40 - n)  # noqa: E731
    expect(ctx, "llquantize", s.snap([(0, rec(1, 2, 1))], data).text(),
           "\n\n" + HIST +
           "              10 " + bar(0) + " 0        \n"
           "              20 " + bar(13) + " 1        \n"
           "              30 " + bar(27) + " 2        \n"
           "              40 " + bar(0) + " 0        \n"
           "\n"
           "\n  -1\n" + HIST +
           "            < 10 " + bar(20) + " 1        \n" +
           "".join("%16d " % v + bar(0) + " 0        \n" for v in range(10, 100, 10)) +
           "".join("%16d " % v + bar(0) + " 0        \n" for v in range(100, 1000, 100)) +
           "         >= 1000 " + bar(20) + " 1        \n"
           "\n"
           "\n\n" + HIST +
           "             < 1 " + bar(0) + " 0        \n"
           "               1 " + bar(0) + " 0        \n"
           "\n"
           "\n")


def job_oformat_json(ctx):
    """-x oformat=json: one object per record and per aggregation entry, parsed back."""
    lay = Layout()
    n, s8, u8, name = lay.int(), lay.int(width=1), lay.int(width=1, signed=False), lay.str(16)
    aggs = [agg(0, "count", [key("string", 16)], "calls"),
            agg(1, "llquantize", [], "lat", llq=[10, 0, 2, 10, 29]),
            agg(2, "sum", [key(width=4)])]
    acts = [{"kind": "trace", "data": n}, {"kind": "trace", "data": s8},
            {"kind": "trace", "data": u8}, {"kind": "printf", "format": "%s=%d\n", "args": [name, n]},
            {"kind": "printa", "format": None, "aggs": [0]}]
    s = Session([(12, lay, acts)], aggs, kind=JsonConsumer)
    lat = [0] * 29
    lat[0], lat[14], lat[28] = 1, 2, 3          # < 1, [50, 60), >= 1000
    data = (entry(0, [("read", 16)], [5]) + entry(0, [("write", 16)], [7]) + entry(1, [], lat) +
            entry(2, [-3], [40]))
    text = s.snap([(1, lay.record(1, 12, 99, -2, -1, 255, "x", -2))], data).text()
    lines = [json.loads(line) for line in text.splitlines()]
    want = [{"type": "record", "cpu": 1, "id": 12, "probe": "fbt:kernel:bcache_read:entry",
             "timestamp": 99, "actions": [{"trace": -2}, {"trace": -1}, {"trace": 255},
                                          {"printf": "x=-2\n"}, {"printa": ["@calls"]}]},
            {"type": "aggregation", "name": "@calls", "function": "count", "keys": ["read"],
             "value": 5},
            {"type": "aggregation", "name": "@calls", "function": "count", "keys": ["write"],
             "value": 7},
            {"type": "aggregation", "name": "@lat", "function": "llquantize", "keys": [],
             "buckets": [{"below": 1, "count": 1}, {"value": 50, "count": 2},
                         {"atleast": 1000, "count": 3}]},
            {"type": "aggregation", "name": "@", "function": "sum", "keys": [-3], "value": 40}]
    ctx.result("json-lines", lines == want, "got %r" % lines)


def job_aggrate(ctx):
    """aggrate=2s: printa shows the aggregations as of the last 2-second tick; the end
    merges everything."""
    now = [0.0]
    aggs = [agg(0, "count", [], "n")]
    acts = [{"kind": "printa", "format": "%@d\n", "aggs": [0]}]
    s = Session([(12, None, acts)], aggs, quiet=True, clock=lambda: now[0],
                aggrate=2000000000)
    s.snap([(0, rec(1, 12, 1))], entry(0, [], [1]))        # t=0: the first tick merges
    now[0] = 1.0
    s.snap([(0, rec(1, 12, 2))], entry(0, [], [1]))        # t=1: held back
    now[0] = 2.5
    s.snap([(0, rec(1, 12, 3))], entry(0, [], [1]))        # t=2.5: the tick merges both
    expect(ctx, "held-until-tick", s.out.getvalue(), "1\n1\n3\n")
    s = Session([(12, None, acts)], aggs, quiet=True, clock=lambda: now[0])
    s.snap([(0, rec(1, 12, 1))], entry(0, [], [1]))
    s.snap([(0, rec(1, 12, 2))], entry(0, [], [1]))
    expect(ctx, "default-every-snapshot", s.out.getvalue(), "1\n2\n")


def job_fill_reported(ctx):
    s = Session([(12, None, [])], quiet=True)
    s.snap([], b"", status(flags=C.DOF_STATUS_FILLED, filled=0b10))
    s.snap([], b"", status(flags=C.DOF_STATUS_FILLED | C.DOF_STATUS_ENDED, filled=0b10))
    expect(ctx, "fill-said-once", s.err.getvalue(),
           "dtrace: buffer on CPU 1 filled (bufpolicy=fill): tracing stopped; the oldest "
           "records are kept\n")
    ctx.result("fill-flag", s.consumer.filled == 2, "filled %r" % s.consumer.filled)


def job_floats(ctx):
    """A float and a double as recorded (their bits): printf's %e %f %g with flags,
    width and precision as C prints them, trace() as %g, and -x oformat=json's value."""
    import struct
    lay = Layout()
    f, d = lay.int(width=4), lay.int(width=8)
    f["type"] = d["type"] = "float"
    acts = [{"kind": "printf", "format": "%.2f|%e|%-10g|%+.3E|\n", "args": [d, f, d, d]},
            {"kind": "trace", "data": f}]
    fbits = int.from_bytes(struct.pack("<f", -2.5), "little")
    dbits = int.from_bytes(struct.pack("<d", 3.14159), "little")
    s = Session([(12, lay, acts)], [])
    text = s.snap([(0, lay.record(1, 12, 1, fbits, dbits))], b"").text()
    expect(ctx, "printf-and-trace", text,
           "CPU     ID                    FUNCTION:NAME\n"
           "  0     12                bcache_read:entry 3.14|-2.500000e+00|3.14159   "
           "|+3.142E+00|\n             -2.5\n\n")
    s = Session([(12, lay, [{"kind": "trace", "data": d}])], [], kind=JsonConsumer)
    lines = [json.loads(line) for line in
             s.snap([(0, lay.record(1, 12, 1, fbits, dbits))], b"").text().splitlines()]
    ctx.result("json-value", lines and lines[0]["actions"] == [{"trace": 3.14159}], repr(lines))
