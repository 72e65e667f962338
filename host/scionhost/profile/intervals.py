# SPDX-License-Identifier: BSD-2-Clause
"""Interval analysis (VINO's variance analysis of the measurement
interval): per resource, should it be sampled more often, or could it
be sampled less often without losing information?

Both questions are asked of the spectrum. A series is "structure plus
noise": it is cut into segments of a power-of-two length, each
detrended and Hann-windowed, and their periodograms (scaled so that a
segment's bins sum to its variance) are averaged. The noise floor is
the median bin; a bin is structure when its mean lies above the floor
by more than z standard errors of that mean over the segments, z for a
family-wise significance ALPHA over all bins (an empirical test: it
needs no model of the noise, so sparse counts, a few events per
segment, are not mistaken for a pattern). The structured variance is
the sum over those bins of (mean - floor). Averaging m consecutive
samples of spacing d multiplies the power at frequency f by
H(f) = (sin(pi f m d) / (m sin(pi f d)))^2, so the share of the
structured variance that an interval keeps is computable from the
spectrum alone, and noise, which averaging rightly removes, never
counts as information.

  1. Bursts (1 ms samples): if the structure the bursts show is at least
     PATTERN_SHARE of their variance, and averaging over the current
     interval loses at least LOST_SHARE of their variance, the interval
     is too long: the recommendation is the longest candidate interval
     that keeps KEEP of the burst structure.
  2. Otherwise the normal samples: the recommendation is the longest
     candidate multiple of the current interval, up to MAX_INTERVAL_MS,
     whose averages keep KEEP of the structure of the current series
     (the stated tolerance: at most 1 - KEEP of it lost). A flat or
     pure-noise resource has no structure and goes to MAX_INTERVAL_MS.
Evidence: the figures behind each decision, the dominant period of the
structure, and the ratio of the largest 1 ms value to the largest
average over the current interval within a burst (the median over the
bursts: how much of the peaks the averages lose).
"""

import math

import numpy as np
from scipy.signal import detrend
from scipy.stats import norm

ALPHA = 0.01                 # family-wise significance of a structure bin
KEEP = 0.9                   # an interval must keep this share of the structured variance
PATTERN_SHARE = 0.10         # bursts: structure at least this share of the 1 ms variance
LOST_SHARE = 0.05            # bursts: the current interval loses at least this share of it
MAX_INTERVAL_MS = 10000      # never longer: a red flag's 10 minutes need enough samples
CANDIDATES_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]
MAX_SEGMENT = 1024
MIN_SEGMENT = 32


