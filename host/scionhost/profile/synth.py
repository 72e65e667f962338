# SPDX-License-Identifier: BSD-2-Clause
"""`scion profile synth`: a synthetic profile history with the shape of
what Scion's measurement thread will publish, and the ground truth of
the anomalies injected into it, for testing and benchmarking the
nightly analysis.

The model: a 2-CPU machine runs named threads whose CPU demand follows
a daily pattern (office hours on weekdays, a quarter of that at
weekends), scheduled jobs (batch at 02:00 daily, backup on Sundays at
01:00, an indexer for 6 minutes every hour), day-to-day variation
(each thread's level ±5%, a slow drift of ±2%: three sinusoids of 2 to
6 hours) and short-term noise (an Ornstein-Uhlenbeck process with a 2 s correlation
time, so there is structure at second scale, averaged exactly for each
sampling interval). Block-cache reads, misses and disk waits follow
each thread's CPU; the system resources, named, measured and scoped as
the kernel's statistics sources publish them (CPU busy, idle and interrupt
time per CPU, the run queue, memory, block cache, disk, grafts,
probes, trace drops, channel bytes) are derived from the threads, so
the threads always add up to the global figures. 1 ms bursts (default
500 ms long, every hour) carry white noise and, in sched.runq only, a
2 ms spike every 20 ms that 100 ms averages hide; trace.drops is flat
zero, channel.bytes a flat rate with noise.

Volume: a month at 100 ms with ~30 series would be ~800 M rows, so
only the last --full-days days (default 1) are sampled at --interval-ms
(default 100); earlier days at --history-interval-ms (default 10 s),
and per-thread resources at --thread-interval-ms (default 10 s).

Anomalies (--anomaly KIND@DAY,HH:MM[,DURATION][,SIZE], repeatable; DAY
a day number from 0 or a date): `process` gives one thread SIZE extra
CPUs (default 0.5), `group` gives three threads SIZE/3 each (default
0.6 in all), `load` multiplies every thread's demand by SIZE (default
1.6); DURATION defaults to 60m. The thread(s) are picked with --seed,
and each anomaly is stored in synth_anomalies (kind, span, size,
threads). Everything is a function of --seed: the same arguments give
the same database rows.
"""

import datetime
import json
import math

import numpy as np
from scipy.signal import lfilter

from .db import ProfileError, SampleWriter

DAY_NS = 86400 * 10**9
NCPUS = 2
MEM_BYTES = 256 << 20
# (name, unit, kind, scope): what the kernel's statistics sources publish
# (kernel/include/scion/monitor.h; each module's monitor_sources.c).
RESOURCES = [
    ("cpu.busy", "ns", "counter", "cpu"), ("cpu.idle", "ns", "counter", "cpu"),
    ("cpu.irq", "ns", "counter", "cpu"),
    ("sched.runq", "threads", "gauge", "global"), ("sched.runnable", "threads", "gauge", "global"),
    ("sched.blocked", "threads", "gauge", "global"),
    ("mm.free", "bytes", "gauge", "global"), ("mm.heap", "bytes", "gauge", "global"),
    ("bcache.reads", "reads", "counter", "global"),
    ("bcache.hits", "reads", "counter", "global"),
    ("bcache.misses", "reads", "counter", "global"),
    ("bcache.waits", "reads", "counter", "global"),
    ("bcache.evictions", "blocks", "counter", "global"),
    ("bcache.prefetches", "blocks", "counter", "global"),
    ("disk.requests", "requests", "counter", "global"),
    ("disk.bytes", "bytes", "counter", "global"), ("disk.busy", "ns", "counter", "global"),
    ("disk.latency", "ns", "counter", "global"),          # summed over the requests
    ("graft.invocations", "calls", "counter", "global"),
    ("graft.commits", "calls", "counter", "global"), ("graft.aborts", "calls", "counter", "global"),
    ("probe.hits", "hits", "counter", "cpu"), ("trace.drops", "records", "counter", "global"),
    ("channel.bytes", "bytes", "counter", "global"),
    ("thread.cpu", "ns", "counter", "thread"), ("thread.bcache_reads", "reads", "counter", "thread"),
    ("thread.disk_wait", "ns", "counter", "thread"),
]
THREAD_UNITS = {r[0]: r[1] for r in RESOURCES if r[3] == "thread"}
SYSTEM_RESOURCES = [r for r in RESOURCES if r[3] != "thread"]

