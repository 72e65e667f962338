#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""KernInst's Squid study redone on Scion with Scion's own tools
(`make squid`; tests/integration/test_squid.py runs it small).

Tamches and Miller found, with splices and KernInst's concurrency
metric, that Squid spent about 40% of its time in open(): about 20% in
path-name lookup (the name cache overwhelmed by the cache's files) and
about 20% truncating reused files (O_TRUNC, a synchronous inode
update). Two fixes, a larger name cache and no O_TRUNC with a truncate
to the final size before close, took open to about 7%. This program
drives a booted Scion the way they drove Solaris, from the host, and
reads the kernel only as structured data (METRICS records, D
aggregations over the TRACE_START stream, the EXEC op's output stream
carrying squid's --json line); shell commands go in through the SHELL
op and only their status is looked at.

  1. A cache disk: the root image (programs included) grown with
     resize2fs to hold the cache.
  2. Scion boots once with the baseline name cache (dnlc=N, fewer
     entries than the cache has names), 1 CPU, single-threaded TCG
     (probes patch code: PLATFORMS.md), and the block cache at its
     largest. A first squid run, not measured, makes the cache
     directories and fills the disk cache; every later run uses the same
     cache directory, so it finds the cache full and each object it
     stores reuses an existing file (opened with O_TRUNC): the state of
     the long-running Squid the paper measured.
  3. The call graph: a short squid run under the D program GRAPH_D,
     which counts (caller, probe) at every fbt entry the proxy process
     makes: the dynamic call graph, indirect calls included.
  4. The drill-down, one squid run per level, all the same workload:
     level 0 puts a concurrency metric (restricted to the proxy
     process, so it is the share of the proxy's time spent inside) on
     every system call the graph shows the proxy making; each next level
     measures the graph's callees of the functions chosen at the level
     before, and those functions again (so that a callee is compared with
     its parent within one run). A metric holds a callee's time under all
     its callers; the part that is the parent's is estimated by the
     parent's share of the callee's calls in the graph (memcpy, locks and
     the allocator are called from everywhere). A callee is chosen
     (descended into) when that part is at least --floor, no more than
     the parent's own share, and among the --fanout largest of the
     parent's callees; the open system call must be the largest at level 0 for
     the study to go on as the paper's did. A chosen function none of
     whose callees is chosen is a bottleneck.
  5. Before and after each fix, a run measures the same set (the open
     call, the walk, truncation, creation, write, ftruncate, and counts
     of name-cache lookups and misses), sampled every --sample-ms:
     curves over time. Fix 1 is `dnlc size N` on the running kernel,
     followed by a run that is not measured (resizing empties the name
     cache; the paper measured a warm one); fix 2 adds squid's
     --no-trunc.
  6. results.json, curves.csv and report.html (squid_report.py) in
     --out.

A share is KernInst's concurrency over the run: the metric's
threads-inside area over the elapsed cycles, taken as the difference
between the first sample after every metric is in place and the last
sample while squid still runs. A metric counts all the proxy's time
inside the function, from whichever caller (as KernInst's did).
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for path in (os.path.join(ROOT, "tools"), os.path.join(ROOT, "host"), os.path.join(ROOT, "qemu")):
    if path not in sys.path:
        sys.path.insert(0, path)
import bench_boot  # noqa: E402
from scionhost import dagg, execute, frame, ksyms, replies  # noqa: E402
from scionhost import trace as dtrace  # noqa: E402
from scionhost.client import ScionError  # noqa: E402

CACHE_DIR = "/squid-cache"
PARENT_SLACK = 1.05     # measurement noise allowed when a callee is compared with its parent
BCACHE_MOST = 4096      # BCACHE_MAX_BUFFERS (scion/bcache.h): 16 MiB of 4 KiB blocks

# Sizes: "full" is the paper's (30 clients, 6000 cache files of 31 KB on
# average, a name cache of 2181 entries over ~6300 names) with the block
# cache at its largest, 16 MiB, about 8% of the cached bytes; "small" is
# make test's, with the same ratios (48 entries over ~420 names, 96
# buffers for ~4.6 MB).
SCALES = {
    "small": dict(clients=8, requests=100, disk_files=150, mem_objects=8, graph_requests=16,
                  dnlc=48, dnlc_fix=4096, disk_mb=256, mem="256M", bcache=96),
    "full": dict(clients=30, requests=500, disk_files=6000, mem_objects=64, graph_requests=60,
                 dnlc=2181, dnlc_fix=17498, disk_mb=1024, mem="512M", bcache=BCACHE_MOST),
}

# The dynamic call graph of the proxy process ($target): who calls each probed function.
GRAPH_D = "fbt:::entry /pid == $target/ { @calls[caller, id] = count(); }"
GRAPH_OPTIONS = ["aggsize=4m", "switchrate=500ms"]

# What the fixes are about, by function: the paper's open, lookup and
# truncation; creation and writing as Scion's ext2 does them; the name
# cache's lookups, and its misses (what vfs_walk calls when dnlc_lookup
# misses: the root file system's lookup).
OPEN_CALLS = ("sys_open", "sys_openat")
WALK, TRUNCATE, CREATE = "vfs_walk", "vfs_truncate", "vfs_create"
DNLC_LOOKUP, DNLC_MISS = "dnlc_lookup", "ext2_vfs_lookup"
FIX_SET = [WALK, TRUNCATE, CREATE, "vfs_open", "sys_write", "sys_ftruncate", "sys_close"]

PAPER = {   # the KernInst paper's figures (Tamches and Miller, 1999): before, after both fixes
    "open": (0.40, 0.07), "lookup": (0.20, 0.01), "truncate": (0.20, 0.06), "dnlc_miss": (0.10, 0.01),
}


class StudyError(Exception):
    pass


def log(msg):
    print(f"squid study: {msg}", file=sys.stderr, flush=True)


def make_disk(out, disk_mb):
    """The root image grown to disk_mb MiB (sparse), checked clean first."""
    src = os.path.join(ROOT, "build", "userland", "rootfs.img")
    if not os.path.exists(src):
        raise StudyError(f"{src} is missing: run `make userland` first")
    disk = os.path.join(out, "squid-disk.img")
    subprocess.run(["cp", "--sparse=always", src, disk], check=True)
    os.truncate(disk, disk_mb << 20)
    r = subprocess.run(["resize2fs", "-f", disk], capture_output=True, text=True)
    if r.returncode:
        raise StudyError(f"resize2fs {disk}: {r.stderr.strip()}")
    return disk


def shell(c, command):
    status, body = c.request(frame.OP_SHELL, command.encode())
    if status < 0:
        raise StudyError(f"`{command}`: {body.decode('utf-8', 'replace').strip()}")


class Squid:
    """One squid run: started suspended, resumed; its --json line kept."""

    def __init__(self, c, argv):
        self.out = bytearray()
        self.ex = execute.Execution(c, argv, suspended=True,
                                    on_output=lambda fd, data: self.out.extend(data))

    def result(self):
        self.ex.finish()
        st = self.ex.status
        if st["how"] != execute.EXITED or st["code"] != 0:
            raise StudyError(f"squid ended with {st} and printed {bytes(self.out)[-400:]!r}")
        lines = [ln for ln in self.out.decode("utf-8", "replace").splitlines()
                 if ln.startswith("{")]
        if not lines:
            raise StudyError(f"squid printed no result: {bytes(self.out)[-400:]!r}")
        return json.loads(lines[-1])


def squid_argv(cfg, requests=None, no_trunc=False):
    argv = ["squid", "--clients", str(cfg["clients"]),
            "--requests", str(requests or cfg["requests"]),
            "--disk-files", str(cfg["disk_files"]), "--mem-objects", str(cfg["mem_objects"]),
            "--dir", CACHE_DIR, "--json"]
    return argv + (["--no-trunc"] if no_trunc else [])


def unmeasured_run(c, cfg):
    """One squid run to bring the caches to their steady state; its result."""
    run = Squid(c, squid_argv(cfg))
    run.ex.resume()
    while not run.ex.poll(0.5):
        pass
    return run.result()


def call_graph(c, cfg, symbols):
    """{caller function: {callee function: calls}} of the proxy, from GRAPH_D."""
    run = Squid(c, squid_argv(cfg, requests=cfg["graph_requests"]))
    targs = argparse.Namespace(program=GRAPH_D, script=None, cpp=False, x=GRAPH_OPTIONS,
                               quiet=True, macro_args=[], switch_ms=500, pid=None)
    meta = dtrace.compile_program(targs, target=run.ex.pid)
    aggs = dagg.Aggregations(meta["aggs"], meta["options"], None)
    snaps = dtrace.Snapshots()
    stream, _, _ = dtrace.start(c, meta, targs, snaps.on_chunk)
    run.ex.resume()
    while not run.ex.poll(0.2):
        pass
    c.stream_close(stream)
    for _, chunks, _ in snaps.take():
        for _, chunk in chunks:
            aggs.merge(chunk)
    squid = run.result()
    names = replies.probe_names(c, "fbt:::entry")
    graph = {}
    for e in aggs.entries.values():
        caller_addr, probe_id = e.keys[0].number(), e.keys[1].number()
        found = symbols.lookup(caller_addr - 1) if caller_addr else None
        callee = names.get(probe_id, "").split(":")
        if not found or len(callee) != 4:
            continue
        edges = graph.setdefault(found[0], {})
        edges[callee[2]] = edges.get(callee[2], 0) + e.vals[0]
    return graph, squid


class Metrics:
    """Metrics on the proxy process (the METRIC_ADD op), read as METRICS records."""

    def __init__(self, c, pid):
        self.c, self.pid, self.ids, self.refused = c, pid, {}, {}

    def add(self, kind, function):
        """Set the metric up; False when the kernel refuses it (a function that
        never returns, or one that cannot be probed): it is left out."""
        try:
            self.ids[(kind, function)] = replies.metric_add(self.c, kind, function, self.pid)
        except ScionError as e:
            self.refused[function] = str(e)
            return False
        return True

    def read(self):
        """{(kind, function): (area or calls, elapsed)} now."""
        by_id = {r["id"]: r for r in
                 replies.request_list(self.c, frame.OP_METRICS, "chan_metric_info")}
        now = {}
        for key, mid in self.ids.items():
            r = by_id[mid]
            now[key] = (r["calls"] if key[0] == "count" else r["area"], r["elapsed"])
        return now

    def clear(self):
        replies.metric_remove(self.c)
        self.ids = {}


def measured_run(c, argv, concurrency, counts, sample_s):
    """Run squid with concurrency metrics on the functions given (and call
    counts on counts); returns (shares {function: share}, counts {function:
    calls}, samples [(t, {key: value})], squid's result)."""
    run = Squid(c, argv)
    run.ex.resume()
    m = Metrics(c, run.ex.pid)
    concurrency = [f for f in concurrency if m.add("concurrency", f)]
    for f in counts:
        if not m.add("count", f):
            raise StudyError(f"count {f}: {m.refused[f]}")
    for f, why in m.refused.items():
        log(f"left out: {why}")
    t0 = time.monotonic()
    samples = [(0.0, m.read())]
    while not run.ex.poll(sample_s):
        samples.append((time.monotonic() - t0, m.read()))
    squid = run.result()
    m.clear()
    if len(samples) < 2:
        raise StudyError("squid ended before a second sample: use a longer run or --sample-ms")
    first, last = samples[0][1], samples[-1][1]
    shares = {f: delta_share(first, last, ("concurrency", f)) for f in concurrency}
    calls = {f: last[("count", f)][0] - first[("count", f)][0] for f in counts}
    return shares, calls, samples, squid


def delta_share(a, b, key):
    area = b[key][0] - a[key][0]
    elapsed = b[key][1] - a[key][1]
    return max(0.0, area / elapsed) if elapsed else 0.0


def calls_into(graph):
    """{callee: its calls from every caller} over the call graph."""
    total = {}
    for edges in graph.values():
        for callee, n in edges.items():
            total[callee] = total.get(callee, 0) + n
    return total


def drill_down(c, cfg, args, graph):
    """The levels: [{"level", "measured": {f: share}, "attributed": {f: share},
    "chosen": [f], "parents": {f: parent}}]."""
    syscalls = sorted({f for edges in graph.values() for f in edges if f.startswith("sys_")})
    if not syscalls:
        raise StudyError(f"the call graph shows no system call of the proxy ({len(graph)} callers)")
    total = calls_into(graph)
    levels, frontier, parents = [], None, {}
    measured_all = set()
    for depth in range(args.depth + 1):
        if depth == 0:
            candidates = syscalls
        else:
            candidates = []
            for f in frontier:
                kids = sorted(graph.get(f, {}).items(), key=lambda kv: -kv[1])
                for kid, _ in kids:
                    if kid not in measured_all and kid not in candidates and kid != f:
                        candidates.append(kid)
                        parents.setdefault(kid, f)
            candidates = candidates[:args.max_metrics]
        if not candidates:
            break
        log(f"level {depth}: {len(candidates)} functions: {' '.join(candidates)}")
        # The parents are measured again beside their callees: a comparison
        # within one run is not disturbed by the differences between runs.
        measured, _, _, _ = measured_run(c, squid_argv(cfg), (frontier or []) + candidates, [],
                                         args.sample_ms / 1000)
        # A metric holds the callee's time under every caller; the share that is
        # the parent's is estimated by the parent's part of its calls (memcpy,
        # the allocator and locks are called from everywhere).
        attributed = {k: measured[k] * graph[parents[k]][k] / total[k]
                      for k in candidates if k in parents and k in measured}
        if depth == 0:
            chosen = [max(candidates, key=lambda f: measured.get(f, 0.0))]
        else:
            chosen = []
            for parent in frontier:
                kids = [k for k in attributed if parents[k] == parent and
                        args.floor <= attributed[k] <= measured[parent] * PARENT_SLACK]
                kids.sort(key=lambda k: -attributed[k])
                chosen += kids[:args.fanout]
        levels.append({"level": depth, "measured": measured, "attributed": attributed,
                       "chosen": chosen,
                       "parents": {k: parents[k] for k in candidates if k in parents}})
        log(f"level {depth}: chosen " + ", ".join(
            f"{f} {attributed.get(f, measured[f]):.1%}" for f in chosen))
        if not chosen:
            break
        frontier = chosen
    return levels


def bottlenecks(levels):
    """Chosen functions none of whose callees was chosen, each with its share and
    its path from the top, largest first."""
    chosen, share = {}, {}
    for lv in levels:
        for f in lv["chosen"]:
            chosen[f] = lv["parents"].get(f)
            share[f] = lv.get("attributed", {}).get(f, lv["measured"][f])
    parents_of_chosen = {p for p in chosen.values() if p}
    out = []
    for f in chosen:
        if f in parents_of_chosen:
            continue
        path, at = [], f
        while at:
            path.insert(0, at)
            at = chosen.get(at)
        out.append({"function": f, "share": share[f], "path": path})
    return sorted(out, key=lambda b: -b["share"])


def on_path(levels, function):
    """Whether the drill-down chose function at some level."""
    return any(function in lv["chosen"] for lv in levels)


def phase(c, cfg, args, name, open_call, no_trunc, samples_out):
    shares, calls, samples, squid = measured_run(
        c, squid_argv(cfg, no_trunc=no_trunc), [open_call] + FIX_SET,
        [DNLC_LOOKUP, DNLC_MISS], args.sample_ms / 1000)
    for t, values in samples:
        samples_out.append((name, t, values))
    lookups = calls[DNLC_LOOKUP]
    figures = {"open": shares[open_call], "lookup": shares[WALK], "truncate": shares[TRUNCATE],
               "create": shares[CREATE], "write": shares["sys_write"],
               "ftruncate": shares["sys_ftruncate"], "vfs_open": shares["vfs_open"],
               "close": shares["sys_close"],
               "dnlc_lookups": lookups, "dnlc_misses": calls[DNLC_MISS],
               "dnlc_miss": calls[DNLC_MISS] / lookups if lookups else 0.0}
    log(f"{name}: open {figures['open']:.1%}, lookup {figures['lookup']:.1%}, truncation "
        f"{figures['truncate']:.1%}, name-cache misses {figures['dnlc_miss']:.1%}, "
        f"{squid['ms']} ms")
    return {"figures": figures, "squid": squid}


def curves(samples, open_call):
    """Rows (phase, t, series, value): each interval's share, and its name-cache miss ratio."""
    rows, prev = [], {}
    for name, t, values in samples:
        before = prev.get(name)
        prev[name] = (t, values)
        if not before:
            continue
        for f in [open_call] + FIX_SET:
            rows.append((name, round(t, 3), f, round(delta_share(before[1], values,
                                                                  ("concurrency", f)), 5)))
        look = values[("count", DNLC_LOOKUP)][0] - before[1][("count", DNLC_LOOKUP)][0]
        miss = values[("count", DNLC_MISS)][0] - before[1][("count", DNLC_MISS)][0]
        if look:
            rows.append((name, round(t, 3), "dnlc_miss_ratio", round(miss / look, 5)))
    return rows


def study(args):
    cfg = dict(SCALES[args.scale])
    for key in ("clients", "requests", "disk_files", "dnlc", "dnlc_fix", "bcache", "mem", "disk_mb", "mem_objects"):
        if getattr(args, key) is not None:
            cfg[key] = getattr(args, key)
    os.makedirs(args.out, exist_ok=True)
    disk = make_disk(args.out, cfg["disk_mb"])
    symbols = ksyms.load(os.path.join(args.kernel_dir, "kernel.syms"))
    kernel = os.path.join(args.kernel_dir, "kernel32.elf")
    cmdline = " ".join([f"dnlc={cfg['dnlc']}"] + ([args.cmdline] if args.cmdline else []))
    b, sock = bench_boot.boot("squid", args.out, kernel=kernel, cmdline=cmdline,
                              disk=disk, disk_snapshot=False, single_thread_tcg=True, smp=1,
                              mem=cfg["mem"], timeout=args.timeout)
    started = time.monotonic()
    try:
        with bench_boot.session(b, sock) as c:
            shell(c, f"bcache reset {cfg['bcache']}")
            log("filling the disk cache (not measured)")
            warmup = unmeasured_run(c, cfg)
            if warmup["files"] < cfg["disk_files"]:
                log(f"the first run left {warmup['files']} of {cfg['disk_files']} cache files: "
                    f"later runs create the rest")
            log(f"call graph ({cfg['graph_requests']} requests a client under D)")
            graph, _ = call_graph(c, cfg, symbols)
            levels = drill_down(c, cfg, args, graph)
            open_call = levels[0]["chosen"][0] if levels else None
            samples = []
            phases = {}
            if open_call in OPEN_CALLS:
                phases["before"] = phase(c, cfg, args, "before", open_call, False, samples)
                shell(c, f"dnlc size {cfg['dnlc_fix']}")
                # Resizing empties the name cache: it is warmed as the paper's was
                # (its miss rate fell to 1% once the benchmark had run a minute).
                log("warming the larger name cache (not measured)")
                unmeasured_run(c, cfg)
                phases["fix1"] = phase(c, cfg, args, "fix1", open_call, False, samples)
                phases["fix2"] = phase(c, cfg, args, "fix2", open_call, True, samples)
            else:
                log(f"the largest system call is {open_call}, not open: no fixes to try")
            shell(c, "sync")
        bench_boot.power_off(b)
    except Exception:
        b.kill()
        raise
    results = {
        "config": {"scale": args.scale, **cfg, "cpus": 1, "accel": "tcg,thread=single",
                   "cmdline": cmdline,
                   "sample_ms": args.sample_ms, "floor": args.floor, "fanout": args.fanout,
                   "kernel": kernel, "seconds": round(time.monotonic() - started, 1)},
        "paper": PAPER,
        "call_graph_edges": sum(len(e) for e in graph.values()),
        "open_call": open_call,
        "warmup": warmup,
        "levels": levels,
        "bottlenecks": bottlenecks(levels),
        "found": {"lookup": on_path(levels, WALK), "truncate": on_path(levels, TRUNCATE)},
        "phases": phases,
    }
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    with open(os.path.join(args.out, "curves.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["phase", "seconds", "series", "value"])
        w.writerows(curves(samples, open_call))
    if not args.keep_disk:
        os.unlink(disk)
    return results


def bench_section(kernel_dir, out):
    """make bench's "squid" section: the small study's shares before and after
    each fix and the bottlenecks it named, with the configuration. Shares are
    ratios of the proxy's wall time, so QEMU runs without -icount here (its
    clock jumps while the guest waits for the disk)."""
    args = build_parser().parse_args(["--scale", "small", "--kernel-dir", kernel_dir,
                                      "--out", out, "--no-report"])
    res = study(args)
    return {"config": {**res["config"], "icount": False},
            "phases": {k: v["figures"] for k, v in res["phases"].items()},
            "bottlenecks": res["bottlenecks"], "paper": PAPER}


def print_bench(section):
    print("\nthe Squid study, small scale (share of the proxy's time; no icount):")
    print(f"  {'':28}{'before':>10}{'fix 1':>10}{'fix 2':>10}{'paper':>14}")
    ph = section["phases"]
    for key in ("open", "lookup", "truncate", "dnlc_miss"):
        vals = "".join(f"{100 * ph[p][key]:>9.1f}%" for p in ("before", "fix1", "fix2") if p in ph)
        before, after = section["paper"][key]
        print(f"  {key:28}{vals}{100 * before:>6.0f}% -> {100 * after:.0f}%")


def build_parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", choices=sorted(SCALES), default="full")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "squid"))
    ap.add_argument("--kernel-dir", default=os.path.join(ROOT, "build"),
                    help="where kernel32.elf and kernel.syms are (default build/)")
    ap.add_argument("--mem", help="guest memory (QEMU -m)")
    ap.add_argument("--disk-mb", type=int, dest="disk_mb", help="the cache disk's size in MiB")
    ap.add_argument("--clients", type=int)
    ap.add_argument("--mem-objects", type=int, dest="mem_objects")
    ap.add_argument("--requests", type=int, help="requests per client")
    ap.add_argument("--disk-files", type=int, dest="disk_files")
    ap.add_argument("--dnlc", type=int, help="the baseline name cache's entries")
    ap.add_argument("--dnlc-fix", type=int, dest="dnlc_fix", help="fix 1's name cache entries")
    ap.add_argument("--bcache", type=int, help="block cache buffers (default the most, "
                    f"{BCACHE_MOST})")
    ap.add_argument("--depth", type=int, default=6, help="drill-down levels below the system calls")
    ap.add_argument("--floor", type=float, default=0.03,
                    help="the least share of the proxy's time a function needs to be descended "
                         "into (default 0.03)")
    ap.add_argument("--fanout", type=int, default=3,
                    help="at most this many callees of a function are descended into")
    ap.add_argument("--max-metrics", type=int, default=40, dest="max_metrics")
    ap.add_argument("--sample-ms", type=int, default=500, dest="sample_ms")
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--cmdline", default="",
                    help="more boot options, e.g. ext2sync=all (every metadata write synchronous)")
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--keep-disk", action="store_true", dest="keep_disk",
                    help="keep OUT/squid-disk.img (to check it with e2fsck -fn)")
    return ap


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        results = study(args)
    except (StudyError, ScionError) as e:
        sys.exit(f"squid study: {e}")
    if not args.no_report:
        import squid_report
        squid_report.write(args.out, results)
        log(f"report: {os.path.join(args.out, 'report.html')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
