# SPDX-License-Identifier: BSD-2-Clause
"""The `scion profile` and `scion analyze` subcommands (argument parsing,
progress, printing); the work is in the modules beside this one, which
are imported only when a command runs, so the rest of `scion` works
without numpy.

  scion profile synth --db DB --start DATE --days N [...]     synth.py
  scion profile collect --db DB --duration S | --follow [...] collect.py
  scion profile info --db DB [--machine M] [--json]           what a database holds
  scion profile config show FILE                              config.py
  scion profile config load FILE                              the PROFILE_CONFIG op
  scion analyze nightly --db DB [--day D] [--machine M] --out DIR [--json]   nightly.py
  scion analyze score --db DB [--machine M] [--from D] [--to D] [--json]     evaluate.py

Progress goes to stderr when it is a terminal (one line rewritten in
place), or with --progress (a line every few seconds, for logs), never
with --quiet. Errors are one line, "scion: ...", and exit status 1.
"""

import datetime
import json
import os
import signal
import sys
import time

from .db import DEFAULT_LOCK_TIMEOUT, ProfileError

DB_HELP = "a profile database: a file (SQLite, the default) or a postgresql:// URL"
# `profile synth`'s numeric options: (option, default, metavar, what it sets).
SYNTH_NUMBERS = [
    ("--interval-ms", 100, "MS", "sampling interval of the last --full-days days"),
    ("--history-interval-ms", 10000, "MS", "sampling interval of the days before"),
    ("--full-days", 1, "N", "how many of the last days are sampled at --interval-ms"),
    ("--thread-interval-ms", 10000, "MS", "sampling interval of the per-thread resources"),
    ("--burst-ms", 500, "N", "1 ms samples per burst, 0 for none"),
    ("--burst-every-min", 60, "MIN", "a burst every MIN minutes"),
]


class Progress:
    """Progress lines on stderr: rewritten in place on a terminal, else every
    `every` seconds when asked for, else nothing."""

    def __init__(self, mode, every=5.0):
        self.tty = sys.stderr.isatty() and mode != "quiet"
        self.lines = mode == "progress" and not self.tty
        self.every, self.last, self.shown = every, 0.0, False

    def update(self, text, fraction=None):
        now = time.monotonic()
        pct = f" {fraction:4.0%}" if fraction is not None else ""
        if self.tty:
            sys.stderr.write(f"\r\033[K{text}{pct}")
            sys.stderr.flush()
            self.shown = True
        elif self.lines and now - self.last >= self.every:
            sys.stderr.write(f"{text}{pct}\n")
            sys.stderr.flush()
            self.last = now

    def done(self):
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self.shown = False


def progress_of(args):
    return Progress("quiet" if args.quiet else "progress" if args.progress else "auto")


def date_arg(text):
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise ProfileError(f"date {text!r}: give YYYY-MM-DD") from None


def open_for(args, create=False):
    from .db import open_db
    return open_db(args.db, create=create, lock_timeout=args.lock_timeout)


class Terminated(Exception):
    pass


def on_sigterm(signum, frame):
    raise Terminated()


def cmd_synth(args):
    from . import synth
    start = date_arg(args.start)
    progress = progress_of(args)
    old = signal.signal(signal.SIGTERM, on_sigterm)
    db = open_for(args, create=True)
    try:
        summary = synth.synthesize(
            db, args.machine, start, args.days, interval_ms=args.interval_ms,
            history_interval_ms=args.history_interval_ms, full_days=args.full_days,
            thread_interval_ms=args.thread_interval_ms, burst_ms=args.burst_ms,
            burst_every_min=args.burst_every_min, anomalies=args.anomaly or [], gaps=args.gaps,
            seed=args.seed, progress=progress)
    except (KeyboardInterrupt, Terminated):
        progress.done()
        raise ProfileError(f"interrupted: what was committed is kept, its collection marked "
                           f"incomplete ({args.db})")
    finally:
        progress.done()
        signal.signal(signal.SIGTERM, old)
        db.close()
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(f"synth: {summary['samples']:,} samples of machine {summary['machine']}, "
              f"{summary['days']} days from {summary['start']} (collection "
              f"{summary['collection']}), {len(summary['anomalies'])} anomalies injected")
    return 0


