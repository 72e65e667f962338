# SPDX-License-Identifier: BSD-2-Clause
"""The block device on the sparc64 port (issue 25): virtio-blk on QEMU's
sun4u, behind Sabre's second PCI bridge (bus=pciB: the root bus is full),
polled (no device interrupts on the port), under the block cache and ext2.

  root_disk     make's sparc64 root image (arch/sparc64/arch.mk: ext2 of
                arch/sparc64/rootfs/ plus numbers.txt, the lines 1..5000)
                attached as a copy: the disk line (its size in sectors and
                MiB, polled), `disk`, ext2 mounted at /, `cat` of each file
                with its exact bytes (numbers.txt spans an indirect block),
                `write` + `sync` of a new file, then power-off: on the host
                the image holds the file with its exact text (debugfs) and
                e2fsck finds the volume clean
  kernel_tests  the sparc64 test kernel with the pattern disk (a snapshot):
                the portable blk_* and bcache_* in-kernel tests run (OK)
                instead of SKIPPED, the x86-only ones skip with a reason;
                again with the disk read-only for bcache_write_read_only_disk
  bad_disks     no disk (no disk line, `disk` says so in one line, `cat`
                refused in one line), a disk of garbage and a truncated ext2
                image (one ext2 line, the shell still answers); never a panic,
                power-off exits 0

OpenBIOS's banner comes before the kernel's first line; the checks look
only at what follows it."""

import os
import re
import shutil
import subprocess

import harness
import machine

import sparc64_build
from common import SUMMARY, TEST_LINE

PROMPT = r"scion> "
SECTOR_BYTES = 512
ROOT_LINES = 5000  # SPARC64_ROOT_LINES in arch/sparc64/arch.mk
GARBAGE_BYTES = 1 << 20
TRUNCATED_BYTES = 64 << 10
# Blk and bcache tests that must run with a disk (the rest may need 2 CPUs).
MUST_PASS = ("blk_read_first_middle_last", "blk_read_spanning_pages",
             "blk_32_requests_in_flight", "blk_concurrent_readers", "blk_resubmit_from_done",
             "blk_refuses_bad_requests", "blk_write_read_back_and_stats",
             "bcache_counts_a_short_sequence", "bcache_write_read_back",
             "bcache_write_dirty_survives_eviction", "bcache_write_errors_reported",
             "bcache_write_flush_thread")


def build(ctx, tests=False, rootfs=False):
    """The sparc64 kernel (tests: the test kernel) and, with rootfs, the root image,
    built under the build folder's lock; returns the kernel or raises."""
    kernel, failure = sparc64_build.build_kernel(ctx, tests=tests)
    if failure:
        raise harness.BootError(f"make ARCH=sparc64 kernel failed:\n    {failure}")
    if rootfs:
        with sparc64_build.kernel_locked(ctx):
            proc = subprocess.run(["make", "--no-print-directory", "ARCH=sparc64",
                                   f"BUILD={sparc64_build.sparc64_build_dir(ctx)}",
                                   "sparc64-rootfs"], cwd=ctx.root, capture_output=True,
                                  text=True, timeout=300)
        if proc.returncode:
            raise harness.BootError(f"make ARCH=sparc64 sparc64-rootfs failed:\n"
                                    f"{proc.stdout}{proc.stderr}")
    return kernel


def disk_argv(kernel, image, cmdline="", snapshot=False, read_only=False):
    """sun4u's QEMU command with image as a virtio-blk disk on pciB."""
    argv = machine.sparc64_qemu_command(kernel, cmdline)
    if image:
        drive = f"file={image},format=raw,if=none,id=vda"
        drive += ",snapshot=on" if snapshot else ""
        drive += ",readonly=on" if read_only else ""
        argv += ["-drive", drive, "-device", "virtio-blk-pci,drive=vda,bus=pciB"]
    return argv


def kernel_output(boot):
    out = boot.output
    start = out.find("Scion ")
    return out[start:] if start >= 0 else ""


def shell(boot, line, until=PROMPT, timeout=30):
    """Type a shell command; what the console said after its echo, up to until."""
    start = boot.mark()
    boot.command(line, until, timeout=timeout)
    out = boot.output[start:]
    echoed = out.find(line)
    out = out[echoed + len(line):] if echoed >= 0 else out
    return out.replace("\r\n", "\n").lstrip("\n")


def before_prompt(text):
    end = text.rfind(PROMPT)
    return text[:end] if end >= 0 else text


