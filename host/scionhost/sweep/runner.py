# SPDX-License-Identifier: BSD-2-Clause
"""Running a sweep's runs: run_one() performs one (`scion sweep run-one`,
what each Slurm array task runs too), run_local() runs a whole plan on
this machine, N at a time, each as a `scion sweep run-one` process.

Invariants:
  * a run is performed only when the database has no row for it, so a
    resumed sweep (or a requeued Slurm task) does not do a finished run
    twice, and a run that was interrupted has no row and is done again;
  * a failed attempt is retried once; a run that fails twice is stored
    as failed, with its error, its log's path and the log's end, and the
    sweep goes on;
  * every attempt's console log is OUT/NAME/logs/INDEX-ID.ATTEMPT.log;
  * the local runner's workers are in its process group and their QEMUs
    die with them, so stopping the runner stops everything it started.
"""

import os
import signal
import subprocess
import sys
import time

from ..client import REPO, ScionError
from . import guest, results

ATTEMPTS = 2
SCION = os.path.join(REPO, "host", "scion")


def run_one(plan, index, db_spec, force=False):
    """Perform run index unless it is finished (force: again). Returns its status:
    'done', 'failed', or 'skipped' (finished before)."""
    run = plan.run_at(index)
    with results.open_sweep_db(db_spec) as db:
        if not force and run.run_id in results.finished(db, plan.name):
            return "skipped"
        started_ns = time.time_ns()
        for attempt in range(1, ATTEMPTS + 1):
            dest = plan.destinations(run, attempt, db)
            os.makedirs(os.path.dirname(dest.log), exist_ok=True)
            t0, t0_ns = time.monotonic(), time.time_ns()
            figures, facts, error = {}, {}, None
            try:
                figures, facts = guest.execute(run, dest, plan.settings["timeout"])
            except ScionError as e:
                error = str(e)
            seconds = round(time.monotonic() - t0, 3)
            facts.setdefault("seconds", seconds)
            if not error or attempt == ATTEMPTS:
                break
            results.add_attempt(db, plan, run, attempt, t0_ns, seconds, error)
        results.add_run(db, plan, run, attempt, started_ns, figures, facts, error, dest.log,
                        (attempt, t0_ns, seconds, error))
        return "failed" if error else "done"


def fmt_seconds(s):
    s = int(round(s))
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def run_local(plan, db_spec, jobs, progress, force=False):
    """Run the plan's unfinished runs, jobs at a time. Returns {status: count}."""
    with results.open_sweep_db(db_spec) as db:
        results.note_sweep(db, plan)
        done_before = results.finished(db, plan.name)
    pending = [r for r in plan.runs if force or r.run_id not in done_before]
    counts = {"done": 0, "failed": 0, "skipped": len(plan.runs) - len(pending)}
    running = {}                # Popen -> (run, start)
    queue = list(pending)
    durations = []
    started = time.monotonic()

    def show():
        finished_now = counts["done"] + counts["failed"]
        left = len(pending) - finished_now
        eta = ""
        if durations:
            per_run = sum(durations) / len(durations)
            eta = f", about {fmt_seconds(per_run * left / max(1, jobs))} left"
        progress.update(f"sweep {plan.name}: {finished_now + counts['skipped']}/"
                        f"{len(plan.runs)} over ({counts['failed']} failed, "
                        f"{len(running)} running){eta}",
                        (finished_now + counts["skipped"]) / len(plan.runs))

    def stop(signum, _frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, stop)
    try:
        while queue or running:
            while queue and len(running) < jobs:
                run = queue.pop(0)
                argv = [sys.executable, SCION, "sweep", "run-one", plan.path, "--index",
                        str(run.index), "--db", db_spec] + (["--force"] if force else [])
                proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True)
                running[proc] = (run, time.monotonic())
            show()
            time.sleep(0.2)
            for proc in [p for p in running if p.poll() is not None]:
                run, t0 = running.pop(proc)
                out = proc.stdout.read().strip()
                durations.append(time.monotonic() - t0)
                last = out.split()[-1] if out else ""
                if proc.returncode == 0 and last in ("done", "skipped"):
                    counts["done" if last == "done" else "skipped"] += 1
                else:
                    counts["failed"] += 1
                    progress.done()
                    sys.stderr.write(f"sweep {plan.name}: run {run.index} ({run.label()}) "
                                     f"failed: {out.splitlines()[-1] if out else 'no output'}\n")
    finally:
        signal.signal(signal.SIGTERM, old)
        for proc in running:
            proc.kill()
            proc.wait()
        progress.done()
    counts["seconds"] = round(time.monotonic() - started, 1)
    return counts
