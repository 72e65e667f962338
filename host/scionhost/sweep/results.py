# SPDX-License-Identifier: BSD-2-Clause
"""Sweeps in the profile database (SQLite file or postgresql:// URL,
through profile/db.py): the tables of sweep/schema.sql, created beside
the profile schema when a sweep first writes, and the few reads and
writes the runner, `sweep status` and `sweep report` make.

A run's row and its figures are written in one transaction, so a run is
in the database completely or not at all; an attempt is written when it
ends, whatever its outcome. The facts that make a result reproducible
(git commit, QEMU version, icount setting) are read once per process.
"""

import functools
import json
import os
import socket
import subprocess
import time

from ..client import REPO
from ..profile.db import ProfileError, open_db
from .plan import IDENTITY_SETTINGS

SWEEP_SCHEMA_VERSION = "1"
SWEEP_SCHEMA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.sql")
LOG_TAIL_BYTES = 4000
FINAL = ("done", "failed")


def open_sweep_db(spec, lock_timeout=60.0, create=True):
    """The database, its sweep tables created when missing (and a file's folder); a
    reader (create=False) is refused a database without them, never makes one."""
    if create and "://" not in spec and os.path.dirname(spec):
        try:
            os.makedirs(os.path.dirname(spec), exist_ok=True)
        except OSError as e:
            raise ProfileError(f"{spec}: cannot make its folder: {e.strerror}") from None
    db = open_db(spec, create=create, lock_timeout=lock_timeout)
    try:
        meta = dict(db.query("SELECT key, value FROM meta"))
        have = meta.get("sweep_schema_version")
        if have is None and not create:
            raise ProfileError(f"{db.where}: no sweep has run into it yet")
        if have is None:
            with db.transaction(doing="creating the sweep tables"):
                for statement in db.schema_statements(SWEEP_SCHEMA_FILE):
                    db.execute(statement, doing="creating the sweep tables")
                if not db.query("SELECT 1 FROM meta WHERE key = 'sweep_schema_version'"):
                    db.insert("meta", {"key": "sweep_schema_version",
                                       "value": SWEEP_SCHEMA_VERSION})
        elif have != SWEEP_SCHEMA_VERSION:
            raise ProfileError(f"{db.where}: sweep tables of version {have}; this scion "
                               f"writes version {SWEEP_SCHEMA_VERSION} (use a new database)")
    except BaseException:
        db.close()
        raise
    return db


@functools.cache
def provenance(icount):
    """What makes a run reproducible: commit, QEMU version, icount, host."""
    def out(argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=30,
                                  cwd=REPO).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return ""
    commit = out(["git", "rev-parse", "HEAD"]) or "unknown"
    if out(["git", "status", "--porcelain", "--untracked-files=no"]):
        commit += "+dirty"
    qemu = out(["qemu-system-x86_64", "--version"]).splitlines()
    return {"git_commit": commit, "qemu_version": qemu[0] if qemu else "unknown",
            "icount": "off" if icount is False else f"shift={icount},sleep=off",
            "host": socket.gethostname()}


def note_sweep(db, plan, slurm_job=None):
    with db.transaction(doing="noting the sweep"):
        now = time.time_ns()
        if db.query("SELECT 1 FROM sweeps WHERE sweep = ?", (plan.name,)):
            db.execute("UPDATE sweeps SET file = ?, runs = ?, updated_ns = ?"
                       + (", slurm_job = ?" if slurm_job else "") + " WHERE sweep = ?",
                       (plan.path, len(plan.runs), now)
                       + ((slurm_job,) if slurm_job else ()) + (plan.name,))
        else:
            db.insert("sweeps", {"sweep": plan.name, "file": plan.path, "runs": len(plan.runs),
                                 "slurm_job": slurm_job, "updated_ns": now})


def slurm_job(db, sweep):
    rows = db.query("SELECT slurm_job FROM sweeps WHERE sweep = ?", (sweep,))
    return rows[0][0] if rows else None


