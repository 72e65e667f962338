# SPDX-License-Identifier: BSD-2-Clause
"""The adaptation loop (issue 26, kernel/adapt/): a rule flags a low block
cache hit ratio, the loop records the cache, simulates every loaded
eviction policy and the optimum on the recording, installs the best one
only when it wins by the margin with no aborts, watches the live ratio and
reverts a candidate that did worse live.

The workload alternates a hot set (random reads of 16 blocks) with scans
of 64 blocks never read again, on 32 buffers. LRU loses the hot set to
every scan (about 48 of its 64 reads hit); 2Q keeps the blocks read twice
apart from those read once (all 64 hit); CLOCK does as LRU; the
misbehaving `bad-victim` aborts every invocation. What is asserted:
- garbage `adapt` commands get one `adapt:` line each and change nothing;
- dry-run flags, records, evaluates (every candidate and the optimum in
  the log), says it would install 2q, and installs nothing;
- on, it installs 2q (never bad-victim: aborts in simulation), the hot
  set's hits rise, the watch keeps it, and the keep settles the loop: on
  the same steady workload nothing is flagged or recorded again until a
  recheck, which installs nothing (2q is within the margin), and the loop
  installed once;
- with clock installed by hand, the loop installs 2q in its place; when
  the workload turns to scans only during the watch, the live ratio is
  worse than before by the margin: 2q is removed, clock put back, and 2q
  blacklisted;
- the loop's sdt probes are there for D (`probe list adapt:::`)."""

import re
import time

from common import graft_path, poweroff, shell_boot
from test_bcache import RUN

GRAFTS = ["evict_2q", "evict_clock", "bad_victim"]
HOT = "bcache run random start=0 range=16 n=64 seed={seed}"
SCAN = "bcache run random start=2000 range=4000 n=64 seed={seed}"
GARBAGE = ["adapt bogus", "adapt rule bcache.hit_ratio > 0.5 for 2s",
           "adapt rule bcache.hit_ratio < 1.5 for 2s", "adapt rule bcache.hit_ratio < 0.5 for 2h",
           "adapt rule cpu.busy < 0.5 for 2s", "adapt limits", "adapt limits installs=x",
           "adapt tune margin=2000", "adapt tune speed=3", "adapt on now"]


def cmd(boot, line, timeout=60):
    """Type a command; the serial output from it to the next prompt."""
    start = len(boot.output)
    boot.command(line, r"scion> ", timeout=timeout)
    return boot.output[start:]


def adapt_setup(boot, buffers, ratio, tune):
    """A cache of buffers, the rule `bcache.hit_ratio < ratio for 1s`, adapt tune's words,
    and the loop on."""
    cmd(boot, f"bcache reset {buffers}")
    cmd(boot, f"adapt rule bcache.hit_ratio < {ratio} for 1s")
    cmd(boot, f"adapt tune {tune}")
    cmd(boot, "adapt on")