# Office-hours activity on weekdays, by hour (linear in between).
OFFICE_HOURS = [0, 6, 7, 8, 9, 11, 12, 13, 14, 16, 17, 18, 19, 21, 23, 24]
OFFICE_LEVEL = [.05, .05, .15, .6, .9, 1., .75, .8, 1., .95, .8, .45, .25, .15, .07, .05]
WEEKEND = 0.25
# name: (constant CPUs, CPUs at full office activity, reads per CPU-second, hit ratio, job)
THREADS = {
    "web-1": (0.004, 0.11, 500, 0.95, None), "web-2": (0.004, 0.10, 500, 0.95, None),
    "web-3": (0.004, 0.12, 500, 0.95, None), "web-4": (0.004, 0.09, 500, 0.95, None),
    "web-5": (0.004, 0.11, 500, 0.95, None), "web-6": (0.004, 0.10, 500, 0.95, None),
    "db": (0.03, 0.15, 1500, 0.90, None), "logger": (0.01, 0.02, 200, 0.98, None),
    "channel": (0.008, 0.01, 10, 0.99, None), "monitor": (0.004, 0.0, 5, 0.99, None),
    "batch": (0.0, 0.0, 3000, 0.70, ("daily", 2 * 3600, 90 * 60, 0.5)),
    "backup": (0.0, 0.0, 8000, 0.20, ("sunday", 3600, 120 * 60, 0.25)),
    "indexer": (0.0, 0.0, 2000, 0.80, ("hourly", 5 * 60, 6 * 60, 0.3)),
}
PROCESS_CANDIDATES = ["indexer", "db", "web-3", "logger", "web-5"]
KIND_DEFAULT_SIZE = {"process": 0.5, "group": 0.6, "load": 1.6}
NOISE_SIGMA, NOISE_TAU_S = 0.25, 2.0           # per-thread short-term noise (relative)
RUNQ_SPIKE_PERIOD_MS, RUNQ_SPIKE_MS, RUNQ_SPIKE = 20, 2, 4.0
DISK_WAIT_NS = 300e3            # a thread waits this long for each block-cache miss


def parse_day(text, what="date"):
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise ProfileError(f"{what} {text!r}: give YYYY-MM-DD") from None


def parse_duration(text):
    units = {"s": 1, "m": 60, "h": 3600}
    try:
        if text[-1] in units:
            return float(text[:-1]) * units[text[-1]]
        return float(text) * 60
    except (ValueError, IndexError):
        raise ProfileError(f"duration {text!r}: give e.g. 45m, 2h or 900s") from None


def parse_anomaly(spec, start, days):
    """KIND@DAY,HH:MM[,DURATION][,SIZE] -> dict (day index, start second, ...)."""
    kind, _, rest = spec.partition("@")
    fields = rest.split(",")
    if kind not in KIND_DEFAULT_SIZE or len(fields) < 2 or len(fields) > 4:
        raise ProfileError(f"--anomaly {spec!r}: give KIND@DAY,HH:MM[,DURATION][,SIZE] with "
                           f"KIND one of {', '.join(KIND_DEFAULT_SIZE)}, e.g. process@12,14:30,45m")
    day = (parse_day(fields[0]) - start).days if "-" in fields[0] else \
        int(fields[0]) if fields[0].isdigit() else None
    if day is None or not 0 <= day < days:
        raise ProfileError(f"--anomaly {spec!r}: day {fields[0]} is not within the {days} days "
                           f"from {start}")
    try:
        hh, mm = (int(x) for x in fields[1].split(":"))
        assert 0 <= hh < 24 and 0 <= mm < 60
    except (ValueError, AssertionError):
        raise ProfileError(f"--anomaly {spec!r}: time {fields[1]!r} is not HH:MM") from None
    duration = parse_duration(fields[2]) if len(fields) > 2 else 3600.0
    try:
        size = float(fields[3].rstrip("x")) if len(fields) > 3 else KIND_DEFAULT_SIZE[kind]
    except ValueError:
        raise ProfileError(f"--anomaly {spec!r}: size {fields[3]!r} is not a number") from None
    if not 60 <= duration <= 86400 - (hh * 3600 + mm * 60) or size <= 0:
        raise ProfileError(f"--anomaly {spec!r}: the duration must lie within the day (at "
                           f"least 1m) and the size be positive")
    return {"spec": spec, "kind": kind, "day": day, "start_s": hh * 3600 + mm * 60,
            "duration_s": duration, "size": size}


