# SPDX-License-Identifier: BSD-2-Clause
"""The off-line half of tools/bench_adapt.py: the adaptation loop's goal
figures and report from its two runs.

Run (a)'s recording (adapt off, the live default) is cut at the phase
boundaries (slice_recording: every request and its result in exactly one
slice, in order; the workload is one thread, so the i-th result is the
i-th request's), each slice replayed with build/host/scion-sim under
every policy pair and the optimum (min+oracle), cold (an empty cache at
the slice's start); a policy's hits are the hit and wait outcomes of the
log the simulator writes. Run (b)'s hits per phase come from the monitor
stream's cumulative bcache.reads/hits, interpolated at the boundaries'
request counts. Then: the per-phase table, the overall hit ratios, the
time from each phase change to the loop's switch (requests, guest
nanoseconds, guest instructions: cpu.busy of every CPU, which under
icount counts instructions and not the idle time the clock skips), and
the loop's own cost; build/bench/adapt/report.md and adapt.png, and the
results.json section."""

import os
import subprocess

from scionhost import phases, recfmt

EVICTS = ["lru", "2q", "clock"]
READAHEADS = ["sequential", "stride", "recorded"]
PAIRS = [f"{e}+{r}" for e in EVICTS for r in READAHEADS]
OPTIMUM = "min+oracle"          # scion-sim's "optimal": Belady's MIN with the oracle read-ahead
DEFAULT = "lru+sequential"
WINDOW = 1024                   # requests per point of the plot
HIT_OUTCOMES = {k for k, v in recfmt.OUTCOMES.items() if v in ("hit", "wait")}


def _raw(path):
    with open(path, "rb") as f:
        data = f.read()
    return recfmt.unpack_header(data, path), recfmt.split_records(data[recfmt.HEADER.size:])


def slice_recording(rec_dir, counts, out_dir):
    """Cut rec_dir's trace.bin and log.bin (sorted by sequence) into consecutive slices of
    counts[i] requests (and as many results): a recording directory per slice under
    out_dir. Returns the directories; ValueError when counts do not add up."""
    th, trace = _raw(os.path.join(rec_dir, recfmt.TRACE_FILE))
    lh, log = _raw(os.path.join(rec_dir, recfmt.LOG_FILE))
    if sum(counts) != len(trace) or len(log) != len(trace):
        raise ValueError(f"{rec_dir}: {len(trace)} requests and {len(log)} results, the "
                         f"phases make {sum(counts)}")
    dirs, at = [], 0
    for i, n in enumerate(counts):
        d = os.path.join(out_dir, f"phase{i}")
        os.makedirs(d, exist_ok=True)
        for h, records, name in ((th, trace, recfmt.TRACE_FILE), (lh, log, recfmt.LOG_FILE)):
            recfmt.write_stream(os.path.join(d, name), recfmt.pack_header(
                h["stream"], h["module"], h["policy"], h["config"], n, 0), records[at:at + n])
        at += n
        dirs.append(d)
    return dirs


def hits_of_log(path):
    """[1 or 0 per result] of a bcache log: hit (or a wait on a block on its way) or not."""
    _, records = recfmt.read_stream(path, recfmt.STREAM_LOG)
    return [int(r["outcome"] in HIT_OUTCOMES) for r in records]


def latency_model(log_path):
    """(hit ns, miss ns): mean latencies of the log's hits (waits too) and misses, as
    scion-sim calibrates its model (sim_model_calibrate); one model, of the whole run,
    for every slice (a phase may have no hit at all)."""
    _, records = recfmt.read_stream(log_path, recfmt.STREAM_LOG)
    hit = [r["latency_ns"] for r in records if r["outcome"] in HIT_OUTCOMES]
    miss = [r["latency_ns"] for r in records if recfmt.OUTCOMES.get(r["outcome"]) == "miss"]
    if not hit or not miss:
        raise ValueError(f"{log_path}: no hit or no miss to calibrate the latency model")
    return sum(hit) // len(hit), sum(miss) // len(miss)


