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
overhead per scheduling event, kernel replay per event and per pick).

For --follow, write_sched_history makes a recording (trace and log) as the
live round robin would: the same kind of threads on the same CPUs, each
pick the oldest queued thread; the figure is recorded picks per second
of host time, the best of ROUNDS runs (guest side: a follow of the
recorded yields, per pick)."""

import os
import random
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host"))
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
        records.append(recfmt.encode_record({"type": "request", "cpu": 0, "seq": seq,
                                             "time_ns": seq * 1000, "tid": 1, "pid": 0,
                                             "block": block, "in_flight": 0}))
    header = recfmt.pack_header(recfmt.STREAM_TRACE, "bcache", "evict=lru readahead=sequential",
                                [BUFFERS, BLOCKS, 0, 0], len(records), 0)
    recfmt.write_stream(path, header, records)


def sched_event(cpu, seq, tick, tid, kind):
    """A sched event record at tick (its time_ns is the tick too), affinity any."""
    return recfmt.encode_record({"type": "event", "cpu": cpu, "seq": seq, "tick": tick,
                                 "time_ns": tick, "tid": tid, "kind": kind, "affinity": -1})


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
                records.append(sched_event(0, seq, tick, 100 + i, kind))
    header = recfmt.pack_header(recfmt.STREAM_TRACE, "sched", "pick_next=rr tick=rr",
                                [SCHED_CPUS, 100, 2, 0], len(records), 0)
    recfmt.write_stream(path, header, records)
    return len(records)


def write_sched_history(trace_path, log_path):
    """A recording as the live scheduler under round robin would make it (trace and log,
    one sequence), for --follow: SCHED_THREADS threads each alternating bursts of 1 to 4
    ticks and sleeps of 1 to 6 (xorshift, seed 1) on SCHED_CPUS CPUs for SCHED_TICKS
    ticks. Each tick: the threads whose sleep is over become runnable (queued at the
    tail, a fresh slice of 2); then each CPU in order charges its thread a tick, and
    picks when the burst ended (the thread blocks) or the slice ran out (the thread goes
    back to the tail first), or when it is idle and a thread is queued; round robin
    picks the oldest queued. Returns (events, picks)."""
    state, seq = [1], 0
    events, picks = [], []
    queue, running = [], [0] * SCHED_CPUS
    left, wake, slice_ = {}, {}, {}
    tids = [100 + i for i in range(SCHED_THREADS)]
    for tid in tids:
        wake[tid] = 0

    def event(tick, tid, kind, cpu=0):
        nonlocal seq
        seq += 1
        events.append(sched_event(cpu, seq, tick, tid, kind))

    def pick(tick, cpu, prev):
        nonlocal seq
        seq += 1
        queued = len(queue)
        chosen = queue.pop(0) if queue else 0
        picks.append(recfmt.encode_record({"type": "pick", "cpu": cpu, "seq": seq, "tick": tick,
                                           "tid": chosen, "prev": prev, "queued": queued}))
        running[cpu] = chosen

    for tick in range(SCHED_TICKS):
        for tid in tids:
            if wake.get(tid) == tick:
                del wake[tid]
                left[tid] = 1 + xorshift(state) % 4
                queue.append(tid)
                slice_[tid] = 2
                event(tick, tid, 1)
        for cpu in range(SCHED_CPUS):
            tid = running[cpu]
            if tid:
                event(tick, tid, 4, cpu)
                left[tid] -= 1
                slice_[tid] -= 1
                if not left[tid]:
                    wake[tid] = tick + 1 + xorshift(state) % 6
                    event(tick, tid, 2, cpu)
                    pick(tick, cpu, tid)
                elif slice_[tid] <= 0:
                    queue.append(tid)
                    slice_[tid] = 2
                    pick(tick, cpu, tid)
            elif queue:
                pick(tick, cpu, 0)
    config = [SCHED_CPUS, 100, 2, 0]
    recfmt.write_stream(trace_path, recfmt.pack_header(recfmt.STREAM_TRACE, "sched",
                                                       "pick_next=rr tick=rr", config,
                                                       len(events), 0), events)
    recfmt.write_stream(log_path, recfmt.pack_header(recfmt.STREAM_LOG, "sched",
                                                     "pick_next=rr tick=rr", config,
                                                     len(picks), 0), picks)
    return len(events), len(picks)


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
    trace_path = os.path.join(out_dir, "bench-sched-history-trace.bin")
    log_path = os.path.join(out_dir, "bench-sched-history-log.bin")
    history_events, history_picks = write_sched_history(trace_path, log_path)
    for policy in SCHED_POLICIES:
        best = best_replay(sim, [trace_path, "--log", log_path, "--follow", "--policy", policy,
                                 "--out", out_dir], f"sched --follow --policy {policy}")
        figures.append({"figure": f"sim.host.sched_follow.{policy}",
                        "value": round(history_picks / best),
                        "unit": "recorded picks per second (host, whole process)"})
    return {"config": {"name": "sim-host", "requests": REQUESTS, "buffers": BUFFERS,
                       "blocks": BLOCKS, "model": MODEL, "rounds": ROUNDS,
                       "trace": "70% a loop over 80 blocks, 30% uniform random (seed 1)",
                       "sched_events": events, "sched_threads": SCHED_THREADS,
                       "sched_cpus": SCHED_CPUS,
                       "sched_trace": f"{SCHED_THREADS} threads, bursts of 0-3 ticks, sleeps "
                                      f"of 1-6, {SCHED_TICKS} ticks (xorshift, seed 1)",
                       "sched_history_events": history_events,
                       "sched_history_picks": history_picks},
            "figures": figures}


def print_record(result):
    cfg = result["config"]
    print(f"\nhost replay ({cfg['requests']} requests, {cfg['buffers']} buffers; "
          f"{cfg['sched_events']} scheduler events of {cfg['sched_threads']} threads on "
          f"{cfg['sched_cpus']} CPUs; followed: a round-robin history of "
          f"{cfg['sched_history_events']} events and {cfg['sched_history_picks']} picks; "
          f"best of {cfg['rounds']}):")
    for fig in result["figures"]:
        print(f"  {fig['figure']:36} {fig['value']:>12,} {fig['unit']}")
