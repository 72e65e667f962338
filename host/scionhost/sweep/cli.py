# SPDX-License-Identifier: BSD-2-Clause
"""The `scion sweep` subcommands (argument parsing and printing; the
work is in the modules beside this one):

  scion sweep plan FILE [--json]                   the runs: index, id, configuration
  scion sweep run FILE [-j N] [--db DB] [--force]  run them here, N QEMUs at a time
  scion sweep run-one FILE --index I [--db DB]     one run (what a Slurm task runs)
  scion sweep submit FILE --slurm [--partition P] [--max-parallel K] [--db DB]
  scion sweep status FILE [--db DB] [--json]       done / failed / running / pending /
                                                   lost (ended in Slurm, nothing stored) / left
  scion sweep report FILE [--db DB] [--out DIR]    DIR/NAME.csv and DIR/NAME.html

--db defaults to the sweep file's [sweep] db (else OUT/NAME.db). A bad
sweep file or request is one line and exit status 2; a run that failed
makes `run` and `run-one` exit 1.
"""

import json
import os
import sys

from .plan import SweepError, load


def bad_input(fn):
    """SweepError -> its one line and exit status 2 (a usage error, like argparse's)."""
    def wrapped(args):
        try:
            return fn(args)
        except SweepError as e:
            sys.stderr.write(f"scion: sweep: {e}\n")
            return 2
    return wrapped


def plan_and_db(args):
    """The plan and its database: --db (a file's path made absolute, for tasks that run
    elsewhere) or the file's."""
    plan = load(args.file)
    db = args.db or plan.settings["db"]
    return plan, db if "://" in db else os.path.abspath(db)


def stored(args, *reads):
    """The plan, the database, and what each read(db, sweep name) returns."""
    from . import results
    plan, db = plan_and_db(args)
    with results.open_sweep_db(db, create=False) as d:
        return (plan, db) + tuple(read(d, plan.name) for read in reads)


def progress_of(args):
    from ..profile.cli import Progress
    return Progress("quiet" if args.quiet else "progress" if args.progress else "auto")


@bad_input
def cmd_plan(args):
    plan = load(args.file)
    if args.json:
        print(json.dumps({"sweep": plan.name, "runs": [
            {"index": r.index, "id": r.run_id, "config": r.config} for r in plan.runs],
            "count": len(plan.runs), "excluded": plan.excluded}, indent=1))
        return 0
    for r in plan.runs:
        print(f"{r.index:5d} {r.run_id} {r.label()}")
    print(f"{len(plan.runs)} runs ({plan.excluded} excluded) in sweep {plan.name}")
    return 0


@bad_input
def cmd_run(args):
    from . import runner
    if args.jobs < 1:
        raise SweepError(f"-j {args.jobs}: give at least 1")
    plan, db = plan_and_db(args)
    counts = runner.run_local(plan, db, args.jobs, progress_of(args), force=args.force)
    print(f"sweep {plan.name}: {counts['done']} done, {counts['failed']} failed, "
          f"{counts['skipped']} finished before, in {counts['seconds']} s ({db})")
    return 1 if counts["failed"] else 0


@bad_input
def cmd_run_one(args):
    from . import runner
    plan, db = plan_and_db(args)
    run = plan.run_at(args.index)
    status = runner.run_one(plan, args.index, db, force=args.force)
    print(f"run {run.index} {run.run_id} {status}")
    return 1 if status == "failed" else 0


@bad_input
def cmd_submit(args):
    from . import results, slurm
    if not args.slurm:
        raise SweepError("submit: say which engine, --slurm (the only one so far)")
    if args.max_parallel is not None and args.max_parallel < 1:
        raise SweepError(f"--max-parallel {args.max_parallel}: give at least 1")
    plan, db = plan_and_db(args)
    # The tables exist before any task starts, so tasks never race to create them.
    with results.open_sweep_db(db) as d:
        results.note_sweep(d, plan)
        job, script = slurm.submit(plan, db, args.max_parallel, args.partition)
        results.note_sweep(d, plan, slurm_job=job)
    print(f"sweep {plan.name}: submitted array job {job} of {len(plan.runs)} tasks "
          f"(script {script}, results in {db})")
    return 0


