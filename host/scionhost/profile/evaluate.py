# SPDX-License-Identifier: BSD-2-Clause
"""Scoring the nightly analysis against a synthetic history's ground
truth (`scion analyze score`, the tests and `make bench`).

Each day from `first` (default: the 8th day of the machine's history,
the first with a previous-week reference) to `last` is analysed as the
nightly job would (nothing stored, no files). Then:

  found     an injected anomaly is found when the anomalies detected in
            PRIMARY (cpu.busy: every kind of injected anomaly moves it)
            with the injected kind and, for "process" and "group",
            exactly its threads, cover at least half of its span;
  recall    found / injected;
  false     a detected anomaly (any resource) that overlaps no injected
            span is a false one;
  precision detected anomalies that overlap an injected span / detected.
"""

import datetime

from . import nightly
from .db import ProfileError
from .series import DAY_NS

PRIMARY = "cpu.busy"
MIN_OVERLAP = 0.5


def truth(db, machine_id):
    rows = db.query("SELECT s.kind, s.start_ns, s.end_ns, s.size, s.threads, s.spec FROM "
                    "synth_anomalies s JOIN collections c ON c.collection_id = s.collection_id "
                    "WHERE c.machine_id = ? ORDER BY s.start_ns", (machine_id,))
    return [{"kind": k, "start_ns": s, "end_ns": e, "size": size,
             "threads": sorted(t.split(",")) if t != "all" else ["all"], "spec": spec}
            for k, s, e, size, t, spec in rows]


def overlap(a0, a1, b0, b1):
    return max(0, min(a1, b1) - max(a0, b0))


def matches(injected, detected):
    """Is the injected anomaly found among the detected ones?"""
    span = injected["end_ns"] - injected["start_ns"]
    covered = sum(overlap(d["start_ns"], d["end_ns"], injected["start_ns"], injected["end_ns"])
                  for d in detected if d["resource"] == PRIMARY and d["kind"] == injected["kind"]
                  and (injected["kind"] == "load" or sorted(d["threads"]) == injected["threads"]))
    return covered >= MIN_OVERLAP * span


def score(db, machine=None, first=None, last=None, progress=None, analyse=None):
    """Analyse the days and compare; analyse(day) -> results replaces the nightly
    run (the tests pass one that reuses loaded data)."""
    machine = machine or db.default_machine()
    mid = db.machine_id(machine)
    cols = db.collections(mid)
    if not cols:
        raise ProfileError(f"{db.where}: no samples for machine {machine}")
    start = datetime.datetime.fromtimestamp(cols[0]["started_ns"] // 10**9,
                                            datetime.timezone.utc).date()
    first = first or start + datetime.timedelta(days=7)
    last = last or nightly.default_day(db, mid)
    if last < first:
        raise ProfileError(f"no day to score between {first} and {last}")
    injected = truth(db, mid)
    days = [first + datetime.timedelta(days=i) for i in range((last - first).days + 1)]
    detected, per_day, cache = [], {}, {}
    for i, day in enumerate(days):
        if progress:
            progress.update(f"score: analysing {day} ({i + 1}/{len(days)})", i / len(days))
        results = (analyse(day) if analyse else
                   nightly.run(db, machine=machine, day=day, out=None, report=False,
                               store_results=False, cache=cache))
        per_day[day.isoformat()] = results["anomalies"]
        detected += results["anomalies"]
    d0 = nightly.day_start_ns(first)
    d1 = nightly.day_start_ns(last) + DAY_NS
    scored = [a for a in injected if d0 <= a["start_ns"] < d1]
    found = [a for a in scored if matches(a, detected)]
    false = [d for d in detected if not any(overlap(d["start_ns"], d["end_ns"], a["start_ns"],
                                                    a["end_ns"]) > 0 for a in injected)]
    return {"machine": machine, "first": first.isoformat(), "last": last.isoformat(),
            "days": len(days), "injected": len(scored), "found": len(found),
            "recall": len(found) / len(scored) if scored else 1.0,
            "detected": len(detected), "false": len(false),
            "precision": (len(detected) - len(false)) / len(detected) if detected else 1.0,
            "misses": [a["spec"] for a in scored if a not in found],
            "false_anomalies": [f"{d['resource']} {d['start']}-{d['end'][11:]} {d['kind']}"
                                for d in false],
            "per_day": {day: len(a) for day, a in per_day.items()}}
