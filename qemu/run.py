#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""`make run` and `make gdb`: boot Scion in QEMU with the serial console
on this terminal (or on a pipe: scripts drive it that way)."""

import argparse
import os
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import machine  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, proc, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--iso")
    ap.add_argument("--check", action="store_true", help="only check the options")
    ap.add_argument("--smp", default="1")
    ap.add_argument("--mem", default="256M")
    ap.add_argument("--tcg", default="single",
                    help="single: vCPUs share one host thread, safe for probes (default); "
                         "multi: one thread per vCPU, faster, but see PLATFORMS.md before patching code")
    ap.add_argument("--gdb", action="store_true", help="start halted with the gdbstub, attach gdb")
    ap.add_argument("--kernel-symbols", help="ELF with symbols for gdb")
    ap.add_argument("--disk", help="raw disk image attached writable as virtio-blk (vda)")
    ap.add_argument("--control-socket",
                    help="UNIX socket for the control channel (COM2), for the host command `scion`")
    ap.add_argument("--disk-snapshot", action="store_true",
                    help="attach the disk as a snapshot: the guest's writes are discarded")
    args = ap.parse_args()
    try:
        machine.parse_smp(args.smp)
        machine.parse_mem(args.mem)
        if args.tcg not in ("single", "multi"):
            raise machine.ConfigError(f"TCG={args.tcg}: use single or multi")
        if args.check:
            return
        port = free_port() if args.gdb else None
        if args.disk and not os.path.isfile(args.disk):
            raise machine.ConfigError(f"disk image {args.disk} does not exist")
        argv = machine.qemu_command(smp=args.smp, mem=args.mem, iso=args.iso, gdb_port=port,
                                    single_thread_tcg=args.tcg == "single", disk=args.disk,
                                    disk_snapshot=args.disk_snapshot,
                                    control_socket=args.control_socket)
    except machine.ConfigError as e:
        sys.exit(f"make run: {e}")
    if args.control_socket:
        print(f"scion: control channel on {args.control_socket} "
              f"(e.g. userland/scion --socket {args.control_socket} status)", file=sys.stderr)
    if not args.gdb:
        if sys.stdin.isatty():
            print("scion: serial console on this terminal; Ctrl-C ends QEMU, "
                  "'poweroff' shuts Scion down", file=sys.stderr)
        os.execvp(argv[0], argv)
    if not shutil.which("gdb"):
        sys.exit("make gdb: gdb is not installed (apt-get install gdb)")
    qemu = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
    if not wait_for_port(port, qemu):
        qemu.kill()
        sys.exit("make gdb: QEMU did not open its gdbstub")
    print(f"scion: QEMU halted with its gdbstub on 127.0.0.1:{port}; the serial console "
          "prints here", file=sys.stderr)
    gdb = ["gdb", "-q", args.kernel_symbols,
           "-ex", "set architecture i386:x86-64",
           "-ex", f"target remote 127.0.0.1:{port}",
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
