# SPDX-License-Identifier: BSD-2-Clause
"""`scion analyze nightly`: VINO's off-line analysis of one machine's day.

  1. interval analysis per resource (intervals.py), from the day's 1 ms
     bursts and its normal samples;
  2. the reference profile of the day from its reference days
     (reference.py), with expected value and band per 15-minute bucket;
  3. anomalies: periods outside the band (anomalies.py);
  4. each anomaly decomposed into threads and classified;
  5. the next day's profile configuration (config.py): the recommended
     intervals, and the expected values and bands built from the next
     day's references (this day, with its anomalous windows left out,
     the day a week before the next, and the month reference);
  6. the report (report.py).
Every result goes to the database (one transaction: analysis_runs and
the result tables) and to the output directory: results.json (what
--json prints), report.html and profile-NEXTDAY.cfg. Results are
computed from integers read in a fixed order, so SQLite and PostgreSQL
holding the same samples give the same results.
"""

import datetime
import json
import os
import time

import numpy as np

from . import anomalies, config, intervals, reference
from .db import ProfileError
from .series import DAY_NS, DayReader, nanmean

WINDOW_CHOICES_S = [60, 90, 150, 180, 300, 450, 900]   # divisors of a bucket
BURST_EVERY_S = 3600
DEFAULT_BURST_MS = 500
RESULTS_FILE, REPORT_FILE = "results.json", "report.html"


def day_start_ns(day):
    return config.day_seconds(day) * 10**9


def ns_to_iso(ns):
    return datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M:%S")


def days_with_samples(collections):
    """'2024-03-04 to 2024-03-06, 2024-03-14 to 2024-03-15': the days the
    collections cover (a collection's last sample at midnight ends a day)."""
    spans = []
    for c in collections:
        first = ns_to_iso(c["started_ns"])[:10]
        last = ns_to_iso(max(c["ended_ns"] or c["started_ns"], c["started_ns"] + 1) - 1)[:10]
        if spans and first <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], last)
        else:
            spans.append([first, last])
    return ", ".join(a if a == b else f"{a} to {b}" for a, b in spans)


def fig(x, digits=6):
    """A float for the JSON: NaN and infinities become None, the rest rounded."""
    if x is None:
        return None
    x = float(x)
    return None if not np.isfinite(x) else float(f"{x:.{digits}g}")


def parameters(month_mode):
    return {"bucket_s": reference.BUCKET_S, "window_s_min": anomalies.WINDOW_S,
            "weights": reference.WEIGHTS, "month_reference": month_mode,
            "min_reference_coverage": reference.MIN_COVERAGE, "band_z": reference.Z,
            "band_rel_floor": reference.REL_FLOOR,
            "single_reference_sd": reference.SINGLE_REFERENCE_SD,
            "min_duration_s": anomalies.MIN_DURATION_S,
            "bridge_windows": anomalies.BRIDGE_WINDOWS, "decomposition_share": anomalies.SHARE,
            "group_max": anomalies.GROUP_MAX, "interval_keep": intervals.KEEP,
            "interval_alpha": intervals.ALPHA, "burst_pattern_share": intervals.PATTERN_SHARE,
            "burst_lost_share": intervals.LOST_SHARE,
            "max_interval_ms": intervals.MAX_INTERVAL_MS}


