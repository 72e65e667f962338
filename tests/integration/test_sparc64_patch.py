# SPDX-License-Identifier: BSD-2-Clause
"""SPARC code patches, executed: tests/sparc64_patch/build.sh builds a
static sparc64 Linux program with the cross gcc (the patch builder,
arch/sparc64/patch/*.c, and the decoder, as plain C), and qemu-sparc64
runs it. It splices a counter patch at every instruction of each sample
function (loops, annulled and plain branches of each kind, calls,
recursion, save/restore, a switch) one at a time in an RWX copy, and
asserts the patched copy returns the original's results, the entry
counts once per call, and every instruction of a basic block counts
what its leader does (s_annul also against a hand-computed table); then
again with the patch 16 MB away, reached through a springboard slot, which
must count the same at every instruction. Refusals are printed with their reasons. Skipped, with the reason, only
when qemu-sparc64 or sparc64-linux-gnu-gcc is missing (`make deps`)."""

import os
import re
import shutil
import subprocess

LAST = re.compile(r"^(\d+) passed, (\d+) failed$")
SPLICED = re.compile(r"^spliced (\d+) instructions, (\d+) of them again through springboards$", re.M)
MIN_SPLICED = 100


def job_execute(ctx):
    for tool in ("qemu-sparc64", "sparc64-linux-gnu-gcc"):
        if not shutil.which(tool):
            ctx.result("execute", True, f"SKIPPED: {tool} is not installed (make deps)")
            return
    out = os.path.join(ctx.build, "sparc64-patch")
    gen = subprocess.run(["make", "-s", "build/gen/sparc64_opcodes.h"], cwd=ctx.root,
                         capture_output=True, text=True)
    build = subprocess.run(["sh", "tests/sparc64_patch/build.sh", out], cwd=ctx.root,
                           capture_output=True, text=True)
    if gen.returncode or build.returncode:
        ctx.result("build", False, (gen.stderr + build.stderr).strip()[-400:])
        return
    ctx.result("build", True)
    proc = subprocess.run(["qemu-sparc64", os.path.join(out, "test-patch")],
                          capture_output=True, text=True, timeout=300)
    os.makedirs(ctx.log_dir, exist_ok=True)
    log = os.path.join(ctx.log_dir, "sparc64_patch.log")
    with open(log, "w") as f:
        f.write(proc.stdout + proc.stderr)
    lines = proc.stdout.strip().splitlines()
    m = LAST.match(lines[-1]) if lines else None
    if not m:
        ctx.result("execute", False, f"no summary line, exit {proc.returncode} (log: {log})")
        return
    passed, failed = int(m.group(1)), int(m.group(2))
    for line in lines:
        if line.startswith("FAIL "):
            ctx.result(line[5:], False)
    ctx.result("execute", failed == 0 and passed > 0 and proc.returncode == 0,
               f"{lines[-1]}, exit {proc.returncode} (log: {log})")
    s = SPLICED.search(proc.stdout)
    ctx.result("spliced", bool(s) and int(s.group(1)) >= MIN_SPLICED,
               s.group(0) if s else "no `spliced N instructions` line")
    ctx.result("through-springboards", bool(s) and s.group(2) == s.group(1),
               s.group(0) if s else "no `spliced N instructions` line")
    refusals = [l for l in lines if l.startswith("refused ")]
    ctx.result("refusals-say-why", all(re.match(r"^refused \d+: \S.*$", l) for l in refusals),
               "; ".join(refusals))
