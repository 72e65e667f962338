# SPDX-License-Identifier: BSD-2-Clause
"""Reading one machine's day out of the profile database as the analysis
needs it, with the same SQL on SQLite and PostgreSQL.

A day is the calendar day [day0, day0 + 24 h) of wall_ns. A sample at
time t reports the interval that ends at t, so it belongs to window k
when day0 + k*W < t <= day0 + (k+1)*W (and a sample at exactly midnight
to the day before).

  windows()       each window's mean: for a counter the rate per second
                  (the difference of its cumulative value between the last
                  sample of the window and the last one before, over the
                  monotonic time between them: nothing is lost to a gap,
                  which is averaged over instead; a counter that goes back,
                  a reset, gives no rate), for a gauge the mean of its
                  samples. The database aggregates (MAX, SUM, COUNT per
                  window), so only 1440 rows per stream reach Python.
  normal_runs()   the samples at the resource's own interval as rates or
                  levels, in runs without gaps, for the interval analysis.
                  A day of more than FULL_READ samples is read as SEGMENTS
                  evenly spread runs instead of whole.
  bursts()        the 1 ms samples, one array per burst.
Per-CPU resources are summed over CPUs (the configuration's bands are
for the sum); per-thread ones are kept per thread name (threads that
share a name are summed), across the collections of the day.
"""

import warnings

import numpy as np

DAY_NS = 86400 * 10**9
FULL_READ = 200000          # read a day's normal samples whole up to this many
SEGMENTS = 48               # else this many evenly spread runs of SEGMENT_SAMPLES
SEGMENT_SAMPLES = 1024


