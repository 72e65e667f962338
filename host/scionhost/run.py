# SPDX-License-Identifier: BSD-2-Clause
"""`scion run`: build Scion and boot it in QEMU with the serial console on
this terminal and the control channel on a UNIX socket, the machine the
other subcommands talk to; `make run` and `make gdb` use it too.

By default it boots the multiboot kernel directly, so grafts are passed
as QEMU modules and no ISO is built; with --iso (what `make run` does)
it boots the GRUB ISO. The QEMU command line comes from
qemu/machine.py, like every other boot.
"""

import argparse
import glob
import os
import shutil
import socket
import subprocess
import sys
import time

from .client import REPO, ScionError, check_socket_path

BUILD = os.path.join(REPO, "build")


def add_parser(subparsers, default_socket):
    p = subparsers.add_parser(
        "run", help="build Scion and boot it in QEMU, console here, control channel on a socket",
        description="Build the kernel, the grafts and the test disk (make), then boot the "
                    "kernel in QEMU with its serial console on this terminal (or a pipe) and the "
                    "control channel (a virtio-console, or COM2 with --channel uart) on a UNIX "
                    "socket. `make run` and `make gdb` boot the GRUB ISO through this command "
                    "(--iso).")
    p.add_argument("--smp", default="1", metavar="N", help="CPUs, 1 to 8 (default 1)")
    p.add_argument("--mem", default="256M", metavar="M", help="memory, 64M to 8G (default 256M)")
    p.add_argument("--graft", action="append", default=[], metavar="FILE",
                   help="a .graft file (or the name of one in grafts/ or grafts/bad/) to boot "
                        "as a module; repeat for more; default: every build/grafts/*.graft")
    p.add_argument("--no-grafts", action="store_true", help="boot no graft modules")
    p.add_argument("--profile-config", action="append", default=[], metavar="FILE",
                   help="a profile configuration (profile-DAY.cfg of `scion analyze "
                        "nightly`) to boot as a module: the monitor loads it at boot")
    p.add_argument("--programs", action="append", default=[], metavar="FILE",
                   help="a program archive (a cpio newc file whose name ends in .cpio) to boot "
                        "as a module: the programs user processes run and the shell's ls "
                        "lists; default: build/userland/programs.cpio when it is built")
    p.add_argument("--no-programs", action="store_true", help="boot no program archive")
    p.add_argument("--cmdline", default="", metavar="OPTS", help="kernel boot options "
                   "(name=value words; `bootopts` lists them)")
    # SUPPRESS: `scion --socket P run` and `scion run --socket P` both set it.
    p.add_argument("--socket", default=argparse.SUPPRESS,
                   help=f"the control socket to create (default {default_socket})")
    p.add_argument("--no-build", action="store_true", help="boot what build/ holds, build nothing")
    p.add_argument("--iso", metavar="FILE", help="boot this GRUB ISO (its grub.cfg names the "
                   "grafts and options) instead of the kernel directly")
    p.add_argument("--disk", metavar="FILE", help="raw disk image attached writable as "
                   "virtio-blk vda (default build/disk.img when it exists)")
    p.add_argument("--disk-snapshot", action="store_true",
                   help="attach the disk as a snapshot: the guest's writes are discarded")
    p.add_argument("--tcg", default="single", metavar="single|multi",
                   help="single: vCPUs share one host thread, which code patching needs "
                        "(PLATFORMS.md; default); multi: a thread per vCPU, faster")
    p.add_argument("--channel", default="virtio", metavar="virtio|uart",
                   help="the control channel's device: virtio, a virtio-console (default), "
                        "or uart, the 16550 on COM2 (the kernel's fallback)")
    p.add_argument("--gdb", action="store_true", help="start halted with QEMU's gdbstub and "
                   "attach gdb (with --kernel-symbols)")
    p.add_argument("--kernel-symbols", metavar="ELF", help="the ELF gdb reads symbols from "
                   "(default build/kernel.elf)")
    p.add_argument("--check", action="store_true", help="only check the options")
    # `make run` passes its own name, so its errors read "make run: ...".
    p.add_argument("--caller", default=None, help=argparse.SUPPRESS)
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


def profile_config_files(names):
    """Each --profile-config as an absolute path; the kernel knows a
    configuration module by its name's ".cfg" (kernel/core/boot_module.c)."""
    files = []
    for name in names:
        if not os.path.isfile(name):
            raise ScionError(f"no profile configuration {name}")
        if not name.endswith(".cfg"):
            raise ScionError(f"{name}: a profile configuration's name ends in .cfg "
                             "(the kernel takes other modules for grafts)")
        files.append(os.path.abspath(name))
    return files


