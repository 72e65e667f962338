# SPDX-License-Identifier: BSD-2-Clause
"""Anomalous periods of a day and their decomposition into threads.

Detection: a window (the mean over WINDOW_S, what the kernel's online
monitor compares too) is outside when it lies above its bucket's band
or below it. An anomaly is a run of outside windows on the same side
lasting at least MIN_DURATION_S, where up to BRIDGE_WINDOWS windows
inside the band (or without data) between two outside ones do not end
it. Its size: the mean and peak of observed - expected over the run,
relative to the expected value, and in band half-widths.

Decomposition (VINO's per-process profiles; per thread name until Scion
has processes): a resource is decomposed by its per-thread counterpart
(DECOMPOSED_BY: CPU and scheduler figures by thread.cpu, block-cache
ones by thread.bcache_reads, disk ones by thread.disk_wait). For each
thread, observed = its mean rate over the anomaly, expected = the same
span of the reference days, weighted as the reference profile (a thread
absent from a reference counts as 0 there); contribution = observed -
expected. The net change is the sum. If it does not go the way the
anomaly goes, the anomaly is "unexplained" by the threads. Otherwise
the threads are ranked by their contribution in that direction and k is
the smallest number of them whose contributions reach SHARE of the sum
of all contributions in that direction (not of the net change, which
threads that happened to do a little less would shrink): k = 1 is one
process ("process"), 2..GROUP_MAX a small group
("group"), more an overall increase in load ("load"). The first k
threads are named (for "load", the first GROUP_MAX + 2). Resources
without a per-thread counterpart (memory, interrupts, grafts, probes,
trace drops, channel) are "not decomposed".
"""

import numpy as np

from .series import nanmean

WINDOW_S = 60
MIN_DURATION_S = 600
BRIDGE_WINDOWS = 2
SHARE = 0.8
GROUP_MAX = 3
# resource (or prefix.) -> (per-thread resource, +1 if it moves with the threads, -1 against)
DECOMPOSED_BY = {"cpu.busy": ("thread.cpu", 1), "cpu.idle": ("thread.cpu", -1),
                 "sched.runq": ("thread.cpu", 1), "sched.runnable": ("thread.cpu", 1),
                 "sched.blocked": ("thread.disk_wait", 1),
                 "bcache.": ("thread.bcache_reads", 1), "disk.": ("thread.disk_wait", 1)}


def counterpart(resource):
    if resource in DECOMPOSED_BY:
        return DECOMPOSED_BY[resource]
    for prefix, value in DECOMPOSED_BY.items():
        if prefix.endswith(".") and resource.startswith(prefix):
            return value
    return None


def detect(observed, prof, per_bucket, window_s):
    """[(first window, last window, +1 | -1)] of one resource's day."""
    bucket = np.arange(len(observed)) // per_bucket
    high, low = prof["high"][bucket], prof["low"][bucket]
    side = np.zeros(len(observed), int)
    valid = ~np.isnan(observed) & ~np.isnan(high)
    side[valid & (observed > high)] = 1
    side[valid & (observed < low)] = -1
    min_windows = max(int(np.ceil(MIN_DURATION_S / window_s)), 1)
    runs, start, last, sign, quiet = [], None, None, 0, 0
    for i, s in enumerate(side.tolist() + [0] * (BRIDGE_WINDOWS + 1)):
        if start is not None and s == sign:
            last, quiet = i, 0
            continue
        if start is not None:
            quiet += 1
            if s == 0 and quiet <= BRIDGE_WINDOWS:
                continue
            if last - start + 1 >= min_windows:
                runs.append((start, last, sign))
            start = None
        if s != 0:
            start, last, sign, quiet = i, i, s, 0
    return runs


def describe(observed, prof, per_bucket, first, last, sign):
    """Size figures of one anomaly."""
    span = slice(first, last + 1)
    bucket = np.arange(len(observed))[span] // per_bucket
    excess = observed[span] - prof["expected"][bucket]
    mean_excess = float(nanmean(excess))
    expected = float(nanmean(prof["expected"][bucket]))
    peak = excess[np.nanargmax(sign * excess)]
    return {"direction": "high" if sign > 0 else "low", "mean_excess": mean_excess,
            "peak_excess": float(peak), "expected": expected,
            "observed": float(nanmean(observed[span])),
            "relative": mean_excess / expected if abs(expected) > 1e-12 else None,
            "band_units": mean_excess / float(nanmean(prof["half"][bucket]))}


def span_mean(windows, first, last):
    """A thread's mean over the span; 0 when it has no data there."""
    if windows is None:
        return 0.0
    m = nanmean(windows[first:last + 1])
    return 0.0 if np.isnan(m) else float(m)


def decompose(resource, sign, first, last, day_threads, ref_threads):
    """Per-thread contributions and the classification of one anomaly.

    day_threads: {thread resource: {name: windows}}; ref_threads:
    [(weight, {thread resource: {name: windows}} or None)]."""
    cp = counterpart(resource)
    if cp is None:
        return {"kind": "not decomposed", "threads": [], "by": None, "contributions": [],
                "reason": f"{resource} has no per-thread counterpart"}
    by, direction = cp
    today = day_threads.get(by, {})
    refs = [(w, r.get(by, {})) for w, r in ref_threads if r is not None and r.get(by)]
    names = sorted(set(today) | {n for _, r in refs for n in r})
    wsum = sum(w for w, r in refs if any(
        not np.isnan(nanmean(x[first:last + 1])) for x in r.values()))
    rows = []
    for name in names:
        obs = span_mean(today.get(name), first, last)
        exp = (sum(w * span_mean(r.get(name), first, last) for w, r in refs) / wsum
               if wsum > 0 else 0.0)
        rows.append({"thread": name, "observed": obs, "expected": exp, "contribution": obs - exp})
    net = sum(r["contribution"] for r in rows)
    want = sign * direction
    out = {"by": by, "net": net, "contributions": rows}
    if not rows or net * want <= 0:
        out.update(kind="unexplained", threads=[], share=0.0,
                   reason=f"the threads' {by} did not change the way {resource} did")
        return out
    ranked = sorted(rows, key=lambda r: -want * r["contribution"])
    moved = sum(max(want * r["contribution"], 0.0) for r in rows)
    total, k = 0.0, 0
    for k, r in enumerate(ranked, 1):
        total += want * r["contribution"]
        if total >= SHARE * moved:
            break
    kind = "process" if k == 1 else "group" if k <= GROUP_MAX else "load"
    named = ranked[:k] if kind != "load" else ranked[:GROUP_MAX + 2]
    out.update(kind=kind, threads=[r["thread"] for r in named], share=total / moved,
               needed=k)
    for r in rows:
        r["named"] = r["thread"] in out["threads"]
    out["contributions"] = ranked
    return out
