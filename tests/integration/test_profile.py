# SPDX-License-Identifier: BSD-2-Clause
"""The nightly off-line analysis (host/scionhost/profile/) on synthetic
months, without QEMU.

  anomaly_month   35 days (from a Monday, samples every 60 s) with eight
                  injected anomalies of the three kinds, each at least the
                  documented size (README, "Profiles and the nightly
                  analysis": 0.3 extra CPUs for one process or a group, a
                  load factor of 1.4, for 30 minutes): each day with one is
                  analysed, and every one must be found in cpu.busy with its
                  kind and, for a process or a group, exactly its threads;
                  `scion analyze score`'s code must count the same.
  clean_month     the same month without anomalies, every day from the 8th
                  analysed: at most FALSE_MAX anomalies in all.
  intervals       the interval analysis at 100 ms on the synthetic model's
                  own series: bursts with sched.runq's 2 ms spike every 20 ms
                  must make the interval shorter, white-noise bursts must
                  not, a flat resource and a pure-noise one go longer, a
                  resource with structure at second scale stays near it.
  nightly_cli     `scion profile synth` then `scion analyze nightly --json`
                  on 9 days (the last at 5 s with 1 ms bursts, an anomaly on
                  it): stdout is results.json; sched.runq gets a shorter
                  interval from its bursts and trace.drops a longer one; the
                  report has one plot per system resource and a stacked plot
                  per decomposed anomaly, and its tables hold the JSON's
                  figures; the configuration file shows with `scion profile
                  config show`; the database holds the run's results.
"""

import datetime
import html.parser
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

from scionhost.profile import db as pdb, evaluate, intervals, nightly, synth

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCION = os.path.join(ROOT, "host", "scion")
START = datetime.date(2024, 3, 4)          # a Monday
DAYS = 35
FALSE_MAX = 3                              # documented in the README
INJECTED = ["process@9,14:30,60m,0.4", "group@10,10:00,90m,0.45", "load@15,11:00,2h,1.5",
            "process@17,04:30,45m,0.3", "group@22,15:20,40m,0.5", "load@24,14:00,60m,1.4",
            "process@29,20:00,60m,0.5", "process@31,09:20,30m,0.3"]
MONTH = dict(interval_ms=60000, history_interval_ms=60000, thread_interval_ms=120000, burst_ms=0)


def month(path, anomalies, seed):
    db = pdb.open_db(path, create=True)
    synth.synthesize(db, "month", START, DAYS, anomalies=anomalies, seed=seed, **MONTH)
    return db


