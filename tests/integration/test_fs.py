# SPDX-License-Identifier: BSD-2-Clause
"""The root file system: build/userland/rootfs.img (ext2, mke2fs -d by
tools/mkrootfs.py) attached as vda is mounted at / at boot; programs run
from it; fs_tree reads back all of /fsdata (5000 files, links, a sparse
file, a 4.5 MiB file) and its digest equals the one computed on the host
from the tree the image was made from, and fs_read gets Linux's answers
(links, ELOOP, ENAMETOOLONG, holes, getdents64 of a thousand entries,
EROFS); the same two programs run on Linux over that tree first, to
check the oracle. With the program archive too, the archive is at
/archive. Damaged images (a bad magic, an inode count or block count
that lies, a block pointer past the end, a directory record of a bad
length, a directory linked into itself) are refused at mount or give
EIO with one line each, and the shell goes on. The file system
benchmark's program (userland/bench_fs.c) prints every row, in the
format tools/bench_compare.py reads, on the host and on Scion's ext2
root (no icount here: the format and the operations, not the figures)."""

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

from common import poweroff, shell_boot

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import mkrootfs  # noqa: E402
import bench_compare  # noqa: E402

PROMPT = r"\nscion> "
DEBUGFS = shutil.which("debugfs") or "/usr/sbin/debugfs"
MKE2FS = shutil.which("mke2fs") or "/usr/sbin/mke2fs"
E2FSCK = shutil.which("e2fsck") or "/usr/sbin/e2fsck"


def run(boot, line, expect=PROMPT, timeout=300):
    start = boot.mark()
    boot.command(line, expect, timeout=timeout)
    return boot.output[start:]


def rootfs(ctx):
    return os.path.join(ctx.userland, "rootfs.img")


def staging(ctx):
    return os.path.join(ctx.userland, "rootfs")


def job_on_linux(ctx):
    """The programs against the image's source tree on the host: the oracle agrees."""
    tree = os.path.join(staging(ctx), "fsdata")
    want, _ = mkrootfs.tree_digest(tree)
    out = subprocess.run([os.path.join(ctx.userland, "fs_tree"), tree, "/fsdata"],
                         capture_output=True, text=True, timeout=120).stdout
    ctx.result("fs_tree-digest", out.strip() == want[0], f"fs_tree on Linux: {out!r}, "
               f"mkrootfs.tree_digest: {want[0]!r}")
    out = subprocess.run([os.path.join(ctx.userland, "fs_read"), os.path.abspath(staging(ctx))],
                         capture_output=True, text=True, timeout=120).stdout
    ctx.result("fs_read", re.search(r"^fs_read: \d+ passed, 0 failed$", out, re.M), out[-1500:])
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([os.path.join(ctx.userland, "fs_write"), tmp], capture_output=True,
                             text=True, timeout=120).stdout
    ctx.result("fs_write", re.search(r"^fs_write: \d+ passed, 0 failed$", out, re.M), out[-1500:])
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([os.path.join(ctx.userland, "fs_writers"), tmp],
                             capture_output=True, text=True, timeout=120).stdout
    ctx.result("fs_writers", re.search(r"^fs_writers: \d+ passed, 0 failed$", out, re.M),
               out[-1500:])
    check = subprocess.run([E2FSCK, "-fn", rootfs(ctx)], capture_output=True, text=True,
                           timeout=120)
    ctx.result("image-checks-clean", check.returncode == 0, check.stdout[-800:])


def job_root(ctx):
    boot = shell_boot(ctx, "root", disk=rootfs(ctx), disk_snapshot=True, timeout=600)
    try:
        ctx.expect("mounted", boot, r"ext2: vda: ext2 'scion-root': 16384 blocks of 4096 bytes")
        ctx.expect("root-line", boot, r"vfs: / is ext2 on vda\n")
        out = run(boot, "run hello from disk")
        ctx.result("hello", "hello: argv[2] = disk" in out, f"{out!r}")
        want, _ = mkrootfs.tree_digest(os.path.join(staging(ctx), "fsdata"))
        out = run(boot, "run fs_tree")
        ctx.result("fs_tree-digest", want[0] in out, f"Scion: {out.strip()!r}, expected "
                   f"{want[0]!r} (log: {boot.log_path})")
        out = run(boot, "run fs_read")
        ctx.result("fs_read", re.search(r"^fs_read: \d+ passed, 0 failed$", out, re.M),
                   f"{out[-1500:]!r}")
        out = run(boot, "mounts")
        ctx.result("mounts", re.search(r"^/ +ext2 +vda +rw$", out, re.M) and
                   re.search(r"inode cache: \d+ cached", out), f"{out!r}")
        out = run(boot, "run nosuch")
        ctx.result("missing-program", "run: /nosuch: ENOENT" in out, f"{out!r}")
    finally:
        poweroff(ctx, boot)


