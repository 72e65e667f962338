# SPDX-License-Identifier: BSD-2-Clause
"""Reference profiles: what a resource is expected to do on a day, per
time-of-day bucket, and how far from it is still normal.

VINO compares a day with the previous day, the same day of the previous
week and the same day of the previous month. The references of day D:

  previous day     D - 1                                  weight 0.25
  previous week    D - 7                                  weight 0.50
  previous month   D - 28 (the same weekday four weeks    weight 0.25
                   before; month_mode="date" takes the same
                   date of the previous month, or its last day)

The previous week weighs most because usage follows a weekly pattern
(VINO's finding); the month guards against a previous week that was
itself unusual. The month reference is the same weekday by default, as
a calendar date a month back is a different weekday every month. A
missing reference day (no samples, or too few: coverage below
MIN_COVERAGE) is reported and left out, the weights of the others
renormalised per bucket; a day without any reference has no expected
profile (its anomalies cannot be judged; the next day's configuration
then uses the day itself).

Per bucket b (BUCKET_S seconds) and reference r: the mean m_rb and the
variance v_rb of the reference's window means in the bucket. Then

  expected  E_b = sum_r w_r m_rb / sum_r w_r
  between   B_b = weighted variance of the m_rb around E_b (day-to-day
                  variation; needs two references, else
                  (SINGLE_REFERENCE_SD * E_b)^2), averaged over the
                  buckets within +-2 to steady it, and never below the
                  day's typical relative variation (the median over
                  buckets of B_b / E_b^2, at least MIN_BETWEEN_SD^2)
                  times E_b^2: two or three references can agree by
                  chance, in a bucket or all day
  within    V_b = weighted mean of the v_rb (variation inside a bucket,
                  at the window scale the monitor compares)
  band      E_b +- (Z * sqrt(B_b * (1 + sum_r w_r^2 / (sum_r w_r)^2) + V_b)
                        + max(REL_FLOOR * |E_b|, abs floor))
                  (a prediction interval: the day varies around the truth
                  by B_b, and E_b, estimated from the references, by
                  B_b sum w^2 / (sum w)^2)

with the absolute floor one unit per window for a counter (one event,
as a rate per second) and one unit for a gauge, and the lower edge
never below zero. Windows whose reference was itself anomalous (the day
analysed, when it becomes the next day's previous day) are left out.
"""

import datetime

import numpy as np

from .series import nanmean

BUCKET_S = 900
WEIGHTS = {"previous day": 0.25, "previous week": 0.5, "previous month": 0.25}
MIN_COVERAGE = 0.5           # a reference needs data in half its windows to count
Z = 3.0
REL_FLOOR = 0.02
SINGLE_REFERENCE_SD = 0.10
MIN_BETWEEN_SD = 0.03


def month_back(day, mode):
    if mode == "weekday":
        return day - datetime.timedelta(days=28)
    first = day.replace(day=1)
    last_month_end = first - datetime.timedelta(days=1)
    return last_month_end.replace(day=min(day.day, last_month_end.day))


def reference_days(day, mode="weekday"):
    """[(role, date, weight)] for day."""
    return [("previous day", day - datetime.timedelta(days=1), WEIGHTS["previous day"]),
            ("previous week", day - datetime.timedelta(days=7), WEIGHTS["previous week"]),
            ("previous month", month_back(day, mode), WEIGHTS["previous month"])]


def smooth_circular(values, half):
    """Mean over the buckets within +-half (NaN ignored), wrapping at midnight."""
    n = len(values)
    idx = (np.arange(n)[:, None] + np.arange(-half, half + 1)[None, :]) % n
    return nanmean(values[idx], axis=1)


def bucket_stats(windows, per_bucket):
    """(mean, variance) of window means per bucket: [nb], [nb]."""
    w = windows.reshape(-1, per_bucket)
    counts = (~np.isnan(w)).sum(axis=1)
    mean = nanmean(w, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.where(counts >= 2, np.nansum((w - mean[:, None]) ** 2, axis=1)
                       / np.maximum(counts - 1, 1), np.nan)
    return mean, var


def profile(refs, per_bucket, kind, window_s):
    """Expected value and band per bucket from [(weight, windows or None)].

    Returns a dict of arrays: expected, low, high, half, between_sd, within_sd,
    references (how many references had the bucket)."""
    usable = [(w, x) for w, x in refs if x is not None]
    nb = 86400 // BUCKET_S
    if not usable:
        nan = np.full(nb, np.nan)
        return {"expected": nan, "low": nan, "high": nan, "half": nan, "between_sd": nan,
                "within_sd": nan, "references": np.zeros(nb, int)}
    stats = [bucket_stats(x, per_bucket) for _, x in usable]
    m = np.array([s[0] for s in stats])
    v = np.array([s[1] for s in stats])
    w = np.array([wt for wt, _ in usable])[:, None] * ~np.isnan(m)
    wsum = w.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(wsum > 0, np.nansum(w * np.nan_to_num(m), axis=0) / wsum, np.nan)
        dev = np.nan_to_num(m - expected) ** 2
        denom = wsum - (w ** 2).sum(axis=0) / np.where(wsum > 0, wsum, 1)
        between = np.where((w > 0).sum(axis=0) >= 2, (w * dev).sum(axis=0)
                           / np.where(denom > 0, denom, 1), np.nan)
        within = np.where(wsum > 0, np.nansum(w * np.nan_to_num(v), axis=0) / wsum, np.nan)
    between = smooth_circular(between, 2)
    # Two or three references can agree by chance in a bucket: no bucket's
    # day-to-day variation is taken below the day's typical one, relative to
    # its level (the median over buckets of between / expected^2).
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = between / expected ** 2
    rel = rel[np.isfinite(rel)]
    typical = float(np.median(rel)) if len(rel) else SINGLE_REFERENCE_SD ** 2
    typical = max(typical, MIN_BETWEEN_SD ** 2)
    between = np.where(np.isnan(between), SINGLE_REFERENCE_SD ** 2 * expected ** 2,
                       np.maximum(between, typical * expected ** 2))
    within = np.nan_to_num(within)
    floor = np.maximum(REL_FLOOR * np.abs(expected), 1.0 / window_s if kind == "counter" else 1.0)
    # The day varies around the truth as much as each reference does, and E_b,
    # itself an estimate from the references, by sum w^2 / (sum w)^2 of that.
    spread = 1 + (w ** 2).sum(axis=0) / np.where(wsum > 0, wsum, 1) ** 2
    half = Z * np.sqrt(between * spread + within) + floor
    return {"expected": expected, "low": np.maximum(expected - half, 0.0),
            "high": expected + half, "half": half, "between_sd": np.sqrt(between),
            "within_sd": np.sqrt(within), "references": (w > 0).sum(axis=0)}


def coverage(windows):
    return float((~np.isnan(windows)).mean()) if windows is not None else 0.0
