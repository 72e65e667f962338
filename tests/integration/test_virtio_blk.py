# SPDX-License-Identifier: BSD-2-Clause
"""PCI and the virtio-blk disk through the shell: `pci` lists the disk's
function, `disk read` shows sectors of the test image (tools/mkdisk.py)
with their pattern checked, errors are one line; without a disk the
commands say so and the in-kernel blk_ tests report SKIPPED."""

import re

import machine

from common import PROMPT, TEST_LINE, poweroff, shell_boot

DISK_LINE = r"vda: virtio-blk, 65536 sectors \(32 MiB\)"
PCI_LINE = r"\n00:[0-1][0-9a-f]\.0 1af4:1042 class 01\.00 virtio-blk\n"
SECTOR_5 = (r"vda sector 5: pattern ok\n"
            r"  0000: 53 43 49 4f 4e 42 4c 4b 05 00 00 00 00 00 00 00 SCIONBLK\.{8}\n"
            r"  0010: ab ac ad ae af b0 b1 b2 b3 b4 b5 b6 b7 b8 b9 ba \.{16}\n")


def one_line_error(command, message):
    """The command's echo, then exactly one line (the error), then the prompt."""
    return re.escape(command) + r"\n(" + message + r")\n" + PROMPT


def job_shell_pci_and_disk(ctx):
    boot = shell_boot(ctx, "shell", smp=2)
    try:
        ctx.expect("boot-line", boot, DISK_LINE)
        boot.command("pci", PCI_LINE)
        ctx.result("pci-lists-virtio-blk", True)
        boot.command("pci", r"\n00:00\.0 8086:1237 class 06\.00 [^\n]+\n")
        ctx.result("pci-lists-host-bridge", True)
        boot.command("disk read 5", SECTOR_5)
        ctx.result("disk-read-5", True)
        boot.command("disk read 65534 2", r"vda sector 65534: pattern ok\n(.*\n){4}"
                     r"vda sector 65535: pattern ok\n")
        ctx.result("disk-read-last-two", True)
        errors = [
            ("beyond-end", "disk read 999999999",
             r"disk: sector 999999999 is beyond the end of vda \(65536 sectors\)"),
            ("past-end", "disk read 65535 2",
             r"disk: sectors 65535\.\.65536 run past the end of vda \(65536 sectors\)"),
            ("bad-number", "disk read five", r"disk: 'five' is not a sector number"),
            ("zero-count", "disk read 5 0", r"disk: count 0: read 1 to 64 sectors at a time"),
            ("usage", "disk write 5", r"disk: usage: disk \[read SECTOR \[COUNT\]\]"),
            ("pci-bad-address", "pci 00:zz.0", r"pci: '00:zz\.0' is not a PCI address like 00:02\.0"),
        ]
        for label, command, message in errors:
            boot.command(command, one_line_error(command, message))
            ctx.result(f"one-line-error-{label}", True)
        boot.command("disk", r"vda  virtio-blk 65536 sectors \(32 MiB\)\n"
                     r"     reads [1-9]\d* \(\d+ sectors\), writes 0 \(0 sectors\), interrupts [1-9]\d*, "
                     r"errors 0\n")
        ctx.result("disk-stats", True)
        boot.command("pci 00:02.0", r"driver virtio-blk\n(.*\n)*  capability at 0x[0-9a-f]+: "
                     r"id 0x11 \(MSI-X\)")
        ctx.result("pci-detail-msix", True)
    finally:
        poweroff(ctx, boot)


def job_grub_iso_with_disk(ctx):
    """The way `make run` boots: GRUB ISO, the disk attached."""
    boot = shell_boot(ctx, "iso", iso=ctx.iso, kernel=None)
    try:
        ctx.expect("boot-line", boot, DISK_LINE)
        boot.command("disk read 5", SECTOR_5)
        ctx.result("disk-read-5", True)
    finally:
        poweroff(ctx, boot)


def job_without_disk(ctx):
    boot = shell_boot(ctx, "no-disk", disk=None)
    try:
        ctx.result("no-disk-line", "vda:" not in boot.output, f"vda without a disk (log: {boot.log_path})")
        boot.command("disk", one_line_error("disk", r"disk: no disk \([^\n]*\)"))
        ctx.result("disk-says-no-disk", True)
        boot.command("disk read 5", one_line_error("disk read 5", r"disk: no disk \([^\n]*\)"))
        ctx.result("disk-read-says-no-disk", True)
        start = boot.mark()
        boot.command("pci", r"00:00\.0 [^\n]+\n(.*\n)*" + PROMPT)
        ctx.result("pci-without-virtio", "1af4:" not in boot.output[start:],
                   f"a virtio function listed without a disk (log: {boot.log_path})")
    finally:
        poweroff(ctx, boot)

    tests = ctx.boot("no-disk-tests", disk=None, cmdline="test=blk_* panic=exit", timeout=120)
    tests.finish()
    lines = TEST_LINE.findall(tests.output)
    ctx.result("blk-tests-skipped", lines and all(v.startswith("SKIPPED (no disk vda") for _, v in lines),
               f"{lines} (log: {tests.log_path})")
    ctx.result("blk-tests-exit-status", tests.status == machine.EXIT_TESTS_PASSED,
               f"QEMU exit status {tests.status} (log: {tests.log_path})")