def ou_noise(rng, n, interval_s, sigma=NOISE_SIGMA, tau=NOISE_TAU_S):
    """n consecutive interval-averages of an OU process (relative noise)."""
    r = interval_s / tau
    sd = sigma * math.sqrt(2 * (r - 1 + math.exp(-r)) / (r * r)) if r > 1e-6 else sigma
    phi = math.exp(-r)
    eps = rng.standard_normal(n)
    if phi < 1e-3 or n == 0:
        return sd * eps
    eps[0] /= math.sqrt(1 - phi * phi)          # start in the stationary distribution
    return lfilter([sd * math.sqrt(1 - phi * phi)], [1, -phi], eps)


class Model:
    """The machine's behaviour, day by day, as functions of the seed."""

    def __init__(self, seed, start, days, anomalies):
        self.seed, self.start, self.anomalies = seed, start, anomalies
        rng = np.random.default_rng([seed, 1])
        self.names = list(THREADS)
        self.day_factor = np.exp(rng.normal(0, 0.05, (days, len(self.names))))
        self.weather = rng.normal(0, 0.02, (days, 3))           # slow variation per day
        self.weather_phase = rng.uniform(0, 2 * math.pi, (days, 3))
        self.burst_minute = rng.integers(0, 50, days)
        for a in anomalies:
            pick = np.random.default_rng([seed, 2, a["day"], a["start_s"]])
            if a["kind"] == "process":
                a["threads"] = [PROCESS_CANDIDATES[pick.integers(len(PROCESS_CANDIDATES))]]
            elif a["kind"] == "group":
                a["threads"] = sorted(pick.choice(self.names[:8], 3, replace=False).tolist())
            else:
                a["threads"] = ["all"]

    def demand(self, day, secs, rng, interval_s):
        """CPUs each thread uses at secs (seconds of the day): [threads, n]."""
        date = self.start + datetime.timedelta(days=day)
        weekday = date.weekday()
        office = np.interp(secs / 3600.0, OFFICE_HOURS, OFFICE_LEVEL)
        if weekday >= 5:
            office = office * WEEKEND
        weather = 1 + sum(self.weather[day, k] * np.sin(2 * math.pi * secs / (3600 * (2 + 2 * k))
                                                         + self.weather_phase[day, k])
                          for k in range(3))
        out = np.empty((len(self.names), len(secs)))
        for i, name in enumerate(self.names):
            const, peak, _, _, job = THREADS[name]
            level = const + peak * office
            if job:
                when, at, length, cpus = job
                if when == "hourly":
                    on = (secs % 3600 >= at) & (secs % 3600 < at + length)
                else:
                    on = (secs >= at) & (secs < at + length)
                    if when == "sunday" and weekday != 6:
                        on[:] = False
                level = level + cpus * on
            noise = np.maximum(1 + ou_noise(rng, len(secs), interval_s), 0.05)
            out[i] = level * self.day_factor[day, i] * weather * noise
        for a in self.anomalies:
            if a["day"] != day:
                continue
            on = (secs > a["start_s"]) & (secs <= a["start_s"] + a["duration_s"])
            if a["kind"] == "load":
                out[:, on] *= a["size"]
            else:
                for name in a["threads"]:
                    extra = a["size"] / len(a["threads"])
                    noise = np.maximum(1 + ou_noise(rng, int(on.sum()), interval_s), 0.05)
                    out[self.names.index(name), on] += extra * noise
        total = out.sum(axis=0)
        over = total > 0.95 * NCPUS                 # a saturated machine shares out less
        out[:, over] *= 0.95 * NCPUS / total[over]
        return out

    def thread_rates(self, cpu):
        """Per-thread rates per second: CPU time (ns), block-cache reads, and the
        time waiting for the disk (ns), DISK_WAIT_NS per miss; and the misses."""
        reads = np.array([THREADS[n][2] for n in self.names])[:, None] * cpu
        misses = reads * (1 - np.array([THREADS[n][3] for n in self.names]))[:, None]
        return {"thread.cpu": cpu * 1e9, "thread.bcache_reads": reads,
                "thread.disk_wait": misses * DISK_WAIT_NS}, misses

    def system_values(self, day, secs, cpu, rng):
        """Rates (counters, per second) and levels (gauges) of the system resources:
        name -> array, or [CPUs, n] for the per-CPU ones."""
        t, per_thread_misses = self.thread_rates(cpu)
        total = cpu.sum(axis=0)
        reads = t["thread.bcache_reads"].sum(axis=0)
        misses = per_thread_misses.sum(axis=0)
        prefetches = 0.4 * misses
        requests = misses + prefetches
        util = np.minimum(requests * 150e-6, 0.95)
        busy = np.empty((NCPUS, len(secs)))
        busy[0] = np.minimum(0.55 * total + np.maximum(0.45 * total - 1, 0), 1.0)
        busy[1] = np.minimum(total - busy[0], 1.0)
        irq = 2e6 + 20000 * requests / NCPUS
        office = np.interp(secs / 3600.0, OFFICE_HOURS, OFFICE_LEVEL)
        jitter = 1 + 0.01 * rng.standard_normal(len(secs))
        runnable = total * 1.2 * jitter
        v = {
            "cpu.busy": busy * 1e9, "cpu.irq": np.repeat(irq[None], NCPUS, 0),
            "cpu.idle": np.maximum(1e9 - busy * 1e9 - irq, 0),
            "sched.runnable": runnable, "sched.runq": np.maximum(runnable - 0.3, 0) * 0.8,
            "sched.blocked": len(self.names) - runnable + misses * 150e-6,
            "mm.heap": (24 << 20) + (8 << 20) * office * self.day_factor[day, 0] * jitter,
            "bcache.reads": reads, "bcache.hits": reads - misses, "bcache.misses": misses,
            "bcache.waits": 0.05 * misses, "bcache.evictions": 0.98 * misses,
            "bcache.prefetches": prefetches, "disk.requests": requests,
            "disk.bytes": requests * 4096, "disk.busy": util * 1e9,
            "disk.latency": requests * 150e3 * (1 + 2 * util / (1 - util)) * jitter,
            "graft.invocations": 200 + 3000 * total, "graft.aborts": np.full(len(secs), 0.002),
            "probe.hits": 1000 * busy, "trace.drops": np.zeros(len(secs)),
            "channel.bytes": 20000 * (1 + 0.05 * rng.standard_normal(len(secs))),
        }
        v["mm.free"] = MEM_BYTES - (30 << 20) - v["mm.heap"]
        v["graft.commits"] = v["graft.invocations"] - v["graft.aborts"]
        return v


