# SPDX-License-Identifier: BSD-2-Clause
"""The performance goals of issue 28 beside the figures of a `make bench`
run, and the figures that went backwards since an earlier run.

Every figure of results.json is a dict with "figure", "value" and "unit"
somewhere under a section (the "runs" section's figures under their
configuration's name); flatten() names each one SECTION[/CONFIG]/FIGURE.
Whether more is better comes from the unit, so a new figure is compared
without being listed anywhere. A figure counted in guest instructions
under -icount is the same from run to run, so any growth past
DETERMINISTIC_SLACK is a regression; a host-measured one (time,
throughput) is noisy, and only a change past HOST_SLACK is flagged.

The earlier run is the previous results.json of the same build directory
(bench.py keeps it as results.prev.json), else the baseline committed in
tools/bench_baseline.json (`make bench-baseline` writes it from the last
run: do so when a change makes figures worse on purpose, and say why in
the commit)."""

import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "tools", "bench_baseline.json")

# Issue 28's table: (what, figure as flatten() names it, goal, "lower" or "higher").
GOALS = [
    ("added per hit: jump probe + empty C handler", "runs/smp1/probe.hit.jump_empty_handler",
     40, "lower"),
    ("host-native jump probe + empty handler, times a bare call",
     "host_patch/patch.jump_empty_handler_over_plain", 2.5, "lower"),
    ("D firing {}", "trace/trace.firing.no_actions", 120, "lower"),
    ("D firing { trace(timestamp); }", "trace/trace.firing.trace_timestamp", 200, "lower"),
    ("D firing { @ = quantize(arg0); }", "trace/trace.firing.quantize_arg0", 200, "lower"),
    ("D firing { @[probefunc] = count(); }", "trace/trace.firing.count_by_probefunc", 300,
     "lower"),
    ("graft call with an empty graft, begin + commit", "runs/smp1/graft.call.empty_graft_txn",
     150, "lower"),
    ("context switch", "runs/smp1/sched.context_switch", 150, "lower"),
    ("recording one block-cache request", "runs/smp1/record.bcache.overhead_per_request", 300,
     "lower"),
    ("enable fbt::: (every entry and return), per site",
     "runs/smp1/probe.fbt_all.enable_batched_per_site", 8000, "lower"),
    ("host replay, LRU, requests/s per core", "sim_host/sim.host.replay.lru", 10e6, "higher"),
    ("host replay, 2Q graft policy, requests/s per core", "sim_host/sim.host.replay.2q", 4e6,
     "higher"),
    ("control channel, guest -> host bulk, MB/s", "channel/channel.bulk_guest_to_host", 50,
     "higher"),
    ("control channel, echo round trip (median), us", "channel/channel.echo_round_trip.median",
     100, "lower"),
]

DETERMINISTIC_SLACK = 0.01      # and at least DETERMINISTIC_MIN units
DETERMINISTIC_MIN = 2
HOST_SLACK = 0.25
# Guest-instruction figures that move from run to run all the same, so they
# get HOST_SLACK: disk requests (QEMU completes them on its I/O thread,
# outside the count), the adaptation loop (its decisions follow host time),
# boot phases and every figure of a run with more than one CPU (vCPUs
# interleave as host time falls).
NOISY_FIGURES = re.compile(r"bcache\.read\.miss|blk\.read|^adapt/|boot\.phase|"
                           r"^runs/smp(?!1/)")

LOWER_IS_BETTER = re.compile(r"guest instructions|cycles|\bns\b|nanoseconds|microseconds|"
                             r"\bms\b|milliseconds|seconds|bytes", re.I)
HIGHER_IS_BETTER = re.compile(r"per second|/s\b|hit ratio|ratio of hits", re.I)
# Figures whose unit does not say which way is better (a bare "ratio").
DIRECTION_BY_NAME = [("_over_plain", "lower"), ("score.recall", "higher"),
                     ("score.precision", "higher"), ("scion_over_zydis", "higher")]


def better_direction(unit, name=""):
    """"lower", "higher" or None (not compared) for a figure's unit (and name)."""
    for suffix, direction in DIRECTION_BY_NAME:
        if name.endswith(suffix):
            return direction
    if HIGHER_IS_BETTER.search(unit or ""):
        return "higher"
    if LOWER_IS_BETTER.search(unit or ""):
        return "lower"
    return None


def deterministic(unit):
    return "guest instructions" in (unit or "")


