#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""`make bench-sweep`: what experiment sweeps (host/scionhost/sweep/)
cost on this machine, merged into OUT/results.json as section "sweep".

The documented example sweep (examples/sweeps/policies.toml: 30 runs
of the kernel under -icount shift=0,sleep=off, the block cache's
policies over two workloads, two cache sizes and three seeds) run twice,
each time into an empty database: locally with `scion sweep run -j 2`,
then as one array job (`%2`) on a single-node Slurm started for the run
(tests/integration/slurm_cluster.py). Its logs go where the file says
(build/sweeps/policies/).

  sweep.local.runs_per_hour / sweep.slurm.runs_per_hour
      runs over the wall time from the command to the last run stored
  sweep.run.seconds        a run's host time, mean (boot to power-off)
  sweep.run.boot_seconds   of which QEMU's start to the kernel's first answer
  sweep.run.work_seconds   of which the workload's commands
  sweep.run.overhead_share (seconds - work_seconds) / seconds: boot,
      policy, collection and power-off against the run's own work
Host times vary with the machine's load; nothing here is asserted.
"""

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tools"), os.path.join(ROOT, "tests", "integration")]
import bench_compare  # noqa: E402
from slurm_cluster import SlurmCluster  # noqa: E402

SCION = [sys.executable, os.path.join(ROOT, "host", "scion")]
SWEEP = os.path.join(ROOT, "examples", "sweeps", "policies.toml")
JOBS = 2
SLURM_WAIT_SECONDS = 1800


def query(db, sql):
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchone()
    finally:
        conn.close()


def finished(db):
    """(runs stored, when the last one ended, ns)."""
    return query(db, "SELECT COUNT(*), MAX(started_ns + seconds * 1e9) FROM sweep_runs")


def plan_size(path):
    out = subprocess.run(SCION + ["sweep", "plan", path, "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["count"]


def local(path, db, runs):
    t0 = time.time_ns()
    subprocess.run(SCION + ["sweep", "run", path, "-j", str(JOBS), "--db", db, "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    n, last_ns = finished(db)
    return n, (last_ns - t0) / 1e9


def slurm(path, db, runs):
    with SlurmCluster() as cluster:
        t0 = time.time_ns()
        subprocess.run(SCION + ["sweep", "submit", path, "--slurm", "--max-parallel", str(JOBS),
                                "--db", db], check=True, env=cluster.env(),
                       stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + SLURM_WAIT_SECONDS
        while time.monotonic() < deadline:
            time.sleep(1)
            if os.path.exists(db) and finished(db)[0] == runs:
                break
        n, last_ns = finished(db)
    return n, (last_ns - t0) / 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the bench directory (results.json)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    runs = plan_size(SWEEP)
    figures = []
    config = {"sweep": os.path.relpath(SWEEP, ROOT), "runs": runs, "jobs": JOBS}
    with tempfile.TemporaryDirectory(prefix="scion-bench-sweep-") as d:
        for engine, fn in (("local", local), ("slurm", slurm)):
            db = os.path.join(d, engine + ".db")
            n, seconds = fn(SWEEP, db, runs)
            config[f"{engine}_wall_seconds"] = round(seconds, 1)
            figures.append({"figure": f"sweep.{engine}.runs_per_hour",
                            "value": round(n * 3600 / seconds), "unit": "runs/h"})
            if engine == "local":
                mean, boot, work, done = query(
                    db, "SELECT AVG(seconds), AVG(boot_seconds), AVG(work_seconds), "
                        "SUM(status = 'done') FROM sweep_runs")
                config["local_done"] = done
                figures += [
                    {"figure": "sweep.run.seconds", "value": round(mean, 2), "unit": "s"},
                    {"figure": "sweep.run.boot_seconds", "value": round(boot, 2), "unit": "s"},
                    {"figure": "sweep.run.work_seconds", "value": round(work, 2), "unit": "s"},
                    {"figure": "sweep.run.overhead_share",
                     "value": round((mean - work) / mean, 3), "unit": "share"}]
    section = {"config": config, "figures": figures}
    path = os.path.join(args.out, "results.json")
    bench_compare.save_section(path, section, "sweep")
    print(f"sweep ({json.dumps(config)}):")
    for f in figures:
        print(f"  {f['figure']:28} {f['value']:>10} {f['unit']}")
    print(f"\nresults in {path}")


if __name__ == "__main__":
    main()