# What a counter counts in: bytes by the block, time by 10 us, the rest one by one.
QUANTUM = {"bytes": 4096, "ns": 10000}


class Counters:
    """Cumulative counter state per stream, so counts continue across days.
    The increments are Poisson counts of the unit's quantum: events arrive
    at random, never on a regular beat."""

    def __init__(self, rng):
        self.total, self.rng = {}, rng

    def cumulate(self, key, unit, rates, interval_s):
        q = QUANTUM.get(unit, 1)
        inc = self.rng.poisson(np.maximum(rates, 0) * interval_s / q) * q
        acc = self.total.get(key, 0) + np.cumsum(inc, dtype=np.int64)
        self.total[key] = int(acc[-1])
        return acc


def burst_values(kind, unit, name, mean, rng, n):
    """n 1 ms samples around mean (a rate per second, or a level): for a counter
    its increments (Poisson), for a gauge white noise, plus sched.runq's spikes
    every 20 ms that 100 ms averages hide."""
    if kind == "counter":
        q = QUANTUM.get(unit, 1)
        return rng.poisson(max(mean, 0) * 1e-3 / q, n) * q
    vals = mean * (1 + 0.05 * rng.standard_normal(n))
    if name == "sched.runq":
        vals = vals + RUNQ_SPIKE * ((np.arange(n) % RUNQ_SPIKE_PERIOD_MS) < RUNQ_SPIKE_MS)
    return vals


