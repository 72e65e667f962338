# SPDX-License-Identifier: BSD-2-Clause
"""How Scion boots under QEMU: one place that builds the command line
for `make run`, `make gdb`, the test harness and the benchmarks."""

import os
import re

MAX_CPUS = 8
MIN_MEM_MB = 64
MAX_MEM_MB = 8192

# isa-debug-exit: the guest writes V to port 0xf4 and QEMU exits (V << 1) | 1.
EXIT_TESTS_PASSED = 33
EXIT_TESTS_FAILED = 35
EXIT_PANIC = 37

# The control channel's device (control_channel_arguments).
CHANNEL_VIRTIO = "virtio"
CHANNEL_UART = "uart"
CHANNELS = (CHANNEL_VIRTIO, CHANNEL_UART)
VIRTIO_CHANNEL_PORT = 1         # port 0 is reserved for a virtconsole
VIRTIO_CHANNEL_PORTS = 2


class ConfigError(ValueError):
    """A run option the user gave that Scion cannot boot with."""


def parse_smp(value):
    if not re.fullmatch(r"[0-9]+", str(value)) or not 1 <= int(value) <= MAX_CPUS:
        raise ConfigError(f"SMP={value!r}: give a number of CPUs from 1 to {MAX_CPUS}")
    return int(value)


def parse_mem(value):
    m = re.fullmatch(r"([0-9]+)([MG])", str(value))
    if not m:
        raise ConfigError(f"MEM={value!r}: give a size like 256M or 2G "
                          f"({MIN_MEM_MB}M to {MAX_MEM_MB // 1024}G)")
    mb = int(m.group(1)) * (1024 if m.group(2) == "G" else 1)
    if not MIN_MEM_MB <= mb <= MAX_MEM_MB:
        raise ConfigError(f"MEM={value!r}: Scion boots with {MIN_MEM_MB}M to "
                          f"{MAX_MEM_MB // 1024}G")
    return f"{mb}M"


def disk_arguments(disk, snapshot, readonly=False):
    """-drive/-device for a raw disk image as a modern-only virtio-blk PCI
    device (vda in Scion). snapshot=True keeps every write in a temporary
    overlay and reads the image without QEMU's image lock, so parallel
    boots and one writable `make run` can share the image. readonly=True
    offers the disk read-only (virtio-blk's VIRTIO_BLK_F_RO)."""
    drive = f"file={disk.replace(',', ',,')},if=none,id=disk0,format=raw"
    if snapshot:
        drive += ",snapshot=on,file.locking=off"
    if readonly:
        drive += ",readonly=on"
    return ["-drive", drive, "-device", "virtio-blk-pci,drive=disk0,disable-legacy=on"]


