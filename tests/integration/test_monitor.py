# SPDX-License-Identifier: BSD-2-Clause
"""The monitor's statistics sources from the shell (`monitor`, `monitor
threads`): every source listed once with its kind, unit and value (one per
CPU for per-CPU sources), the threads' per-thread values, and a bad
argument refused with its usage line. The sources' behaviour is tested in
the kernel (tests/kernel/test_monitor.c); this is what people see."""

import re

from common import poweroff, shell_boot

SOURCE_LINE = re.compile(r"^  ([a-z0-9_]+\.[a-z0-9_.]+) +(counter|gauge) +(\S+) +\d+ +(.*)$", re.M)


def job_monitor_shell(ctx):
    boot = shell_boot(ctx, "monitor", smp=2)
    try:
        start = boot.mark()
        m = boot.command("monitor", r"(\d+) sources")
        listing = boot.output[start:]
        rows = SOURCE_LINE.findall(listing)
        names = [r[0] for r in rows]
        ctx.result("one-line-per-source", len(rows) == int(m.group(1)) and
                   len(set(names)) == len(names) and names == sorted(names),
                   f"{len(rows)} rows for {m.group(1)} sources (log: {boot.log_path})")
        by_name = {r[0]: r for r in rows}
        cpu = by_name.get("cpu.busy", ("", "", "", ""))[3]
        ctx.result("per-cpu-values", re.fullmatch(r"per CPU: \d+ \d+", cpu) is not None,
                   f"cpu.busy shows {cpu!r} on 2 CPUs")
        free = by_name.get("mm.free", ("", "", "", "x"))[3]
        ctx.result("gauge-value", free.isdigit() and int(free) > 0, f"mm.free shows {free!r}")

        start = boot.mark()
        boot.command("monitor threads", r"\n +\d+ shell +\d+ +\d+ +\d+\r?\n")
        ctx.result("thread-table", "thread.cpu" in boot.output[start:],
                   f"no per-thread header (log: {boot.log_path})")

        start = boot.mark()
        boot.command("monitor frobnicate", r"usage[^\n]*\n[^\n]*scion> ")
        answer = [line.strip() for line in boot.output[start:].splitlines()[1:-1]]
        ctx.result("bad-argument-one-line", len(answer) == 1 and
                   answer[0].startswith("monitor: usage: monitor [sources | threads | processes | start"),
                   f"answered {answer!r}")
    finally:
        poweroff(ctx, boot)
