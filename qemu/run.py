#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""`make run` and `make gdb`: boot Scion in QEMU with the serial console
on this terminal (or on a pipe: scripts drive it that way)."""

import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import machine  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--iso")
    ap.add_argument("--check", action="store_true", help="only check the options")
    ap.add_argument("--smp", default="1")
    ap.add_argument("--mem", default="256M")
    ap.add_argument("--gdb", action="store_true", help="start halted with the gdbstub on :1234")
    ap.add_argument("--kernel-symbols", help="ELF with symbols for gdb")
    args = ap.parse_args()
    try:
        machine.parse_smp(args.smp)
        machine.parse_mem(args.mem)
        if args.check:
            return
        argv = machine.qemu_command(smp=args.smp, mem=args.mem, iso=args.iso, gdb=args.gdb)
    except machine.ConfigError as e:
        sys.exit(f"make run: {e}")
    if not args.gdb:
        if sys.stdin.isatty():
            print("scion: serial console on this terminal; Ctrl-C ends QEMU, "
                  "'poweroff' shuts Scion down", file=sys.stderr)
        os.execvp(argv[0], argv)
    if not shutil.which("gdb"):
        sys.exit("make gdb: gdb is not installed (apt-get install gdb)")
    qemu = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
    print("scion: QEMU halted with its gdbstub on localhost:1234; serial output follows "
          "QEMU's stdout", file=sys.stderr)
    gdb = ["gdb", "-q", args.kernel_symbols,
           "-ex", "set architecture i386:x86-64",
           "-ex", "target remote localhost:1234",
           "-ex", "hbreak kernel_main",
           "-ex", "echo Scion is halted before the firmware; 'continue' boots to kernel_main.\\n"]
    try:
        code = subprocess.call(gdb)
    finally:
        qemu.terminate()
        qemu.wait()
    sys.exit(code)


if __name__ == "__main__":
    main()
