# SPDX-License-Identifier: BSD-2-Clause
"""The optimum of a recorded block cache trace (issue 26 step 3, VINO's
"compare the actual behaviour with the optimal"): `min` (Belady's MIN),
`oracle` read-ahead, `optimal` (both) and `optimal-evict` (MIN with the
recorded read-ahead) in the host simulator and in the kernel's `sim run`.

What is asserted, and why it is true:
- hand-made traces whose MIN figures are known by hand (Belady's example,
  a cyclic scan one block larger than the cache, where LRU never hits);
- on random traces of reads with no sequential step (so the default
  read-ahead never fires and every `X+sequential` policy pages on demand
  only), MIN's hits equal an independent Python MIN's and are at least
  every other demand policy's (MIN is optimal for demand paging);
- on every random trace of reads, `optimal` hits every request but the
  first (its oracle plans the next request's block; prefetches complete
  at once in a replay), so at least as often as any policy, prefetching
  or not; and on the traces above it reads the disk exactly as often as
  MIN without read-ahead (it only moves MIN's fetches one request
  earlier). Nothing is asserted of `optimal-evict` against policies
  whose read-ahead fires: prefetching changes what MIN optimises;
- the kernel's `sim run` of a recording (of reads, and of reads with
  writes) gives the same rows, gap lines and logs, byte for byte, as
  `scion sim replay` of it downloaded; and in-kernel tests replay
  Belady's example in a simulation instance and see a trace too large for
  the kernel's next-request table refused in one line."""

import os
import random
import re
import shutil
import subprocess

from common import poweroff, run_kernel_tests
from test_bcache import RUN
from test_channel import scion
from test_record import recfmt, recording_boot, rows, sim

DISK_BLOCKS = 8192
GAP = re.compile(r"^(live )?evict=(\S+) readahead=(\S+)\s+([\d.]+)%\s+([-+\d. ]*)$", re.M)


def write_trace(rf, directory, blocks, buffers):
    """A recording directory holding only a trace of reads of blocks, for a cache of
    buffers."""
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    records = [rf.encode_record({"type": "request", "cpu": 0, "seq": i + 1,
                                 "time_ns": 1000 * (i + 1), "tid": 5, "pid": 0, "block": b,
                                 "in_flight": 0})
               for i, b in enumerate(blocks)]
    header = rf.pack_header(rf.STREAM_TRACE, "bcache", "evict=lru readahead=sequential",
                            (buffers, DISK_BLOCKS), len(records), 0)
    rf.write_stream(os.path.join(directory, rf.TRACE_FILE), header, records)


def replay(ctx, directory, policies):
    """scion-sim replay with a given model: (exit, {policy: row}, stdout + stderr)."""
    rc, out, err = sim(ctx, "replay", directory, "--model", "100,1000", "--no-progress",
                       *sum((["--policy", p] for p in policies), []))
    return rc, rows_all(out), out + err


ROW = re.compile(r"^evict=(\S+) readahead=(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s",
                 re.M)


def rows_all(text):
    """{"E+R": (hits, misses, evictions, prefetches, disk reads)} of a table without agree."""
    return {f"{m[1]}+{m[2]}": tuple(int(m[k]) for k in range(3, 8)) for m in ROW.finditer(text)}


def python_min_hits(blocks, buffers):
    """Belady's MIN by hand: on a miss with the cache full, evict the block whose next
    request is farthest (never again counts as farthest)."""
    cache, hits = set(), 0
    for p, b in enumerate(blocks):
        if b in cache:
            hits += 1
            continue
        if len(cache) == buffers:
            def next_use(x):
                for q in range(p + 1, len(blocks)):
                    if blocks[q] == x:
                        return q
                return len(blocks)
            cache.remove(max(sorted(cache), key=next_use))
        cache.add(b)
    return hits


