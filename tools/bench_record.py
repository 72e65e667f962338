# SPDX-License-Identifier: BSD-2-Clause
"""The host half of self-monitoring's `make bench`: how fast the host
simulator (build/host/scion-sim) replays a block cache trace.

A synthetic trace of REQUESTS demand reads (a loop over a working set a
little larger than the cache, mixed with random reads, so every policy
evicts and read-ahead has work) is written with recfmt.py and replayed
once per policy; the figure is requests per second of host time, the
best of ROUNDS runs. The guest-side figures (recording overhead per
request, kernel replay per request) come from tests/kernel/bench_record.c
in the same `make bench`."""

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


def record_bench(sim, out_dir):
    path = os.path.join(out_dir, "bench-trace.bin")
    write_trace(path)
    figures = []
    for policy in POLICIES:
        best = None
        for _ in range(ROUNDS):
            t0 = time.perf_counter()
            p = subprocess.run([sim, "replay", path, "--model", MODEL, "--policy", policy,
                                "--out", out_dir, "--no-progress"], capture_output=True, text=True)
            seconds = time.perf_counter() - t0
            if p.returncode != 0:
                sys.exit(f"bench: scion-sim replay --policy {policy} failed: {p.stderr}")
            best = seconds if best is None else min(best, seconds)
        figures.append({"figure": f"sim.host.replay.{policy}", "value": round(REQUESTS / best),
                        "unit": "requests per second (host, whole process)"})
    return {"config": {"name": "sim-host", "requests": REQUESTS, "buffers": BUFFERS,
                       "blocks": BLOCKS, "model": MODEL, "rounds": ROUNDS,
                       "trace": "70% a loop over 80 blocks, 30% uniform random (seed 1)"},
            "figures": figures}


def print_record(result):
    cfg = result["config"]
    print(f"\nhost replay ({cfg['requests']} requests, {cfg['buffers']} buffers, best of "
          f"{cfg['rounds']}):")
    for fig in result["figures"]:
        print(f"  {fig['figure']:36} {fig['value']:>12,} {fig['unit']}")