def qemu_command(smp=1, mem="256M", iso=None, kernel=None, cmdline="",
                 single_thread_tcg=False, icount=False, gdb_port=None,
                 disk=None, disk_snapshot=False, modules=(), control_socket=None,
                 disk_readonly=False, channel=CHANNEL_VIRTIO):
    """QEMU argv booting the GRUB ISO (iso=) or the multiboot1 kernel (kernel=).

    The serial console is stdin/stdout; no display, no firmware devices
    but the exit device. single_thread_tcg interleaves vCPUs on one host
    thread (needed for code patching: PLATFORMS.md); icount makes the TSC
    count instructions (implies single-threaded TCG): True, one nanosecond
    each (shift=0, the benchmarks' setting), or a shift N, 2^N ns each, for
    tests that want deterministic time without waiting for it; gdb_port starts the
    machine halted with its gdbstub on that local port; disk attaches a raw
    image as a virtio-blk disk (disk_snapshot: writes are thrown away;
    disk_readonly: offered read-only);
    modules (kernel boots only: the ISO carries its own) are files handed
    to the kernel as multiboot modules, e.g. .graft files; control_socket
    is the path of a UNIX socket QEMU listens on for the control channel
    (kernel/channel/), created anew, carried by the device channel names:
    "virtio" (the default: a virtio-console, kernel/dev/virtio_console.c)
    or "uart" (the second serial port, COM2, the kernel's fallback).
    """
    argv = ["qemu-system-x86_64", "-nodefaults", "-no-user-config", "-display", "none",
            "-machine", "pc", "-cpu", "max",
            "-smp", str(parse_smp(smp)), "-m", parse_mem(mem),
            "-serial", "stdio", "-monitor", "none", "-no-reboot",
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    if icount:
        shift = 0 if icount is True else int(icount)
        argv += ["-icount", f"shift={shift},sleep=off", "-accel", "tcg"]
    elif single_thread_tcg:
        argv += ["-accel", "tcg,thread=single"]
    else:
        argv += ["-accel", "tcg"]
    if iso:
        argv += ["-cdrom", iso, "-boot", "d"]
    elif kernel:
        argv += ["-kernel", kernel]
        if cmdline:
            argv += ["-append", cmdline]
        if modules:
            # QEMU splits -initrd at commas; a comma inside a name is doubled.
            argv += ["-initrd", ",".join(m.replace(",", ",,") for m in modules)]
    else:
        raise ConfigError("nothing to boot: give an ISO or a kernel")
    if disk:
        argv += disk_arguments(disk, disk_snapshot, disk_readonly)
    if control_socket:
        argv += control_channel_arguments(control_socket, channel)
    if gdb_port:
        argv += ["-gdb", f"tcp:127.0.0.1:{gdb_port}", "-S"]
    return argv


def parse_channel(value):
    if value not in CHANNELS:
        raise ConfigError(f"channel={value!r}: give one of {', '.join(CHANNELS)}")
    return value


def control_channel_arguments(path, channel=CHANNEL_UART):
    """The control channel's device backed by a UNIX socket QEMU listens on
    (one client at a time; QEMU does not wait for it). A stale socket file
    is removed first.

    channel "uart": a serial port (COM2 on x86, the second EBus UART on
    sparc64). "virtio": a modern-only virtio-serial PCI device whose port 1
    is a virtserialport: QEMU throttles such a port while the socket is
    full and keeps the guest's bytes, where a virtconsole (port 0) drops
    them; while no client is connected the guest's output is discarded,
    as the UART's is (kernel/dev/virtio_console.c)."""
    if os.path.exists(path):
        os.unlink(path)
    chardev = ["-chardev",
               f"socket,id=control,path={path.replace(',', ',,')},server=on,wait=off"]
    if parse_channel(channel) == CHANNEL_UART:
        return chardev + ["-serial", "chardev:control"]
    return chardev + ["-device", f"virtio-serial-pci,id=control-bus,disable-legacy=on,"
                                 f"max_ports={VIRTIO_CHANNEL_PORTS}",
                      "-device", f"virtserialport,bus=control-bus.0,nr={VIRTIO_CHANNEL_PORT},"
                                 "chardev=control"]


# sparc64 (sun4u under OpenBIOS): ../shared/PLATFORMS.md. Power-off exits 0;
# a panic exits 1 through pvpanic-pci, which must sit on the second PCI
# bridge's bus (sun4u's root bus has no free slot). arch/sparc64/arch.mk
# gives `make run ARCH=sparc64` the same command line.
SPARC64_EXIT_POWEROFF = 0
SPARC64_EXIT_PANIC = 1


def sparc64_qemu_command(kernel, cmdline="", control_socket=None):
    """QEMU argv booting the sparc64 kernel.elf on sun4u, console on stdio.

    control_socket: as qemu_command's, the path of a UNIX socket QEMU
    listens on for the control channel: a second -serial, which sun4u
    puts on the EBus at I/O 0x2f8 (arch/sparc64/channel.c). Giving any
    -serial drops -nographic's default console, so the first one (the
    console UART) is named too."""
    argv = ["qemu-system-sparc64", "-M", "sun4u", "-nographic", "-vga", "none", "-no-reboot",
            "-device", "pvpanic-pci,bus=pciB", "-action", "panic=exit-failure",
            "-kernel", kernel]
    if cmdline:
        argv += ["-append", cmdline]
    if control_socket:
        argv += ["-serial", "mon:stdio"] + control_channel_arguments(control_socket)
    return argv