def default_day(db, machine_id):
    """The last day whose samples are complete: the day before the latest sample's
    (or that day, when the latest sample closes it at midnight)."""
    rows = db.query("SELECT MAX(ended_ns) FROM collections WHERE machine_id = ?", (machine_id,))
    if not rows or rows[0][0] is None:
        raise ProfileError(f"{db.where}: no samples for this machine yet")
    last = rows[0][0]
    day = datetime.datetime.fromtimestamp((last - 1) // 10**9, datetime.timezone.utc).date()
    return day if last % DAY_NS == 0 else day - datetime.timedelta(days=1)


class Analysis:
    """One run; the loaded days are kept for the next day's references."""

    def __init__(self, db, machine, day, month_mode="weekday", progress=None, cache=None):
        self.db, self.progress, self.month_mode = db, progress, month_mode
        self.machine = machine or db.default_machine()
        self.mid = db.machine_id(self.machine)
        self.day = day or default_day(db, self.mid)
        self.reader = DayReader(db, self.mid)
        res = self.reader.resources
        # Per-process resources (process.cpu, ...) repeat the per-thread ones summed
        # by process: the decomposition is by thread, so they are neither system
        # resources nor analysed again.
        self.system = sorted(n for n, r in res.items() if r[3] not in ("thread", "process"))
        self.threads = sorted(n for n, r in res.items() if r[3] == "thread")
        # Days already read, {(machine, window, day): data}: `analyze score` runs
        # day after day, and each day is a reference of several others.
        self.cache = cache if cache is not None else {}

    def say(self, text, fraction=None):
        if self.progress:
            self.progress.update(f"analyze {self.machine} {self.day}: {text}", fraction)

    def check_day(self):
        day0 = day_start_ns(self.day)
        if not self.db.collections(self.mid, day0, day0 + DAY_NS):
            spans = self.db.collections(self.mid)
            have = (f"it has samples on {days_with_samples(spans)}" if spans
                    else "it has no samples")
            raise ProfileError(f"{self.db.where}: no samples for machine {self.machine} on "
                               f"{self.day} ({have}; --day picks another)")

    def window_s(self):
        """The window: WINDOW_S unless a day involved is sampled more sparsely."""
        slowest = 0.0
        days = [self.day, self.day + datetime.timedelta(days=1)]
        days += [d for target in days for _, d, _ in reference.reference_days(target,
                                                                             self.month_mode)]
        probe = next((n for n in self.system if n.startswith("cpu.")), self.system[0])
        for d in set(days):
            ms = self.reader.interval_ms(day_start_ns(d), probe)
            slowest = max(slowest, ms or 0.0)
        for w in WINDOW_CHOICES_S:
            if w * 1000 >= slowest:
                return w
        raise ProfileError(f"samples every {slowest / 1000:g} s are too sparse for "
                           f"{reference.BUCKET_S // 60}-minute buckets")

    def load(self, day):
        """Window means of every resource for a day: {name: windows}, thread
        resources as {name: {thread: windows}}, and sample counts."""
        key = (self.mid, self.w, day)
        if key in self.cache:
            return self.cache[key]
        day0 = day_start_ns(day)
        if not self.db.collections(self.mid, day0, day0 + DAY_NS):
            self.cache[key] = None
            return None
        w_ns = self.w * 10**9
        system, counts = {}, {}
        for name in self.system:
            system[name], counts[name] = self.reader.windows(name, day0, w_ns)
        cov = float(np.mean([reference.coverage(x) for n, x in system.items() if counts[n]]
                            or [0.0]))
        self.cache[key] = {"system": system, "threads": None, "counts": counts,
                           "coverage": cov, "day": day}
        return self.cache[key]

    def threads_of(self, data):
        """The per-thread window means of a loaded day, read when first needed
        (only anomalies are decomposed): {resource: {thread: windows}}."""
        if data is None:
            return None
        if data["threads"] is None:
            day0, w_ns = day_start_ns(data["day"]), self.w * 10**9
            data["threads"] = {name: self.reader.thread_windows(name, day0, w_ns)
                               for name in self.threads}
        return data["threads"]

    def interval_analysis(self):
        day0 = day_start_ns(self.day)
        out = {}
        names = self.system + self.threads
        for i, name in enumerate(names):
            self.say(f"interval analysis of {name}", i / len(names))
            _, _, _, scope = self.reader.resources[name]
            current = self.reader.interval_ms(day0, name)
            per_scope, lengths = [], []
            for c in self.reader.collections(day0):
                for s in self.reader.scopes(c["collection"], scope):
                    runs = self.reader.normal_runs(name, s, day0, current) if current else []
                    bursts, sizes = (self.reader.bursts(name, s, day0) if scope != "thread"
                                     else ([], []))
                    lengths += sizes
                    if runs or bursts:      # a collection that only touches the day: none
                        per_scope.append(intervals.recommend(current, bursts, runs))
            out[name] = intervals.combine(per_scope or [intervals.recommend(current, [], [])])
            if lengths:
                self.burst_ms = int(np.median(lengths))
        return out

    def references(self, target, mask=None):
        """[(role, day, weight, loaded day or None, coverage)] for target; mask:
        {resource: windows to leave out} of a day (its anomalies)."""
        refs = []
        for role, d, weight in reference.reference_days(target, self.month_mode):
            data = self.load(d)
            cov = data["coverage"] if data else 0.0
            if data and mask and d == self.day:
                data = dict(data, system={n: np.where(mask.get(n, False), np.nan, x)
                                          for n, x in data["system"].items()})
            refs.append((role, d, weight, data if cov >= reference.MIN_COVERAGE else None, cov))
        return refs

    def profiles(self, refs):
        per_bucket = reference.BUCKET_S // self.w
        out = {}
        for name in self.system:
            kind = self.reader.resources[name][2]
            out[name] = reference.profile([(w, data["system"][name] if data else None)
                                           for _, _, w, data, _ in refs], per_bucket, kind, self.w)
        return out

    def run(self):
        self.check_day()
        self.w = self.window_s()
        self.burst_ms = DEFAULT_BURST_MS
        self.say("reading the day")
        today = self.load(self.day)
        ivals = self.interval_analysis()
        self.say("reading the reference days")
        refs = self.references(self.day)
        profiles = self.profiles(refs)
        per_bucket = reference.BUCKET_S // self.w
        self.say("anomalies")
        found, mask = [], {}
        ref_threads = None
        for name in self.system:
            x = today["system"][name]
            for first, last, sign in anomalies.detect(x, profiles[name], per_bucket, self.w):
                a = anomalies.describe(x, profiles[name], per_bucket, first, last, sign)
                a.update(resource=name, first=first, last=last)
                if ref_threads is None:
                    ref_threads = [(w, self.threads_of(data)) for _, _, w, data, _ in refs]
                a["decomposition"] = anomalies.decompose(name, sign, first, last,
                                                         self.threads_of(today), ref_threads)
                found.append(a)
                m = mask.setdefault(name, np.zeros(len(x), bool))
                m[first:last + 1] = True
        self.say("the next day's profile")
        next_day = self.day + datetime.timedelta(days=1)
        next_refs = self.references(next_day, mask)
        if not any(data for _, _, _, data, _ in next_refs):
            # No reference at all for tomorrow: today (without its anomalies) is all there is.
            next_refs = [("this day", self.day, 1.0, dict(today, system={
                n: np.where(mask.get(n, False), np.nan, x) for n, x in today["system"].items()}),
                today["coverage"])]
        next_profiles = self.profiles(next_refs)
        return self.results(today, ivals, refs, profiles, found, next_day, next_refs,
                            next_profiles)

    def results(self, today, ivals, refs, profiles, found, next_day, next_refs, next_profiles):
        day0 = day_start_ns(self.day)
        per_bucket = reference.BUCKET_S // self.w
        res = self.reader.resources
        collections = self.db.collections(self.mid, day0, day0 + DAY_NS)
        gaps = []
        for c in collections:
            gaps += [{"collection": c["collection"], "cpu": g[0], "start": ns_to_iso(g[1]),
                      "end": ns_to_iso(g[2]), "lost": g[3], "reason": g[4]}
                     for g in self.db.query("SELECT cpu, start_ns, end_ns, lost, reason FROM gaps "
                                            "WHERE collection_id = ? AND end_ns > ? AND "
                                            "start_ns < ? ORDER BY start_ns", (c["collection"],
                                                                               day0, day0 + DAY_NS))]

        def ref_list(rs, target):
            return [{"target": target.isoformat(), "role": role, "day": d.isoformat(),
                     "weight": w, "available": data is not None, "coverage": fig(cov, 4)}
                    for role, d, w, data, cov in rs]

        resources = []
        for name in self.system + self.threads:
            rid, unit, kind, scope = res[name]
            entry = {"name": name, "unit": unit, "kind": kind, "scope": scope,
                     "display_unit": f"{unit}/s" if kind == "counter" else unit,
                     "interval": ivals[name]}
            if scope != "thread":
                x, p = today["system"][name], profiles[name]
                obs_b = nanmean(x.reshape(-1, per_bucket), axis=1)
                entry.update(samples=today["counts"][name], coverage=fig(reference.coverage(x), 4),
                             mean=fig(nanmean(x)), expected_mean=fig(nanmean(p["expected"])),
                             anomalies=sum(a["resource"] == name for a in found),
                             buckets=[{"bucket": b, "start": f"{b * reference.BUCKET_S // 3600:02d}:"
                                       f"{b * reference.BUCKET_S % 3600 // 60:02d}",
                                       "expected": fig(p["expected"][b]), "low": fig(p["low"][b]),
                                       "high": fig(p["high"][b]), "observed": fig(obs_b[b])}
                                      for b in range(len(p["expected"]))])
            resources.append(entry)
        units = {r["name"]: r["display_unit"] for r in resources}
        anomaly_list = []
        for i, a in enumerate(sorted(found, key=lambda a: (a["first"], a["resource"])), 1):
            d = a["decomposition"]
            anomaly_list.append({
                "id": i, "resource": a["resource"], "unit": units[a["resource"]],
                "start": ns_to_iso(day0 + a["first"] * self.w * 10**9),
                "end": ns_to_iso(day0 + (a["last"] + 1) * self.w * 10**9),
                "start_ns": day0 + a["first"] * self.w * 10**9,
                "end_ns": day0 + (a["last"] + 1) * self.w * 10**9,
                "duration_s": (a["last"] - a["first"] + 1) * self.w,
                "direction": a["direction"], "observed": fig(a["observed"]),
                "expected": fig(a["expected"]), "mean_excess": fig(a["mean_excess"]),
                "peak_excess": fig(a["peak_excess"]), "relative": fig(a["relative"], 4),
                "band_units": fig(a["band_units"], 4), "kind": d["kind"], "threads": d["threads"],
                "decomposition": {"by": d["by"], "net": fig(d.get("net")),
                                  "share": fig(d.get("share"), 4), "reason": d.get("reason"),
                                  "contributions": [{"thread": c["thread"],
                                                     "observed": fig(c["observed"]),
                                                     "expected": fig(c["expected"]),
                                                     "contribution": fig(c["contribution"]),
                                                     "named": c["thread"] in d["threads"]}
                                                    for c in d["contributions"]]}})
        kinds = {}
        for a in anomaly_list:
            kinds[a["kind"]] = kinds.get(a["kind"], 0) + 1
        decisions = {}
        for r in resources:
            decisions[r["interval"]["decision"]] = decisions.get(r["interval"]["decision"], 0) + 1
        return {
            "format": "scion-nightly/1", "machine": self.machine, "day": self.day.isoformat(),
            "next_day": next_day.isoformat(), "window_s": self.w,
            "bucket_s": reference.BUCKET_S, "parameters": parameters(self.month_mode),
            "collections": [{"collection": c["collection"], "source": c["source"],
                             "complete": c["complete"], "start": ns_to_iso(c["started_ns"]),
                             "end": ns_to_iso(c["ended_ns"]) if c["ended_ns"] else None}
                            for c in collections],
            "gaps": gaps,
            "references": ref_list(refs, self.day) + ref_list(next_refs, next_day),
            "resources": resources, "anomalies": anomaly_list,
            "summary": {"anomalies": len(anomaly_list), "by_kind": kinds,
                        "intervals": decisions,
                        "missing_references": [f"{r[0]} {r[1]}" for r in refs if r[3] is None],
                        "incomplete_collections": [c["collection"] for c in collections
                                                   if not c["complete"]],
                        "samples_lost": sum(g["lost"] for g in gaps)},
            "_next_profiles": next_profiles,
        }

    def next_config(self, results):
        """The next day's configuration (config.encode's input)."""
        out = []
        for r in results["resources"]:
            ival = r["interval"]
            interval_ms = int(round(ival["recommended_ms"] or ival["current_ms"] or 100))
            buckets = None
            p = results["_next_profiles"].get(r["name"])
            if p is not None and not np.isnan(p["expected"]).all():
                fill = np.arange(len(p["expected"]))
                ok = ~np.isnan(p["expected"])
                # Buckets without any reference data take the nearest bucket's values.
                near = fill[ok][np.argmin(np.abs(fill[:, None] - fill[ok][None, :]), axis=1)]
                buckets = []
                for b in near:
                    e = max(config.scaled(p["expected"][b]), 0)
                    buckets.append((e, min(max(config.scaled(p["low"][b]), 0), e),
                                    max(config.scaled(p["high"][b]), e)))
            out.append({"name": r["name"], "kind": r["kind"], "scope": r["scope"],
                        "interval_ms": min(max(interval_ms, config.MIN_INTERVAL_MS),
                                           config.MAX_INTERVAL_MS),
                        "window_ms": max(self.w * 1000, interval_ms),
                        "duration_ms": max(anomalies.MIN_DURATION_S * 1000, self.w * 1000,
                                           interval_ms),
                        "buckets": buckets})
        return {"machine": self.machine, "valid_day": self.day + datetime.timedelta(days=1),
                "generated": int(time.time()), "bucket_ms": reference.BUCKET_S * 1000,
                "burst_every_s": BURST_EVERY_S, "burst_ms": self.burst_ms, "resources": out}


def store(db, mid, results, cfg, cfg_bytes, cfg_name):
    """Every result into the database, in one transaction; returns the run id."""
    res = db.resources()
    with db.transaction(doing="storing the analysis"):
        run = db.insert("analysis_runs", {
            "machine_id": mid, "day": results["day"], "created_ns": time.time_ns(),
            "params": json.dumps(results["parameters"], sort_keys=True),
            "summary": json.dumps(results["summary"], sort_keys=True)}, key="run_id")
        db.insert_many("interval_results", ("run_id", "resource_id", "current_ms",
                                            "recommended_ms", "decision", "evidence"),
                       [(run, res[r["name"]][0], r["interval"]["current_ms"],
                         r["interval"]["recommended_ms"], r["interval"]["decision"],
                         json.dumps(r["interval"]["evidence"], sort_keys=True))
                        for r in results["resources"]])
        db.insert_many("reference_days", ("run_id", "target", "role", "day", "weight",
                                          "coverage"),
                       [(run, r["target"], r["role"], r["day"], r["weight"], r["coverage"] or 0.0)
                        for r in results["references"]])
        db.insert_many("reference_buckets", ("run_id", "resource_id", "bucket", "expected", "low",
                                             "high", "observed"),
                       [(run, res[r["name"]][0], b["bucket"], b["expected"], b["low"], b["high"],
                         b["observed"]) for r in results["resources"] for b in r.get("buckets", [])])
        for a in results["anomalies"]:
            aid = db.insert("anomalies", {
                "run_id": run, "resource_id": res[a["resource"]][0], "start_ns": a["start_ns"],
                "end_ns": a["end_ns"], "direction": a["direction"],
                "mean_excess": a["mean_excess"], "peak_excess": a["peak_excess"],
                "relative": a["relative"], "band_units": a["band_units"], "kind": a["kind"],
                "threads": ",".join(a["threads"])}, key="anomaly_id")
            db.insert_many("anomaly_threads", ("anomaly_id", "thread", "observed", "expected",
                                               "contribution", "named"),
                           [(aid, c["thread"], c["observed"], c["expected"], c["contribution"],
                             int(c["named"])) for c in a["decomposition"]["contributions"]])
        cid = db.insert("configs", {"run_id": run, "valid_day": results["next_day"],
                                    "file": cfg_name, "bytes": len(cfg_bytes),
                                    "crc32": config.decode(cfg_bytes)["crc32"]}, key="config_id")
        db.insert_many("config_resources", ("config_id", "resource", "interval_ms", "window_ms",
                                            "duration_ms", "banded"),
                       [(cid, r["name"], r["interval_ms"], r["window_ms"], r["duration_ms"],
                         int(r["buckets"] is not None)) for r in cfg["resources"]])
        db.insert_many("config_buckets", ("config_id", "resource", "bucket", "expected", "low",
                                          "high"),
                       [(cid, r["name"], b, e, lo, hi) for r in cfg["resources"]
                        for b, (e, lo, hi) in enumerate(r["buckets"] or [])])
    return run


def run(db, machine=None, day=None, out=None, report=True, store_results=True, progress=None,
        month_mode="weekday", cache=None):
    """The whole nightly analysis; returns the results (what results.json holds).
    cache: a dict kept between runs over the same database (days read)."""
    a = Analysis(db, machine, day, month_mode, progress, cache)
    results = a.run()
    cfg = a.next_config(results)
    cfg_bytes = config.encode(cfg)
    cfg_name = f"profile-{results['next_day']}.cfg"
    results["config"] = {"file": cfg_name, "valid_day": results["next_day"],
                         "bytes": len(cfg_bytes), "resources": len(cfg["resources"]),
                         "banded": sum(r["buckets"] is not None for r in cfg["resources"]),
                         "bucket_count": 86400 // reference.BUCKET_S,
                         "burst_ms": cfg["burst_ms"], "burst_every_s": cfg["burst_every_s"]}
    del results["_next_profiles"]
    if store_results:
        results["run_id"] = store(db, a.mid, results, cfg, cfg_bytes, cfg_name)
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, cfg_name), "wb") as f:
            f.write(cfg_bytes)
        with open(os.path.join(out, RESULTS_FILE), "w") as f:
            json.dump(results, f, indent=1, sort_keys=False)
            f.write("\n")
        if report:
            from . import report as report_mod
            a.say("the report")
            report_mod.write(os.path.join(out, REPORT_FILE), results, a.load(a.day), a.w)
    return results
