# SPDX-License-Identifier: BSD-2-Clause
"""`make bench`'s goals and regression flags (tools/bench_goals.py) on
made-up results: every figure is found and named as the goals table
names it; a deterministic figure one instruction worse is noise below
the slack, a few percent worse is flagged, and so is a host rate that
fell by a third, but not one that moved by a tenth, nor a figure of a
two-CPU run (its vCPUs interleave by host time) that moved as much; a figure whose unit
changed, or that says nothing of which way is better, is never
compared; the committed baseline names every goal's figure."""

import copy
import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("bench_goals",
                                               os.path.join(ROOT, "tools", "bench_goals.py"))
goals = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(goals)


def results():
    run = lambda name: {"config": {"name": name}, "figures": [  # noqa: E731
        {"figure": "sched.context_switch", "value": 300, "unit": "guest instructions"},
        {"figure": "probe.hit.jump_empty_handler", "value": 100, "unit": "guest instructions"}]}
    return {
        "generated": "then", "runs": [run("smp1"), run("smp2")],
        "sim_host": {"config": {"name": "sim-host"}, "figures": [
            {"figure": "sim.host.replay.lru", "value": 3000000,
             "unit": "requests per second (host, whole process)"}]},
        "trace": {"figures": [{"figure": "trace.firing.no_actions", "value": 200,
                               "unit": "guest instructions per firing", "program": "x {}"}]},
        "profile": {"figures": [{"figure": "profile.runs", "value": 5, "unit": "rounds"}]},
        "published": [{"figures": {"ignored": 1}}],
    }


def job_bench_goals(ctx):
    before = results()
    flat = goals.flatten(before)
    ctx.result("figures-named", set(flat) == {
        "runs/smp1/sched.context_switch", "runs/smp1/probe.hit.jump_empty_handler",
        "runs/smp2/sched.context_switch", "runs/smp2/probe.hit.jump_empty_handler",
        "sim_host/sim.host.replay.lru", "trace/trace.firing.no_actions",
        "profile/profile.runs"}, sorted(flat))
    rows = {g["figure"]: g for g in goals.goals(flat)}
    ctx.result("goal-met-and-not",
               rows["runs/smp1/sched.context_switch"]["met"] is False
               and rows["trace/trace.firing.no_actions"]["met"] is False
               and rows["runs/smp1/graft.call.empty_graft_txn"]["met"] is None, str(rows)[:300])

    after = copy.deepcopy(before)
    figs = after["runs"][0]["figures"]
    figs[0]["value"] = 301                        # one instruction: noise
    figs[1]["value"] = 105                        # 5% worse: flagged
    after["runs"][1]["figures"][0]["value"] = 250   # better: never flagged
    after["runs"][1]["figures"][1]["unit"] = "cycles"   # another unit: not comparable
    after["sim_host"]["figures"][0]["value"] = 2000000  # a third slower on the host
    after["trace"]["figures"][0]["value"] = 203         # 1.5% worse: flagged
    after["profile"]["figures"][0]["value"] = 50        # no direction: not compared
    worse = {w["figure"]: w for w in goals.regressions(goals.flatten(before),
                                                       goals.flatten(after))}
    ctx.result("regressions-flagged", set(worse) == {
        "runs/smp1/probe.hit.jump_empty_handler", "sim_host/sim.host.replay.lru",
        "trace/trace.firing.no_actions"}, sorted(worse))
    ctx.result("worse-by", worse.get("runs/smp1/probe.hit.jump_empty_handler", {})
               .get("worse_by") == 0.05, str(worse))

    noisy = copy.deepcopy(before)
    noisy["sim_host"]["figures"][0]["value"] = 2700000  # a tenth: host noise
    noisy["runs"][1]["figures"][1]["value"] = 110       # two CPUs interleave: noisy too
    ctx.result("host-noise-not-flagged",
               not goals.regressions(goals.flatten(before), goals.flatten(noisy)))

    annotated = copy.deepcopy(after)
    goals.annotate(annotated, None)
    ctx.result("annotate-against-baseline",
               annotated["regressions"]["against"].startswith("the committed baseline")
               and len(annotated["goals"]) == len(goals.GOALS), str(annotated["regressions"])[:200])

    with open(goals.BASELINE) as f:
        base = json.load(f)["figures"]
    missing = [g[1] for g in goals.GOALS if g[1] not in base]
    ctx.result("baseline-has-every-goal", not missing, str(missing))
