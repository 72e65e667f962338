# SPDX-License-Identifier: BSD-2-Clause
"""The adaptation loop's scheduler example (kernel/adapt/sched.c): an
interactive thread (1 tick of work, 2 of sleep, again and again) behind
six compute threads on two CPUs. A profile configuration bands
sched.runq at one queued thread; the compute threads raise its red flag,
and the loop, on its own:
- records the scheduler, measures each thread's slowdown ((waited + ran)
  / ran, bounded below 10 ticks run) from the recording's log, and
  simulates rr (live), fair and lifo on it: the model's rr and the
  measured figure agree within 10%;
- installs fair, which lowers the worst slowdown (the interactive
  thread's) by more than the margin; never lifo;
- watches: a second recording under fair, whose live worst slowdown is
  below the one before;
and the rule (bcache.hit_ratio < 0) never fires. In dry-run the same
decision installs nothing. `scion adapt explain N` replays the decision
on the host (`scion-sim`, the same sources) and finds every policy's
worst and mean slowdown the kernel found."""

import datetime
import json
import re

from common import graft_path, poweroff
from test_adapt import cmd, load_profile_configuration

GRAFTS = ["sched_fair", "sched_lifo"]
WORKLOAD = "sched run n=1 rounds=150 compute=1 sleep=2 hogs=6 hog-ticks={ticks}"
SLOWDOWN = r"worst slowdown (\d+)\.(\d{3})x \(thread (\d+)\)"


def runq_configuration():
    """sched.runq, a gauge, may average at most 1.000 queued thread over 500 ms."""
    return {"machine": "adapt", "valid_day": datetime.date(2026, 11, 26),
            "generated": 1795564800, "bucket_ms": 900000, "burst_every_s": 3600,
            "burst_ms": 0, "resources": [
                {"name": "sched.runq", "kind": "gauge", "scope": "global",
                 "interval_ms": 100, "window_ms": 500, "duration_ms": 500,
                 "buckets": [(0, 0, 1000)] * 96}]}


def permille(m):
    """A SLOWDOWN match's figure in permille."""
    return int(m[1]) * 1000 + int(m[2])


def job_adapt_sched(ctx):
    from test_channel import channel_boot, scion

    boot, sock = channel_boot(ctx, "sched", smp=2, single_thread_tcg=True,
                              modules=[graft_path(ctx, n) for n in GRAFTS])
    try:
        cmd(boot, "adapt rule bcache.hit_ratio < 0 for 1s")
        cmd(boot, "adapt tune dwell-ms=300 sched-record-ms=1500")
        load_profile_configuration(ctx, sock, runq_configuration())
        cmd(boot, "monitor start")

        # Dry-run: the decision, and nothing installed.
        cmd(boot, "adapt dry-run")
        start = len(boot.output)
        cmd(boot, WORKLOAD.format(ticks=150), timeout=300)
        log = boot.output[start:]
        ctx.result("dry-run-would-install-fair",
                   re.search(r"adapt: #\d+ decide: dry-run: would install fair", log) is not None
                   and " installed" not in cmd(boot, "graft list"), log[-3000:])

        cmd(boot, "adapt off")
        cmd(boot, "adapt on")
        start = len(boot.output)
        cmd(boot, WORKLOAD.format(ticks=300), timeout=300)
        log = boot.output[start:]
        ctx.result("red-flag-on-sched-runq", re.search(
            r"adapt: #\d+ flag: red flag from the monitor: sched\.runq \d+\.\d{3} outside "
            r"\[0\.000, 1\.000\] for \d+ ms: the scheduler is suspect", log) is not None,
            log[-3000:])
        measured = re.search(r"adapt: #\d+ measured pick_next=rr tick=\S+: " + SLOWDOWN, log)
        rows = {m[1]: int(m[2]) * 1000 + int(m[3]) for m in
                re.finditer(r"adapt: #\d+ (?:live|candidate) pick_next=(\S+) tick=\S+: "
                            r"worst slowdown (\d+)\.(\d{3})x", log)}
        # The open-loop model's rr and the live log's figures agree within 10%.
        ctx.result("every-policy-simulated", measured is not None and
                   set(rows) >= {"rr", "fair", "lifo"} and
                   abs(rows["rr"] - permille(measured)) * 10 <= permille(measured),
                   f"{rows}\n" + log[-3000:])
        m = re.search(r"adapt: #\d+ install: fair in place of rr \(simulated worst slowdown "
                      r"(\d+) permille against (\d+)\); live worst slowdown before (\d+)", log)
        ctx.result("installs-fair", m is not None and int(m[1]) < int(m[2]) and
                   "install: lifo" not in log, log[-3000:])
        w = re.search(r"adapt: #\d+ watch: keep fair: live worst slowdown (\d+) permille "
                      r"\(before (\d+)\)", log)
        ctx.result("watch-keeps-fair-slowdown-falls", w is not None and
                   int(w[1]) < int(w[2]), log[-3000:])
        ctx.result("rule-never-fired", "flag: bcache.hit_ratio" not in log, "")
        out = cmd(boot, "graft list")
        status = cmd(boot, "adapt status")
        ctx.result("fair-in-force", re.search(r"\bfair\s+sched\.pick_next\s+global\s+installed",
                                              out) is not None and
                   "pick-next policy installed by the loop: fair in place of rr" in status,
                   out + status)
        cmd(boot, "monitor stop")
        # The host replays the decision: the same slowdowns for every policy.
        rc, out, err = scion(ctx, sock, "adapt", "decisions", "--json", timeout=120)
        kept = json.loads(out) if rc == 0 else []
        installed = [d for d in kept if d["module"] == "sched" and d["outcome"] == "installed"]
        same, detail = False, f"exit {rc}: {err}"
        if installed:
            n = str(installed[-1]["decision"])
            rc, out, err = scion(ctx, sock, "adapt", "explain", n, "--json", timeout=300)
            rows = json.loads(out)["rows"] if rc == 0 else []
            same = rc == 0 and len(rows) >= 3 and all(r["same"] for r in rows)
            detail = f"exit {rc}: {err}\n{out[-2000:]}"
            rc, text, err = scion(ctx, sock, "adapt", "explain", n, timeout=300)
            same &= rc == 0 and "rows the same on the host" in text and "pick_next=fair" in text
            detail += text
        ctx.result("host-explains-the-decision", same, detail)
    finally:
        poweroff(ctx, boot)