class Driver:
    """Runs the workload pair after pair until the loop says something."""

    def __init__(self, boot):
        self.boot, self.seed, self.hot_hits = boot, 1, []

    def pair(self, scan_only=False):
        for pattern in ([SCAN, SCAN] if scan_only else [HOT, SCAN]):
            out = cmd(self.boot, pattern.format(seed=self.seed))
            self.seed += 1
            m = re.search(RUN, out)
            if m and pattern == HOT:
                self.hot_hits.append(int(m[2]))

    def until(self, pattern, start, seconds=15, scan_only=False):
        """Pairs until the serial output after start matches pattern (a pair takes some
        15 ms of the guest's time; the loop ticks every 100 ms): the match or None."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            m = re.search(pattern, self.boot.output[start:], re.M)
            if m:
                return m
            self.pair(scan_only)
        return re.search(pattern, self.boot.output[start:], re.M)


def job_adapt_loop(ctx):
    boot = shell_boot(ctx, "adapt", smp=2, single_thread_tcg=True,
                      modules=[graft_path(ctx, n) for n in GRAFTS])
    began = time.time()
    try:
        cmd(boot, "bcache reset 32")
        lines = []
        for g in GARBAGE:
            out = cmd(boot, g)
            lines.append(len([l for l in out.splitlines() if l.startswith("adapt: ")]))
        ctx.result("garbage-one-line-each", lines == [1] * len(GARBAGE), repr(lines))
        out = cmd(boot, "adapt status")
        ctx.result("garbage-changed-nothing", "adapt: off, detecting; rule bcache.hit_ratio "
                   "< 0.600 for 2000 ms" in out and "installs 0" in out, out)

        cmd(boot, "adapt rule bcache.hit_ratio < 0.60 for 1s")
        cmd(boot, "adapt tune min-reads=50 watch-reads=1000 dwell-ms=500")
        d = Driver(boot)

        # Dry-run: the whole decision, no install.
        start = len(boot.output)
        cmd(boot, "adapt dry-run")
        m = d.until(r"adapt: #(\d+) decide: dry-run: would install (\S+)", start)
        ctx.result("dry-run-decides-2q", m and m[2] == "2q", boot.output[start:][-3000:])
        n = m[1] if m else "0"
        # The serial line may interleave with the shell's: the ring's copy is whole.
        text = cmd(boot, "adapt log")
        listed = {p: re.search(rf"^  #{n} (live|candidate|optimum) evict={p} ", text, re.M)
                  for p in ("lru", "2q", "clock", "bad-victim", "min")}
        ctx.result("log-lists-every-candidate-and-optimum",
                   all(listed.values()) and re.search(rf"^  #{n} optimum: evict=min "
                                                      r"readahead=sequential \d+ hits", text, re.M)
                   and re.search(rf"^  #{n} flag: bcache.hit_ratio 0\.\d+ < 0.600", text, re.M)
                   and re.search(rf"^  #{n} record: rec\d+: \d+ requests", text, re.M),
                   text[-3000:])
        out = cmd(boot, "graft list")
        ctx.result("dry-run-installs-nothing", " installed " not in out and
                   "installs 0" in cmd(boot, "adapt status"), out)
        ctx.result("adapt-log-ring", re.search(r"would install 2q", text) is not None,
                   text[-600:])

        # On: 2q installed, kept, the hot set's hits rise; then nothing more on the same load.
        before = d.hot_hits[-3:]
        start = len(boot.output)
        cmd(boot, "adapt on")
        m = d.until(r"adapt: #(\d+) install: (\S+) in place of lru", start)
        ctx.result("installs-2q", m and m[2] == "2q", boot.output[start:][-3000:])
        ctx.result("bad-victim-never-installed",
                   re.search(r"decide: bad-victim is never installed: \d+ aborts in simulation",
                             boot.output[start:]) is not None and
                   "install: bad-victim" not in boot.output, "")
        m = d.until(r"adapt: #\d+ watch: keep 2q: live hit ratio (0\.\d+)", start)
        after = d.hot_hits[-3:]
        ctx.result("watch-keeps-2q-ratio-rises", m is not None and sum(after) > sum(before),
                   f"hot-set hits before {before} after {after}")
        # The keep settles the loop: the same workload flags nothing more (no recording
        # after every dwell), though its ratio stays under the rule's 0.60.
        kept_at = len(boot.output)
        d.until(r"adapt: #\d+ flag: ", kept_at, seconds=6)
        out = cmd(boot, "adapt status")
        ctx.result("steady-workload-settled", m is not None and "installs 1," in out and
                   "settled at hit ratio" in out and
                   not re.search(r"adapt: #\d+ (flag|record|install): ", boot.output[kept_at:]),
                   boot.output[kept_at:][-2000:] + out)
        # A recheck later looks again and keeps 2q: nothing better, within the margin.
        cmd(boot, "adapt tune recheck-ms=300")
        start2 = len(boot.output)
        m = d.until(r"adapt: #\d+ decide: none: ", start2)
        ctx.result("recheck-keeps-2q", m is not None and
                   re.search(r"flag: .*settled at 0\.\d+ \d+ ms ago: a recheck",
                             boot.output[start2:]) is not None and
                   "install: " not in boot.output[start2:], boot.output[start2:][-2000:])
        # The second decision in a row that changes nothing doubles the wait.
        status = cmd(boot, "adapt status")
        first = "rechecks after 300 ms (now 1 times that)" in status
        m = d.until(r"adapt: #\d+ decide: none: [\s\S]*adapt: #\d+ decide: none: ", start2)
        status2 = cmd(boot, "adapt status")
        ctx.result("recheck-backs-off", first and m is not None and
                   "rechecks after 300 ms (now 2 times that)" in status2, status + status2)
        out = cmd(boot, "record list")
        ctx.result("rows-logs-dropped", re.search(r"rec\d+", out) is not None and
                   "simulated" not in out, out[-2000:])
        cmd(boot, "adapt tune recheck-ms=30000")

        # A forced change: clock by hand, the loop's 2q, then scans only: reverted.
        cmd(boot, "adapt off")
        cmd(boot, "graft remove 2q")
        cmd(boot, "graft install clock")
        cmd(boot, "adapt tune watch-reads=20000")
        start = len(boot.output)
        cmd(boot, "adapt on")
        m = d.until(r"adapt: #\d+ install: 2q in place of clock", start)
        ctx.result("installs-2q-over-clock", m is not None, boot.output[start:][-2000:])
        m = d.until(r"adapt: #\d+ revert: 2q removed, clock back", start, scan_only=True)
        out = cmd(boot, "graft list")
        status = cmd(boot, "adapt status")
        ctx.result("worse-live-reverted-and-blacklisted", m is not None and "clock" in out and
                   "blacklisted: 2q" in status and "reverts 1" in status,
                   boot.output[start:][-2000:] + status)
        out = cmd(boot, "probe list adapt:::")
        names = ("flag", "record", "candidate", "decide", "install", "watch", "revert", "mode")
        ctx.result("sdt-probes-for-d", all(re.search(rf"adapt\S*:{n}\b", out) for n in names),
                   out)
        ctx.result("under-90-seconds", time.time() - began < 90, f"{time.time() - began:.1f} s")
    finally:
        poweroff(ctx, boot)


def redflag_configuration():
    """bcache.misses may stay at most 20 a second: the workload's misses raise a red flag
    once they have been above for 500 ms."""
    import datetime
    buckets = [(0, 0, 20 * 1000)] * 96
    return {"machine": "adapt", "valid_day": datetime.date(2026, 11, 26),
            "generated": 1795564800, "bucket_ms": 900000, "burst_every_s": 3600,
            "burst_ms": 0, "resources": [
                {"name": "bcache.misses", "kind": "counter", "scope": "global",
                 "interval_ms": 100, "window_ms": 500, "duration_ms": 500,
                 "buckets": buckets}]}


def load_profile_configuration(ctx, sock, configuration):
    """Write configuration (host/scionhost/profile/config.py's form) to the job's log
    folder and load it with `scion profile config load`; one result, config-loaded."""
    import os
    from scionhost.profile import config
    from test_channel import scion

    path = os.path.join(ctx.log_dir, f"{ctx.job}.cfg")
    os.makedirs(ctx.log_dir, exist_ok=True)
    with open(path, "wb") as f:
        f.write(config.encode(configuration))
    rc, out, err = scion(ctx, sock, "profile", "config", "load", path)
    ctx.result("config-loaded", rc == 0 and "loaded" in out, out + err)


def job_adapt_redflag(ctx):
    """The monitor's red flags trigger the loop: with a rule that never fires (ratio < 0),
    a red flag on bcache.misses (a profile configuration's band) makes the loop record,
    evaluate and install 2q; the flag's line names the source, its value and its band."""
    from test_channel import channel_boot

    boot, sock = channel_boot(ctx, "redflag", smp=2, single_thread_tcg=True,
                              modules=[graft_path(ctx, n) for n in GRAFTS])
    try:
        adapt_setup(boot, 32, "0", "min-reads=50 watch-reads=600 dwell-ms=300")
        load_profile_configuration(ctx, sock, redflag_configuration())
        cmd(boot, "monitor start")
        d = Driver(boot)
        start = len(boot.output)
        m = d.until(r"adapt: #(\d+) flag: red flag from the monitor: bcache\.misses "
                    r"(\d+\.\d{3}) outside \[0\.000, 20\.000\] for \d+ ms", start, seconds=30)
        ctx.result("red-flag-triggers", m is not None and float(m[2]) > 20,
                   boot.output[start:][-2000:])
        m = d.until(r"adapt: #\d+ install: 2q in place of lru", start, seconds=30)
        ctx.result("red-flag-decision-installs-2q", m is not None, boot.output[start:][-3000:])
        ctx.result("rule-never-fired", not re.search(r"flag: bcache\.hit_ratio",
                                                     boot.output[start:]),
                   boot.output[start:][-1000:])
        cmd(boot, "monitor stop")
    finally:
        poweroff(ctx, boot)


def job_adapt_misses_only(ctx):
    """A strided scan under LRU and sequential read-ahead misses every read: the recording's
    log has no hit to calibrate the latency model with, and the loop still decides (the
    model only prices the rows): lru+stride is installed and its reads hit."""
    boot = shell_boot(ctx, "misses", smp=2, single_thread_tcg=True,
                      modules=[graft_path(ctx, "readahead_stride")])
    try:
        adapt_setup(boot, 32, "0.60", "min-reads=50 watch-reads=300 dwell-ms=300")
        start, k = len(boot.output), 0
        deadline = time.time() + 30
        while time.time() < deadline and not re.search(r"adapt: #\d+ watch: ",
                                                       boot.output[start:]):
            cmd(boot, f"bcache run stride start={(k * 256) % 8192} stride=4 n=64")
            k += 1
        log = boot.output[start:]
        ctx.result("recording-all-misses", re.search(
            r"adapt: #1 live evict=lru readahead=sequential: 0 hits", log) is not None,
            log[-2000:])
        ctx.result("model-kept", re.search(r"adapt: #1 evaluate: rec\d+'s log has no hit and "
                                           r"miss to calibrate .*: the model stays hit \d+ ns",
                                           log) is not None, log[-2000:])
        ctx.result("installs-stride", re.search(r"adapt: #1 install: lru\+stride in place of "
                                                r"lru", log) is not None and
                   re.search(r"adapt: #1 watch: keep lru\+stride", log) is not None,
                   log[-2000:])
    finally:
        poweroff(ctx, boot)
