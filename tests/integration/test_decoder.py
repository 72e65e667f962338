# SPDX-License-Identifier: BSD-2-Clause
"""The x86-64 decoder against GNU objdump (build/host/check-decoder):
the kernel image, at least 20 other x86-64 ELF files of this machine,
random bytes, and a sweep of every legacy opcode with every ModRM byte
under each prefix. Every run must end `... : 0 mismatches`."""

import os
import re
import subprocess

LAST_LINE = re.compile(r"^checked (\d+) instructions in (\d+) files: (\d+) mismatches$")
MIN_SYSTEM_FILES = 20

# Common x86-64 ELF files on a Debian 12 machine with Scion's build
# dependencies; those present are used.
CANDIDATES = [
    "/usr/bin/qemu-system-x86_64", "/usr/lib/x86_64-linux-gnu/libc.so.6",
    "/usr/lib/x86_64-linux-gnu/libcrypto.so.3", "/usr/bin/gdb",
    "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libgmp.so.10",
    "/usr/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
    "/usr/bin/bash", "/usr/bin/make", "/usr/bin/git", "/usr/bin/python3.11",
    "/usr/bin/x86_64-linux-gnu-objdump", "/usr/bin/x86_64-linux-gnu-ld.bfd",
    "/usr/bin/x86_64-linux-gnu-as", "/usr/lib/x86_64-linux-gnu/libz.so.1",
    "/usr/lib/x86_64-linux-gnu/libzstd.so.1", "/usr/lib/x86_64-linux-gnu/liblzma.so.5",
    "/usr/lib/x86_64-linux-gnu/libssl.so.3", "/usr/lib/x86_64-linux-gnu/libglib-2.0.so.0",
    "/usr/lib/x86_64-linux-gnu/libgnutls.so.30", "/usr/lib/x86_64-linux-gnu/libbfd-2.40-system.so",
    "/usr/lib/x86_64-linux-gnu/libpixman-1.so.0", "/usr/lib/x86_64-linux-gnu/libgcrypt.so.20",
    "/usr/lib/x86_64-linux-gnu/libnettle.so.8", "/usr/lib/x86_64-linux-gnu/libisofs.so.6",
    "/usr/lib/x86_64-linux-gnu/libpcre2-8.so.0", "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0",
    "/usr/bin/tar", "/usr/lib/x86_64-linux-gnu/libexpat.so.1",
    "/usr/lib/x86_64-linux-gnu/libsystemd.so.0", "/usr/lib/x86_64-linux-gnu/libzydis.so.4.0",
]


def check(ctx, name, args, min_files=1, min_insns=1):
    binary = os.path.join(ctx.build, "host", "check-decoder")
    proc = subprocess.run([binary] + args, capture_output=True, text=True, timeout=900)
    log = os.path.join(ctx.log_dir, f"decoder.{name}.log")
    os.makedirs(ctx.log_dir, exist_ok=True)
    with open(log, "w") as f:
        f.write(proc.stdout + proc.stderr)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    m = LAST_LINE.match(last)
    if not m:
        ctx.result(name, False, f"last line '{last}' (log: {log})")
        return
    insns, files, mismatches = (int(x) for x in m.groups())
    ctx.result(f"{name}/no-mismatches", mismatches == 0 and proc.returncode == 0,
               f"{last} (log: {log})")
    ctx.result(f"{name}/coverage", files >= min_files and insns >= min_insns,
               f"{insns} instructions in {files} files; wanted >= {min_insns} in >= {min_files}")


def job_kernel_image(ctx):
    check(ctx, "kernel", [ctx.kernel_elf], min_insns=10000)


def job_system_binaries(ctx):
    files = [f for f in CANDIDATES if os.path.isfile(f)]
    ctx.result("enough-files", len(files) >= MIN_SYSTEM_FILES,
               f"only {len(files)} of the candidate ELF files exist")
    check(ctx, "system", files, min_files=MIN_SYSTEM_FILES, min_insns=2_000_000)


def job_random_bytes(ctx):
    check(ctx, "random", ["--random", "1", "2048", "--random", "2", "2048"], min_insns=1_000_000)


def job_opcode_sweep(ctx):
    check(ctx, "sweep", ["--sweep"], min_insns=30_000_000)
