# SPDX-License-Identifier: BSD-2-Clause
"""Probes from the shell: every fbt probe enabled while the in-kernel
tests and shell commands run, then removed with the text restored byte
for byte; the profiler's metrics; and bad probe requests, typed or
random, refused with one-line errors. (Single-threaded TCG: these patch
code; see PLATFORMS.md.)"""

import os
import random
import re
import subprocess
import sys

from common import PROMPT, SUMMARY, poweroff, shell_boot

ENABLED = r"probe: enabled (\d+) of (\d+) probes? \((\w+)\); (\d+) sites patched: (\d+) jump, (\d+) int3"


def job_noprobe_placement(ctx):
    """What probe context runs lies in .text.noprobe (tools/check_noprobe.py)."""
    tool = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "check_noprobe.py")
    proc = subprocess.run([sys.executable, tool, ctx.kernel_elf],
                          capture_output=True, text=True, timeout=120)
    lines = proc.stdout.strip().splitlines()
    m = re.match(r"noprobe: (\d+) functions checked, (\d+) outside", lines[-1] if lines else "")
    ctx.result("probe-context-is-unprobeable", bool(m) and m.group(2) == "0" and
               int(m.group(1)) >= 8 and proc.returncode == 0, proc.stdout + proc.stderr)


def job_fbt_everywhere(ctx):
    """fbt:::entry and fbt:::return on everything, then the tests and the shell."""
    boot = shell_boot(ctx, "fbt-everywhere", smp=2, single_thread_tcg=True, timeout=600)
    try:
        m = boot.command("probe enable fbt::: count", ENABLED, timeout=300)
        ok, asked, sites = int(m.group(1)), int(m.group(2)), int(m.group(4))
        ctx.result("every-fbt-probe-enabled", ok == asked and ok > 500,
                   f"{ok} of {asked} fbt probes enabled on {sites} sites")
        start = boot.mark()
        boot.send("test *,!probe_*,!poke_*\n")
        m = boot.wait_for(SUMMARY, start=start, timeout=400)
        ctx.result("kernel-tests-pass-under-fbt", m.group(2) == "0",
                   f"{m.group(0)} with every fbt probe enabled (log: {boot.log_path})")
        # A fault in a relocated instruction is reported at its original address.
        ctx.result("fault-in-patch-named", "ktest_undefined_opcode+0x0 (in a probe patch)"
                   in boot.output, f"(log: {boot.log_path})")
        for line, expect in [("cpus", r"CPUs? online"), ("threads", r"scheduling policy"),
                             ("analysis", r"analysis: \d+ functions"),
                             ("syms thread_c*", r"thread_create"), ("help", r"probe ")]:
            boot.command(line, expect, timeout=120)
        ctx.result("shell-works-under-fbt", True)
        m = boot.command("probe list fbt:kernel:thread_create:entry", r"count (\d+)")
        ctx.result("fbt-counts-calls", int(m.group(1)) > 0, f"thread_create entered {m.group(1)} times")
        boot.command("stats", r"probes: \d+ known, \d+ sites patched")
        m = boot.command("probe clear", r"probe: cleared (\d+) enablings? and every metric; (\d+) sites")
        ctx.result("clear-removes-every-site", m.group(2) == "0", m.group(0))
        boot.command("text verify", r"text: identical")
        ctx.result("text-identical-after-clear", True)
    finally:
        poweroff(ctx, boot)