def replay(sim, slice_dir, model, one_process=True):
    """{policy: hits} of every pair and the optimum replayed on a slice, by one scion-sim
    (each replay starts from fresh grafts: host/sim/policies.c), or one per policy."""
    policies = PAIRS + ["optimal"]
    for batch in ([policies] if one_process else [[p] for p in policies]):
        subprocess.run([sim, "replay", slice_dir, "--out", slice_dir, "--model",
                        f"{model[0]},{model[1]}"] + sum((["--policy", p] for p in batch), []),
                       check=True, capture_output=True, text=True)
    return {p: sum(hits_of_log(os.path.join(slice_dir, f"{p}.log.bin")))
            for p in PAIRS + [OPTIMUM]}


def interp(xs, ys, x):
    """y at x on the polyline (xs ascending), held at the ends."""
    if not xs:
        return 0
    if x <= xs[0]:
        return ys[0]
    for i in range(1, len(xs)):
        if x <= xs[i]:
            span = xs[i] - xs[i - 1]
            f = (x - xs[i - 1]) / span if span else 1
            return ys[i - 1] + f * (ys[i] - ys[i - 1])
    return ys[-1]


def adaptive_curves(series, total):
    """Run (b)'s monitor points as request-indexed curves: (ns, reads, hits, busy), with
    reads and hits counted from the workload's start (the run makes exactly total
    reads after it)."""
    base_reads = series[-1][1] - total
    pts = [p for p in series if p[1] >= base_reads]
    if pts[0][1] != base_reads:     # the first sample came after the workload's first read
        raise ValueError(f"the monitor's first sample has {pts[0][1] - base_reads} of the "
                         f"workload's reads: it started too late")
    return [(ns, r - base_reads, h - pts[0][2], busy) for ns, r, h, busy in pts]


def ratio(h, n):
    return round(h / n, 4) if n else None


def decision_reason(d):
    """One line: why the loop did what it did (from fetch_decisions' fields)."""
    parts = [f"flag: hit ratio {d['ratio']:.3f} < {d['threshold']:.3f}"]
    if "rec" not in d:
        parts.append("no recording (a limit reached, or the recorder busy)")
    elif not d.get("candidates"):
        parts.append(f"rec{d['rec']} recorded but not simulated (e.g. a log of only misses "
                     f"calibrates no latency model): no decision")
    if d.get("candidates"):
        n = d["candidates"][0]["requests"]
        parts.append(f"rec{d.get('rec', '?')} ({n} requests) simulated: live "
                     f"{d['candidates'][0]['policy']} {d['candidates'][0]['hits']} hits")
    if "best" in d:
        parts.append(f"best {d['best'] or 'none'} {d['best_hits']} hits, optimum "
                     f"{d['optimum_hits']} hits, margin {d['margin']} hits")
        if d.get("policy"):
            parts.append(f"install {d['policy']}: wins by {d['best_hits'] - d['live_hits']} "
                         f">= {d['margin']}")
        elif d["optimum_hits"] - d["live_hits"] < d["margin"]:
            parts.append("none: the live policy is within the margin of the optimum")
        else:
            parts.append("none: no candidate beats the live policy by the margin")
    if d.get("watch"):
        w = d["watch"]
        parts.append(f"watch: {'reverted' if d.get('revert') else 'kept'} (live "
                     f"{w['after']:.3f} after, {w['before']:.3f} before)")
    return "; ".join(parts)