def job_root_and_archive(ctx):
    boot = shell_boot(ctx, "root-and-archive", disk=rootfs(ctx), disk_snapshot=True,
                      programs=True)
    try:
        ctx.expect("archive-line", boot, r"vfs: /archive is the program archive")
        out = run(boot, "run /archive/hello one")
        ctx.result("archive-hello", "hello from user space (argv[0] = /archive/hello)" in out,
                   f"{out!r}")
        out = run(boot, "run fs_read")
        ctx.result("fs_read", re.search(r"^fs_read: \d+ passed, 0 failed$", out, re.M),
                   f"{out[-1500:]!r}")
    finally:
        poweroff(ctx, boot)


def bench_fs_parses(text):
    """(whether text is a complete run of bench_fs with every row, why not)."""
    try:
        figures = bench_compare.parse(text, "fs")
    except bench_compare.ParseError as e:
        return False, str(e)
    return [f["figure"] for f in figures] == bench_compare.FS_ROWS, f"{figures!r}"


def job_bench_fs(ctx):
    """bench_fs on the host (Linux) in a temporary folder, then on Scion in
    /bench-fs of the ext2 root: exit 0, every row, nothing left behind."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([os.path.join(ctx.userland, "bench_fs"), os.path.join(tmp, "b")],
                              capture_output=True, text=True, timeout=120)
        ok, why = bench_fs_parses(proc.stdout)
        ctx.result("linux-rows", proc.returncode == 0 and ok, f"{why}: {proc.stdout[-1500:]!r}")
        left = os.listdir(os.path.join(tmp, "b")) if os.path.isdir(os.path.join(tmp, "b")) else "?"
        ctx.result("linux-cleans-up", left == [], f"{left!r}")
    boot = shell_boot(ctx, "bench-fs", disk=rootfs(ctx), disk_snapshot=True, timeout=600)
    try:
        out = run(boot, "run bench_fs /bench-fs", timeout=500)
        ok, why = bench_fs_parses(out)
        ctx.result("scion-rows", ok, f"{why}: {out[-1500:]!r} (log: {boot.log_path})")
        out = run(boot, "ls /bench-fs")
        ctx.result("scion-cleans-up", "0 entries in /bench-fs" in out or
                   re.search(r"^2 entries in /bench-fs", out, re.M), f"{out!r}")
    finally:
        poweroff(ctx, boot)


def fsck(path):
    """e2fsck -fn's exit status and output."""
    r = subprocess.run([E2FSCK, "-fn", path], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


def run_on_copy(ctx, name, program, after=None, **boot_args):
    """program (a shell `run` line's program) on a copy of the root image,
    then sync and poweroff: its closing line says 0 failed, and e2fsck
    finds nothing to fix. after(boot, path) adds checks while the machine
    runs (after the program) and once it is off (boot.proc ended). The
    copy is removed when everything passed. Returns the boot."""
    path = os.path.join(ctx.log_dir, f"fs-{name}.img")
    os.makedirs(ctx.log_dir, exist_ok=True)
    shutil.copy(rootfs(ctx), path)
    boot = shell_boot(ctx, name, disk=path, disk_snapshot=False, timeout=600, **boot_args)
    try:
        out = run(boot, f"run {program}", timeout=300)
        ctx.result(program, re.search(rf"^{program}: \d+ passed, 0 failed$", out, re.M),
                   f"{out[-1500:]!r} (log: {boot.log_path})")
        if after:
            after(boot, path)
        out = run(boot, "sync")
        ctx.result("sync", "sync:" not in out, f"{out!r}")
    finally:
        poweroff(ctx, boot)
    status, out = fsck(path)
    ctx.result("e2fsck-clean", status == 0 and "Fix?" not in out, out[-1500:])
    if after:
        after(boot, path)
    if all(ok for _, ok, _ in ctx.results):
        os.unlink(path)
    return boot


def write_and_check(ctx, name, cmdline=""):
    """fs_write on a copy of the root image booted with cmdline: e2fsck
    finds nothing to fix and debugfs reads what Scion wrote."""
    def after(boot, path):
        if boot.proc.poll() is None:
            out = run(boot, "ls /fs_write-dir")
            ctx.result("ls", re.search(r"^-rw-r--r-- +5000 keep$", out, re.M) and
                       "8 entries in /fs_write-dir" in out, f"{out!r}")
            return
        keep = subprocess.run([DEBUGFS, "-R", "cat /fs_write-dir/keep", path],
                              capture_output=True, timeout=60).stdout
        ctx.result("debugfs-reads-keep", keep == b"kept\n" * 1000,
                   f"{len(keep)} bytes: {keep[:40]!r}")

    return run_on_copy(ctx, name, "fs_write", after, cmdline=cmdline)


def job_write(ctx):
    """fs_write on Scion's ext2 root (it passed on Linux: test_userland's list
    does not hold it, job_on_linux runs it), with UFS's synchronous
    metadata (the default), checked by e2fsck and debugfs on the host."""
    write_and_check(ctx, "write")


def job_write_all_sync(ctx):
    """The same with ext2sync=all, every metadata write synchronous: the
    mount says so, and the answers and the image are the same."""
    boot = write_and_check(ctx, "write-all-sync", cmdline="ext2sync=all")
    ctx.result("mount-says-all-sync", "every metadata write synchronous (ext2sync=all)" in
               boot.output, f"log: {boot.log_path}")


def job_writers(ctx):
    """fs_writers on 2 CPUs (multi-threaded TCG): four processes write,
    fsync and read back their own files and churn names in one directory
    at once; every answer is right, and e2fsck finds the image clean."""
    run_on_copy(ctx, "writers", "fs_writers", smp=2, single_thread_tcg=False)


def job_disk_full(ctx):
    """fs_fill on a 2 MiB ext2 volume: ENOSPC with nothing written before
    lost, the space back after removing, and the volume clean for e2fsck."""
    path = os.path.join(ctx.log_dir, "fs-full.img")
    tree = path + ".tree"
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    shutil.copy(os.path.join(ctx.userland, "fs_fill"), tree)
    with open(path, "wb") as f:
        f.truncate(2 << 20)
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "1024", "-d", tree, path, "2M"],
                   check=True, capture_output=True, timeout=60)
    shutil.rmtree(tree)
    boot = shell_boot(ctx, "disk-full", disk=path, disk_snapshot=False)
    try:
        out = run(boot, "run fs_fill")
        ctx.result("fs_fill", re.search(r"^fs_fill: \d+ passed, 0 failed$", out, re.M),
                   f"{out[-1500:]!r}")
    finally:
        poweroff(ctx, boot)
    status, out = fsck(path)
    ctx.result("e2fsck-clean", status == 0 and "Fix?" not in out, out[-1500:])
    if all(ok for _, ok, _ in ctx.results):
        os.unlink(path)


