# SPDX-License-Identifier: BSD-2-Clause
"""The SPARC V9 decoder (arch/sparc64/insn_decode.c) on the host, whatever
ARCH is: its unit tests (build/host/sparc64-decoder-tests, ending
`N passed, M failed`), and its objdump oracle (build/host/check-sparc64-
decoder) on every ELF file of the cross toolchain's /usr/sparc64-linux-gnu/lib
and on the kernel-like object the build compiles with the cross gcc, which
must end `checked N instructions in F files: 0 mismatches`, then the
same oracle on raw words: a sweep of every form-selecting field value
and 500000 random words (the words objdump decodes although V9 reserves
them are counted apart, each with the decoder's reason). The oracle is
skipped, with the reason, only when sparc64-linux-gnu-objdump is missing
(`make deps` installs it). Both take a few seconds."""

import os
import re
import shutil
import subprocess

from common import elf_files

UNIT_LAST = re.compile(r"^(\d+) passed, (\d+) failed$")
ORACLE_LAST = re.compile(r"^checked (\d+) instructions in (\d+) files: (\d+) mismatches$")
LIB_DIR = "/usr/sparc64-linux-gnu/lib"
MIN_LIB_FILES = 20
MIN_INSNS = 500_000


def last_line(text):
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def save_log(ctx, name, proc):
    os.makedirs(ctx.log_dir, exist_ok=True)
    log = os.path.join(ctx.log_dir, f"sparc64_decoder.{name}.log")
    with open(log, "w") as f:
        f.write(proc.stdout + proc.stderr)
    return log


def job_unit_tests(ctx):
    binary = os.path.join(ctx.build, "host", "sparc64-decoder-tests")
    if not os.path.isfile(binary):
        ctx.result("built", False, f"no {binary} (make sparc64-decoder-tests)")
        return
    proc = subprocess.run([binary], capture_output=True, text=True, timeout=60)
    log = save_log(ctx, "unit", proc)
    m = UNIT_LAST.match(last_line(proc.stdout))
    if not m:
        ctx.result("unit", False, f"last line '{last_line(proc.stdout)}' (log: {log})")
        return
    passed, failed = int(m.group(1)), int(m.group(2))
    for line in proc.stdout.splitlines():
        if line.startswith("ok "):
            ctx.result(f"unit/{line[3:]}", True)
        elif line.startswith("FAIL ") and ": " in line:
            name, _, why = line[5:].partition(": ")
            ctx.result(f"unit/{name}", False, why)
    ctx.result("unit", failed == 0 and passed >= 50 and proc.returncode == 0,
               f"{passed} passed, {failed} failed, exit {proc.returncode} (log: {log})")


def no_objdump(ctx, name):
    """True (with a passing SKIPPED result saying why) when the cross objdump is missing."""
    if shutil.which("sparc64-linux-gnu-objdump") is not None:
        return False
    ctx.result(name, True, "SKIPPED: sparc64-linux-gnu-objdump is not installed "
               "(make deps installs binutils-sparc64-linux-gnu)")
    print(f"sparc64_decoder.{name}: SKIPPED: no sparc64-linux-gnu-objdump", flush=True)
    return True


def job_objdump_oracle(ctx):
    if no_objdump(ctx, "oracle"):
        return
    binary = os.path.join(ctx.build, "host", "check-sparc64-decoder")
    kernel_like = os.path.join(ctx.build, "sparc64-decoder", "kernel_like.o")
    libs = elf_files(LIB_DIR)
    ctx.result("enough-files", len(libs) >= MIN_LIB_FILES,
               f"{len(libs)} ELF files in {LIB_DIR}; wanted >= {MIN_LIB_FILES}")
    ctx.result("kernel-like-object", os.path.isfile(kernel_like),
               f"no {kernel_like} (make check-sparc64-decoder builds it with the cross gcc)")
    files = libs + ([kernel_like] if os.path.isfile(kernel_like) else [])
    if not os.path.isfile(binary):
        ctx.result("oracle", False, f"no {binary} (make check-sparc64-decoder)")
        return
    proc = subprocess.run([binary] + files, capture_output=True, text=True, timeout=120)
    log = save_log(ctx, "oracle", proc)
    last = last_line(proc.stdout)
    m = ORACLE_LAST.match(last)
    if not m:
        ctx.result("oracle", False, f"last line '{last}' (log: {log})")
        return
    insns, nfiles, mismatches = (int(x) for x in m.groups())
    ctx.result("oracle/no-mismatches", mismatches == 0 and proc.returncode == 0, f"{last} (log: {log})")
    ctx.result("oracle/coverage", nfiles == len(files) and insns >= MIN_INSNS,
               f"{insns} instructions in {nfiles} of {len(files)} files; wanted >= {MIN_INSNS} "
               f"in all (log: {log})")


def job_freestanding_build(ctx):
    """The decoder as the sparc64 kernel compiles it needs nothing but its tables."""
    if shutil.which("sparc64-linux-gnu-gcc") is None:
        ctx.result("cross-build", True, "SKIPPED: sparc64-linux-gnu-gcc is not installed "
                   "(make deps installs gcc-sparc64-linux-gnu)")
        print("sparc64_decoder.freestanding_build: SKIPPED: no sparc64-linux-gnu-gcc", flush=True)
        return
    objs = [os.path.join(ctx.build, "sparc64-decoder", n) for n in ("insn_decode.o", "sparc64_opcodes.o")]
    missing = [o for o in objs if not os.path.isfile(o)]
    if missing:
        ctx.result("cross-build", False, f"missing {', '.join(missing)} (make check-sparc64-decoder)")
        return
    proc = subprocess.run(["sparc64-linux-gnu-nm", "-u"] + objs, capture_output=True, text=True,
                          timeout=30)
    undefined = {line.split()[-1] for line in proc.stdout.splitlines()
                 if line.strip().startswith("U ") and len(line.split()) == 2}
    own = {"sparc_forms", "sparc_buckets", "sparc_mnemonics", "sparc_reserved", "sparc_asi_kinds"}
    ctx.result("cross-build/freestanding", proc.returncode == 0 and undefined <= own,
               f"undefined beyond the tables: {sorted(undefined - own)}")


def job_objdump_sweep(ctx):
    if no_objdump(ctx, "sweep"):
        return
    binary = os.path.join(ctx.build, "host", "check-sparc64-decoder")
    if not os.path.isfile(binary):
        ctx.result("sweep", False, f"no {binary} (make check-sparc64-decoder)")
        return
    proc = subprocess.run([binary, "--sweep", "--random", "1", "500000"], capture_output=True,
                          text=True, timeout=120)
    log = save_log(ctx, "sweep", proc)
    last = last_line(proc.stdout)
    m = ORACLE_LAST.match(last)
    if not m:
        ctx.result("sweep", False, f"last line '{last}' (log: {log})")
        return
    insns, _, mismatches = (int(x) for x in m.groups())
    ctx.result("sweep/no-mismatches", mismatches == 0 and proc.returncode == 0, f"{last} (log: {log})")
    ctx.result("sweep/coverage", insns >= 2_500_000, f"{insns} words; wanted >= 2500000 (log: {log})")