def flatten(results):
    """{SECTION[/CONFIG]/FIGURE: {"value", "unit"}} for every numeric figure."""
    out = {}

    def walk(node, prefix):
        if isinstance(node, dict):
            if "figure" in node and isinstance(node.get("value"), (int, float)) \
                    and not isinstance(node.get("value"), bool):
                out.setdefault(f"{prefix}/{node['figure']}",
                               {"value": node["value"], "unit": node.get("unit", "")})
                return
            cfg = node.get("config")
            if isinstance(cfg, dict) and prefix.startswith("runs") and "name" in cfg:
                prefix = f"{prefix}/{cfg['name']}"
            for key, value in node.items():
                if key not in ("config", "published"):
                    walk(value, prefix)
        elif isinstance(node, list):
            for item in node:
                walk(item, prefix)

    for section, node in results.items():
        if section not in ("published", "generated", "qemu", "machine", "note", "goals",
                           "regressions"):
            walk(node, section)
    return out


def goals(figures):
    rows = []
    for what, key, goal, better in GOALS:
        fig = figures.get(key)
        value = fig["value"] if fig else None
        met = None if value is None else (value <= goal if better == "lower" else value >= goal)
        rows.append({"what": what, "figure": key, "value": value, "goal": goal,
                     "better": better, "met": met})
    return rows


def regressions(before, after):
    """Figures of after worse than in before by more than their slack."""
    worse = []
    for key, now in after.items():
        then = before.get(key)
        direction = better_direction(now["unit"], key)
        if not then or not direction or then["unit"] != now["unit"] or not then["value"]:
            continue
        old, new = then["value"], now["value"]
        change = (new - old) / abs(old)
        if direction == "higher":
            change = -change
        if deterministic(now["unit"]) and not NOISY_FIGURES.search(key):
            bad = change > DETERMINISTIC_SLACK and abs(new - old) >= DETERMINISTIC_MIN
        else:
            bad = change > HOST_SLACK
        if bad:
            worse.append({"figure": key, "before": old, "after": new, "unit": now["unit"],
                          "worse_by": round(change, 4)})
    return sorted(worse, key=lambda w: -w["worse_by"])


def earlier_figures(prev_path):
    """(figures, what they are) of the run to compare with, or (None, None)."""
    if prev_path and os.path.exists(prev_path):
        with open(prev_path) as f:
            prev = json.load(f)
        return flatten(prev), f"the previous run ({prev.get('generated', '?')})"
    if os.path.exists(BASELINE):
        with open(BASELINE) as f:
            base = json.load(f)
        return base["figures"], f"the committed baseline (commit {base.get('commit', '?')})"
    return None, None


def annotate(results, prev_path):
    """Add "goals" and "regressions" to results (in place)."""
    figures = flatten(results)
    results["goals"] = goals(figures)
    before, against = earlier_figures(prev_path)
    results["regressions"] = {"against": against,
                              "figures": regressions(before, figures) if before else []}


def write_baseline(results_path, commit):
    with open(results_path) as f:
        results = json.load(f)
    with open(BASELINE, "w") as f:
        json.dump({"commit": commit, "generated": results.get("generated"),
                   "figures": flatten(results)}, f, indent=1, sort_keys=True)
        f.write("\n")


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float) and v >= 1e5:
        return f"{v / 1e6:.2f} M"
    if isinstance(v, float):
        return f"{v:g}"
    return f"{v:,}"


def print_section(results):
    print("\nissue 28's goals (smp1 for the kernel's figures):")
    for g in results["goals"]:
        mark = {True: "met", False: "not met", None: "not measured"}[g["met"]]
        sign = "<=" if g["better"] == "lower" else ">="
        print(f"  {g['what']:58} {fmt(g['value']):>12}  goal {sign} {fmt(g['goal']):<8} {mark}")
    reg = results["regressions"]
    if not reg["against"]:
        print("\nno earlier run to compare with (tools/bench_baseline.json is missing)")
    elif not reg["figures"]:
        print(f"\nno figure worse than in {reg['against']}")
    else:
        print(f"\nREGRESSIONS: {len(reg['figures'])} figures worse than in {reg['against']}:")
        for w in reg["figures"]:
            print(f"  {w['figure']:60} {fmt(w['before']):>12} -> {fmt(w['after']):>12} "
                  f"({w['worse_by']:+.1%}) {w['unit']}")


if __name__ == "__main__":
    import argparse
    import subprocess
    ap = argparse.ArgumentParser(description="write tools/bench_baseline.json from a results.json")
    ap.add_argument("results")
    args = ap.parse_args()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    write_baseline(args.results, commit)
    print(f"bench: wrote {BASELINE} from {args.results} (commit {commit})")
