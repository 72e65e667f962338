#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""`make bench-adapt` (and part of `make bench`): the adaptation loop
(kernel/adapt/, issue 26) over the phased block-cache workload of
host/scionhost/phases.py, and its goal figures.

Two boots of the test kernel under -icount shift=0,sleep=off (guest
instructions exact; icount runs the vCPUs on one host thread, as grafts'
code patching needs) with the policy grafts as boot modules, the same
commands in the same order in each:
  (a) adapt off, the whole run recorded from the host (the "record"
      stream, as `scion record -m bcache` does): the live default's
      outcome of every request, and the trace replayed off-line;
  (b) adapt on: the "monitor" stream samples bcache.reads/hits, cpu.busy
      and every thread's CPU time (the adapt thread's is the loop's
      simulations and decisions), and a D program on the loop's sdt
      probes (adapt:::flag, record, candidate, decide, install, watch,
      revert) says what the loop did and why (fetch_decisions).
Then, on the host (tools/adapt_report.py), run (a)'s trace is cut at the
phase boundaries and every policy pair and the optimum replayed on each
slice with build/host/scion-sim; the report
(build/bench/adapt/report.md, adapt.png) and the figures go to OUT/adapt/
and OUT/results.json ("adapt")."""

import argparse
import io
import json
import os
import sys
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_boot  # noqa: E402  (sets the import paths of qemu/ and host/)
import adapt_report  # noqa: E402
import bench_compare  # noqa: E402
from scionhost import bench as kernel_bench  # noqa: E402
from scionhost import frame, monitor, phases, record, trace  # noqa: E402
from scionhost.client import ScionError  # noqa: E402
from scionhost.dconsumer import Consumer  # noqa: E402
from scionhost.layouts import C  # noqa: E402
from scionhost.profile import monitor_records  # noqa: E402

SMP = 2
RECORD_BUFSIZE = 128 * 1024       # per CPU, the most a stream takes; nothing may drop
RECORD_SWITCH_MS = 20
# Sample intervals (guest ms) of run (b): the series at 50 ms, the rest (each thread's CPU
# time among them) each second. Under icount with sleep=off the guest's clock skips ahead
# while it waits for the disk or the host, so 50 ms is a few dozen requests.
MONITOR_MS = {"*": 1000, "bcache.reads": 50, "bcache.hits": 50, "cpu.busy": 50}
MONITOR_BUFSIZE = 128 * 1024
MONITOR_SWITCH_MS = 100
D_SWITCH_MS = 100
# The loop's own D program: one JSON object per probe firing (timestamp: guest ns).
D_PROGRAM = "\n".join(
    f'adapt:::{name}\n{{\n\tprintf("{{\\"ts\\": %d, \\"probe\\": \\"{name}\\"{fields}}}\\n", '
    f'timestamp{args});\n}}'
    for name, fields, args in [
        ("flag", ', \\"ratio\\": %d, \\"threshold\\": %d', ", arg0, arg1"),
        ("record", ', \\"rec\\": %d', ", arg0"),
        ("candidate", ', \\"policy\\": \\"%s\\", \\"hits\\": %d, \\"misses\\": %d, '
                      '\\"aborts\\": %d, \\"requests\\": %d',
         ", stringof(arg0), arg1, arg2, arg3, arg4"),
        ("decide", ', \\"best\\": \\"%s\\", \\"live_hits\\": %d, \\"best_hits\\": %d, '
                   '\\"optimum_hits\\": %d, \\"margin\\": %d',
         ", stringof(arg0), arg1, arg2, arg3, arg4"),
        ("install", ', \\"policy\\": \\"%s\\", \\"ratio_before\\": %d, \\"pid\\": %d',
         ", stringof(arg0), arg1, arg2"),
        ("watch", ', \\"before\\": %d, \\"after\\": %d', ", arg0, arg1"),
        ("evaluate", ', \\"rows\\": %d, \\"workers\\": %d, \\"candidates_ns\\": %d, '
                     '\\"optimum_ns\\": %d, \\"cpu_ns\\": %d',
         ", arg0, arg1, arg2, arg3, arg4"),
        ("revert", ', \\"policy\\": \\"%s\\", \\"after\\": %d', ", stringof(arg0), arg1"),
    ]) + "\n"


def grafts():
    paths = [os.path.join(ROOT, "build", "grafts", n + ".graft") for n in phases.GRAFTS]
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        sys.exit(f"bench-adapt: {missing[0]} is missing: `make grafts` builds it")
    return paths


class Stalled(Exception):
    """The monitor's measurement thread made no round for STALL_COMMANDS commands."""


