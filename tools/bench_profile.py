#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The profile database's and the nightly analysis's part of `make bench`
(host only, no QEMU; `make bench-profile` runs it alone and merges its
figures into OUT/results.json).

  profile.write.sqlite / .postgresql   samples per second through
      SampleWriter (batched transactions; SQLite in WAL mode with
      synchronous=NORMAL, PostgreSQL through COPY to a server started for
      the run, fsync on): WRITE_SAMPLES samples of 27 streams, arrays made
      beforehand, so the figure is the database path alone.
  profile.collect.sqlite / .postgresql   samples per second through
      `scion profile collect`'s path without the kernel: "monitor" stream
      chunks built beforehand (COLLECT_ROUNDS rounds of the kernel's shape,
      20 global, 4 per-CPU on 2 CPUs and 3 per-thread sources on 6 threads:
      46 samples a round, COLLECT_ROUNDS_PER_DRAIN rounds a drain) taken
      apart and stored by collect.Collector through SampleWriter. The
      kernel's heaviest load, a 1 ms burst, is about 28000 samples a second.
  profile.synth.samples_per_second     `scion profile synth` of the month
      below, generation included.
  profile.db.bytes_per_day.*           the SQLite file's growth (after a WAL
      checkpoint) for a day sampled at 10 s (the history: system resources,
      per-thread resources, hourly 500 ms bursts) and for a day at 100 ms.
  profile.analyze.wall_seconds / .peak_rss_mib   `scion analyze nightly`
      (report included) of the 100 ms day with a month of 10 s history, in
      a process of its own (its peak resident set, from wait4). The goal:
      under 30 s and 2 GiB on 2 cores.
  profile.score.recall / .precision    every day from the 8th analysed and
      scored against the injected anomalies (evaluate.py).
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

import bench_compare

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "host"), os.path.join(ROOT, "tests", "integration")]
SCION = os.path.join(ROOT, "host", "scion")

START = datetime.date(2024, 3, 4)
HISTORY_DAYS = 29
WRITE_SAMPLES = 2_000_000
ANOMALIES = ["process@9,14:30,60m,0.4", "group@10,10:00,90m,0.45", "load@15,11:00,2h,1.5",
             "process@17,04:30,45m,0.3", "group@22,15:20,40m,0.5", "load@24,14:00,60m,1.4"]
LAST_DAY_ANOMALY = "process@0,14:20,45m"
COLLECT_ROUNDS = 40000
COLLECT_ROUNDS_PER_DRAIN = 100
COLLECT_SHAPE = (20, 4, 3, 2, 6)    # global, per-CPU, per-thread sources; CPUs; threads


def write_rate(spec):
    """Samples per second through SampleWriter into a fresh database."""
    import numpy as np
    from scionhost.profile import db as pdb
    db = pdb.open_db(spec, create=True)
    mid = db.machine_id("bench", 2, create=True)
    rids = [db.resource_id(f"bench.r{i}", "reads", "counter", "global") for i in range(27)]
    cid = db.new_collection(mid, "api", 10**18, {})
    per = WRITE_SAMPLES // len(rids)
    wall = 10**18 + np.arange(1, per + 1, dtype=np.int64) * 10**8
    vals = np.cumsum(np.random.default_rng(1).poisson(50, per)).astype(np.int64)
    writer = pdb.SampleWriter(db, cid)
    chunk = 8640                          # a day of one stream at 10 s, as synth adds them
    t0 = time.perf_counter()
    for start in range(0, per, chunk):
        for rid in rids:
            writer.add_stream(rid, 0, 0, wall[start:start + chunk], wall[start:start + chunk],
                              vals[start:start + chunk])
    writer.close()
    seconds = time.perf_counter() - t0
    db.close()
    return per * len(rids) / seconds


