# SPDX-License-Identifier: BSD-2-Clause
"""`scion run`: build Scion and boot it in QEMU with the serial console on
this terminal and the control channel on a UNIX socket, the machine the
other subcommands talk to.

It boots the multiboot kernel directly (not the GRUB ISO `make run`
boots), so grafts are passed as QEMU modules and no ISO is built. The
QEMU command line comes from qemu/machine.py, like every other boot.
"""

import argparse
import glob
import os
import socket
import subprocess
import sys

from .client import REPO, ScionError, check_socket_path

BUILD = os.path.join(REPO, "build")


def add_parser(subparsers, default_socket):
    p = subparsers.add_parser(
        "run", help="build Scion and boot it in QEMU, console here, control channel on a socket",
        description="Build the kernel, the grafts and the test disk (make), then boot the "
                    "kernel in QEMU with its serial console on this terminal and the control "
                    "channel (COM2) on a UNIX socket.")
    p.add_argument("--smp", default="1", metavar="N", help="CPUs, 1 to 8 (default 1)")
    p.add_argument("--mem", default="256M", metavar="M", help="memory, 64M to 8G (default 256M)")
    p.add_argument("--graft", action="append", default=[], metavar="FILE",
                   help="a .graft file (or the name of one in grafts/ or grafts/bad/) to boot "
                        "as a module; repeat for more; default: every build/grafts/*.graft")
    p.add_argument("--no-grafts", action="store_true", help="boot no graft modules")
    p.add_argument("--cmdline", default="", metavar="OPTS", help="kernel boot options "
                   "(name=value words; `bootopts` lists them)")
    # SUPPRESS: `scion --socket P run` and `scion run --socket P` both set it.
    p.add_argument("--socket", default=argparse.SUPPRESS,
                   help=f"the control socket to create (default {default_socket})")
    p.add_argument("--no-build", action="store_true", help="boot what build/ holds, build nothing")
    p.set_defaults(fn=run)
    return p


def graft_files(names):
    """Each --graft as a path: a file, or NAME for build/grafts/[bad/]NAME.graft."""
    files = []
    for name in names:
        candidates = [name] + [os.path.join(BUILD, "grafts", sub, name + ".graft")
                               for sub in ("", "bad")]
        found = next((c for c in candidates if os.path.isfile(c)), None)
        if not found:
            raise ScionError(f"no graft {name} (give a .graft file or the name of "
                             "grafts/NAME.c or grafts/bad/NAME.c)")
        files.append(os.path.abspath(found))
    return files


def build():
    targets = ["kernel", "grafts"]
    with open(os.path.join(REPO, "Makefile"), encoding="utf-8") as f:
        makefile = f.read()
    # `make run` attaches the test disk; build it the same way when the Makefile knows it.
    if "DISK := $(BUILD)/disk.img" in makefile:
        targets.append(os.path.join("build", "disk.img"))
    argv = ["make", "-s", "-C", REPO] + targets
    try:
        status = subprocess.call(argv)
    except FileNotFoundError:
        raise ScionError("make is not installed (apt-get install make)") from None
    if status:
        raise ScionError(f"`{' '.join(argv)}` failed (exit status {status})")


def refuse_live_socket(path):
    """QEMU would replace the socket of a Scion still running on it."""
    if not os.path.exists(path):
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        try:
            s.connect(path)
        except OSError:
            return      # stale: nobody listens; QEMU replaces it
    raise ScionError(f"a running Scion already listens on {path}; give another --socket")


def run(args):
    sys.path.insert(0, os.path.join(REPO, "qemu"))
    import machine

    args.socket = os.path.abspath(args.socket)
    check_socket_path(args.socket)
    try:
        machine.parse_smp(args.smp)
        machine.parse_mem(args.mem)
    except machine.ConfigError as e:
        raise ScionError(f"run: {e}") from None
    refuse_live_socket(args.socket)
    if not args.no_build:
        build()
    kernel = os.path.join(BUILD, "kernel32.elf")
    if not os.path.isfile(kernel):
        raise ScionError(f"no kernel at {kernel} (run without --no-build, or `make kernel`)")
    if args.no_grafts:
        modules = []
    elif args.graft:
        modules = graft_files(args.graft)
    else:
        modules = sorted(glob.glob(os.path.join(BUILD, "grafts", "*.graft")))
    disk = os.path.join(BUILD, "disk.img")
    try:
        argv = machine.qemu_command(smp=args.smp, mem=args.mem, kernel=kernel,
                                    cmdline=args.cmdline, modules=modules,
                                    disk=disk if os.path.isfile(disk) else None,
                                    control_socket=args.socket, single_thread_tcg=True)
    except machine.ConfigError as e:
        raise ScionError(f"run: {e}") from None
    print(f"scion: control channel on {args.socket}", file=sys.stderr)
    if sys.stdin.isatty():
        print("scion: serial console on this terminal; Ctrl-C ends QEMU, 'poweroff' shuts "
              "Scion down", file=sys.stderr)
    sys.stderr.flush()
    try:
        os.execvp(argv[0], argv)
    except FileNotFoundError:
        raise ScionError(f"{argv[0]} is not installed (`make deps` installs it)") from None