def poweroff(ctx, boot, prefix=""):
    try:
        boot.command("poweroff", r"powering off")
    except harness.BootError:
        pass
    boot.finish()
    ctx.result(f"{prefix}poweroff-exit-0", boot.status == machine.SPARC64_EXIT_POWEROFF,
               f"QEMU exit status {boot.status} (log: {boot.log_path})")
    ctx.result(f"{prefix}no-panic", "panic:" not in boot.output, f"panic (log: {boot.log_path})")


def job_root_disk(ctx):
    kernel = build(ctx, rootfs=True)
    build_dir = os.path.join(ctx.root, sparc64_build.sparc64_build_dir(ctx))
    image = os.path.join(build_dir, f"{ctx.job.replace('.', '-')}.img")
    shutil.copyfile(os.path.join(build_dir, "rootfs.img"), image)
    sectors = os.path.getsize(image) // SECTOR_BYTES
    boot = harness.Boot(f"{ctx.job}-boot", ctx.log_dir, timeout=120,
                        argv=disk_argv(kernel, image))
    try:
        boot.wait_for(PROMPT, timeout=60)
        out = kernel_output(boot)
        ctx.result("disk-line", re.search(
            rf"^vda: virtio-blk, {sectors} sectors \({sectors * SECTOR_BYTES >> 20} MiB\); "
            r"pci 02:\d\d\.0, 1 queue of \d+, polled \(no device interrupts\)$", out, re.M)
            is not None, f"no disk line for {sectors} sectors (log: {boot.log_path})")
        ctx.result("root-is-ext2", re.search(r"^vfs: / is ext2 on vda$", out, re.M) is not None,
                   f"root not ext2 on vda (log: {boot.log_path})")
        out = shell(boot, "disk")
        ctx.result("disk-command-size", re.search(
            rf"^vda\s+virtio-blk {sectors} sectors", out, re.M) is not None, repr(out))
        ctx.result("disk-command-no-interrupts", re.search(
            r"reads [1-9]\d* .*interrupts 0, errors 0", out) is not None, repr(out))
        root = os.path.join(ctx.root, "arch", "sparc64", "rootfs")
        for name in ("hello.txt", "etc/motd"):
            with open(os.path.join(root, name)) as f:
                want = f.read()
            got = before_prompt(shell(boot, f"cat /{name}"))
            ctx.result(f"cat-{name}", got == want, f"{got!r} != {want!r}")
        want = "".join(f"{i}\n" for i in range(1, ROOT_LINES + 1))
        got = before_prompt(shell(boot, "cat /numbers.txt", rf"\n{ROOT_LINES}\n{PROMPT}",
                                  timeout=60))
        ctx.result("cat-numbers-exact", got == want,
                   f"{len(got)} bytes, expected {len(want)} (log: {boot.log_path})")
        text = f"written on sparc64 by {ctx.job}"
        out = shell(boot, f"write /note.txt {text}")
        ctx.result("write-note", f"write: /note.txt: {len(text) + 1} bytes" in out, repr(out))
        shell(boot, "sync")
        got = before_prompt(shell(boot, "cat /note.txt"))
        ctx.result("cat-note", got == text + "\n", repr(got))
    finally:
        poweroff(ctx, boot)
    debugfs = shutil.which("debugfs") or "/usr/sbin/debugfs"
    proc = subprocess.run([debugfs, "-R", "cat /note.txt", image], capture_output=True, text=True)
    ctx.result("host-reads-note", proc.stdout == text + "\n",
               f"debugfs: {proc.stdout!r} {proc.stderr[-200:]!r}")
    e2fsck = shutil.which("e2fsck") or "/usr/sbin/e2fsck"
    proc = subprocess.run([e2fsck, "-fn", image], capture_output=True, text=True)
    ctx.result("host-e2fsck-clean", proc.returncode == 0, proc.stdout[-400:] + proc.stderr[-200:])
    os.remove(image)