def analyse(a, b, sim, out, plan):
    """The results.json section and report.md/adapt.png in out, from run a (the default,
    recorded) and run b (adaptive) of bench_adapt.py."""
    slices = phases.plan_requests(plan)
    counts = [n for _, _, n in slices]
    total = sum(counts)
    dirs = slice_recording(a["recording"], counts, os.path.join(out, "slices"))
    live = hits_of_log(os.path.join(a["recording"], recfmt.LOG_FILE))
    pts = adaptive_curves(b["series"], total)
    reads = [p[1] for p in pts]
    hits_at = lambda r: interp(reads, [p[2] for p in pts], r)       # noqa: E731
    model = latency_model(os.path.join(a["recording"], recfmt.LOG_FILE))
    rows = []
    for (label, start, n), d in zip(slices, dirs):
        sims = replay(sim, d, model)
        best = max(PAIRS, key=lambda p: sims[p])
        rows.append({"phase": label, "first_request": start, "requests": n,
                     "default": sum(live[start:start + n]),
                     "adaptive": round(hits_at(start + n) - hits_at(start)),
                     "best_policy": best, "best": sims[best], "optimum": sims[OPTIMUM],
                     "sims": sims})
    timeline = policy_timeline(b["decisions"], pts)
    changes = switch_delays(slices, timeline, pts)
    cost = loop_cost(b, pts)
    s = summary(rows, total)
    figures = section_figures(s, changes, cost)
    report = adapt_plot_and_report(out, rows, s, timeline, changes, cost, b, live, pts)
    return {"phases": rows, "overall": s, "model_ns": {"hit": model[0], "miss": model[1]},
            "timeline": timeline, "switches": changes, "cost": cost, "decisions": b["decisions"], "figures": figures, "report": report}


def summary(rows, total):
    t = {k: sum(r[k] for r in rows) for k in ("default", "adaptive", "best", "optimum")}
    s = {f"{k}_hit_ratio": ratio(v, total) for k, v in t.items()}
    s["requests"] = total
    s["adaptive_over_best"] = ratio(t["adaptive"], t["best"])
    s["adaptive_over_optimum"] = ratio(t["adaptive"], t["optimum"])
    s["within_5_percent_of_best"] = bool(t["best"] and t["adaptive"] >= 0.95 * t["best"])
    return s


def full_pair(name):
    """The loop's short name of a pair ("2q": read-ahead sequential, "lru+recorded",
    "evict=2q readahead=stride") as eviction+read-ahead."""
    if "=" in name:
        words = dict(w.split("=", 1) for w in name.split())
        return f"{words.get('evict', 'lru')}+{words.get('readahead', 'sequential')}"
    return name if "+" in name else f"{name}+sequential"


def policy_timeline(decisions, pts):
    """[(request index, guest ns, policy, why)] from the default through every install
    and revert."""
    times, reads = [p[0] for p in pts], [p[1] for p in pts]
    out = [{"request": 0, "ns": pts[0][0] if pts else 0, "policy": DEFAULT,
            "event": "start"}]
    for n, d in enumerate(decisions, 1):
        if d.get("install_ns") is not None:
            out.append({"request": round(interp(times, reads, d["install_ns"])),
                        "ns": d["install_ns"], "policy": full_pair(d["policy"]),
                        "event": f"#{n} install"})
        if d.get("revert"):
            prev = out[-2]["policy"] if len(out) > 1 else DEFAULT     # what it replaced
            out.append({"request": round(interp(times, reads, d["revert"]["ns"])),
                        "ns": d["revert"]["ns"], "policy": prev, "event": f"#{n} revert"})
    return out


def switch_delays(slices, timeline, pts):
    """Per phase change: the loop's first switch in that phase, and how long after the
    change it came, in requests, guest ns and guest instructions (busy ns of all CPUs)."""
    reads, times, busy = [p[1] for p in pts], [p[0] for p in pts], [p[3] for p in pts]
    out = []
    for i, (label, start, n) in enumerate(slices[1:], 1):
        sw = next((t for t in timeline[1:] if start <= t["request"] < start + n), None)
        row = {"to_phase": label, "from_phase": slices[i - 1][0], "at_request": start,
               "switch": sw["policy"] if sw else None}
        if sw:
            t0 = interp(reads, times, start)
            row.update(requests=sw["request"] - start, guest_ns=round(sw["ns"] - t0),
                       guest_instructions=round(interp(times, busy, sw["ns"]) -
                                                interp(reads, busy, start)))
        out.append(row)
    return out