STALL_COMMANDS = 50
ATTEMPTS = 3


def run_workload(c, plan, pump=None, check=None):
    """Every command of the plan through the SHELL op; pump() after each, check() after
    every STALL_COMMANDS."""
    p = phases.Phases()
    done = 0
    for _label, phase, commands in plan:
        for _ in range(commands):
            bench_boot.shell(c, p.next(phase))
            done += 1
            if pump:
                pump()
            if check and done % STALL_COMMANDS == 0:
                check(done)


def stall_check(c):
    """A check for run_workload: Stalled when the monitor's round count stands still.
    (Seen at times right after the stream, the D program and the loop start: the
    measurement thread stays "running" and makes no more rounds.)"""
    last = [None]

    def check(done):
        rounds = monitor.control(c, C.MONITOR_CTL_STATUS)["rounds"]
        if rounds == last[0]:
            raise Stalled(f"the monitor made no round in the {STALL_COMMANDS} commands "
                          f"before command {done} (rounds {rounds})")
        last[0] = rounds
    return check


class MonitorSeries:
    """The monitor stream's rounds (they arrive per CPU buffer, so out of order) and,
    once sorted by sequence number: points (mono_ns, bcache reads, hits, busy ns of all
    CPUs) for every round that sampled bcache, and each thread's last CPU time."""

    def __init__(self):
        self.sources, self.threads, self.rounds = {}, {}, []

    def on_chunk(self, cpu, count, drops, body):
        if cpu == frame.CHUNK_STATUS:
            return
        for r in monitor_records.decode_chunk(body, count, cpu):
            if isinstance(r, monitor_records.Source):
                self.sources[r.index] = r.name
            elif isinstance(r, monitor_records.Thread):
                self.threads[r.tid] = r.name
            elif isinstance(r, monitor_records.Round):
                self.rounds.append(r)

    def series(self):
        """(points, {tid: CPU ns})."""
        last, points, thread_cpu = {}, [], {}
        for r in sorted(self.rounds, key=lambda r: r.seq):
            bcache = False
            for index, scope_id, value in r.samples:
                name = self.sources.get(index)
                last[name, scope_id] = value
                bcache |= name in ("bcache.reads", "bcache.hits")
                if name == "thread.cpu":
                    thread_cpu[scope_id] = value
            if bcache:
                busy = sum(v for (n, _), v in last.items() if n == "cpu.busy")
                points.append((r.mono_ns, last.get(("bcache.reads", 0), 0),
                               last.get(("bcache.hits", 0), 0), busy))
        return points, thread_cpu


def d_session(c):
    """Start the loop's D program in session c: (stream, take), take() -> the JSON objects
    of the probes that fired since the last call."""
    opts = types.SimpleNamespace(cpp=False, x=[], quiet=True, macro_args=[],
                                 switch_ms=D_SWITCH_MS)
    meta = trace.run_dtc(opts, D_PROGRAM, None, [])
    snaps = trace.Snapshots()
    stream, _, epids = trace.start(c, meta, opts, snaps.on_chunk)
    out = io.StringIO()
    consumer = Consumer(meta, epids, lambda pid: ("adapt", "", "", str(pid)),
                        lambda addr, return_address=False: None, out, sys.stderr, True)

    def take():
        for records, aggs, status in snaps.take():
            consumer.snapshot(records, aggs, status)
        text, rest = out.getvalue(), ""
        if not text.endswith("\n"):
            text, _, rest = text.rpartition("\n")
        out.seek(0)
        out.truncate()
        out.write(rest)
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def finish():
        snaps.cut()
        return take()
    return stream, take, finish