def job_profiler_commands(ctx):
    """probe enable/info/disable and the KernInst metrics on the fixtures."""
    boot = shell_boot(ctx, "profiler", smp=2, single_thread_tcg=True)
    try:
        m = boot.command("probe enable fbt:kernel:pf_sum:entry count jump", ENABLED)
        ctx.result("enable-jump", m.group(1) == "1" and m.group(5) == "1", m.group(0))
        m = boot.command("probe list pf_sum", r"(\d+)\s+fbt:kernel:pf_sum:entry")
        boot.command(f"probe info {m.group(1)}",
                     r"pf_sum\+0x0\s+jump probe, 7 bytes patched, patch at 0x[0-9a-f]+")
        ctx.result("info-says-jump", True)
        m = boot.command("probe enable pf_sum+0xe count int3", ENABLED)
        m = boot.command("probe list insn:kernel:pf_sum:0xe", r"(\d+)\s+insn:kernel:pf_sum:0xe")
        boot.command(f"probe info {m.group(1)}",
                     r"int3 probe, 1 byte patched.*\n\s+not a jump probe: an int3 probe was asked for")
        ctx.result("info-says-int3-and-why", True)
        boot.command("probe enable pf_sum+0x4 count",
                     r"cannot probe 0x[0-9a-f]+: inside the bytes a jump probe detours")
        ctx.result("overlap-refused", True)
        boot.command("probe disable fbt:kernel:pf_sum:entry", r"probe: disabled 1 enabling")
        boot.command("count thread_create", r"count: metric \d+ on thread_create")
        boot.command("latency thread_join_timeout", r"latency: metric \d+")
        boot.command("concurrency thread_sleep_ticks", r"concurrency: metric \d+")
        boot.command("test sched_sleep_ms", r"\d+ passed, 0 failed", timeout=60)
        m = boot.command("stats", r"count\s+thread_create: (\d+) calls\n.*latency\s+"
                         r"thread_join_timeout: (\d+) calls, ([\d.]+) cycles per call.*\n.*"
                         r"concurrency\s+thread_sleep_ticks: ([\d.]+) threads inside")
        ctx.result("metrics-measure", int(m.group(1)) > 0 and int(m.group(2)) > 0 and
                   float(m.group(3)) > 0, m.group(0))
        boot.command("metric remove all", PROMPT)
        boot.command("probe clear", r"0 sites patched")
        boot.command("text verify", r"text: identical")
        ctx.result("text-identical", True)
    finally:
        poweroff(ctx, boot)


def job_bad_requests(ctx):
    """Malformed and refused probe requests get one line each; random ones crash nothing."""
    boot = shell_boot(ctx, "probe-errors", single_thread_tcg=True)
    try:
        checks = [
            ("usage", "probe", r"probe: usage: probe list\|enable\|disable\|info\|clear"),
            ("enable-usage", "probe enable fbt:::", r"probe: usage: probe enable <id\|spec>"),
            ("five-parts", "probe enable a:b:c:d:e count", r"at most four parts"),
            ("no-match", "probe enable fbt:kernel:no_such_fn:entry count",
             r"probe: no probe matches fbt:kernel:no_such_fn:entry"),
            ("mid-instruction", "probe enable pf_sum+0x2 count",
             r"probe: pf_sum\+0x2: not an instruction boundary"),
            ("probe-machinery", "probe enable probe_breakpoint+0x0 count",
             r"probe: probe_breakpoint\+0x0: the probe machinery's own code"),
            ("past-the-end", "probe enable pf_sum+0x400 count",
             r"offset is not a number inside the function"),
            ("unknown-function", "probe enable nosuch+0x0 count", r"nosuch\+0x0: no such function"),
            ("bad-action", "probe enable pf_sum+0x0 bogus", r"unknown action 'bogus'"),
            ("bad-mechanism", "probe enable pf_sum+0x0 count sideways", r"unknown mechanism 'sideways'"),
            ("info-missing", "probe info 9999999", r"no probe with id 9999999"),
            ("disable-missing", "probe disable 9999999", r"no probe with id 9999999"),
            ("count-missing", "count no_such_fn", r"no fbt probe for 'no_such_fn'"),
            ("count-bad-tid", "count pf_sum tid x", r"'x' is not a thread id"),
            ("latency-usage", "latency", r"latency: usage: latency <function> \[tid <n> \| pid <n>\]"),
            ("metric-missing", "metric remove 77", r"metric: no metric '77'"),
            ("patches-usage", "probe patches sideways", r"probe: usage: probe patches near\|far"),
            ("no-far-arena", "probe patches far", r"probe: this machine has no far patch arena"),
        ]
        for label, line, expect in checks:
            boot.command(line, expect)
            ctx.result(label, True)
        # Random requests: specs and offsets from a probe-ish alphabet.
        rng = random.Random(4)
        alphabet = "fbtsdinkrel:*?[]+0x123_abcpf_sum"
        actions = ["count", "hcount", "x", ""]
        mechs = ["", "jump", "int3", "auto", "??"]
        for i in range(150):
            spec = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 24)))
            if rng.random() < 0.3:
                spec = f"pf_sum+0x{rng.randint(0, 40):x}"
            verb = rng.choice(["enable", "enable", "disable", "info", "list"])
            line = f"probe {verb} {spec} {rng.choice(actions)} {rng.choice(mechs)}".rstrip()
            boot.send(line + "\n")
        boot.command("probe clear", r"probe: cleared \d+ enablings? and every metric; 0 sites patched",
                     timeout=300)
        boot.command("text verify", r"text: identical")
        ctx.result("random-requests-then-clean", True)
    finally:
        poweroff(ctx, boot)
    out = boot.output
    ctx.result("no-unexpected-output", not re.search(r"panic:|killed by", out),
               f"(log: {boot.log_path})")