def loop_cost(b, pts):
    """The loop's guest instructions: its thread's CPU time (sampling, decisions), its
    simulations' (the replay threads', each decision's adapt:::evaluate), and the
    recorded requests times what recording one costs (measured in the same boot), as
    shares of every CPU's busy instructions over the run."""
    run = pts[-1][3] - pts[0][3] if pts else 0
    sims = sum(d.get("simulation_cpu_ns", 0) for d in b["decisions"])
    recorded = sum(d["candidates"][0]["requests"] for d in b["decisions"] if d["candidates"])
    per = b.get("record_overhead_per_request") or 0
    recorders = b.get("recorder_cpu_ns", 0)
    rec = recorded * per + recorders
    return {"run_busy_instructions": run, "adapt_thread_instructions": b["adapt_cpu_ns"],
            "simulation_instructions": sims,
            "recorded_requests": recorded, "record_overhead_per_request": per,
            "recorder_threads_instructions": recorders, "recording_instructions": rec,
            "share": round((b["adapt_cpu_ns"] + sims + rec) / run, 5) if run else None,
            "simulation_share": round((b["adapt_cpu_ns"] + sims) / run, 5) if run else None,
            "recording_share": round(rec / run, 5) if run else None}


def section_figures(s, changes, cost):
    f = [("adapt.hit_ratio.adaptive", s["adaptive_hit_ratio"], "hit ratio, whole run"),
         ("adapt.hit_ratio.default", s["default_hit_ratio"], "hit ratio, whole run"),
         ("adapt.hit_ratio.best_in_hindsight", s["best_hit_ratio"],
          "hit ratio, the best pair per phase"),
         ("adapt.hit_ratio.optimum", s["optimum_hit_ratio"], "hit ratio, MIN+oracle per phase"),
         ("adapt.adaptive_over_best_in_hindsight", s["adaptive_over_best"],
          "ratio of hits (goal: >= 0.95)"),
         ("adapt.adaptive_over_optimum", s["adaptive_over_optimum"], "ratio of hits")]
    for c in changes:
        if c["switch"]:
            f.append((f"adapt.switch.{c['to_phase']}.requests", c["requests"],
                      f"requests from the phase change to {c['switch']}"))
            f.append((f"adapt.switch.{c['to_phase']}.guest_instructions",
                      c["guest_instructions"], "guest instructions (busy, all CPUs)"))
    f += [("adapt.cost.share", cost["share"], "of the run's busy guest instructions"),
          ("adapt.cost.simulation_share", cost["simulation_share"],
           "the adapt thread's and its simulations' CPU time (guest instructions)"),
          ("adapt.cost.recording_share", cost["recording_share"],
           "recorded requests x record.bcache.overhead_per_request + recorder threads")]
    return [{"figure": n, "value": v, "unit": u} for n, v, u in f]


def windows(cum_x, cum_y, total, width=WINDOW):
    """Hit ratio per window of width requests, from a cumulative curve."""
    xs, ys = [], []
    for lo in range(0, total - width + 1, width):
        xs.append(lo + width / 2)
        ys.append((interp(cum_x, cum_y, lo + width) - interp(cum_x, cum_y, lo)) / width)
    return xs, ys


def adapt_plot_and_report(out, rows, s, timeline, changes, cost, b, live, pts):
    from adapt_plot import plot, markdown
    png = os.path.join(out, "adapt.png")
    total = s["requests"]
    cum, acc = [0], 0
    for h in live:
        acc += h
        cum.append(acc)
    default = windows(list(range(len(cum))), cum, total)
    adaptive = windows([p[1] for p in pts], [p[2] for p in pts], total)
    plot(png, rows, default, adaptive, timeline)
    path = os.path.join(out, "report.md")
    with open(path, "w") as f:
        f.write(markdown(rows, s, timeline, changes, cost, b["decisions"],
                         b.get("monitor_stalls", ())))
    return path