def fetch_decisions(events):
    """Every decision of the loop, from its sdt probes (D): [{"flag_ns", "ratio",
    "rec", "candidates", "live", "best", "optimum_hits", "margin", "install_ns",
    "policy", "watch", "revert", "reason"}]. The one place that knows where decisions
    come from: `scion adapt decisions --json` (branch adapt-explain) replaces it."""
    decisions, cur = [], None
    for e in sorted(events, key=lambda e: e["ts"]):
        p = e["probe"]
        if p == "flag":
            cur = {"flag_ns": e["ts"], "ratio": e["ratio"] / 1000,
                   "threshold": e["threshold"] / 1000, "candidates": [], "install_ns": None,
                   "policy": None, "watch": None, "revert": None}
            decisions.append(cur)
        elif cur is None:
            continue
        elif p == "record":
            cur["rec"] = e["rec"]
        elif p == "candidate":
            cur["candidates"].append({k: e[k] for k in ("policy", "hits", "misses", "aborts",
                                                        "requests")})
        elif p == "evaluate":
            cur["simulation_cpu_ns"] = e["cpu_ns"]
        elif p == "decide":
            cur.update(best=e["best"], live_hits=e["live_hits"], best_hits=e["best_hits"],
                       optimum_hits=e["optimum_hits"], margin=e["margin"], decide_ns=e["ts"])
        elif p == "install":
            cur.update(install_ns=e["ts"], policy=e["policy"])
        elif p == "watch":
            cur["watch"] = {"ns": e["ts"], "before": e["before"] / 1000,
                            "after": e["after"] / 1000}
        elif p == "revert":
            cur["revert"] = {"ns": e["ts"], "policy": e["policy"], "after": e["after"] / 1000}
    for d in decisions:
        d["reason"] = adapt_report.decision_reason(d)
    return decisions


def boot(kernel, disk, out_dir, name):
    return bench_boot.boot(name, out_dir, kernel=kernel, smp=SMP, icount=True, timeout=7200,
                           disk=disk, disk_snapshot=True, modules=grafts())


def run_default(kernel, disk, out_dir, plan):
    """Run (a): adapt off, everything recorded into OUT/adapt/default-rec."""
    rec_dir = os.path.join(out_dir, "default-rec")
    b, sock = boot(kernel, disk, out_dir, "bench-adapt-default")
    try:
        with bench_boot.session(b, sock) as c:
            version = bench_boot.kernel_version(c)
            for line in phases.SETUP:
                bench_boot.shell(c, line)
            rec = record.Recording(rec_dir, {"kernel_version": version,
                                             "switch_ms": RECORD_SWITCH_MS})
            stream, cpus, bufsize = c.stream_open("record", RECORD_BUFSIZE, RECORD_SWITCH_MS,
                                                  "bcache", rec.on_chunk)
            rec.meta.update(cpus=cpus, bufsize=bufsize)
            t0 = time.monotonic()
            run_workload(c, plan)
            totals = c.stream_close(stream)
            seconds = time.monotonic() - t0
    finally:
        bench_boot.power_off(b)
    if totals.get("records") != rec.arrived() or totals.get("drops") or rec.dropped():
        sys.exit(f"bench-adapt: run (a)'s recording lost records: the kernel sent "
                 f"{totals.get('records')} ({totals.get('drops')} dropped), "
                 f"{rec.arrived()} arrived")
    meta = rec.finish()
    return {"recording": rec_dir, "meta": meta, "kernel_version": version,
            "host_seconds": round(seconds, 1), "log": os.path.relpath(b.log_path, ROOT)}


def run_adaptive(kernel, disk, out_dir, plan):
    """Run (b), booted again (up to ATTEMPTS times) if the monitor stalls."""
    stalls = []
    for attempt in range(ATTEMPTS):
        try:
            run = run_adaptive_once(kernel, disk, out_dir, plan, attempt)
            run["monitor_stalls"] = stalls
            return run
        except Stalled as e:
            print(f"bench-adapt: run (b), attempt {attempt + 1}: {e}; booting again",
                  file=sys.stderr)
            stalls.append(str(e))
    sys.exit(f"bench-adapt: the monitor stalled in {ATTEMPTS} boots of run (b): {stalls}")


