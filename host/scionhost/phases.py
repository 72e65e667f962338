# SPDX-License-Identifier: BSD-2-Clause
"""The phased block-cache workload of the adaptation loop (issue 26), in one
place for the test that checks the loop's choices
(tests/integration/test_adapt_phases.py) and the benchmark that measures
them (tools/bench_adapt.py).

Each phase's commands are `bcache run` lines of the kernel's shell, each a
pure function of a counter, so a run is the same requests in the same
order every time (the disk has 8192 blocks):
  scan    a sequential scan over the upper half, 64 blocks a command;
  hot     a small hot set (16 blocks) between scans of 4000 blocks;
  stride  a scan touching every fourth block;
  repeat  one random order of 200 blocks (seed 7), read again and again.
BENCH_PLAN is the benchmark's fixed number of commands per phase."""

# The policies the loop chooses among, loaded as boot modules (build/grafts/NAME.graft).
GRAFTS = ["evict_2q", "evict_clock", "readahead_stride", "readahead_recorded"]
BUFFERS = 32
# The loop's set-up before `adapt on`: a 32-buffer cache, the rule, the loop's limits;
# a window is judged on 256 reads at least (4 commands): one command alone, a scan of
# the hot phase, would read 0.000.
SETUP = [f"bcache reset {BUFFERS}", "adapt rule bcache.hit_ratio < 0.60 for 1s",
         "adapt tune min-reads=256 watch-reads=600 record-reads=800 dwell-ms=300 "
         "recheck-ms=5000"]

# Demand reads one command of the phase makes (its n=).
REQUESTS = {"scan": 64, "hot": 64, "stride": 64, "repeat": 200}

# (label, phase, commands): the benchmark's run, each phase long enough for
# the loop to flag it, record, decide, install and watch.
BENCH_PLAN = [("scan", "scan", 300), ("hot", "hot", 600), ("stride", "stride", 600),
              ("repeat", "repeat", 250), ("scan-again", "scan", 600)]


class Phases:
    """The phases' commands, each a pure function of a counter."""

    def __init__(self):
        self.k = 0

    def next(self, phase):
        self.k += 1
        k = self.k
        if phase == "scan":
            return f"bcache run seq start={4096 + (k * 64) % 4000} n=64"
        if phase == "hot":
            return (f"bcache run random start=0 range=16 n=64 seed={k}" if k % 2 else
                    f"bcache run random start=2000 range=4000 n=64 seed={k}")
        if phase == "stride":
            return f"bcache run stride start={(k * 256) % 7000} stride=4 n=64"
        if phase == "repeat":
            return "bcache run random start=1000 range=400 n=200 seed=7"
        raise ValueError(phase)


def plan_requests(plan=BENCH_PLAN):
    """[(label, first request index, requests)] of a plan, in order."""
    out, at = [], 0
    for label, phase, commands in plan:
        n = commands * REQUESTS[phase]
        out.append((label, at, n))
        at += n
    return out