def segment_length(runs, cap=MAX_SEGMENT):
    """The largest power of two that fits the runs (at least 4 segments in all)."""
    total = sum(len(r) for r in runs)
    longest = max((len(r) for r in runs), default=0)
    n = 1 << int(math.log2(max(min(cap, longest, total // 4), 1)))
    return n if n >= MIN_SEGMENT else None


def spectrum(runs, spacing_s):
    """Periodograms of every non-overlapping segment of every run, each
    detrended and Hann-windowed, scaled so that a segment's bins sum to its
    variance: (freqs, [segments, bins]) without the mean, or None."""
    n = segment_length(runs)
    if n is None:
        return None
    segs = np.concatenate([r[:len(r) // n * n].reshape(-1, n) for r in runs if len(r) >= n])
    w = np.hanning(n)
    x = detrend(segs, axis=1, type="linear") * w
    power = np.abs(np.fft.rfft(x, axis=1)) ** 2 / (n * (w ** 2).sum())
    power[:, 1:-1] *= 2                                  # one-sided
    return np.fft.rfftfreq(n, spacing_s)[1:], power[:, 1:]


def structure(spec):
    """(excess power per bin, structured variance, total variance).

    The noise floor is the median over bins of the mean power; a bin is
    structure when its mean exceeds the floor by more than z standard errors
    of that mean over the segments (z for ALPHA over all bins): a pattern
    present in every segment passes, the scattered lines a few random events
    leave in some segments do not."""
    f, p = spec
    k = p.shape[0]
    mean = p.mean(axis=0)
    floor = float(np.median(mean))
    se = p.std(axis=0, ddof=1) / math.sqrt(k) if k > 1 else np.full(len(mean), np.inf)
    z = norm.isf(ALPHA / len(mean))
    excess = np.where(mean > floor + z * se, mean - floor, 0.0)
    return excess, float(excess.sum()), float(mean.sum())


def kept(f, excess, spacing_s, m):
    """Share of the structured variance that averaging m samples keeps."""
    total = excess.sum()
    if total <= 0 or m == 1:
        return 1.0
    x = np.pi * f * spacing_s
    h = (np.sin(m * x) / (m * np.sin(x))) ** 2
    return float((excess * h).sum() / total)


def burst_evidence(bursts, current_ms):
    spec = spectrum(bursts, 1e-3)
    if spec is None:
        return None
    f, k = spec[0], spec[1].shape[0]
    excess, structured, variance = structure(spec)
    m_cur = max(int(round(current_ms)), 1)
    keep_cur = kept(f, excess, 1e-3, m_cur)
    peaks = []
    for b in bursts:
        m = min(m_cur, len(b))                 # a burst shorter than the interval: its mean
        top = b[:len(b) // m * m].reshape(-1, m).mean(axis=1).max()
        peaks.append(b.max() / top if top > 0 else 1.0)
    ev = {"bursts": len(bursts), "segments": k,
          "pattern_share": round(structured / variance, 4) if variance > 0 else 0.0,
          "lost_share": round((1 - keep_cur) * structured / variance, 4) if variance > 0 else 0.0,
          "kept_at_current": round(keep_cur, 4),
          "peak_ratio": round(float(np.median(peaks)), 3),
          "dominant_period_ms": (round(1000.0 / f[int(np.argmax(excess))], 2)
                                 if structured > 0 else None)}
    ev["kept"] = {c: round(kept(f, excess, 1e-3, c), 4) for c in CANDIDATES_MS if c < current_ms}
    return ev


def normal_evidence(runs, current_ms):
    spec = spectrum(runs, current_ms / 1000.0)
    if spec is None:
        return None
    f, k = spec[0], spec[1].shape[0]
    excess, structured, variance = structure(spec)
    longer = [c for c in CANDIDATES_MS if current_ms < c <= MAX_INTERVAL_MS
              and abs(c / current_ms - round(c / current_ms)) < 1e-9]
    return {"segments": k, "samples": sum(len(r) for r in runs),
            "pattern_share": round(structured / variance, 4) if variance > 0 else 0.0,
            "dominant_period_s": (round(1.0 / f[int(np.argmax(excess))], 3)
                                  if structured > 0 else None),
            "kept": {c: round(kept(f, excess, current_ms / 1000.0, int(round(c / current_ms))), 4)
                     for c in longer}}


def recommend(current_ms, bursts, runs):
    """{decision, current_ms, recommended_ms, evidence} for one stream."""
    if current_ms is None:
        return {"decision": "no data", "current_ms": None, "recommended_ms": None,
                "evidence": {"reason": "no samples at an interval"}}
    ev = {"burst": burst_evidence(bursts, current_ms) if bursts else None}
    b = ev["burst"]
    if b and b["pattern_share"] >= PATTERN_SHARE and b["lost_share"] >= LOST_SHARE:
        fits = [c for c, share in b["kept"].items() if share >= KEEP]
        rec = max(fits) if fits else CANDIDATES_MS[0]
        ev["reason"] = (f"the 1 ms bursts show a pattern ({b['pattern_share']:.0%} of their "
                        f"variance, period {b['dominant_period_ms']} ms) of which averages over "
                        f"{current_ms:g} ms lose {b['lost_share']:.0%} of the variance; "
                        f"{rec} ms keeps at least {KEEP:.0%} of it")
        return {"decision": "shorter", "current_ms": current_ms, "recommended_ms": float(rec),
                "evidence": ev}
    ev["normal"] = normal_evidence(runs, current_ms)
    n = ev["normal"]
    if n is None:
        ev["reason"] = "too few samples at the current interval to judge a longer one"
        return {"decision": "keep", "current_ms": current_ms, "recommended_ms": current_ms,
                "evidence": ev}
    # The longest interval such that every shorter candidate also keeps enough.
    rec = current_ms
    for c in sorted(n["kept"]):
        if n["kept"][c] < KEEP:
            break
        rec = float(c)
    if rec > current_ms:
        ev["reason"] = (f"averages over {rec:g} ms keep {n['kept'][int(rec)]:.0%} of the "
                        f"structure above noise ({n['pattern_share']:.0%} of the variance)")
        return {"decision": "longer", "current_ms": current_ms, "recommended_ms": rec,
                "evidence": ev}
    ev["reason"] = (f"no longer interval keeps {KEEP:.0%} of the structure above noise" if n["kept"]
                    else f"already at the longest interval ({MAX_INTERVAL_MS} ms) or beyond")
    return {"decision": "keep", "current_ms": current_ms, "recommended_ms": current_ms,
            "evidence": ev}


def combine(per_scope):
    """One recommendation for a resource from its streams (CPUs, threads): the
    shortest, with the evidence of the stream that decided."""
    known = [r for r in per_scope if r["recommended_ms"] is not None]
    if not known:
        return per_scope[0] if per_scope else recommend(None, [], [])
    best = min(known, key=lambda r: (r["recommended_ms"], r["decision"] != "shorter"))
    out = dict(best)
    out["evidence"] = dict(best["evidence"], streams=len(per_scope))
    return out