def run_adaptive_once(kernel, disk, out_dir, plan, attempt):
    """Run (b): adapt on, the monitor stream and the loop's D program open throughout."""
    series = MonitorSeries()
    events = []
    b, sock = boot(kernel, disk, out_dir, "bench-adapt-on" + (f"-{attempt}" if attempt else ""))
    try:
        with bench_boot.session(b, sock) as c:
            version = bench_boot.kernel_version(c)
            for line in phases.SETUP:
                bench_boot.shell(c, line)
            for name, ms in MONITOR_MS.items():
                monitor.control(c, C.MONITOR_CTL_INTERVAL, ms=ms, name=name)
            mstream, _, _ = c.stream_open("monitor", MONITOR_BUFSIZE, MONITOR_SWITCH_MS, "",
                                          series.on_chunk)
            dstream, take, finish = d_session(c)
            bench_boot.shell(c, "adapt on")
            t0 = time.monotonic()
            run_workload(c, plan, pump=lambda: events.extend(take()), check=stall_check(c))
            seconds = time.monotonic() - t0
            c.pump(2.0)         # the last rounds: the guest's clock runs on while it idles
            bench_boot.shell(c, "adapt off")
            c.stream_close(dstream)
            events.extend(finish())
            c.stream_close(mstream)
            # What one recorded request costs the request path, measured in this boot.
            items, _ = kernel_bench.run(c, "record", timeout=600)
    finally:
        bench_boot.power_off(b)
    figures = {f["figure"]: f["value"] for f in kernel_bench.figures(items)}
    points, thread_cpu = series.series()
    return {"series": points,
            "adapt_cpu_ns": sum(ns for t, ns in thread_cpu.items()
                                if series.threads.get(t) == "adapt"),
            # The simulations run in threads of their own, which end with them: each
            # decision's replays' CPU time comes with it (the adapt:::evaluate probe).
            "recorder_cpu_ns": sum(ns for t, ns in thread_cpu.items()
                                   if series.threads.get(t) == "recorder"),
            "threads": {f"{series.threads.get(t, '?')} ({t})": ns
                        for t, ns in thread_cpu.items()},
            "events": events, "decisions": fetch_decisions(events),
            "record_overhead_per_request": figures.get("record.bcache.overhead_per_request"),
            "kernel_version": version, "host_seconds": round(seconds, 1),
            "log": os.path.relpath(b.log_path, ROOT)}


def config(plan):
    return {"name": "adapt", "smp": SMP, "mem": "256M", "boot": "qemu -kernel (multiboot1)",
            "accel": "tcg, single-threaded (implied by icount)", "icount": "shift=0,sleep=off",
            "disk": "build/disk.img, virtio-blk, snapshot=on", "grafts": phases.GRAFTS,
            "buffers": phases.BUFFERS, "setup": phases.SETUP,
            "phases": [{"label": label, "phase": phase, "commands": n,
                        "requests": n * phases.REQUESTS[phase],
                        "command": phases.Phases().next(phase)}
                       for label, phase, n in plan],
            "margin": "the loop's default, 50 permille of a recording's requests (each "
                      "decision's margin in hits is in its record)",
            "monitor_ms": MONITOR_MS}


def adapt_bench(kernel, disk, sim, out_dir, plan=phases.BENCH_PLAN):
    """Both runs, the off-line replays, the report: the results.json section."""
    out = os.path.join(out_dir, "adapt")
    os.makedirs(out, exist_ok=True)
    a = run_default(kernel, disk, out, plan)
    b = run_adaptive(kernel, disk, out, plan)
    with open(os.path.join(out, "run-adaptive.json"), "w") as f:
        json.dump(b, f, indent=1)
    section = adapt_report.analyse(a, b, sim, out, plan)
    section["config"] = config(plan)
    section["config"]["kernel_version"] = b["kernel_version"]
    section["logs"] = [a["log"], b["log"]]
    section["monitor_stalls"] = b["monitor_stalls"]     # boots of run (b) given up
    return section


def print_section(s):
    print(f"\nadaptation loop over {len(s['config']['phases'])} phases "
          f"({s['config']['icount']}; report {s['report']}):")
    for fig in s["figures"]:
        v = fig["value"]
        print(f"  {fig['figure']:52} {v if v is not None else '-':>14} {fig['unit']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", required=True, help="the test kernel (build/test/kernel.elf)")
    ap.add_argument("--disk", required=True, help="the pattern disk (build/disk.img)")
    ap.add_argument("--sim", required=True, help="build/host/scion-sim")
    ap.add_argument("--out", required=True, help="the bench directory (results.json)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="each phase's commands times this (a quick look: 0.1)")
    args = ap.parse_args()
    plan = [(label, phase, max(1, round(n * args.scale)))
            for label, phase, n in phases.BENCH_PLAN]
    os.environ["SCION_KSYMS"] = os.path.join(os.path.dirname(os.path.abspath(args.kernel)),
                                             "kernel.syms")
    try:
        section = adapt_bench(args.kernel, args.disk, args.sim, args.out, plan)
    except ScionError as e:
        sys.exit(f"bench-adapt: {e}")
    path = os.path.join(args.out, "results.json")
    bench_compare.save_section(path, section, "adapt")
    print_section(section)
    print(f"\nresults in {path}")


if __name__ == "__main__":
    main()