def finished(db, sweep):
    """{run_id: status} of the runs that are over."""
    return dict(db.query("SELECT run_id, status FROM sweep_runs WHERE sweep = ?", (sweep,)))


def attempt_row(plan, run, attempt, started_ns, seconds, error):
    return {"sweep": plan.name, "run_id": run.run_id, "attempt": attempt,
            "host": socket.gethostname(), "pid": os.getpid(), "started_ns": started_ns,
            "seconds": seconds, "status": "failed" if error else "done", "error": error}


def add_attempt(db, plan, run, attempt, started_ns, seconds, error):
    """An attempt that failed and is tried again."""
    with db.transaction(doing="writing an attempt"):
        db.insert("sweep_attempts", attempt_row(plan, run, attempt, started_ns, seconds, error))


def tail(path):
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - LOG_TAIL_BYTES))
            # PostgreSQL's text cannot hold NUL, which a console may print.
            return f.read().decode("utf-8", "replace").replace("\0", "")
    except OSError:
        return None


def add_run(db, plan, run, attempts, started_ns, figures, facts, error, log_path, last):
    """The run's row, its figures and its last attempt (last: attempt_row's arguments
    after plan and run), together: a run killed before this has no trace of its
    last attempt, and is run again."""
    spec = {"policy": run.policy, "workload": run.workload,
            **{k: run.settings[k] for k in IDENTITY_SETTINGS}}
    row = {"sweep": plan.name, "run_id": run.run_id, "run_index": run.index,
           "config": json.dumps(run.config, sort_keys=True),
           "spec": json.dumps(spec, sort_keys=True), "status": "failed" if error else "done",
           "attempts": attempts, **provenance(run.settings["icount"]),
           "kernel_version": facts.get("kernel_version"), "started_ns": started_ns,
           "seconds": facts.get("seconds", 0.0), "boot_seconds": facts.get("boot_seconds"),
           "work_seconds": facts.get("work_seconds"), "error": error, "log_path": log_path,
           "log_tail": tail(log_path) if error else None,
           "collection_id": facts.get("collection_id")}
    with db.transaction(doing=f"writing run {run.index}"):
        db.execute("DELETE FROM sweep_results WHERE sweep = ? AND run_id = ?",
                   (plan.name, run.run_id))
        db.execute("DELETE FROM sweep_runs WHERE sweep = ? AND run_id = ?",
                   (plan.name, run.run_id))
        db.insert("sweep_runs", row)
        db.insert("sweep_attempts", attempt_row(plan, run, *last))
        db.insert_many("sweep_results", ("sweep", "run_id", "name", "value"),
                       [(plan.name, run.run_id, k, v) for k, v in sorted(figures.items())])


def runs(db, sweep):
    """Every finished run of a sweep as a dict, figures included, in index order."""
    cols = ("run_id", "run_index", "config", "status", "attempts", "git_commit", "qemu_version",
            "icount", "kernel_version", "host", "seconds", "boot_seconds", "work_seconds",
            "error", "log_path", "collection_id")
    out = {}
    for r in db.query(f"SELECT {', '.join(cols)} FROM sweep_runs WHERE sweep = ? "
                      f"ORDER BY run_index", (sweep,)):
        d = dict(zip(cols, r))
        d["config"] = json.loads(d["config"])
        d["figures"] = {}
        out[d["run_id"]] = d
    for run_id, name, value in db.query("SELECT run_id, name, value FROM sweep_results "
                                        "WHERE sweep = ? ORDER BY name", (sweep,)):
        if run_id in out:
            out[run_id]["figures"][name] = value
    return list(out.values())


def attempts(db, sweep):
    """[(run_id, attempt, status, started_ns)] of a sweep, oldest first."""
    return db.query("SELECT run_id, attempt, status, started_ns FROM sweep_attempts "
                    "WHERE sweep = ? ORDER BY started_ns", (sweep,))