def job_optimal_known(ctx):
    rf = recfmt(ctx)
    d = os.path.join(ctx.log_dir, f"{ctx.job}-trace")

    # Belady's example with 3 frames: OPT faults 9 times, LRU 12 (blocks spaced by 10,
    # so no read is sequential and the default read-ahead never fires).
    belady = [10 * b for b in (7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1)]
    write_trace(rf, d, belady, 3)
    rc, got, text = replay(ctx, d, ["lru", "optimal-evict", "optimal"])
    ctx.result("belady-exit", rc == 0 and len(got) == 3, text)
    ctx.result("belady-min-9-faults", got.get("min+sequential", (0,))[:2] == (11, 9), text)
    ctx.result("belady-lru-12-faults", got.get("lru+sequential", (0,))[:2] == (8, 12), text)
    opt = got.get("min+oracle")
    ctx.result("belady-optimal-all-but-first", opt and opt[:2] == (19, 1) and
               opt[4] == got["min+sequential"][4], text)
    gaps = {(m[2], m[3]): m[5].split() for m in GAP.finditer(text)}
    ctx.result("belady-gap-lines", gaps.get(("lru", "sequential")) == ["-55.0", "-15.0"] and
               gaps.get(("min", "oracle")) == ["0.0", "+40.0"] and
               "gap to optimal (hit ratio, percentage points): optimal is evict=min "
               "readahead=oracle; optimal-evict is evict=min readahead=sequential;" in text,
               text)

    # A cyclic scan of buffers + 1 blocks: LRU always evicts the block needed next and
    # never hits; MIN misses the first buffers reads, then once every buffers requests.
    for buffers, rounds in ((4, 8), (8, 5), (16, 3)):
        loop = buffers + 1
        blocks = [2 * (i % loop) for i in range(loop * rounds)]
        write_trace(rf, d, blocks, buffers)
        rc, got, text = replay(ctx, d, ["lru", "optimal-evict", "optimal", "2q"])
        n = len(blocks)
        min_misses = buffers + -(-(n - buffers) // buffers)
        ctx.result(f"loop-{buffers}-lru-no-hits", rc == 0 and got.get("lru+sequential",
                   (1,))[0] == 0, text)
        ctx.result(f"loop-{buffers}-min", got.get("min+sequential", (0, 0))[1] == min_misses
                   and got["min+sequential"][0] == python_min_hits(blocks, buffers),
                   f"expected {min_misses} misses\n{text}")
        ctx.result(f"loop-{buffers}-optimal", got.get("min+oracle", (0,))[:2] == (n - 1, 1) and
                   got["min+oracle"][4] == min_misses, text)

    # Names: optimal is both kinds, so it takes no second read-ahead; the list names them.
    rc, _, text = replay(ctx, d, ["optimal+stride"])
    ctx.result("optimal-takes-no-second-readahead", rc != 0 and
               "'optimal+stride' names a second readahead policy" in text, text)
    rc, got, text = replay(ctx, d, ["2q+oracle", "min+stride"])
    ctx.result("min-and-oracle-combine", rc == 0 and set(got) == {"2q+oracle", "min+stride"},
               text)
    p = subprocess.run([os.path.join(ctx.build, "host", "scion-sim"), "policies"],
                       capture_output=True, text=True, timeout=60)
    ctx.result("policies-list-the-optimum", re.search(r"^  min\s+bcache.evict", p.stdout, re.M)
               and re.search(r"^  oracle\s+bcache.readahead", p.stdout, re.M), p.stdout)


def random_reads(rng, n, span, sequential_steps):
    """n reads of blocks below span; none the block after the previous one unless
    sequential_steps (then runs of sequential reads are mixed in)."""
    out = []
    while len(out) < n:
        if sequential_steps and rng.random() < 0.2:
            start = rng.randrange(span)
            out.extend(range(start, start + rng.randrange(2, 6)))
            continue
        b = rng.randrange(span)
        if out and b == out[-1] + 1:
            continue
        out.append(b)
    return out[:n]


def job_optimal_properties(ctx):
    rf = recfmt(ctx)
    d = os.path.join(ctx.log_dir, f"{ctx.job}-trace")
    rng = random.Random(26)
    demand = ["lru", "2q", "clock"]
    prefetching = ["clock+stride", "2q+recorded", "lru+stride"]
    failures = {"min-equals-python": [], "min-at-least-demand": [], "optimal-all-but-first": [],
                "optimal-reads-as-min": [], "optimal-at-least-all": []}
    cases = 0
    for trial in range(24):
        buffers = rng.choice((2, 4, 8, 16, 32))
        span = rng.choice((buffers + 1, 2 * buffers, 5 * buffers, 64))
        sequential = trial % 3 == 2
        blocks = random_reads(rng, rng.randrange(50, 500), span, sequential)
        write_trace(rf, d, blocks, buffers)
        rc, got, text = replay(ctx, d, demand + prefetching + ["optimal-evict", "optimal"])
        if rc or len(got) != len(demand) + len(prefetching) + 2:
            ctx.result(f"trial-{trial}-exit", False, text)
            continue
        cases += 1
        case = f"trial {trial}: {buffers} buffers, {len(blocks)} reads below {span}"
        mn, opt = got["min+sequential"], got["min+oracle"]
        if not sequential:
            if mn[0] != python_min_hits(blocks, buffers):
                failures["min-equals-python"].append(f"{case}: {mn[0]}")
            worse = [p for p in demand if got[f"{p}+sequential"][0] > mn[0]]
            if worse:
                failures["min-at-least-demand"].append(f"{case}: {worse} over {mn[0]}")
            if opt[4] != mn[4]:
                failures["optimal-reads-as-min"].append(f"{case}: {opt[4]} vs {mn[4]}")
        if opt[:2] != (len(blocks) - 1, 1):
            failures["optimal-all-but-first"].append(f"{case}: {opt[:2]}")
        better = [k for k, v in got.items() if v[0] > opt[0]]
        if better:
            failures["optimal-at-least-all"].append(f"{case}: {better}")
    ctx.result("random-traces-replayed", cases == 24, f"{cases} of 24")
    for name, fails in failures.items():
        ctx.result(name, cases and not fails, "; ".join(fails[:5]))


# What the kernel records for the agreement job: reads (random, sequential, a loop), and
# reads with writes (dirty blocks MIN may not evict; writes get no read-ahead).
KERNEL_WORKLOADS = {
    "reads": ["bcache run random n=300 range=40 seed=5", "bcache run seq n=60",
              "bcache run loop size=20 rounds=3"],
    "writes": ["bcache run random n=300 range=40 write=30 seed=9"],
}


def compare_kernel_and_host(ctx, boot, sock, out, name, commands, policies):
    """Record commands in the kernel, `sim run` them there, replay the download on the
    host: the rows, gap lines and the optimum's logs must be the same."""
    rf = recfmt(ctx)
    boot.command("bcache reset 16", r"scion> ")
    boot.command("record start bcache", r"record: rec(\d+): recording bcache")
    for command in commands:
        boot.command(command, RUN, timeout=300)
    m = boot.command("record stop", r"record: rec(\d+): bcache, (\d+) requests")
    rec, requests = f"rec{m.group(1)}", int(m.group(2))
    m = boot.command(f"sim run {rec} " + " ".join(policies),
                     r"sim: \w+: \d+ requests[\s\S]*?to-optimal-evict\n[\s\S]*?scion> ",
                     timeout=300)
    kernel_text = m.group(0)
    kernel_rows = rows(kernel_text)
    optimal = kernel_rows.get("evict=min readahead=oracle", (0,))
    # On reads the oracle makes every request but the first a hit. With writes nothing
    # is claimed here but the agreement: dirty blocks are not evictable, and a replay
    # writes them back only when a miss finds no clean buffer, outside MIN's model.
    ctx.result(f"{name}/kernel-optimum-rows", len(kernel_rows) == len(policies) and
               (name != "reads" or optimal[0] == requests - 1), kernel_text)
    directory = os.path.join(out, name)
    rc, text, err = scion(ctx, sock, "record", "download", rec, "-o", directory)
    ctx.result(f"{name}/download", rc == 0, text + err)
    rc, host_text, err = sim(ctx, "replay", directory, "--no-progress",
                             *sum((["--policy", p] for p in policies), []))
    host_rows = rows(host_text)
    ctx.result(f"{name}/host-replay-exit", rc == 0 and len(host_rows) == len(policies),
               host_text + err)
    ctx.result(f"{name}/kernel-rows-as-host", {k: v[:6] for k, v in kernel_rows.items()} ==
               {k: v[:6] for k, v in host_rows.items()}, f"{kernel_text}\n{host_text}")
    kernel_gap = [g.group(0).rstrip() for g in GAP.finditer(kernel_text)]
    host_gap = [g.group(0).rstrip() for g in GAP.finditer(host_text)]
    ctx.result(f"{name}/kernel-gap-as-host", kernel_gap and kernel_gap == host_gap,
               f"{kernel_gap}\n{host_gap}")
    for policy, row in sorted(kernel_rows.items()):
        if "min" not in policy:
            continue
        fetched = os.path.join(directory, f"kernel-{row[6]}")
        rc, text, err = scion(ctx, sock, "record", "download", row[6], "-o", fetched)
        host_row = host_rows.get(policy)
        same = rc == 0 and host_row and open(os.path.join(fetched, rf.LOG_FILE),
                                             "rb").read() == open(host_row[6], "rb").read()
        ctx.result(f"{name}/kernel-log-equals-host-log/{policy.replace(' ', ',')}", same,
                   text + err)


def job_optimal_kernel_agrees(ctx):
    """In-kernel `sim run recN ... optimal optimal-evict` equals the host's replay of
    recN downloaded: rows, gap lines and every log of the optimum byte for byte."""
    policies = ["lru", "2q", "clock+stride", "optimal", "optimal-evict"]
    boot, sock, out = recording_boot(ctx, ["evict_clock", "evict_2q", "readahead_stride"])
    try:
        for name, commands in KERNEL_WORKLOADS.items():
            compare_kernel_and_host(ctx, boot, sock, out, name, commands, policies)
        poweroff(ctx, boot)
    finally:
        boot.finish()


def job_optimal_in_kernel_tests(ctx):
    """tests/kernel/test_sim_optimal.c: Belady's example in a kernel simulation
    instance, and a trace too large for the kernel's next-request table refused."""
    run_kernel_tests(ctx, "ktests", 1, "sim_optimal_*", single_thread_tcg=True)