def synthesize(db, machine, start, days, interval_ms=100, history_interval_ms=10000,
               full_days=1, thread_interval_ms=10000, burst_ms=500, burst_every_min=60,
               anomalies=(), gaps=0, seed=1, progress=None):
    """Write the history as one collection; returns a summary dict."""
    specs = [parse_anomaly(a, start, days) for a in anomalies]
    for value, what in ((interval_ms, "--interval-ms"), (history_interval_ms,
                        "--history-interval-ms"), (thread_interval_ms, "--thread-interval-ms")):
        if not 1 <= value <= 3600000 or 86400000 % value:
            raise ProfileError(f"{what} {value}: give a number of milliseconds between 1 and "
                               f"3600000 that divides a day")
    if days < 1 or not 0 <= full_days or burst_ms < 0 or burst_every_min < 1:
        raise ProfileError("--days must be at least 1, --full-days, --burst-ms at least 0 and "
                           "--burst-every-min at least 1")
    start_ns = int(datetime.datetime.combine(start, datetime.time()).replace(
        tzinfo=datetime.timezone.utc).timestamp()) * 10**9
    end_ns = start_ns + days * DAY_NS
    mid = db.machine_id(machine, NCPUS, create=True)
    # A collection whose last sample closes the day before at midnight is no clash.
    clash = [c for c in db.collections(mid, start_ns, end_ns)
             if (c["ended_ns"] or c["started_ns"]) > start_ns]
    if clash:
        c = clash[0]
        raise ProfileError(f"{db.where}: machine {machine} already has collection "
                           f"{c['collection']} ({c['source']}) within {start} + {days} days; "
                           f"synthesize other days or another --machine")
    res = {name: db.resource_id(name, unit, kind, scope) for name, unit, kind, scope in RESOURCES}
    params = {"start": start.isoformat(), "days": days, "interval_ms": interval_ms,
              "history_interval_ms": history_interval_ms, "full_days": full_days,
              "thread_interval_ms": thread_interval_ms, "burst_ms": burst_ms,
              "burst_every_min": burst_every_min, "anomalies": list(anomalies), "gaps": gaps,
              "seed": seed}
    cid = db.new_collection(mid, "synth", start_ns, params)
    writer = SampleWriter(db, cid)
    model = Model(seed, start, days, specs)
    for tid, name in enumerate(model.names, 1):
        writer.add_thread(tid, name)
    for a in specs:
        a0 = start_ns + a["day"] * DAY_NS + int(a["start_s"] * 1e9)
        writer.add_truth(a["kind"], a0, a0 + int(a["duration_s"] * 1e9), a["size"], a["threads"],
                         a["spec"])
    gap_spans = make_gaps(seed, days, gaps)
    counters = Counters(np.random.default_rng([seed, 5]))
    boot_ns = 5 * 10**9 - start_ns                 # mono = wall + boot_ns
    for day in range(days):
        day_ns = start_ns + day * DAY_NS
        rng = np.random.default_rng([seed, 3, day])
        step_ms = interval_ms if day >= days - full_days else history_interval_ms
        tstep_ms = max(thread_interval_ms, step_ms)
        first = int(model.burst_minute[day]) % burst_every_min
        # Each burst starts between two normal samples.
        bursts = (np.arange(first, 1440, burst_every_min) * 60.0 + 0.0005 * step_ms
                  if burst_ms else np.zeros(0))
        bases = write_day(writer, model, res, counters, day, day_ns, boot_ns, step_ms, tstep_ms,
                          rng, gap_spans.get(day, []), bursts)
        if burst_ms:
            write_bursts(writer, model, res, day, day_ns, boot_ns, step_ms, burst_ms, bursts,
                         bases, rng)
        if progress:
            progress.update(f"synth: day {day + 1}/{days} "
                            f"({(start + datetime.timedelta(days=day)).isoformat()}), "
                            f"{writer.committed + len(writer.rows):,} samples", (day + 1) / days)
    writer.close(complete=True)
    return {"collection": cid, "machine": machine, "samples": writer.committed,
            "start": start.isoformat(), "days": days,
            "anomalies": [{k: a[k] for k in ("spec", "kind", "day", "threads", "size")}
                          for a in specs], "params": json.loads(json.dumps(params))}


