# SPDX-License-Identifier: BSD-2-Clause
"""The host half of self-monitoring's `make bench`: how fast the host
simulator (build/host/scion-sim) replays a block cache trace and a
scheduler trace.

A synthetic trace of REQUESTS demand reads (a loop over a working set a
little larger than the cache, mixed with random reads, so every policy
evicts and read-ahead has work) is written with recfmt.py and replayed
once per policy; the figure is requests per second of host time, the
best of ROUNDS runs. The guest-side figures (recording overhead per
request, kernel replay per request) come from tests/kernel/bench_record.c
in the same `make bench`.

The scheduler trace is tests/kernel/bench_record.c's synthetic one, made
longer: SCHED_THREADS threads each alternating bursts of 0 to 3 ticks and
sleeps of 1 to 6 (xorshift, seed 1) for SCHED_TICKS ticks, replayed on
SCHED_CPUS CPUs once per pick-next policy; the figure is trace events per
second of host time, the best of ROUNDS runs (guest side: recording
overhead per scheduling event, kernel replay per event and per pick)."""

import os
import random
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "userland"))
from scionhost import recfmt  # noqa: E402

REQUESTS = 1_000_000
BUFFERS, BLOCKS = 64, 8192
ROUNDS = 3
POLICIES = ["lru", "2q", "clock+stride", "2q+recorded"]
MODEL = "4000,150000"
SCHED_THREADS, SCHED_TICKS, SCHED_CPUS = 32, 40_000, 4
SCHED_POLICIES = ["rr", "fair", "lifo"]


def write_trace(path):
    rng = random.Random(1)
    records = []
    for seq in range(1, REQUESTS + 1):
        block = (seq % 80) if rng.random() < 0.7 else rng.randrange(BLOCKS)
        records.append(recfmt.REQUEST.pack(recfmt.REQUEST.size, recfmt.TYPE_BCACHE_REQUEST, 0,
                                           seq, seq * 1000, 1, 0, block, 0))
    header = recfmt.pack_header(recfmt.STREAM_TRACE, "bcache", "evict=lru readahead=sequential",
                                [BUFFERS, BLOCKS, 0, 0], len(records), 0)
    recfmt.write_stream(path, header, records)


def xorshift(state):
    x = state[0]
    x ^= (x << 13) & (2**64 - 1)
    x ^= x >> 7
    x ^= (x << 17) & (2**64 - 1)
    state[0] = x
    return x


def write_sched_trace(path):
    """tests/kernel/bench_record.c's synthetic_trace, SCHED_THREADS by SCHED_TICKS."""
    state, seq, records = [1], 0, []
    left, wake = [0] * SCHED_THREADS, [0] * SCHED_THREADS
    for tick in range(SCHED_TICKS):
        for i in range(SCHED_THREADS):
            kind = 0
            if not left[i] and wake[i] == tick:
                kind, left[i] = 1, 1 + xorshift(state) % 4
            elif left[i]:
                left[i] -= 1
                kind = 4 if left[i] else 2
                if not left[i]:
                    wake[i] = tick + 1 + xorshift(state) % 6
            if kind:
                seq += 1
                records.append(recfmt.SCHED_EVENT.pack(recfmt.SCHED_EVENT.size,
                                                       recfmt.TYPE_SCHED_EVENT, 0, seq, tick,
                                                       tick, 100 + i, kind, -1))
    header = recfmt.pack_header(recfmt.STREAM_TRACE, "sched", "pick_next=rr tick=rr",
                                [SCHED_CPUS, 100, 2, 0], len(records), 0)
    recfmt.write_stream(path, header, records)
    return len(records)


def best_replay(sim, argv, what):
    best = None
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        p = subprocess.run([sim, "replay", *argv, "--no-progress"], capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if p.returncode != 0:
            sys.exit(f"bench: scion-sim replay {what} failed: {p.stderr}")
        best = seconds if best is None else min(best, seconds)
    return best


def record_bench(sim, out_dir):
    path = os.path.join(out_dir, "bench-trace.bin")
    write_trace(path)
    figures = []
    for policy in POLICIES:
        best = best_replay(sim, [path, "--model", MODEL, "--policy", policy, "--out", out_dir],
                           f"--policy {policy}")
        figures.append({"figure": f"sim.host.replay.{policy}", "value": round(REQUESTS / best),
                        "unit": "requests per second (host, whole process)"})
    sched_path = os.path.join(out_dir, "bench-sched-trace.bin")
    events = write_sched_trace(sched_path)
    for policy in SCHED_POLICIES:
        best = best_replay(sim, [sched_path, "--policy", policy, "--out", out_dir],
                           f"sched --policy {policy}")
        figures.append({"figure": f"sim.host.sched_replay.{policy}", "value": round(events / best),
                        "unit": "trace events per second (host, whole process)"})
    return {"config": {"name": "sim-host", "requests": REQUESTS, "buffers": BUFFERS,
                       "blocks": BLOCKS, "model": MODEL, "rounds": ROUNDS,
                       "trace": "70% a loop over 80 blocks, 30% uniform random (seed 1)",
                       "sched_events": events, "sched_threads": SCHED_THREADS,
                       "sched_cpus": SCHED_CPUS,
                       "sched_trace": f"{SCHED_THREADS} threads, bursts of 0-3 ticks, sleeps "
                                      f"of 1-6, {SCHED_TICKS} ticks (xorshift, seed 1)"},
            "figures": figures}


def print_record(result):
    cfg = result["config"]
    print(f"\nhost replay ({cfg['requests']} requests, {cfg['buffers']} buffers; "
          f"{cfg['sched_events']} scheduler events of {cfg['sched_threads']} threads on "
          f"{cfg['sched_cpus']} CPUs; best of {cfg['rounds']}):")
    for fig in result["figures"]:
        print(f"  {fig['figure']:36} {fig['value']:>12,} {fig['unit']}")
