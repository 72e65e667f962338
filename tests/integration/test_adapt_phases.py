# SPDX-License-Identifier: BSD-2-Clause
"""The adaptation loop (kernel/adapt/) over a block-cache workload in
phases, with every policy loaded: eviction (LRU, 2Q, CLOCK) and
read-ahead (sequential, stride, recorded order), so its candidates are
the twelve pairs. Each phase runs until the loop has acted on it and then
a while longer; what is asserted is the pair in force at each phase's end:
- a sequential scan: the default (LRU with sequential read-ahead) already
  hits; the loop does nothing;
- a small hot set between scans: 2Q keeps the hot set (eviction 2q);
- a strided scan: nothing is reused, only stride read-ahead hits
  (read-ahead stride);
- one random order read again and again: the recorded-order read-ahead
  (read-ahead recorded);
- a scan again: recorded order has no history there, sequential does
  (read-ahead sequential).
Also: no decision installs a pair that aborted in simulation, every
decision's log names the optimum, and the loop's counters add up."""

import re

from common import graft_path, poweroff, shell_boot
from test_adapt import cmd
from scionhost.phases import GRAFTS, SETUP, Phases


def live_pair(boot):
    """(eviction, read-ahead) in force for every thread, from `graft list`."""
    out = cmd(boot, "graft list")
    pair = ["lru", "sequential"]
    for line in out.splitlines():
        m = re.match(r"\s*(\S+)\s+bcache\.(evict|readahead)\s.*\binstalled\b", line)
        if m:
            pair[0 if m[2] == "evict" else 1] = m[1]
    return tuple(pair)


def run_phase(boot, phases, phase, until, settle_commands=12, seconds=40):
    """Commands of phase until the serial output matches until (None: no wait), then
    settle_commands more; the log of the phase."""
    import time
    start = len(boot.output)
    deadline = time.time() + seconds
    if until:
        while time.time() < deadline and not re.search(until, boot.output[start:], re.M):
            cmd(boot, phases.next(phase))
    for _ in range(settle_commands):
        cmd(boot, phases.next(phase))
    return boot.output[start:]


def job_adapt_phases(ctx):
    boot = shell_boot(ctx, "phases", smp=2, single_thread_tcg=True,
                      modules=[graft_path(ctx, n) for n in GRAFTS])
    try:
        for line in SETUP:
            cmd(boot, line)
        cmd(boot, "adapt on")
        p = Phases()
        expected = {"scan": ("lru", "sequential"), "hot": ("2q", None),
                    "stride": (None, "stride"), "repeat": (None, "recorded"),
                    "scan-again": (None, "sequential")}
        waits = {"scan": None, "hot": r"watch: keep 2q", "stride": r"watch: keep \S*\+stride",
                 "repeat": r"watch: keep \S*\+recorded",
                 "scan-again": r"watch: keep (lru|2q|clock)\s"}
        logs = {}
        for name in ("scan", "hot", "stride", "repeat", "scan-again"):
            phase = "scan" if name == "scan-again" else name
            logs[name] = run_phase(boot, p, phase, waits[name])
            pair = live_pair(boot)
            want = expected[name]
            ok = all(w is None or w == got for w, got in zip(want, pair))
            ctx.result(f"phase-{name}-picks", ok, f"in force {pair}, wanted {want}\n" +
                       logs[name][-3000:])
        ctx.result("scan-flags-nothing", "adapt: #" not in logs["scan"], logs["scan"][-2000:])
        text = cmd(boot, "adapt log")
        aborted = set(re.findall(r"decide: (\S+) is never installed", text))
        installed = re.findall(r"install: (\S+) in place of", text)
        ctx.result("never-installs-an-aborting-pair", not (aborted & set(installed)),
                   f"aborted {aborted}, installed {installed}")
        decisions = set(re.findall(r"^  #(\d+) record: rec\d+: \d+ requests", text, re.M))
        with_optimum = set(re.findall(r"^  #(\d+) optimum: evict=min", text, re.M))
        ctx.result("every-decision-names-the-optimum", decisions and decisions <= with_optimum,
                   f"{sorted(decisions)} {sorted(with_optimum)}")
        status = cmd(boot, "adapt status")
        m = re.search(r"installs (\d+), reverts (\d+)", status)
        ctx.result("installs-counted", m and int(m[1]) == len(installed) and int(m[1]) >= 4,
                   status + repr(installed))
    finally:
        poweroff(ctx, boot)