def job_anomaly_month(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        db = month(os.path.join(tmp, "p.db"), INJECTED, seed=7)
        truth = evaluate.truth(db, db.machine_id("month"))
        ctx.result("ground-truth-stored", len(truth) == len(INJECTED), str(truth))
        days = sorted({START + datetime.timedelta(days=int(a.split("@")[1].split(",")[0]))
                       for a in INJECTED})
        detected, cache = {}, {}
        for day in days:
            detected[day] = nightly.run(db, day=day, out=None, report=False,
                                        store_results=False, cache=cache)["anomalies"]
        found = 0
        for t in truth:
            day = datetime.datetime.fromtimestamp(t["start_ns"] // 10**9,
                                                  datetime.timezone.utc).date()
            hits = [a for a in detected[day] if a["resource"] == "cpu.busy"
                    and min(a["end_ns"], t["end_ns"]) > max(a["start_ns"], t["start_ns"])]
            covered = sum(min(a["end_ns"], t["end_ns"]) - max(a["start_ns"], t["start_ns"])
                          for a in hits)
            right = all(a["kind"] == t["kind"] and (t["kind"] == "load"
                                                    or sorted(a["threads"]) == t["threads"])
                        for a in hits)
            ok = hits and right and covered >= (t["end_ns"] - t["start_ns"]) / 2
            found += bool(ok)
            ctx.result(f"found/{t['spec']}", ok,
                       f"truth {t['kind']} {t['threads']}; detected in cpu.busy: "
                       + "; ".join(f"{a['start'][11:16]}-{a['end'][11:16]} {a['kind']} "
                                   f"{a['threads']}" for a in hits))
        score = evaluate.score(db, first=days[0], last=days[-1],
                               analyse=lambda day: {"anomalies": detected.get(day, [])})
        ctx.result("score-agrees", score["found"] == found and score["injected"] == len(truth),
                   json.dumps({k: score[k] for k in ("injected", "found", "misses")}))
        db.close()


def job_clean_month(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        db = month(os.path.join(tmp, "p.db"), [], seed=5)
        score = evaluate.score(db)
        ctx.result("days-analysed", score["days"] == DAYS - 7, f"{score['days']} days")
        ctx.result("false-anomalies", score["false"] <= FALSE_MAX,
                   f"{score['false']} false anomalies (at most {FALSE_MAX}): "
                   f"{score['false_anomalies']}")
        db.close()


def job_intervals(ctx):
    rng = np.random.default_rng(4)
    n_bursts, burst = 24, 500
    pattern = [synth.burst_values("gauge", "threads", "sched.runq", 0.6, rng, burst)
               for _ in range(n_bursts)]
    noise = [synth.burst_values("counter", "reads", "bcache.reads", 300.0, rng, burst) / 1e-3
             for _ in range(n_bursts)]
    flat = [np.zeros(1024) for _ in range(48)]
    white = [5000 + 100 * rng.standard_normal(1024) for _ in range(48)]
    # cpu.busy's own noise at 100 ms: an OU process with a 2 s correlation time.
    ou = [1e9 * (0.5 + 0.1 * synth.ou_noise(rng, 1024, 0.1)) for _ in range(48)]
    cases = [("pattern-shorter", intervals.recommend(100.0, pattern, white), "shorter",
              lambda r: r["recommended_ms"] <= 10),
             ("noise-bursts-not-shorter", intervals.recommend(100.0, noise, white), "longer",
              lambda r: True),
             ("flat-longer", intervals.recommend(100.0, [], flat), "longer",
              lambda r: r["recommended_ms"] == intervals.MAX_INTERVAL_MS),
             ("white-noise-longer", intervals.recommend(100.0, noise, white), "longer",
              lambda r: r["recommended_ms"] == intervals.MAX_INTERVAL_MS),
             ("structure-kept", intervals.recommend(100.0, noise, ou), None,
              lambda r: r["recommended_ms"] <= 2000)]
    for name, r, decision, check in cases:
        ctx.result(name, (decision is None or r["decision"] == decision) and check(r),
                   json.dumps(r, default=str)[:600])


def scion(*args, timeout=120):
    return subprocess.run([sys.executable, SCION] + list(args), capture_output=True, text=True,
                          timeout=timeout)


class ReportParser(html.parser.HTMLParser):
    """Figures (class, data-*), images, and table rows (data-key, cell values)."""

    def __init__(self):
        super().__init__()
        self.figures, self.rows, self.images, self.row = [], [], 0, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self.figures.append(a)
        elif tag == "img" and a.get("src", "").startswith("data:image/png;base64,"):
            self.images += 1
        elif tag == "tr" and "data-key" in a:
            self.row = [a["data-key"]]
            self.rows.append(self.row)
        elif tag == "td" and self.row is not None:
            self.row.append(a.get("data-value"))

    def handle_endtag(self, tag):
        if tag == "tr":
            self.row = None


def same(cell, value):
    """A report cell holds the JSON's value (as text)."""
    if value is None:
        return cell == ""
    if isinstance(value, float):
        return cell is not None and math.isclose(float(cell), value, rel_tol=1e-12)
    return cell == str(value)


def job_nightly_cli(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        db, out = os.path.join(tmp, "p.db"), os.path.join(tmp, "out")
        proc = scion("profile", "synth", "--db", db, "--start", "2024-03-04", "--days", "9",
                     "--interval-ms", "5000", "--history-interval-ms", "60000",
                     "--thread-interval-ms", "60000", "--burst-ms", "256", "--burst-every-min",
                     "120", "--anomaly",
                     "process@8,14:20,45m", "--seed", "3", "--progress")
        ctx.result("synth", proc.returncode == 0 and "synth: day 1/9" in proc.stderr,
                   proc.stderr[-800:])
        proc = scion("analyze", "nightly", "--db", db, "--out", out, "--json", "--progress")
        ok = proc.returncode == 0
        ctx.result("analyze", ok and "analyze synthetic 2024-03-12" in proc.stderr,
                   proc.stderr[-800:])
        if not ok:
            return
        results = json.loads(proc.stdout)
        with open(os.path.join(out, "results.json")) as f:
            ctx.result("stdout-is-results.json", json.load(f) == results)
        ivals = {r["name"]: r["interval"] for r in results["resources"]}
        ctx.result("runq-shorter", ivals["sched.runq"]["decision"] == "shorter"
                   and ivals["sched.runq"]["recommended_ms"] < 100, json.dumps(ivals["sched.runq"]))
        ctx.result("flat-longer", ivals["trace.drops"]["decision"] == "longer"
                   and ivals["trace.drops"]["recommended_ms"] == 10000,
                   json.dumps(ivals["trace.drops"]))
        busy = [a for a in results["anomalies"] if a["resource"] == "cpu.busy"]
        ctx.result("anomaly-found", len(busy) == 1 and busy[0]["kind"] == "process",
                   json.dumps(busy)[:800])
        check_report(ctx, os.path.join(out, "report.html"), results)
        cfg = os.path.join(out, results["config"]["file"])
        proc = scion("profile", "config", "show", cfg)
        ctx.result("config-show", proc.returncode == 0 and "sched.runq" in proc.stdout
                   and f"valid {results['next_day']}" in proc.stdout, proc.stderr)
        with pdb.open_db(db) as conn:
            rows = {t: conn.query(f"SELECT COUNT(*) FROM {t}")[0][0] for t in (
                "analysis_runs", "interval_results", "anomalies", "anomaly_threads", "configs",
                "config_buckets", "reference_days", "reference_buckets")}
        ctx.result("stored", rows["analysis_runs"] == 1 and rows["interval_results"] == len(
            results["resources"]) and rows["anomalies"] == len(results["anomalies"])
            and rows["configs"] == 1 and rows["reference_days"] == 6 and all(rows.values()),
            json.dumps(rows))


def check_report(ctx, path, results):
    if not os.path.isfile(path):
        ctx.result("report", False, f"no {path}")
        return
    p = ReportParser()
    with open(path) as f:
        p.feed(f.read())
    system = [r for r in results["resources"] if r["scope"] != "thread"]
    plots = {f["data-resource"]: f for f in p.figures if f.get("class") == "resource"}
    ctx.result("report-plot-per-resource", sorted(plots) == sorted(r["name"] for r in system)
               and len(plots) == len(system), f"{sorted(plots)}")
    decomposed = [a for a in results["anomalies"] if a["decomposition"]["contributions"]]
    stacked = [f for f in p.figures if f.get("class") == "anomaly"]
    ctx.result("report-stacked-per-anomaly", len(stacked) == len(decomposed)
               and p.images == len(plots) + len(stacked), f"{len(stacked)} of {len(decomposed)}")
    bad = [r["name"] for r in system if not (
        same(plots[r["name"]].get("data-mean"), r["mean"])
        and same(plots[r["name"]].get("data-anomalies"), r["anomalies"]))]
    ctx.result("report-figures-match-json", not bad, f"differ: {bad}")
    rows = {row[0]: row[1:] for row in p.rows}
    bad = [r["name"] for r in results["resources"] if not (
        r["name"] in rows and same(rows[r["name"]][1], r["interval"]["current_ms"])
        and same(rows[r["name"]][2], r["interval"]["recommended_ms"])
        and rows[r["name"]][3] == r["interval"]["decision"])]
    ctx.result("report-interval-table", not bad, f"differ: {bad}")
    bad = [a["id"] for a in results["anomalies"] if not (
        str(a["id"]) in rows and rows[str(a["id"])][1:5] == [a["resource"], a["start"], a["end"],
                                                               a["direction"]]
        and same(rows[str(a["id"])][5], a["mean_excess"]) and rows[str(a["id"])][8] == a["kind"])]
    ctx.result("report-anomaly-table", not bad and results["anomalies"], f"differ: {bad}")