def run_kernel_tests(ctx, kernel, label, patterns, read_only=False):
    boot = harness.Boot(f"{ctx.job}-{label}", ctx.log_dir, timeout=300,
                        argv=disk_argv(kernel, ctx.disk, f"test={patterns} panic=exit",
                                       snapshot=True, read_only=read_only))
    boot.finish()
    out = kernel_output(boot)
    verdicts = dict(TEST_LINE.findall(out))
    for test, verdict in verdicts.items():
        ok = verdict == "OK" or re.fullmatch(r"SKIPPED \(.+\)", verdict) is not None
        ctx.result(f"{label}/{test}", ok, f"{verdict} (log: {boot.log_path})")
    n_ok = sum(1 for v in verdicts.values() if v == "OK")
    n_failed = sum(1 for v in verdicts.values() if v.startswith("FAILED"))
    summary = SUMMARY.findall(out)
    ctx.result(f"{label}/summary", bool(summary) and summary[-1] == (str(n_ok), str(n_failed)),
               f"summary {summary[-1] if summary else 'missing'} (log: {boot.log_path})")
    ctx.result(f"{label}/exit-0", boot.status == machine.SPARC64_EXIT_POWEROFF,
               f"QEMU exit status {boot.status} (log: {boot.log_path})")
    return verdicts


def job_kernel_tests(ctx):
    if not os.path.exists(ctx.disk):
        raise harness.BootError(f"no pattern disk {ctx.disk} (make builds it)")
    kernel = build(ctx, tests=True)
    verdicts = run_kernel_tests(ctx, kernel, "writable", "blk_*,bcache_*")
    for want in MUST_PASS:
        ctx.result(f"ran/{want}", verdicts.get(want) == "OK", verdicts.get(want, "no line"))
    verdicts = run_kernel_tests(ctx, kernel, "read-only", "bcache_write_read_only_disk",
                                read_only=True)
    ctx.result("ran/bcache_write_read_only_disk",
               verdicts.get("bcache_write_read_only_disk") == "OK",
               verdicts.get("bcache_write_read_only_disk", "no line"))


def one_line(out, pattern):
    """out (a command's answer) is exactly one line matching pattern."""
    lines = before_prompt(out).strip("\n").split("\n")
    return len(lines) == 1 and re.fullmatch(pattern, lines[0]) is not None


def job_bad_disks(ctx):
    kernel = build(ctx, rootfs=True)
    build_dir = os.path.join(ctx.root, sparc64_build.sparc64_build_dir(ctx))
    stem = os.path.join(build_dir, ctx.job.replace(".", "-"))
    garbage, truncated = f"{stem}-garbage.img", f"{stem}-truncated.img"
    with open(garbage, "wb") as f:
        f.write(os.urandom(GARBAGE_BYTES))
    with open(os.path.join(build_dir, "rootfs.img"), "rb") as f, open(truncated, "wb") as out:
        out.write(f.read(TRUNCATED_BYTES))

    # No disk: nothing claims one, the commands that need one say so in one line.
    boot = harness.Boot(f"{ctx.job}-none", ctx.log_dir, timeout=90, argv=disk_argv(kernel, None))
    try:
        boot.wait_for(PROMPT, timeout=60)
        ctx.result("none/no-disk-line", "vda:" not in kernel_output(boot), boot.log_path)
        out = shell(boot, "disk")
        ctx.result("none/disk-one-line", one_line(out, r"disk: no disk \(.+\)"), repr(out))
        out = shell(boot, "cat /hello.txt")
        ctx.result("none/cat-one-line", one_line(out, r"cat: /hello\.txt: E[A-Z]+"), repr(out))
    finally:
        poweroff(ctx, boot, "none/")

    # Garbage and a truncated ext2 image: one ext2 line, the shell still answers.
    for label, image in (("garbage", garbage), ("truncated", truncated)):
        boot = harness.Boot(f"{ctx.job}-{label}", ctx.log_dir, timeout=90,
                            argv=disk_argv(kernel, image, snapshot=True))
        try:
            boot.wait_for(PROMPT, timeout=60)
            out = kernel_output(boot)
            ctx.result(f"{label}/disk-line", re.search(r"^vda: virtio-blk, \d+ sectors", out,
                                                      re.M) is not None, boot.log_path)
            ext2 = re.findall(r"^ext2: vda: .*$", out, re.M)
            ctx.result(f"{label}/one-ext2-line", len(ext2) == 1, f"{ext2} ({boot.log_path})")
            out = shell(boot, "ls /")
            ctx.result(f"{label}/ls-answers", re.search(r"entries in /|ls: /: E[A-Z]+", out)
                       is not None, repr(out))
            out = shell(boot, "cat /hello.txt")
            lines = before_prompt(out).strip("\n").split("\n")
            ctx.result(f"{label}/cat-answers", "panic" not in out and len(lines) <= 1, repr(out))
        finally:
            poweroff(ctx, boot, f"{label}/")
    for path in (garbage, truncated):
        os.remove(path)
