# SPDX-License-Identifier: BSD-2-Clause
"""The adaptation loop's scope (kernel/adapt/decide.c): when one process
made most of the recorded requests, the winning policy is installed for
that process alone (a per-process graft, `graft install NAME pid N`), the
rest of the kernel keeps its policy, and the graft goes when the process
exits.

The user program hot_and_scan reads /fsdata/large (4.5 MiB on the ext2
root) in the pattern LRU serves badly and 2Q well, from the background:
- the loop flags the low hit ratio, records, attributes the requests to
  the process (`scope: process N ... made M permille`), and installs 2q
  `for process N`; `graft list` shows it for that process's thread and
  the global policy is still the default;
- when the process is killed, its graft is removed and the loop says so
  and forgets its install rather than reverting anything;
- with `adapt tune scope=1001` (never scoped) the same workload gets 2q
  for every thread.
"""

import re
import time

from common import graft_path, poweroff, shell_boot
from test_adapt import adapt_setup, cmd
from test_fs import rootfs

GRAFTS = ["evict_2q", "evict_clock"]
PROGRAM = "run hot_and_scan /fsdata/large {rounds} {seed} &"


def wait_for(boot, pattern, start, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        m = re.search(pattern, boot.output[start:], re.M)
        if m:
            return m
        time.sleep(0.2)
    return re.search(pattern, boot.output[start:], re.M)


def job_adapt_scope(ctx):
    boot = shell_boot(ctx, "scope", smp=2, single_thread_tcg=True, disk=rootfs(ctx),
                      disk_snapshot=True, timeout=600,
                      modules=[graft_path(ctx, n) for n in GRAFTS])
    try:
        # Each read past block 11 also reads the file's indirect block, a hit: the
        # ratio is higher than the pattern alone would give, so the rule is higher too.
        adapt_setup(boot, 32, "0.80", "min-reads=50 watch-reads=600 record-reads=800 "
                    "dwell-ms=300")
        start = len(boot.output)
        # The program reads until it is killed, so the loop has all the time it needs.
        out = cmd(boot, PROGRAM.format(rounds=100000, seed=1))
        m = re.search(r"\[(\d+)\] /hot_and_scan", out)
        pid = m[1] if m else "?"
        m = wait_for(boot, r"adapt: #(\d+) install: (\S+) in place of (\S+) for process (\d+)",
                     start)
        ctx.result("installed-for-the-process", m is not None and m[2] == "2q" and
                   m[4] == pid, f"pid {pid}: " + boot.output[start:][-3000:])
        ctx.result("scope-attributed", re.search(
            rf"scope: process {pid} \(thread \d+\) made (\d+) permille of the requests",
            boot.output[start:]) is not None, boot.output[start:][-3000:])
        out = cmd(boot, "graft list")
        ctx.result("graft-list-shows-thread-scope",
                   re.search(r"\b2q\s+bcache\.evict\s+tid \d+\s+installed", out) is not None,
                   out)
        status = cmd(boot, "adapt status")
        ctx.result("status-names-the-process", f"in place of lru for process {pid}" in status,
                   status)
        # The process ends; its grafts go with it (graft_remove_scoped).
        cmd(boot, f"kill {pid} 9")
        m = wait_for(boot, rf"proc: pid {pid} \(hot_and_scan\) exits", start, seconds=60)
        ctx.result("program-killed", m is not None, boot.output[start:][-1500:])
        wait_for(boot, rf"scope: process {pid} exited", start, seconds=10)
        out = cmd(boot, "graft list")
        status = cmd(boot, "adapt status")
        ctx.result("graft-gone-with-the-process", " installed" not in out and
                   "installed by the loop: none" in status and
                   re.search(rf"scope: process {pid} exited; the grafts installed for it went "
                             r"with it", boot.output[start:]) is not None, out + status)

        # Never scoped: the same workload gets the graft for every thread.
        cmd(boot, "adapt off")
        cmd(boot, "adapt tune scope=1001")
        cmd(boot, "adapt on")
        start = len(boot.output)
        out = cmd(boot, PROGRAM.format(rounds=100000, seed=2))
        m2 = re.search(r"\[(\d+)\] /hot_and_scan", out)
        m = wait_for(boot, r"adapt: #\d+ install: (\S+) in place of (\S+)(.*)$", start)
        ctx.result("unscoped-installs-globally", m is not None and m[1] == "2q" and
                   "for process" not in m[3] and re.search(
                       r"scope: every thread \(the most requests came from process \d+: \d+ "
                       r"permille, under 1001\)", boot.output[start:]) is not None,
                   boot.output[start:][-3000:])
        if m2:
            cmd(boot, f"kill {m2[1]} 9")
        cmd(boot, "bcache stats")
        out = cmd(boot, "graft list")
        ctx.result("global-graft-stays", re.search(r"\b2q\s+bcache\.evict\s.*installed", out)
                   is not None and "tid" not in out, out)
    finally:
        poweroff(ctx, boot)
