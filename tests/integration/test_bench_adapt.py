# SPDX-License-Identifier: BSD-2-Clause
"""The off-line half of the adaptation loop's benchmark
(tools/adapt_report.py) without QEMU: a synthetic bcache recording cut
into phase slices keeps every request and result, in order, once, with
exact header counts (and uneven counts are refused); the per-phase
replays (build/host/scion-sim) of a strided slice find stride read-ahead
best and the optimum at least as good, and one scion-sim replaying every
policy gives what one process per policy gives (each replay starts from
fresh graft data); the
report's arithmetic (overall ratios, the 5% goal, phase change to switch
in requests and instructions, the loop's cost share) on numbers worked
out by hand; and the phase plan both the test and the tool use."""

import importlib.util
import os
import tempfile

from scionhost import phases, recfmt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("adapt_report",
                                               os.path.join(ROOT, "tools", "adapt_report.py"))
report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report)
POLICY = "evict=lru readahead=sequential"
HIT, MISS = 1, 3


def write_recording(d, blocks, hits):
    trace, log = [], []
    for i, (b, h) in enumerate(zip(blocks, hits)):
        trace.append(recfmt.encode_record(dict(type="request", seq=2 * i + 1, time_ns=1000 * i,
                                               cpu=0, tid=1, pid=0, block=b, in_flight=0,
                                               flags=0)))
        log.append(recfmt.encode_record(dict(type="result", seq=2 * i + 2, cpu=0,
                                             outcome=HIT if h else MISS, block=b,
                                             victim=recfmt.NO_BLOCK,
                                             latency_ns=2000 if h else 90000, flags=0,
                                             prefetch=[])))
    os.makedirs(d, exist_ok=True)
    for stream, records, name in ((recfmt.STREAM_TRACE, trace, recfmt.TRACE_FILE),
                                  (recfmt.STREAM_LOG, log, recfmt.LOG_FILE)):
        recfmt.write_stream(os.path.join(d, name), recfmt.pack_header(
            stream, "bcache", POLICY, [32, 8192], len(records), 0), records)


def job_bench_adapt_offline(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        rec = os.path.join(tmp, "rec")
        blocks = [(i * 4) % 8000 for i in range(600)] + [i % 20 for i in range(400)]
        hits = [0] * 600 + [1] * 400
        write_recording(rec, blocks, hits)
        counts = [300, 300, 400]
        dirs = report.slice_recording(rec, counts, os.path.join(tmp, "slices"))
        got_blocks, ok = [], len(dirs) == 3
        for d, n in zip(dirs, counts):
            th, trace = recfmt.read_stream(os.path.join(d, recfmt.TRACE_FILE),
                                           recfmt.STREAM_TRACE)
            lh, log = recfmt.read_stream(os.path.join(d, recfmt.LOG_FILE), recfmt.STREAM_LOG)
            ok &= th["records"] == lh["records"] == len(trace) == len(log) == n
            ok &= th["config"][:2] == [32, 8192]
            got_blocks += [r["block"] for r in trace]
        ctx.result("slices-keep-every-record", ok and got_blocks == blocks,
                   f"{len(got_blocks)} of {len(blocks)} blocks, in order: "
                   f"{got_blocks == blocks}")
        try:
            report.slice_recording(rec, [300, 300], os.path.join(tmp, "bad"))
            refused = False
        except ValueError:
            refused = True
        ctx.result("slices-that-do-not-add-up-refused", refused, "")
        live = report.hits_of_log(os.path.join(dirs[2], recfmt.LOG_FILE))
        ctx.result("live-hits-of-a-slice", live == [1] * 400, f"{sum(live)}")
        sim = os.path.join(ctx.build, "host", "scion-sim")
        model = report.latency_model(os.path.join(rec, recfmt.LOG_FILE))
        sims = report.replay(sim, dirs[0], model)
        best = max(report.PAIRS, key=lambda p: sims[p])
        ctx.result("replay-per-slice", best.endswith("+stride") and
                   sims[report.OPTIMUM] >= sims[best] and sims["lru+sequential"] < sims[best],
                   f"model {model}, {sims}")
        # One scion-sim for every policy gives what one process per policy gives: a graft's
        # static data (recorded order's table) starts fresh at every replay. Slice 2, a
        # loop of 20 blocks, is what recorded order learns.
        one = report.replay(sim, dirs[2], model)
        each = report.replay(sim, dirs[2], model, one_process=False)
        ctx.result("one-process-equals-one-per-policy", one == each and
                   one["lru+recorded"] > 0, f"one process {one}\none per policy {each}")

    rows = [dict(phase="a", first_request=0, requests=1000, default=900, adaptive=880,
                 best=950, optimum=1000),
            dict(phase="b", first_request=1000, requests=1000, default=0, adaptive=700,
                 best=990, optimum=1000)]
    s = report.summary(rows, 2000)
    ctx.result("overall-arithmetic",
               s["adaptive_hit_ratio"] == 0.79 and s["best_hit_ratio"] == 0.97 and
               s["default_hit_ratio"] == 0.45 and s["adaptive_over_best"] == round(1580 / 1940, 4)
               and s["within_5_percent_of_best"] is False, repr(s))
    # Points (ns, reads, hits, busy): a phase change at request 1000, the switch at 1500 ns.
    pts = [(0, 0, 0, 0), (1000, 1000, 900, 10_000), (2000, 2000, 1000, 30_000)]
    timeline = [dict(request=0, ns=0, policy="lru+sequential", event="start"),
                dict(request=1500, ns=1500, policy="lru+stride", event="#1 install")]
    slices = [("a", 0, 1000), ("b", 1000, 1000)]
    ch = report.switch_delays(slices, timeline, pts)
    ctx.result("phase-change-to-switch", ch == [dict(to_phase="b", from_phase="a",
                                                     at_request=1000, switch="lru+stride",
                                                     requests=500, guest_ns=500,
                                                     guest_instructions=10_000)], repr(ch))
    cost = report.loop_cost({"decisions": [{"candidates": [{"requests": 800}],
                                            "simulation_cpu_ns": 3_000}],
                             "record_overhead_per_request": 1000, "adapt_cpu_ns": 1_000,
                             "recorder_cpu_ns": 200}, pts)
    ctx.result("cost-share", cost["share"] == round((1000 + 3000 + 800_000 + 200) / 30_000, 5)
               and cost["simulation_share"] == round((1000 + 3000) / 30_000, 5),
               repr(cost))
    xs, ys = report.windows([0, 2048], [0, 1024], 2048)
    ctx.result("windows", xs == [512, 1536] and ys == [0.5, 0.5], f"{xs} {ys}")
    plan = phases.plan_requests()
    ctx.result("phase-plan", [p[0] for p in plan] == [p[0] for p in phases.BENCH_PLAN] and
               all(plan[i][1] + plan[i][2] == plan[i + 1][1] for i in range(len(plan) - 1)),
               repr(plan))