def cmd_info(args):
    from .nightly import ns_to_iso
    with open_for(args) as db:
        machines = [args.machine] if args.machine else [r[0] for r in db.query(
            "SELECT name FROM machines ORDER BY name")]
        out = {"database": db.where, "backend": db.backend, "machines": [],
               "resources": [{"name": n, "unit": r[1], "kind": r[2], "scope": r[3]}
                             for n, r in db.resources().items()]}
        for name in machines:
            mid = db.machine_id(name)
            cols = db.collections(mid)
            gaps = db.query("SELECT COUNT(*), COALESCE(SUM(lost), 0) FROM gaps WHERE "
                            "collection_id IN (SELECT collection_id FROM collections WHERE "
                            "machine_id = ?)", (mid,))[0]
            runs = [r[0] for r in db.query("SELECT DISTINCT day FROM analysis_runs WHERE "
                                           "machine_id = ? ORDER BY day", (mid,))]
            out["machines"].append({
                "name": name, "gaps": gaps[0], "samples_lost": gaps[1], "analysed_days": runs,
                "collections": [dict(c, start=ns_to_iso(c["started_ns"]),
                                     end=ns_to_iso(c["ended_ns"]) if c["ended_ns"] else None)
                                for c in cols]})
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"{out['database']} ({out['backend']}): {len(out['resources'])} resources")
    for m in out["machines"]:
        print(f"machine {m['name']}: {len(m['collections'])} collections, {m['gaps']} gaps "
              f"({m['samples_lost']} samples lost), {len(m['analysed_days'])} days analysed")
        for c in m["collections"]:
            print(f"  collection {c['collection']} ({c['source']}): {c['start']} to "
                  f"{c['end'] or '-'}, {c['samples']:,} samples, "
                  f"{'complete' if c['complete'] else 'INCOMPLETE'}")
    return 0


def cmd_config_show(args):
    from . import config
    cfg = config.read(args.file)
    if args.json:
        print(json.dumps(cfg, indent=1, default=lambda b: b.decode(errors="replace")))
    else:
        config.show(cfg, sys.stdout)
    return 0


def cmd_config_load(args):
    """Send FILE to the running kernel (PROFILE_CONFIG op) and print its one
    line; the kernel checks the file itself, so a bad one is refused there
    and the configuration in force stays."""
    from .. import frame
    from ..client import Client
    room = frame.MAX_PAYLOAD - frame.REQUEST_HEADER_BYTES
    try:
        with open(args.file, "rb") as f:
            data = f.read(room + 1)
    except OSError as e:
        raise ProfileError(f"cannot read {args.file}: {e.strerror}") from None
    if len(data) > room:
        raise ProfileError(f"{args.file} is over {room} bytes; the control channel carries at "
                           f"most {room} bytes of configuration (one frame of "
                           f"{frame.MAX_PAYLOAD} bytes)")
    with Client(args.socket, timeout=args.timeout, wait=args.wait) as client:
        status, body = client.request(frame.OP_PROFILE_CONFIG, data)
    text = body.decode("utf-8", "replace").rstrip("\n")
    if status < 0:
        raise ProfileError(text or f"profile config load {args.file}: "
                           f"{frame.errno_name(status)} ({status})")
    print(text)
    return 0


def cmd_nightly(args):
    from . import nightly
    day = date_arg(args.day) if args.day else None
    progress = progress_of(args)
    try:
        with open_for(args) as db:
            results = nightly.run(db, machine=args.machine, day=day, out=args.out,
                                  report=not args.no_report, progress=progress,
                                  month_mode=args.month_ref)
    finally:
        progress.done()
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    s = results["summary"]
    print(f"{results['machine']} {results['day']}: {s['anomalies']} anomalies "
          f"({', '.join(f'{k} {v}' for k, v in sorted(s['by_kind'].items())) or 'none'}), "
          f"intervals {', '.join(f'{k} {v}' for k, v in sorted(s['intervals'].items()))}")
    if s["missing_references"]:
        print(f"missing references: {', '.join(s['missing_references'])}")
    for a in results["anomalies"]:
        print(f"  {a['start'][11:16]}-{a['end'][11:16]} {a['resource']:18} {a['direction']:4} "
              f"{a['band_units']:+.1f} bands  {a['kind']}: {', '.join(a['threads'])}")
    print(f"wrote {os.path.join(args.out, nightly.RESULTS_FILE)}"
          f"{'' if args.no_report else ', ' + nightly.REPORT_FILE}, {results['config']['file']}")
    return 0


def cmd_score(args):
    from . import evaluate
    progress = progress_of(args)
    try:
        with open_for(args) as db:
            score = evaluate.score(db, machine=args.machine,
                                   first=date_arg(args.first) if args.first else None,
                                   last=date_arg(args.last) if args.last else None,
                                   progress=progress)
    finally:
        progress.done()
    if args.json:
        print(json.dumps(score, indent=1))
        return 0
    print(f"{score['machine']}: {score['days']} days analysed, {score['injected']} injected "
          f"anomalies, {score['found']} found with the right kind and threads (recall "
          f"{score['recall']:.2f}); {score['detected']} periods detected, "
          f"{score['false']} outside any injected one (precision {score['precision']:.2f})")
    for m in score["misses"]:
        print(f"  missed: {m}")
    return 0