def job_squid_small(ctx):
    """The Squid-like proxy at a small scale on the ext2 root: 8 clients
    through poll over non-blocking pipes, a disk cache of 60 files reused
    with O_TRUNC (and with --no-trunc), every response checked by its
    client; the volume stays clean. (The study itself, the profiler's
    drill-down, is `make squid`.)"""
    path = os.path.join(ctx.log_dir, "fs-squid.img")
    shutil.copy(rootfs(ctx), path)
    boot = shell_boot(ctx, "squid", disk=path, disk_snapshot=False, timeout=600)
    line = (r"squid: (\d+) requests, (\d+) memory hits, (\d+) disk hits, (\d+) misses, "
            r"(\d+) opens, (\d+) truncating opens, (\d+) ejections, (\d+) files")
    try:
        for variant, flags in (("trunc", ""), ("no-trunc", " --no-trunc")):
            out = run(boot, f"run squid --clients 8 --requests 20 --disk-files 60 "
                            f"--mem-objects 8 --dir /cache-{variant}{flags}")
            m = re.search(line, out)
            ok = (m and int(m.group(1)) == 160 and int(m.group(2)) + int(m.group(3)) +
                  int(m.group(4)) == 160 and int(m.group(7)) > 0 and int(m.group(8)) == 60 and
                  (int(m.group(6)) == 0) == (variant == "no-trunc") and "exited" not in out)
            ctx.result(f"{variant}", ok, f"{out[-800:]!r}")
    finally:
        poweroff(ctx, boot)
    status, out = fsck(path)
    ctx.result("e2fsck-clean", status == 0 and "Fix?" not in out, out[-1500:])
    if all(ok for _, ok, _ in ctx.results):
        os.unlink(path)