def program_archives(names, no_programs):
    """Each --programs as an absolute path, or the built archive when there
    is one; the kernel knows a program archive by its name's ".cpio"
    (kernel/core/boot_module.c)."""
    if no_programs:
        if names:
            raise ScionError("--programs and --no-programs contradict each other")
        return []
    if not names:
        default = os.path.join(BUILD, "userland", "programs.cpio")
        return [default] if os.path.isfile(default) else []
    files = []
    for name in names:
        if not os.path.isfile(name):
            raise ScionError(f"no program archive {name} (`make userland` builds "
                             "build/userland/programs.cpio)")
        if not name.endswith(".cpio"):
            raise ScionError(f"{name}: a program archive's name ends in .cpio "
                             "(the kernel takes other modules for grafts)")
        files.append(os.path.abspath(name))
    return files


def build():
    targets = ["kernel", "grafts"]
    with open(os.path.join(REPO, "Makefile"), encoding="utf-8") as f:
        makefile = f.read()
    # The program archive, when the Makefile builds one.
    if "include userland/userland.mk" in makefile:
        targets.append("userland")
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
    try:
        return boot(args)
    except ScionError as e:
        if args.caller:
            sys.exit(f"{args.caller}: {e}")
        raise ScionError(f"run: {e}") from None


def boot(args):
    sys.path.insert(0, os.path.join(REPO, "qemu"))
    import machine

    args.socket = os.path.abspath(args.socket)
    try:
        machine.parse_smp(args.smp)
        machine.parse_mem(args.mem)
        if args.tcg not in ("single", "multi"):
            raise machine.ConfigError(f"TCG={args.tcg}: use single or multi")
        machine.parse_channel(args.channel)
    except machine.ConfigError as e:
        raise ScionError(str(e)) from None
    if args.check:
        return 0
    check_socket_path(args.socket)
    refuse_live_socket(args.socket)
    if not args.no_build:
        build()
    kernel = None
    modules = []
    if args.iso:
        if args.profile_config:
            raise ScionError("--profile-config boots a module, which an ISO names in its "
                             "grub.cfg: give it without --iso")
        if args.programs:
            raise ScionError("--programs boots a module, which an ISO names in its "
                             "grub.cfg (make iso PROGRAMS=...): give it without --iso")
        if not os.path.isfile(args.iso):
            raise ScionError(f"no ISO at {args.iso} (`make iso` builds it)")
    else:
        kernel = os.path.join(BUILD, "kernel32.elf")
        if not os.path.isfile(kernel):
            raise ScionError(f"no kernel at {kernel} (run without --no-build, or `make kernel`)")
        if args.graft:
            modules = graft_files(args.graft)
        elif not args.no_grafts:
            modules = sorted(glob.glob(os.path.join(BUILD, "grafts", "*.graft")))
        modules += profile_config_files(args.profile_config)
        modules += program_archives(args.programs, args.no_programs)
    disk = args.disk or os.path.join(BUILD, "disk.img")
    if args.disk and not os.path.isfile(disk):
        raise ScionError(f"disk image {disk} does not exist")
    port = free_port() if args.gdb else None
    try:
        argv = machine.qemu_command(smp=args.smp, mem=args.mem, iso=args.iso, kernel=kernel,
                                    cmdline=args.cmdline, modules=modules,
                                    disk=disk if os.path.isfile(disk) else None,
                                    disk_snapshot=args.disk_snapshot, gdb_port=port,
                                    control_socket=args.socket, channel=args.channel,
                                    single_thread_tcg=args.tcg == "single")
    except machine.ConfigError as e:
        raise ScionError(str(e)) from None
    print(f"scion: control channel on {args.socket} (e.g. host/scion --socket "
          f"{args.socket} status)", file=sys.stderr)
    if args.gdb:
        return run_gdb(argv, port, args.kernel_symbols or os.path.join(BUILD, "kernel.elf"))
    if sys.stdin.isatty():
        print("scion: serial console on this terminal; Ctrl-C ends QEMU, 'poweroff' shuts "
              "Scion down", file=sys.stderr)
    sys.stderr.flush()
    try:
        os.execvp(argv[0], argv)
    except FileNotFoundError:
        raise ScionError(f"{argv[0]} is not installed (`make deps` installs it)") from None


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


def run_gdb(argv, port, symbols):
    """QEMU halted with its gdbstub; gdb attached with symbols, stopping at kernel_main."""
    if not shutil.which("gdb"):
        raise ScionError("gdb is not installed (apt-get install gdb)")
    qemu = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
    if not wait_for_port(port, qemu):
        qemu.kill()
        raise ScionError("QEMU did not open its gdbstub")
    print(f"scion: QEMU halted with its gdbstub on 127.0.0.1:{port}; the serial console "
          "prints here", file=sys.stderr)
    gdb = ["gdb", "-q", symbols,
           "-ex", "set architecture i386:x86-64",
           "-ex", f"target remote 127.0.0.1:{port}",
           "-ex", "hbreak kernel_main",
           "-ex", "echo Scion is halted before the firmware; 'continue' boots to kernel_main.\\n"]
    try:
        return subprocess.call(gdb)
    finally:
        qemu.terminate()
        qemu.wait()
