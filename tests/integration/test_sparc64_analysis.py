# SPDX-License-Identifier: BSD-2-Clause
"""The structural analysis on SPARC V9 on the host, whatever ARCH is
(issue 25): build/host/sparc64-analysis-tests, the portable kernel/analysis
over the sparc64 backend under ASan and UBSan, on the hand-written
functions of tests/sparc64_analysis/cases.S (blocks, successors, end kinds,
live-in sets and the registers live around chosen instructions, for every
kind of delay slot, annulled branches, calls, ret/restore, retl, return,
save/restore, BPr and a slot that is a branch target), then the consistency
sweep over every function of the sparc64 kernel (build/sparc64/kernel.elf,
when a sparc64 job built it; read under sparc64_build.py's lock) and of every ELF file of the cross
toolchain's /usr/sparc64-linux-gnu/lib. The binary ends `N passed, M failed`;
each sweep line gives the file's figures. Skipped, with the reason, only
when the cross toolchain is missing (the cases are assembled with it)."""

import os
import re
import shutil
import subprocess

from sparc64_build import kernel_locked

from common import elf_files

LAST = re.compile(r"^(\d+) passed, (\d+) failed$")
SWEEP = re.compile(r"^sweep (\S+): (\d+) functions, (\d+) analysed, (\d+) refused .*?, (\d+) blocks, "
                   r"(\d+) instructions")
LIB_DIR = "/usr/sparc64-linux-gnu/lib"
MIN_LIB_FUNCTIONS = 10_000


def job_cases_and_sweep(ctx):
    if shutil.which("sparc64-linux-gnu-gcc") is None:
        ctx.result("cases", True, "SKIPPED: sparc64-linux-gnu-gcc is not installed "
                   "(make deps installs gcc-sparc64-linux-gnu)")
        print("sparc64_analysis.cases_and_sweep: SKIPPED: no sparc64-linux-gnu-gcc", flush=True)
        return
    binary = os.path.join(ctx.build, "host", "sparc64-analysis-tests")
    cases = os.path.join(ctx.build, "sparc64-analysis", "cases.elf")
    for path in (binary, cases):
        if not os.path.isfile(path):
            ctx.result("built", False, f"no {path} (make sparc64-analysis-tests)")
            return
    # The kernel as a sparc64 job built it, read under the build's lock (never half-linked).
    with kernel_locked(ctx) as kernel:
        files = ([kernel] if os.path.isfile(kernel) else []) + elf_files(LIB_DIR)
        proc = subprocess.run([binary, cases, "--sweep"] + files, capture_output=True, text=True,
                              timeout=300)
    os.makedirs(ctx.log_dir, exist_ok=True)
    log = os.path.join(ctx.log_dir, "sparc64_analysis.log")
    with open(log, "w") as f:
        f.write(proc.stdout + proc.stderr)
    lines = proc.stdout.strip().splitlines()
    m = LAST.match(lines[-1] if lines else "")
    if not m:
        ctx.result("ran", False, f"no `N passed, M failed` line, exit {proc.returncode} (log: {log})")
        return
    for line in lines:
        if line.startswith("FAIL ") and ": " in line:
            name, _, why = line[5:].partition(": ")
            ctx.result(name, False, why)
    passed, failed = int(m.group(1)), int(m.group(2))
    ctx.result("all", failed == 0 and passed >= 100 and proc.returncode == 0,
               f"{passed} passed, {failed} failed, exit {proc.returncode} (log: {log})")
    sweeps = [SWEEP.match(line) for line in lines]
    sweeps = [s for s in sweeps if s]
    lib_functions = sum(int(s.group(3)) for s in sweeps if s.group(1).startswith(LIB_DIR))
    ctx.result("sweep/every-file", len(sweeps) == len(files),
               f"{len(sweeps)} sweep lines for {len(files)} files (log: {log})")
    ctx.result("sweep/library-coverage", lib_functions >= MIN_LIB_FUNCTIONS,
               f"{lib_functions} library functions analysed; wanted >= {MIN_LIB_FUNCTIONS} (log: {log})")
    print("sparc64_analysis: " + lines[-1] + ("" if os.path.isfile(kernel) else
          f" (no {kernel}: the kernel was not swept)"), flush=True)