def monitor_chunks():
    """The "monitor" stream of COLLECT_ROUNDS rounds as (cpu, records, drops, body) chunks."""
    from scionhost import frame
    from scionhost.layouts import C
    from scionhost.profile import monitor_records as mr
    nglobal, ncpu_src, nthread_src, cpus, threads = COLLECT_SHAPE
    scopes = ([C.MONITOR_SCOPE_GLOBAL] * nglobal + [C.MONITOR_SCOPE_CPU] * ncpu_src +
              [C.MONITOR_SCOPE_THREAD] * nthread_src)
    head = [mr.source_record(i, C.MONITOR_COUNTER, scope, f"bench.s{i}", "ops")
            for i, scope in enumerate(scopes)]
    head += [mr.thread_record(tid, f"t{tid}") for tid in range(1, threads + 1)]
    ids = {C.MONITOR_SCOPE_GLOBAL: [0], C.MONITOR_SCOPE_CPU: range(cpus),
           C.MONITOR_SCOPE_THREAD: range(1, threads + 1)}
    chunks = [(0, len(head), 0, b"".join(head))]
    written = 0
    for first in range(1, COLLECT_ROUNDS + 1, COLLECT_ROUNDS_PER_DRAIN):
        rounds = []
        for seq in range(first, min(first + COLLECT_ROUNDS_PER_DRAIN, COLLECT_ROUNDS + 1)):
            samples = [(i, s, seq * 7 + i) for i, scope in enumerate(scopes) for s in ids[scope]]
            written += len(samples)
            rounds.append(mr.round_record(seq, seq * 10**8, 10**18 + seq * 10**8, samples))
        chunks.append((0, len(rounds), 0, b"".join(rounds)))
        chunks.append((frame.CHUNK_STATUS, 0, 0, mr.status_record(
            sources=len(scopes), samples_written=written, ended=1)))
    return chunks, written


def collect_rate(spec, chunks, written):
    """Samples per second through the collector into a fresh database."""
    from scionhost.profile import collect, db as pdb
    db = pdb.open_db(spec, create=True)
    mid = db.machine_id("bench", COLLECT_SHAPE[3], create=True)
    cid = db.new_collection(mid, "collect", 10**18, {})
    writer = pdb.SampleWriter(db, cid)
    coll = collect.Collector(db, writer, 10**18)
    t0 = time.perf_counter()
    for chunk in chunks:
        coll.on_chunk(*chunk)
    coll.finish(None)
    writer.close()
    seconds = time.perf_counter() - t0
    db.close()
    if writer.committed != written:
        sys.exit(f"bench: the collector stored {writer.committed} of {written} samples")
    return written / seconds


def sqlite_size(path):
    import sqlite3
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return os.path.getsize(path)


