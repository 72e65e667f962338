#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The Scion columns of the system call benchmark (issue 23) and the file
system benchmark (issue 24): the static binaries userland/bench_syscalls.c
and userland/bench_fs.c, the same ones tools/bench_linux.py runs on
Debian's Linux, run on Scion in the same QEMU configuration, one boot
each (KINDS).

  1. The boot: KERNEL (make bench gives the test kernel) with the program
     archive USERLAND/programs.cpio as a module, one CPU, 256M,
     -icount shift=0,sleep=off (single-threaded TCG), the control channel
     on OUT/bench-syscalls-scion.sock (bench_boot.py; the console log is
     OUT/bench-syscalls-scion.log).
  2. The run: `scion exec bench_syscalls /bench_exec_target` through the
     EXEC op (host/scionhost/execute.py), its output sent back over the
     channel every EXEC_SWITCH_MS (a long interval: the channel's output
     thread wakes seldom while the program measures) and kept in
     OUT/bench-syscalls-scion.out; it must exit 0.
  3. The figures: tools/bench_compare.py parses that output, and the
     column goes into the "syscalls" section of OUT/results.json as
     "scion", a Linux column there kept.
  4. The file system rows the same way, on a boot of their own whose root
     is ext2: USERLAND/rootfs.img attached as vda (disk_snapshot: the
     image is not changed), `scion exec bench_fs /bench-fs` (the program
     is in the root image), the output in OUT/bench-fs-scion.out, the
     column in the "fs" section. A boot of its own because a disk root
     would change where bench_syscalls' execve row reads its target from.

`make bench` runs this as part of tools/bench.py (add_column); alone:

  tools/bench_scion.py --kernel build/test/kernel32.elf --userland build/userland --out build/bench
"""

import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
import bench_boot  # noqa: E402  (sets the import paths of qemu/ and host/)
import bench_compare  # noqa: E402
from scionhost import execute  # noqa: E402
from scionhost.client import ScionError  # noqa: E402

# Per kind of benchmark: the boot's name (its log, socket and output
# files), the program's argv, and whether the root image is attached.
KINDS = {
    "syscalls": {"name": "bench-syscalls-scion", "argv": ["bench_syscalls", "/bench_exec_target"],
                 "disk": False},
    "fs": {"name": "bench-fs-scion", "argv": ["bench_fs", "/bench-fs"], "disk": True},
}
SMP, MEM = 1, "256M"
EXEC_SWITCH_MS = 2000
TIMEOUT = 900               # host seconds for the run; it takes about a minute


class RunError(Exception):
    """The Scion run failed (one line, naming the log)."""


def scion_column(kernel, userland, out_dir, timeout=TIMEOUT, kind="syscalls"):
    """(config, figures, log) of kind's Scion column; raises RunError."""
    name, argv, prog = KINDS[kind]["name"], KINDS[kind]["argv"], KINDS[kind]["argv"][0]
    archive = os.path.join(userland, "programs.cpio")
    if not os.path.exists(archive):
        raise RunError(f"no program archive {archive} (make userland)")
    disk = os.path.join(userland, "rootfs.img") if KINDS[kind]["disk"] else None
    if disk and not os.path.exists(disk):
        raise RunError(f"no root image {disk} (make userland)")
    os.makedirs(out_dir, exist_ok=True)
    out_path = os.path.join(out_dir, name + ".out")
    chunks = []
    b, sock = bench_boot.boot(name, out_dir, kernel=kernel, smp=SMP, mem=MEM, icount=True,
                              modules=[archive], timeout=timeout, disk=disk,
                              disk_snapshot=bool(disk))
    t0 = time.monotonic()
    try:
        with bench_boot.session(b, sock) as c:
            version = bench_boot.kernel_version(c)
            ex = execute.Execution(c, argv, switch_ms=EXEC_SWITCH_MS,
                                   on_output=lambda fd, data: chunks.append(data))
            while not ex.poll(0.5):
                if time.monotonic() - t0 > timeout:
                    raise RunError(f"{prog} did not end within {timeout} s "
                                   f"(log: {b.log_path})")
            status = ex.finish()
    except ScionError as e:
        raise RunError(f"Scion run: {e} (log: {b.log_path})")
    finally:
        bench_boot.power_off(b)
        with open(out_path, "wb") as f:
            f.write(b"".join(chunks))
    seconds = time.monotonic() - t0
    text = b"".join(chunks).decode("utf-8", "replace")
    if execute.exit_status(status) != 0:
        raise RunError(f"{prog} ended with status {execute.exit_status(status)} on "
                       f"Scion (output: {out_path}; log: {b.log_path})")
    try:
        figures = bench_compare.parse(text, kind)
    except bench_compare.ParseError as e:
        raise RunError(f"Scion run: {e} (output: {out_path})")
    qemu = subprocess.run([b.argv[0], "--version"], capture_output=True,
                          text=True).stdout.splitlines()[0]
    flags = " ".join(os.path.basename(a) if a in (kernel, archive) else
                     f'"{a}"' if " " in a else a for a in b.argv[1:])
    if disk:
        flags = flags.replace(disk, os.path.basename(disk))
    config = {
        "kernel": f"Scion {version} ({os.path.relpath(kernel, ROOT)})",
        "qemu": qemu, "flags": flags, "qemu_argv": b.argv,
        "smp": SMP, "mem": MEM, "accel": "tcg, single-threaded (implied by icount)",
        "icount": "shift=0,sleep=off",
        "programs": "build/userland/programs.cpio (musl-gcc -static -O2), a multiboot module",
        "run": "scion exec " + " ".join(argv) + f" (EXEC op, output every {EXEC_SWITCH_MS} ms)",
        "console_log": os.path.relpath(b.log_path, ROOT),
        "host_seconds": round(seconds, 1),
    }
    if disk:
        config["disk"] = (f"{os.path.relpath(disk, ROOT)} (ext2, tools/mkrootfs.py) as vda, "
                          "the root; snapshot=on (writes go to a temporary overlay)")
    return config, figures, os.path.relpath(out_path, ROOT)


def add_column(section, kernel, userland, out_dir, kind="syscalls"):
    """The Scion column into kind's section, or the reason there is none
    (one line on stderr, never fatal: for tools/bench.py)."""
    try:
        config, figures, log = scion_column(kernel, userland, out_dir, kind=kind)
        bench_compare.set_system(section, "scion", config, figures, log)
    except RunError as e:
        print(f"bench: no Scion {kind} column: {e}", file=sys.stderr)
        bench_compare.set_unavailable(section, "scion", str(e))
    return section


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", default=os.path.join(ROOT, "build", "test", "kernel32.elf"),
                    help="the kernel to boot (default: the test kernel, as make bench)")
    ap.add_argument("--userland", default=os.path.join(ROOT, "build", "userland"),
                    help="where programs.cpio is")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench"),
                    help="the bench directory (results.json, the logs)")
    ap.add_argument("--only", choices=sorted(KINDS), help="run one of the benchmarks alone")
    args = ap.parse_args()

    def columns():
        got = {}
        for kind in [args.only] if args.only else KINDS:
            try:
                got[kind] = scion_column(args.kernel, args.userland, args.out, kind=kind)
            except RunError as e:
                got[kind] = str(e)
        return got

    bench_compare.run_column("bench_scion", "scion", args.out, columns, (RunError,))


if __name__ == "__main__":
    main()