@bad_input
def cmd_status(args):
    from . import results, slurm
    plan, db, job = stored(args, results.slurm_job)
    states, asked = slurm.task_states(job) if job else ({}, [])
    # The database after Slurm: a task that ends in between is done, never lost.
    _, _, finished = stored(args, results.finished)
    out = {"sweep": plan.name, "runs": len(plan.runs), "done": [], "failed": [],
           "running": [], "pending": [], "lost": [], "left": [], "slurm_job": job,
           "slurm_tools": asked}
    for r in plan.runs:
        state = finished.get(r.run_id)
        if state is None:
            slurm_state = states.get(r.index, "")
            # A task Slurm says has ended (sacct) with no row: it died before storing.
            state = ("running" if slurm_state in ("RUNNING", "COMPLETING") else
                     "pending" if slurm_state == "PENDING" else
                     "lost" if slurm_state else "left")
        out[state].append(r.index)
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"sweep {plan.name}: {len(plan.runs)} runs: " + ", ".join(
        f"{len(out[k])} {k}" for k in ("done", "failed", "running", "pending", "lost", "left"))
        + (f" (Slurm job {job}, from {' and '.join(asked) or 'no Slurm tool'})" if job else ""))
    for k in ("failed", "running", "lost"):
        if out[k]:
            print(f"  {k}: {' '.join(map(str, out[k]))}")
    return 0


@bad_input
def cmd_report(args):
    from . import report, results
    plan, db, runs = stored(args, results.runs)
    if not runs:
        raise SweepError(f"sweep {plan.name} has no finished runs in {db} (`scion sweep run`)")
    csv_path, html_path, rows = report.report(plan, runs, args.out or plan.log_dir())
    print(f"sweep {plan.name}: {len(runs)} runs, {rows} rows: {csv_path}, {html_path}")
    return 0


def add_parsers(sub, subcommand):
    """`scion sweep ...` on the main parser."""
    sw = subcommand(sub, "sweep", "experiment sweeps: policy x workload x configuration as "
                    "independent runs, here or as one Slurm array job, results in a database")
    ssub = sw.add_subparsers(dest="sweep_command", metavar="SUBCOMMAND", required=True)

    def with_file(name, text, fn, json_flag=False, db=True):
        p = subcommand(ssub, name, text, fn, json_flag=json_flag)
        p.add_argument("file", metavar="FILE", help="the sweep file (TOML)")
        if db:
            p.add_argument("--db", metavar="DB", help="a database file (SQLite) or a "
                           "postgresql:// URL (default: the sweep file's [sweep] db)")
        return p

    with_file("plan", "list the runs (the cross product of the axes minus the exclusions): "
              "index, id, configuration", cmd_plan, json_flag=True, db=False)
    p = with_file("run", "run the sweep's unfinished runs on this machine", cmd_run)
    p.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                   help="QEMU instances at a time (default 1)")
    p.add_argument("--force", action="store_true", help="run finished runs again too")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", action="store_true",
                   help="progress lines on stderr even when it is not a terminal")
    g.add_argument("--quiet", action="store_true", help="no progress")
    p = with_file("run-one", "perform one run of the plan and store it (a Slurm array "
                  "task's command)", cmd_run_one)
    p.add_argument("--index", type=int, required=True, metavar="I")
    p.add_argument("--force", action="store_true", help="run it again when it is finished")
    p = with_file("submit", "submit the sweep as one Slurm array job", cmd_submit)
    p.add_argument("--slurm", action="store_true", help="submit to Slurm (sbatch)")
    p.add_argument("--partition", metavar="P")
    p.add_argument("--max-parallel", type=int, metavar="K",
                   help="tasks running at a time (the array's %%K)")
    with_file("status", "runs done, failed, running, pending and left (the database and "
              "Slurm)", cmd_status, json_flag=True)
    p = with_file("report", "a table and plots per policy and workload over the seeds, as "
                  "CSV and HTML", cmd_report)
    p.add_argument("--out", metavar="DIR", help="where to write (default OUT/NAME)")
