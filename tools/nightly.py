#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""`make nightly`: VINO's self-monitoring loop end to end, in a few minutes.

    tools/nightly.py [--kernel build/kernel32.elf] [--out build/nightly] [--day 2026-11-25]

Everything goes through `scion`, as a researcher's cron job would run it:

  1. A synthetic month (machine "synthetic", `scion profile synth`) with
     injected anomalies of the three kinds, analysed for its last day and
     scored against the ground truth (`scion analyze score`): the analysis
     at the scale of a real history.
  2. Scion itself (machine "scion-qemu"): booted under -icount (its clock
     counts instructions, so host load changes nothing it measures) with
     the `daily` workload (office-hours web threads) and a calendar that
     runs 1440 times its clock (a day a guest minute), it is profiled for the days the
     analysis of DAY and of the day after need as references (DAY-7,
     DAY-6, DAY-1) and for DAY itself, on which the thread "rogue" spins
     from 10:00 to 11:30 (`scion profile collect`, one collection a day).
  3. `scion analyze nightly --day DAY` must find the rogue's window on
     cpu.busy, classify it as one process and name "rogue"; it writes
     the report, the results and the next day's profile configuration.
  4. The configuration goes back into the kernel (`scion profile config
     load`); on the next day's calendar, a morning with the rogue raises
     a red flag and the same morning without it raises none (each morning
     collected as the days were, so the kernel runs as it does in
     production, the stream's status counting the red flags).

Each step's figures go to OUT/nightly.json; the exit status is 0 only
when every check held, and each failure is one line.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import bench_boot  # noqa: E402

SCION = [sys.executable, os.path.join(ROOT, "host", "scion")]
SCALE = 1440                    # the calendar's speed: a day in a minute of guest time
DAY_END = "23:50"               # a day's collection ends once a round reaches this
# Drain the stream once a second: each drain's cross-calls make the channel's
# output thread wait for the other vCPU, which single-threaded TCG runs in
# turns, so at 100 ms its waiting would rise with the load it profiles.
SWITCH_MS = "1000"
SYSTEM_INTERVAL_MS = 500        # real ms between samples: 12 minutes of the calendar
THREAD_INTERVAL_MS = 500
BURST_MS, BURST_EVERY_S = 100, 3600   # a burst's CPU shows in its bucket: keep it short
ROGUE = ("10:00", "11:30")
MORNING = ("08:30", "12:30")    # the red-flag runs' part of the next day
SYNTH_DAYS = 30


class Failed(Exception):
    pass


def run(argv, what, timeout=900, json_out=False, quiet=False):
    t0 = time.monotonic()
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    took = time.monotonic() - t0
    if p.returncode:
        raise Failed(f"{what}: exit {p.returncode}: {(p.stderr or p.stdout).strip()[-400:]}")
    if not quiet:
        print(f"nightly: {what} ({took:.1f} s)", flush=True)
    return (json.loads(p.stdout) if json_out else p.stdout), took


def scion(sock, *args, what, **kw):
    return run(SCION + ["--socket", sock, *args], what, **kw)


def synthetic_month(db, out, day, report):
    start = day - datetime.timedelta(days=SYNTH_DAYS - 1)
    anomalies = [f"process@{SYNTH_DAYS - 1},10:00,90m", f"group@{SYNTH_DAYS - 1},15:00,60m",
                 f"load@{SYNTH_DAYS - 1},20:00,60m"]
    _, took = run(SCION + ["profile", "synth", "--db", db, "--machine", "synthetic", "--start",
                           start.isoformat(), "--days", str(SYNTH_DAYS), "--quiet"] +
                  sum((["--anomaly", a] for a in anomalies), []), "a synthetic month")
    report["synth_s"] = round(took, 1)
    results, took = run(SCION + ["analyze", "nightly", "--db", db, "--machine", "synthetic",
                                 "--day", day.isoformat(), "--out", os.path.join(out, "synthetic"),
                                 "--json", "--quiet"], "the synthetic month's last day analysed",
                        json_out=True)
    report["synthetic_analysis_s"] = round(took, 1)
    score, _ = run(SCION + ["analyze", "score", "--db", db, "--machine", "synthetic", "--from",
                            day.isoformat(), "--to", day.isoformat(), "--json"],
                   "scored against the injected anomalies", json_out=True)
    report["synthetic_score"] = score
    report["synthetic_anomalies"] = len(results.get("anomalies", []))


def collect_day(sock, db, day, rogue, report):
    scion(sock, "monitor", "clock", str(SCALE), f"{day.isoformat()}T00:00", what=f"calendar at {day}")
    scion(sock, "shell", "daily", "rogue", f"{rogue[0]}-{rogue[1]}" if rogue else "off",
          what=f"rogue {'from ' + rogue[0] if rogue else 'off'}")
    summary, took = scion(sock, "profile", "collect", "--db", db, "--machine", "scion-qemu",
                          "--until", f"{day.isoformat()}T{DAY_END}", "--switch-ms", SWITCH_MS,
                          "--json", "--quiet",
                          what=f"{day} collected", json_out=True)
    report.setdefault("collected", []).append({"day": day.isoformat(), **summary})


def find_rogue(results):
    """The anomaly the rogue made: cpu.busy, high, inside its window, one process."""
    lo, hi = (datetime.time.fromisoformat(t) for t in ROGUE)
    for a in results.get("anomalies", []):
        start = datetime.datetime.fromisoformat(a["start"]).time()
        if (a["resource"] == "cpu.busy" and a["direction"] == "high" and
                datetime.time(lo.hour - 1) <= start <= hi):
            return a
    return None


def morning(sock, db, day, rogue):
    """Run the next day's morning with or without the rogue, collecting it as
    every day is collected (into a database of its own, the stream open as in
    production); the red flags raised while the stream was open."""
    scion(sock, "shell", "daily", "rogue", f"{ROGUE[0]}-{ROGUE[1]}" if rogue else "off",
          what=f"rogue {'on' if rogue else 'off'}")
    scion(sock, "monitor", "clock", str(SCALE), f"{day.isoformat()}T{MORNING[0]}",
          what=f"calendar at {day} {MORNING[0]}")
    summary, _ = scion(sock, "profile", "collect", "--db", db, "--machine",
                       "scion-qemu-" + ("rogue" if rogue else "calm"), "--until",
                       f"{day.isoformat()}T{MORNING[1]}", "--switch-ms", SWITCH_MS, "--json",
                       "--quiet", what=f"{day} {MORNING[0]}-{MORNING[1]} collected",
                       json_out=True)
    return summary["status"]["redflags"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", default=os.path.join(ROOT, "build", "kernel32.elf"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "nightly"))
    ap.add_argument("--day", default="2026-11-25", help="the day analysed (default %(default)s)")
    ap.add_argument("--skip-synthetic", action="store_true")
    args = ap.parse_args()
    day = datetime.date.fromisoformat(args.day)
    os.makedirs(args.out, exist_ok=True)
    db = os.path.join(args.out, "profiles.db")
    for name in (db, os.path.join(args.out, "mornings.db")):
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(name + suffix):
                os.unlink(name + suffix)
    report = {"day": day.isoformat(), "scale": SCALE, "checks": {}}
    t0 = time.monotonic()
    try:
        if not args.skip_synthetic:
            synthetic_month(db, args.out, day, report)
        # Under -icount the guest's clock counts its instructions: CPU time,
        # the calendar and the workload do not depend on what else the host runs.
        b, sock = bench_boot.boot("nightly", args.out, kernel=args.kernel, smp=2, icount=True,
                                  timeout=3600)
        try:
            with bench_boot.session(b, sock):
                pass        # the kernel answers
            for line in (["monitor", "interval", "*", str(SYSTEM_INTERVAL_MS)],
                         ["monitor", "interval", "thread", str(THREAD_INTERVAL_MS)],
                         ["monitor", "burst", str(BURST_MS), str(BURST_EVERY_S)],
                         ["shell", "daily", "start", "threads=3"]):
                scion(sock, *line, what=" ".join(line))
            for d, rogue in ((7, None), (6, None), (1, None), (0, ROGUE)):
                collect_day(sock, db, day - datetime.timedelta(days=d), rogue, report)
            out = os.path.join(args.out, "scion-qemu")
            results, took = run(SCION + ["analyze", "nightly", "--db", db, "--machine",
                                         "scion-qemu", "--day", day.isoformat(), "--out", out,
                                         "--json", "--quiet"], f"{day} analysed", json_out=True)
            report["analysis_s"] = round(took, 1)
            found = find_rogue(results)
            report["rogue_anomaly"] = found
            report["checks"]["the-rogue-is-found"] = bool(
                found and found["kind"] == "process" and "rogue" in found["threads"])
            cfg = os.path.join(out, results["config"]["file"])
            loaded, _ = scion(sock, "profile", "config", "load", cfg, what="next day's configuration loaded")
            report["config_loaded"] = loaded.strip()
            scion(sock, "monitor", "start", what="sampling on (no stream: red flags only)")
            next_day = day + datetime.timedelta(days=1)
            mornings = os.path.join(args.out, "mornings.db")
            with_rogue = morning(sock, mornings, next_day, True)
            without = morning(sock, mornings, next_day, False)
            report["redflags"] = {"with_rogue": with_rogue, "without": without}
            report["checks"]["red-flag-with-the-rogue"] = with_rogue >= 1
            report["checks"]["no-red-flag-without"] = without == 0
        finally:
            bench_boot.power_off(b)
    except Failed as e:
        report["error"] = str(e)
        print(f"nightly: {e}", file=sys.stderr)
    report["wall_s"] = round(time.monotonic() - t0, 1)
    with open(os.path.join(args.out, "nightly.json"), "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    failed = [k for k, ok in report["checks"].items() if not ok]
    for k in failed:
        print(f"nightly: check failed: {k}", file=sys.stderr)
    ok = not failed and "error" not in report and len(report["checks"]) == 3
    print(f"nightly: {'all checks held' if ok else 'FAILED'} in {report['wall_s']} s; "
          f"{os.path.relpath(os.path.join(args.out, 'nightly.json'), ROOT)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