def make_gaps(seed, days, count):
    """count drops of 1 to 10 minutes at random times: day -> [(start s, end s)]."""
    rng = np.random.default_rng([seed, 4])
    out = {}
    for _ in range(count):
        day = int(rng.integers(days))
        s0 = float(rng.integers(3600, 80000))
        out.setdefault(day, []).append((s0, s0 + float(rng.integers(60, 600))))
    return out


def write_day(writer, model, res, counters, day, day_ns, boot_ns, step_ms, tstep_ms, rng, gaps,
              bursts):
    """One day's normal samples: system resources at step_ms, threads at tstep_ms.
    Returns each system counter's cumulative value at the burst starts (seconds
    of the day), where its burst stream starts counting."""
    bases = {}
    for group, ms in (("system", step_ms), ("thread", tstep_ms)):
        n = 86400000 // ms
        secs = (np.arange(n) + 1) * (ms / 1000.0)
        keep = np.ones(n, bool)
        for g0, g1 in gaps:
            keep &= ~((secs > g0) & (secs <= g1))
        wall = day_ns + (np.arange(1, n + 1, dtype=np.int64) * ms * 10**6)
        cpu = model.demand(day, secs, rng, ms / 1000.0)
        if group == "thread":
            for name, values in model.thread_rates(cpu)[0].items():
                for i in range(len(model.names)):
                    cum = counters.cumulate((name, i + 1), THREAD_UNITS[name], values[i],
                                           ms / 1000.0)
                    writer.add_stream(res[name], i + 1, 0, wall[keep], wall[keep] + boot_ns,
                                      cum[keep])
            continue
        if gaps:
            for g0, g1 in gaps:
                lost = int(((secs > g0) & (secs <= g1)).sum())
                writer.add_gap(-1, day_ns + int(g0 * 1e9), day_ns + int(g1 * 1e9),
                               lost * len(SYSTEM_RESOURCES), "synthetic drop")
        values = model.system_values(day, secs, cpu, rng)
        for name, unit, kind, scope in SYSTEM_RESOURCES:
            rows = values[name] if scope == "cpu" else values[name][None]
            for s, series in enumerate(rows):
                if kind == "counter":
                    series = counters.cumulate((name, s), unit, series, ms / 1000.0)
                    bases[(name, s)] = np.interp(bursts, secs, series)
                else:
                    series = dither(series, rng)
                writer.add_stream(res[name], s, 0, wall[keep], wall[keep] + boot_ns,
                                  series[keep])
    return bases


def dither(values, rng):
    """Integers whose mean is values' (a gauge the kernel reads is an integer)."""
    return np.floor(values + rng.random(len(values))).astype(np.int64)


def write_bursts(writer, model, res, day, day_ns, boot_ns, step_ms, burst_ms, bursts, bases,
                 rng):
    """burst_ms 1 ms samples of every system resource at each burst start."""
    for b, t0 in enumerate(bursts):
        secs = np.array([t0])
        cpu = model.demand(day, secs, rng, step_ms / 1000.0)
        values = model.system_values(day, secs, cpu, rng)
        wall = day_ns + int(t0 * 1e9) + np.arange(1, burst_ms + 1, dtype=np.int64) * 10**6
        for name, unit, kind, scope in SYSTEM_RESOURCES:
            rows = values[name] if scope == "cpu" else values[name][None]
            for s, mean in enumerate(rows):
                vals = burst_values(kind, unit, name, float(mean[0]), rng, burst_ms)
                if kind == "counter":
                    vals = int(bases[(name, s)][b]) + np.cumsum(vals, dtype=np.int64)
                else:
                    vals = dither(vals, rng)
                writer.add_stream(res[name], s, 1, wall, wall + boot_ns, vals)