def nanmean(a, axis=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(a, axis=axis)


class DayReader:
    """The samples of one machine for the analysis: collections, resources,
    threads, cached per day."""

    def __init__(self, db, machine_id):
        self.db, self.machine = db, machine_id
        self.resources = db.resources()                    # name -> (id, unit, kind, scope)
        self.cpus = {}

    def collections(self, day0):
        return self.db.collections(self.machine, day0 - DAY_NS, day0 + DAY_NS)

    def scopes(self, collection, scope):
        """The scope ids of a resource's streams in a collection."""
        if scope == "global":
            return [0]
        if scope == "cpu":
            if collection not in self.cpus:
                rows = self.db.query("SELECT cpus FROM machines WHERE machine_id = ?",
                                     (self.machine,))
                self.cpus[collection] = max(rows[0][0], 1)
            return list(range(self.cpus[collection]))
        if scope == "process":
            return [r[0] for r in self.db.query("SELECT pid FROM processes WHERE "
                                                "collection_id = ? ORDER BY pid", (collection,))]
        return [r[0] for r in self.db.query("SELECT tid FROM threads WHERE collection_id = ? "
                                            "ORDER BY tid", (collection,))]

    def thread_names(self, collection):
        return dict(self.db.query("SELECT tid, name FROM threads WHERE collection_id = ?",
                                  (collection,)))

    def interval_ms(self, day0, name):
        """The median spacing of a resource's normal samples early in the day, in ms."""
        rid, _, _, scope = self.resources[name]
        spacing = []
        for c in self.collections(day0):
            scope_id = self.scopes(c["collection"], scope)[:1]
            if not scope_id:
                continue
            rows = self.db.query("SELECT wall_ns FROM samples WHERE collection_id = ? AND "
                                 "resource_id = ? AND scope_id = ? AND burst = 0 AND wall_ns > ? "
                                 "AND wall_ns <= ? ORDER BY wall_ns LIMIT 65",
                                 (c["collection"], rid, scope_id[0], day0, day0 + DAY_NS))
            spacing.extend(np.diff([r[0] for r in rows]).tolist())
        return float(np.median(spacing)) / 1e6 if spacing else None

    # ---- window means ----------------------------------------------------

    def stream_windows(self, collection, rid, kind, scope_id, day0, window_ns):
        """(rate or mean per window [nwin], samples counted) of one stream."""
        nwin = DAY_NS // window_ns
        params = (day0, window_ns, window_ns, collection, rid, scope_id, day0 - window_ns,
                  day0 + DAY_NS)
        where = ("FROM samples WHERE collection_id = ? AND resource_id = ? AND scope_id = ? "
                 "AND burst = 0 AND wall_ns > ? AND wall_ns <= ? GROUP BY 1 ORDER BY 1")
        key = "(wall_ns - ? - 1 + ?) / ?"       # k + 1, never negative: no rounding question
        out = np.full(nwin, np.nan)
        if kind == "gauge":
            rows = self.db.query(f"SELECT {key}, CAST(SUM(value) AS BIGINT), COUNT(*) {where}",
                                 params)
            count = 0
            for k, total, n in rows:
                if k >= 1:
                    out[k - 1] = total / n
                    count += n
            return out, count
        rows = self.db.query(f"SELECT {key}, MAX(mono_ns), MAX(value), COUNT(*) {where}", params)
        if not rows:
            return out, 0
        k = np.array([r[0] for r in rows], dtype=np.int64)
        mono = np.array([r[1] for r in rows], dtype=np.int64)
        value = np.array([r[2] for r in rows], dtype=np.int64)
        # Window k's rate runs from the last sample of the window before that has one.
        dv = np.diff(value).astype(np.float64)
        dt = np.diff(mono).astype(np.float64)
        rate = np.where(dv >= 0, dv / dt * 1e9, np.nan)
        out[k[1:] - 1] = rate
        return out, int(sum(r[3] for r in rows if r[0] >= 1))

    def windows(self, name, day0, window_ns):
        """A system resource's window means for the day (summed over CPUs) and the
        number of samples behind them."""
        rid, _, kind, scope = self.resources[name]
        per_collection, count = [], 0
        for c in self.collections(day0):
            parts = []
            for s in self.scopes(c["collection"], scope):
                w, n = self.stream_windows(c["collection"], rid, kind, s, day0, window_ns)
                parts.append(w)
                count += n
            if parts:
                per_collection.append(np.sum(parts, axis=0))   # NaN unless every CPU has one
        if not per_collection:
            return np.full(DAY_NS // window_ns, np.nan), 0
        return nanmean(np.array(per_collection), axis=0), count

    def thread_windows(self, name, day0, window_ns):
        """A per-thread resource's window means by thread name: {name: [nwin]}."""
        rid, _, kind, _ = self.resources[name]
        out = {}
        for c in self.collections(day0):
            for tid, tname in sorted(self.thread_names(c["collection"]).items()):
                w, n = self.stream_windows(c["collection"], rid, kind, tid, day0, window_ns)
                if n == 0:
                    continue
                if tname in out:
                    both = np.array([out[tname], w])
                    out[tname] = np.where(np.isnan(both).all(axis=0), np.nan,
                                          np.nansum(both, axis=0))
                else:
                    out[tname] = w
        return out

    # ---- raw samples for the interval analysis ---------------------------

    def read(self, collection, rid, scope_id, t0, t1, burst, limit=None):
        rows = self.db.query(
            "SELECT wall_ns, mono_ns, value FROM samples WHERE collection_id = ? AND "
            "resource_id = ? AND scope_id = ? AND burst = ? AND wall_ns > ? AND wall_ns <= ? "
            "ORDER BY wall_ns" + (f" LIMIT {int(limit)}" if limit else ""),
            (collection, rid, scope_id, burst, t0, t1))
        a = np.array(rows, dtype=np.int64).reshape(-1, 3)
        return a[:, 0], a[:, 1], a[:, 2]

    @staticmethod
    def runs(kind, wall, mono, value, step_ns, min_len):
        """Gap-free runs of a stream's values, samples step_ns apart (within half
        a step): a gauge's levels, a counter's rates per second between
        consecutive samples (a rate that spans a gap is no sample of the run)."""
        if len(wall) < 2:
            return []
        brk = np.abs(np.diff(wall) - step_ns) > step_ns / 2     # before samples 1..n-1
        if kind == "gauge":
            vals, brk = value[:].astype(np.float64), np.concatenate([[True], brk])
            keep = np.ones(len(vals), bool)
        else:
            dt = np.diff(mono).astype(np.float64)
            dv = np.diff(value).astype(np.float64)
            vals = np.where((dt > 0) & (dv >= 0), dv / np.where(dt > 0, dt, 1) * 1e9, np.nan)
            keep = ~brk                                            # rates across a gap: out
        keep &= ~np.isnan(vals)
        run_id = np.cumsum(brk | ~keep)                            # a new run after each break
        out = []
        for rid in np.unique(run_id[keep]):
            part = vals[keep & (run_id == rid)]
            if len(part) >= min_len:
                out.append(part)
        return out

    def normal_runs(self, name, scope_id, day0, step_ms):
        """The day's normal samples of one stream (per collection) as gap-free runs."""
        rid, _, kind, _ = self.resources[name]
        step = int(round(step_ms * 1e6))
        runs = []
        for c in self.collections(day0):
            if DAY_NS // step <= FULL_READ:
                spans = [(day0 - step, day0 + DAY_NS)]
            else:
                span = (SEGMENT_SAMPLES + 1) * step
                spans = [(day0 + i * (DAY_NS - span) // (SEGMENTS - 1) - step,
                          day0 + i * (DAY_NS - span) // (SEGMENTS - 1) + span)
                         for i in range(SEGMENTS)]
            for t0, t1 in spans:
                wall, mono, value = self.read(c["collection"], rid, scope_id, t0, t1, 0)
                runs += self.runs(kind, wall, mono, value, step, 8)
        return runs

    def bursts(self, name, scope_id, day0):
        """The day's 1 ms bursts of one stream: ([values at 1 ms, ...], [samples
        in each burst])."""
        rid, _, kind, _ = self.resources[name]
        out, lengths = [], []
        for c in self.collections(day0):
            wall, mono, value = self.read(c["collection"], rid, scope_id, day0, day0 + DAY_NS, 1)
            if len(wall):
                # A burst's samples are 1 ms apart on the kernel's clock (on the
                # calendar too, unless a time scale stretches it).
                cuts = np.flatnonzero(np.diff(mono) > 2 * 10**6) + 1
                lengths += [len(part) for part in np.split(mono, cuts)]
            out += self.runs(kind, wall, mono, value, 10**6, 32)
        return out, lengths