def scion(*args):
    """Run scion: (stdout, wall seconds, the process's own peak RSS in KiB)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, SCION] + list(args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, err = proc.stdout.read(), proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)       # this child's rusage alone
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        sys.exit(f"bench: scion {' '.join(args)}: {err.strip()}")
    return out, time.perf_counter() - t0, usage.ru_maxrss


def profile_bench(out_dir):
    from pg_server import PostgresServer, PostgresUnavailable
    from scionhost.profile import db as pdb, evaluate
    figures = []

    def fig(name, value, unit):
        figures.append({"figure": name, "value": value, "unit": unit})

    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        fig("profile.write.sqlite", round(write_rate(os.path.join(tmp, "w.db"))),
            "samples per second")
        chunks, written = monitor_chunks()
        fig("profile.collect.sqlite", round(collect_rate(os.path.join(tmp, "c.db"), chunks,
                                                         written)), "samples per second")
        try:
            with PostgresServer(fast=False) as pg:
                fig("profile.write.postgresql", round(write_rate(pg.database("bench"))),
                    "samples per second")
                fig("profile.collect.postgresql", round(collect_rate(
                    pg.database("collect"), chunks, written)), "samples per second")
        except PostgresUnavailable as e:
            print(f"bench: no PostgreSQL figure: {e}", file=sys.stderr)

        path = os.path.join(tmp, "month.db")
        common = ["--db", path, "--history-interval-ms", "10000", "--thread-interval-ms",
                  "10000", "--burst-ms", "500", "--quiet"]
        last = (START + datetime.timedelta(days=HISTORY_DAYS)).isoformat()
        out, t_hist, _ = scion("profile", "synth", *common, "--start", START.isoformat(),
                             "--days", str(HISTORY_DAYS), "--full-days", "0",
                             *sum((["--anomaly", a] for a in ANOMALIES), []), "--json")
        history = json.loads(out)
        size_hist = sqlite_size(path)
        out, t_last, _ = scion("profile", "synth", *common, "--start", last, "--days", "1",
                             "--interval-ms", "100", "--full-days", "1", "--anomaly",
                             LAST_DAY_ANOMALY, "--json", "--seed", "2")
        last_day = json.loads(out)
        size_all = sqlite_size(path)
        samples = history["samples"] + last_day["samples"]
        fig("profile.synth.samples_per_second", round(samples / (t_hist + t_last)),
            "samples per second")
        fig("profile.db.bytes_per_day.10s", round(size_hist / HISTORY_DAYS), "bytes")
        fig("profile.db.bytes_per_day.100ms", size_all - size_hist, "bytes")
        fig("profile.db.samples_per_day.100ms", last_day["samples"], "samples")

        _, t_an, peak = scion("analyze", "nightly", "--db", path, "--day", last, "--out",
                              os.path.join(tmp, "nightly"), "--quiet")
        fig("profile.analyze.wall_seconds", round(t_an, 2), "seconds (host)")
        fig("profile.analyze.peak_rss_mib", round(peak / 1024, 1), "MiB")
        with pdb.open_db(path) as db:
            t0 = time.perf_counter()
            score = evaluate.score(db)
            t_score = time.perf_counter() - t0
        fig("profile.score.recall", round(score["recall"], 3), "ratio")
        fig("profile.score.precision", round(score["precision"], 3), "ratio")
        fig("profile.score.seconds_per_day", round(t_score / score["days"], 2),
            "seconds (host)")
    return {"config": {"history": f"{HISTORY_DAYS} days from {START} at 10 s (per-thread "
                                  f"resources at 10 s, 500 ms bursts hourly)",
                       "analysed_day": f"{last} at 100 ms", "samples": samples,
                       "anomalies": ANOMALIES + [f"{LAST_DAY_ANOMALY} (on {last})"],
                       "write_samples": WRITE_SAMPLES, "collect_rounds": COLLECT_ROUNDS,
                       "collect_rounds_per_drain": COLLECT_ROUNDS_PER_DRAIN,
                       "collect_samples_per_round": written // COLLECT_ROUNDS,
                       "collect_shape": dict(zip(("global_sources", "cpu_sources",
                                                  "thread_sources", "cpus", "threads"),
                                                 COLLECT_SHAPE)),
                       "score_days": score["days"],
                       "injected": score["injected"], "found": score["found"],
                       "detected": score["detected"], "false": score["false"],
                       "cpus": os.cpu_count(), "python": sys.version.split()[0]},
            "figures": figures}


def print_profile(result):
    cfg = result["config"]
    print(f"\nprofiles (history {cfg['history']}; analysed {cfg['analysed_day']}, "
          f"{cfg['samples']:,} samples in all; score over {cfg['score_days']} days: "
          f"{cfg['found']}/{cfg['injected']} found, {cfg['false']} false of "
          f"{cfg['detected']} detected):")
    for f in result["figures"]:
        print(f"  {f['figure']:36} {f['value']:>14,} {f['unit']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the bench directory (results.json)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    result = profile_bench(args.out)
    path = os.path.join(args.out, "results.json")
    bench_compare.save_section(path, result, "profile")
    print_profile(result)
    print(f"\nresults in {path}")


if __name__ == "__main__":
    main()