# What a crash may leave, as e2fsck -fn words it: leaks and counts, nothing else.
CRASH_ALLOWED = [
    r"Free (blocks|inodes) count wrong( for group #\d+)? \(\d+, counted=\d+\)\.",
    r"(Block|Inode) bitmap differences: +(-\(?\d+(--\d+)?\)? *)+",
    r"Unattached (zero-length )?inode \d+",
    r"Inode \d+ ref count is \d+, should be \d+\.",
    r"Directories count wrong for group #\d+ \(\d+, counted=\d+\)\.",
]
CRASH_NOISE = re.compile(r"^(Pass \d|e2fsck |Fix\? no|Connect to /lost\+found\? no|Clear\? no|"
                         r"\S+: \d+/\d+ files|\s*$|\S+: \*+ WARNING|"
                         r"Padding at end of|Ignore error\? no|Inode \d+ \(.*\) has invalid)")


def crash_problems(out):
    """The lines of e2fsck's output that are neither progress nor an allowed leak."""
    bad = []
    for line in out.splitlines():
        line = line.strip()
        if CRASH_NOISE.match(line) or any(re.fullmatch(p, line) for p in CRASH_ALLOWED):
            continue
        if line.startswith("Unattached") or line.startswith("Inode") and "ref count" in line:
            continue
        bad.append(line)
    return bad


def crash_bytes(n, size):
    return bytes((n * 131 + j * 7 + (j >> 8)) & 0xff for j in range(size))


def job_crash(ctx):
    """QEMU killed at a random moment of fs_crash's write, fsync, rename
    loop, three times: e2fsck -fn finds only leaks and counts (no block in
    two files, no directory damage), and every file announced as synced
    reads back intact with debugfs."""
    import random
    rng = random.Random(0x5c10a)
    for round_ in range(3):
        path = os.path.join(ctx.log_dir, f"fs-crash-{round_}.img")
        shutil.copy(rootfs(ctx), path)
        boot = shell_boot(ctx, f"crash-{round_}", disk=path, disk_snapshot=False)
        start = boot.mark()
        boot.send("run fs_crash\n")
        try:
            boot.wait_for(r"fs_crash: synced f2 ", start=start, timeout=120)
        except Exception:  # noqa: BLE001 - the result below says what went wrong
            pass
        time.sleep(rng.uniform(0.2, 2.0))
        boot.kill()
        synced = [(int(n), int(size)) for n, size in
                  re.findall(r"fs_crash: synced f(\d+) (\d+)\n", boot.output[start:])]
        ctx.result(f"round{round_}/ran", len(synced) >= 3,
                   f"{len(synced)} files synced before the kill (log: {boot.log_path})")
        status, out = fsck(path)
        bad = crash_problems(out)
        ctx.result(f"round{round_}/only-leaks", not bad, f"e2fsck: {bad[:6]} (image {path})")
        cmds = os.path.join(ctx.log_dir, f"fs-crash-{round_}.cmds")
        dump = os.path.join(ctx.log_dir, f"fs-crash-{round_}.d")
        shutil.rmtree(dump, ignore_errors=True)
        os.makedirs(dump)
        with open(cmds, "w") as f:
            for n, _ in synced:
                f.write(f"dump /crash.d/f{n} {dump}/f{n}\n")
        subprocess.run([DEBUGFS, "-f", cmds, path], capture_output=True, timeout=120)
        wrong = []
        for n, size in synced:
            try:
                with open(os.path.join(dump, f"f{n}"), "rb") as f:
                    data = f.read()
            except OSError:
                data = None
            if data != crash_bytes(n, size):
                wrong.append(f"f{n}: {'missing' if data is None else f'{len(data)} bytes, differs'}")
        ctx.result(f"round{round_}/synced-files-intact", not wrong,
                   f"{len(wrong)} of {len(synced)} synced files wrong: {wrong[:5]}")
        if not bad and not wrong:
            os.unlink(path)
            shutil.rmtree(dump, ignore_errors=True)


