# SPDX-License-Identifier: BSD-2-Clause
"""The TL > 0 refusal check (issue 25), as x86's no-probe placement is
checked (test_probe.noprobe_placement): tools/check_tl.py follows every
instruction, direct branch and call from the 1024 trap-table entries and
the TL > 0 handlers of the linked sparc64 kernel, tracking the trap level
and the delay slots, and fails when anything reachable at TL > 0 lies
outside the TL > 0 range kernel.ld defines, or when an unjustified
indirect transfer is reachable there.

  kernel   `make ARCH=sparc64 kernel` (into BUILD/sparc64, as test_sparc64.py
           builds it, under sparc64_build.py's lock), then
           the check: exit 0, `0 outside`, `0 indirect transfers not
           justified`, the trap table and its TL > 0 handlers reached
           (window_refused, trap_common, trap_discard_windows), trap_handler
           (C, called after the drop to TL 0) not reached
  fixture  tests/sparc64_tl/tl_fixture.S, a trap table with known faults,
           assembled and linked here: the check must exit 1 and flag exactly
           the three functions and the indirect jump the fixture names, and
           not the code reached only at TL 0 or only through never-executed
           delay slots

Skipped, with the reason, only when the cross toolchain is missing."""

import os
import re
import shutil
import subprocess
import sys

from sparc64_build import build_kernel

LAST = re.compile(r"^tl: (\d+) instructions in (\d+) functions reachable at TL > 0 from (\d+) entry "
                  r"points, (\d+) outside the TL > 0 range, (\d+) indirect transfers not justified$")
TOOLS = ("sparc64-linux-gnu-gcc", "sparc64-linux-gnu-ld", "sparc64-linux-gnu-objdump",
         "sparc64-linux-gnu-nm")


def missing_tools(ctx, name):
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if not missing:
        return False
    ctx.result(name, True, f"SKIPPED: {', '.join(missing)} not installed (make deps installs "
               "gcc-sparc64-linux-gnu and binutils-sparc64-linux-gnu)")
    print(f"sparc64_tl.{name}: SKIPPED: no {missing[0]}", flush=True)
    return True


def run_check(ctx, name, elf):
    tool = os.path.join(ctx.root, "tools", "check_tl.py")
    proc = subprocess.run([sys.executable, tool, "-v", elf], capture_output=True, text=True,
                          timeout=300)
    os.makedirs(ctx.log_dir, exist_ok=True)
    log = os.path.join(ctx.log_dir, f"sparc64_tl.{name}.log")
    with open(log, "w") as f:
        f.write(proc.stdout + proc.stderr)
    lines = proc.stdout.strip().splitlines()
    return proc, lines, LAST.match(lines[-1] if lines else ""), log


def job_kernel(ctx):
    if missing_tools(ctx, "kernel"):
        return
    kernel, error = build_kernel(ctx)
    ctx.result("builds", not error, f"make ARCH=sparc64 kernel failed:\n    {error}")
    if error:
        return
    proc, lines, m, log = run_check(ctx, "kernel", kernel)
    if not m:
        ctx.result("check", False, f"last line '{lines[-1] if lines else ''}' (log: {log})")
        return
    insns, funcs, roots, outside, unjustified = (int(x) for x in m.groups())
    ctx.result("nothing-outside-the-tl1-range", outside == 0 and proc.returncode == 0,
               f"{lines[-1]} (log: {log})")
    ctx.result("no-unjustified-indirect-transfer", unjustified == 0, f"{lines[-1]} (log: {log})")
    reached = {line.split()[2] for line in lines if line.startswith("tl: reachable: ")}
    want = {"trap_table", "window_refused", "trap_common", "trap_discard_windows"}
    ctx.result("handlers-reached", want <= reached, f"reached {sorted(reached)}; wanted {sorted(want)}")
    ctx.result("c-after-tl0-not-reached", "trap_handler" not in reached,
               f"trap_handler reached at TL > 0: the drop to TL 0 was not seen (log: {log})")
    ctx.result("coverage", roots >= 1024 and insns >= 1024, f"{insns} instructions from {roots} "
               f"entry points; wanted >= 1024 of each (log: {log})")
    print(f"sparc64_tl.kernel: {lines[-1]}", flush=True)


def job_fixture(ctx):
    if missing_tools(ctx, "fixture"):
        return
    out = os.path.join(ctx.build, "sparc64-tl")
    os.makedirs(out, exist_ok=True)
    src = os.path.join(ctx.root, "tests", "sparc64_tl", "tl_fixture.S")
    obj, elf = os.path.join(out, "tl_fixture.o"), os.path.join(out, "tl_fixture.elf")
    for argv in (["sparc64-linux-gnu-gcc", "-c", src, "-o", obj],
                 ["sparc64-linux-gnu-ld", "-Ttext=0x100000", "-e", "trap_table", "-o", elf, obj]):
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if proc.returncode:
            ctx.result("fixture-builds", False, proc.stdout + proc.stderr)
            return
    proc, lines, m, log = run_check(ctx, "fixture", elf)
    flagged = {line.split()[1] for line in lines if line.endswith("outside the TL > 0 range")
               and not line.startswith("tl: 0 ") and " runs at TL > 0 " in line}
    want = {"outside_branch", "outside_callee", "outside_untaken"}
    ctx.result("fails", proc.returncode == 1 and bool(m), f"exit {proc.returncode} (log: {log})")
    ctx.result("flags-exactly-the-faults", flagged == want,
               f"flagged {sorted(flagged)}; wanted {sorted(want)} (log: {log})")
    ctx.result("refuses-the-indirect-jump",
               any(line.startswith("tl: indirect `jmp %g1` at trap_table+0x40 ") and
                   line.endswith("refused (not justified)") for line in lines),
               f"no refusal of trap_table+0x40 (log: {log})")
    ctx.result("counts", bool(m) and m.group(5) == "1", f"{lines[-1] if lines else ''} (log: {log})")