def common(p, db=True):
    if db:
        p.add_argument("--db", required=True, metavar="DB", help=DB_HELP)
        p.add_argument("--lock-timeout", type=float, default=DEFAULT_LOCK_TIMEOUT, metavar="S",
                       help=f"seconds to wait for a database another writer holds (default "
                            f"{DEFAULT_LOCK_TIMEOUT:g})")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", action="store_true",
                   help="progress lines on stderr even when it is not a terminal")
    g.add_argument("--quiet", action="store_true", help="no progress")


def add_parsers(sub, subcommand):
    """`scion profile ...` and `scion analyze ...` on the main parser."""
    prof = subcommand(sub, "profile", "profile databases: the kernel's samples collected, "
                      "synthetic histories, what a database holds, profile configurations")
    psub = prof.add_subparsers(dest="profile_command", metavar="SUBCOMMAND", required=True)
    p = subcommand(psub, "synth", "write a synthetic profile history with injected anomalies "
                   "(and their ground truth) into a database", cmd_synth, json_flag=True)
    common(p)
    p.add_argument("--start", required=True, metavar="DATE", help="the first day, YYYY-MM-DD")
    p.add_argument("--days", type=int, required=True, metavar="N")
    p.add_argument("--machine", default="synthetic", metavar="M",
                   help="the machine's name (default synthetic)")
    for option, default, metavar, what in SYNTH_NUMBERS:
        p.add_argument(option, type=int, default=default, metavar=metavar,
                       help=f"{what} (default {default})")
    p.add_argument("--anomaly", action="append", metavar="KIND@DAY,HH:MM[,DUR][,SIZE]",
                   help="inject an anomaly: KIND process, group or load; DAY a day number from "
                        "0 or a date; e.g. process@12,14:30,45m,0.5 (repeatable)")
    p.add_argument("--gaps", type=int, default=0, metavar="N",
                   help="drop the samples of N random spans of 1 to 10 minutes, stored as gaps")
    p.add_argument("--seed", type=int, default=1, metavar="S")

    from ..commands import byte_count
    from .collect import add_collect
    add_collect(psub, subcommand, common, byte_count)

    p = subcommand(psub, "info", "what a profile database holds: machines, collections "
                   "(complete or not), gaps, analysed days", cmd_info, json_flag=True)
    common(p)
    p.add_argument("--machine", metavar="M")

    cfg = subcommand(psub, "config", "profile configuration files (the nightly analysis's "
                     "output for the kernel)")
    csub = cfg.add_subparsers(dest="config_command", metavar="SUBCOMMAND", required=True)
    p = subcommand(csub, "show", "check a profile configuration as the kernel does and print it",
                   cmd_config_show, json_flag=True)
    p.add_argument("file", metavar="FILE")
    p = subcommand(csub, "load", "send a profile configuration to the running kernel, which "
                   "checks it and puts it in force (PROFILE_CONFIG op)", cmd_config_load)
    p.add_argument("file", metavar="FILE")

    an = subcommand(sub, "analyze", "off-line analysis of recorded profiles (VINO)")
    asub = an.add_subparsers(dest="analyze_command", metavar="SUBCOMMAND", required=True)
    p = subcommand(asub, "nightly", "analyse one day: intervals, reference profile, anomalies "
                   "and their threads, the next day's configuration, a report", cmd_nightly,
                   json_flag=True)
    common(p)
    p.add_argument("--day", metavar="YYYY-MM-DD",
                   help="the day (default: the last day whose samples are complete)")
    p.add_argument("--machine", metavar="NAME", help="the machine (default: the only one)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="write results.json, report.html and profile-NEXTDAY.cfg here")
    p.add_argument("--no-report", action="store_true", help="no report.html (faster)")
    p.add_argument("--month-ref", choices=["weekday", "date"], default="weekday",
                   help="the previous month's reference: the same weekday four weeks before "
                        "(default) or the same date")
    p = subcommand(asub, "score", "analyse every day of a synthetic history and score the "
                   "anomalies found against the injected ones (recall, precision)", cmd_score,
                   json_flag=True)
    common(p)
    p.add_argument("--machine", metavar="NAME")
    p.add_argument("--from", dest="first", metavar="YYYY-MM-DD",
                   help="first day (default: the 8th day of the history)")
    p.add_argument("--to", dest="last", metavar="YYYY-MM-DD", help="last day (default: the last)")