# A small image for the damage: a few programs and two directories.
def small_image(ctx, path):
    tree = path + ".tree"
    shutil.rmtree(tree, ignore_errors=True)
    for d in ("d00", "d01", "d02"):
        os.makedirs(os.path.join(tree, "fsdata", d))
        for f in range(3):
            with open(os.path.join(tree, "fsdata", d, f"f{f:04d}"), "w") as out:
                out.write(f"{d} {f}\n" * 100)
    for prog in ("hello", "fs_tree"):
        shutil.copy(os.path.join(ctx.userland, prog), tree)
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "4096", "-L", "small", "-d", tree,
                    path, "4M"], check=True, capture_output=True, timeout=60)
    shutil.rmtree(tree)


def debugfs(path, request):
    out = subprocess.run([DEBUGFS, "-w", "-R", request, path], capture_output=True, text=True,
                         timeout=60)
    return out.stdout + out.stderr


def put(path, offset, fmt, value):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(struct.pack(fmt, value))


def dir_block(path, name):
    out = subprocess.run([DEBUGFS, "-R", f"bmap {name} 0", path], capture_output=True,
                         text=True, timeout=60).stdout
    return int(out.strip().split()[-1])


def job_damaged(ctx):
    base = os.path.join(ctx.log_dir, "fs-small.img")
    os.makedirs(ctx.log_dir, exist_ok=True)
    small_image(ctx, base)
    cases = []

    def case(name, damage, boot_line, command=None, command_expect=None):
        cases.append((name, damage, boot_line, command, command_expect))

    case("bad-magic", lambda p: put(p, 1024 + 56, "<H", 0x1234),
         r"ext2: vda: no ext2 superblock \(magic 0x1234, not 0xef53\)",
         "run hello", r"run: /hello: ENOENT")
    case("inode-count-lies", lambda p: put(p, 1024 + 0, "<I", 99),
         r"ext2: vda: 99 inodes, but 1 groups of \d+")
    case("blocks-past-disk", lambda p: put(p, 1024 + 4, "<I", 2000),
         r"ext2: vda: 2000 blocks of 4096 bytes, but the disk holds 4194304 bytes")
    case("block-size", lambda p: put(p, 1024 + 24, "<I", 6),
         r"ext2: vda: block size 1024 << 6 \(Scion takes 1, 2 and 4 KiB\)")
    case("incompat-feature", lambda p: put(p, 1024 + 96, "<I", 0x42),
         r"ext2: vda: incompatible features 0x40 Scion does not know")
    case("block-pointer", lambda p: debugfs(p, "sif /fsdata/d00/f0001 block[0] 999999"),
         r"vfs: / is ext2 on vda",
         "run fs_tree /fsdata/d00",
         r"ext2: inode \d+: block pointer 0 is 999999 \(of 1024\)[\s\S]*"
         r"fs_tree: lstat /fsdata/d00/f0001: I/O error[\s\S]*"
         r"fs_tree: /fsdata/d00: 2 files")
    case("record-length", lambda p: put(p, dir_block(p, "/fsdata/d01") * 4096 + 4, "<H", 3),
         r"vfs: / is ext2 on vda",
         "run fs_tree /fsdata/d01",
         r"ext2: directory inode \d+ block 0 offset 0: record length 3[\s\S]*"
         r"fs_tree: readdir /fsdata/d01: I/O error")
    case("directory-loop", lambda p: debugfs(p, "link /fsdata /fsdata/d02/up"),
         r"vfs: / is ext2 on vda",
         "run fs_tree /fsdata/d02/up/d02/up/d02/up/d01",
         r"fs_tree: /fsdata/d02/up/d02/up/d02/up/d01: 3 files, 0 directories")

    for name, damage, boot_line, command, command_expect in cases:
        path = os.path.join(ctx.log_dir, f"fs-{name}.img")
        shutil.copy(base, path)
        damage(path)
        boot = shell_boot(ctx, f"damaged-{name}", disk=path, disk_snapshot=True)
        try:
            ctx.expect(f"{name}/boot-line", boot, boot_line)
            if command:
                out = run(boot, command)
                ok = re.search(command_expect, out)
                ctx.result(f"{name}/command", ok, f"{command}: {out!r}")
            out = run(boot, "mounts")
            ctx.result(f"{name}/shell-goes-on", "inode cache:" in out, f"{out!r}")
        finally:
            poweroff(ctx, boot)
        if ctx.results and all(ok for _, ok, _ in ctx.results):
            os.unlink(path)
