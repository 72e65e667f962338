#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Make Scion's root file system image: an ext2 volume (mke2fs -d, from
Debian's e2fsprogs) holding the user programs at its root, userland/root's
tree (etc/motd), and /fsdata, a generated tree the file system tests read
back: thousands of files of many sizes in twenty directories, a directory
of a thousand entries, files large enough for indirect and double
indirect blocks, a sparse file, hard links, symbolic links (relative,
absolute, chained, dangling, looping), a deep directory chain and a
255-byte name. The same sources give the same image: fixed times, UUID
and hash seed.

    mkrootfs.py --out build/rootfs.img --size 64M --staging build/rootfs \\
                --root userland/root PROGRAM...

tree_digest() is the tests' oracle for what Scion must read back: the
same walk and digest that userland/fs_tree.c prints."""

import argparse
import os
import random
import shutil
import stat
import subprocess
import sys

FIXED_TIME = 1700000000
UUID = "5c10a000-0000-4000-8000-00000000e2f5"
HASH_SEED = "5c10a000-0000-4000-8000-0000000000d1"
DIRS = 20
FILES_PER_DIR = 200
BIG_DIR_ENTRIES = 1000
DEEP = 30
FNV_OFFSET = 0xcbf29ce484222325
FNV_PRIME = 0x100000001b3
MASK = (1 << 64) - 1


def file_bytes(seed, size):
    """Deterministic contents, distinct per file (Python's seeded generator)."""
    return random.Random(seed).randbytes(size)


def file_size(d, f):
    """Mostly small (0 .. 9 KiB), every 50th 60 KiB (the indirect block)."""
    if f % 50 == 49:
        return 60 * 1024 + d
    return (d * 7919 + f * 104729) % 9000


def make_fsdata(top):
    for d in range(DIRS):
        dpath = os.path.join(top, f"d{d:02d}")
        os.makedirs(dpath)
        for f in range(FILES_PER_DIR):
            with open(os.path.join(dpath, f"f{f:04d}"), "wb") as out:
                out.write(file_bytes(d * 1000 + f, file_size(d, f)))
    big = os.path.join(top, "bigdir")
    os.makedirs(big)
    for i in range(BIG_DIR_ENTRIES):
        with open(os.path.join(big, f"entry-with-a-longer-name-{i:05d}"), "wb") as out:
            out.write(b"%d\n" % i)
    # 4.5 MiB: past the 12 direct and 1024 single-indirect blocks of 4 KiB.
    with open(os.path.join(top, "large"), "wb") as out:
        out.write(file_bytes(7, (4 << 20) + (512 << 10) + 123))
    with open(os.path.join(top, "sparse"), "wb") as out:
        out.write(b"head")
        out.seek(3 << 20)
        out.write(b"middle")
        out.truncate(5 << 20)
    os.link(os.path.join(top, "d00", "f0001"), os.path.join(top, "hardlink"))
    os.symlink("d01/f0002", os.path.join(top, "rel-link"))
    os.symlink("/fsdata/d02/f0003", os.path.join(top, "abs-link"))
    os.symlink("rel-link", os.path.join(top, "chain-link"))
    os.symlink("../fsdata/d03", os.path.join(top, "dir-link"))
    os.symlink("nowhere", os.path.join(top, "dangling-link"))
    os.symlink("loop-b", os.path.join(top, "loop-a"))
    os.symlink("loop-a", os.path.join(top, "loop-b"))
    os.symlink("x" * 200 + "/" + "y" * 100, os.path.join(top, "long-link"))
    deep = top
    for i in range(DEEP):
        deep = os.path.join(deep, f"level{i:02d}")
    os.makedirs(deep)
    with open(os.path.join(deep, "bottom"), "wb") as out:
        out.write(b"the bottom of the deep chain\n")
    with open(os.path.join(top, "n" * 255), "wb") as out:
        out.write(b"a 255-byte name\n")


def tree_digest(top, rel="/fsdata"):
    """(lines, digest): the walk userland/fs_tree.c makes of top (called
    rel on Scion): entries in byte order of their names, depth first; per
    entry, FNV-1a 64 over its type letter, its path, its size and its
    contents (a file) or target (a link); the digest folds them all."""
    lines = []
    total = FNV_OFFSET

    def fnv(h, data):
        for b in data:
            h = ((h ^ b) * FNV_PRIME) & MASK
        return h

    counts = {"f": 0, "d": 0, "l": 0, "bytes": 0}

    def walk(path, name):
        nonlocal total
        for entry in sorted(os.listdir(path), key=os.fsencode):
            full = os.path.join(path, entry)
            shown = name + "/" + entry
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                kind, body = "l", os.fsencode(os.readlink(full))
            elif stat.S_ISDIR(st.st_mode):
                kind, body = "d", b""
            else:
                kind = "f"
                with open(full, "rb") as f:
                    body = f.read()
            size = len(body)
            h = fnv(FNV_OFFSET, kind.encode() + os.fsencode(shown) + b"\0" +
                    str(size).encode() + b"\0" + body)
            total = fnv(total, h.to_bytes(8, "little"))
            counts[kind] += 1
            counts["bytes"] += size if kind == "f" else 0
            if kind == "d":
                walk(full, shown)
    walk(top, rel)
    lines.append(f"fs_tree: {rel}: {counts['f']} files, {counts['d']} directories, "
                 f"{counts['l']} links, {counts['bytes']} bytes, digest {total:016x}")
    return lines, total


def fix_times(top):
    for dirpath, dirnames, filenames in os.walk(top, topdown=False):
        for n in filenames + dirnames:
            os.utime(os.path.join(dirpath, n), (FIXED_TIME, FIXED_TIME), follow_symlinks=False)
    os.utime(top, (FIXED_TIME, FIXED_TIME))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--size", default="64M")
    ap.add_argument("--staging", required=True)
    ap.add_argument("--root", help="a tree copied to the image's root (userland/root)")
    ap.add_argument("programs", nargs="*")
    args = ap.parse_args()

    shutil.rmtree(args.staging, ignore_errors=True)
    os.makedirs(args.staging)
    if args.root and os.path.isdir(args.root):
        shutil.copytree(args.root, args.staging, dirs_exist_ok=True)
    for prog in args.programs:
        shutil.copy(prog, os.path.join(args.staging, os.path.basename(prog)))
        os.chmod(os.path.join(args.staging, os.path.basename(prog)), 0o755)
    make_fsdata(os.path.join(args.staging, "fsdata"))
    fix_times(args.staging)

    tmp = args.out + ".tmp"
    if os.path.exists(tmp):
        os.unlink(tmp)
    env = dict(os.environ, E2FSPROGS_FAKE_TIME=str(FIXED_TIME))
    mke2fs = shutil.which("mke2fs") or "/usr/sbin/mke2fs"
    cmd = [mke2fs, "-q", "-F", "-t", "ext2", "-b", "4096", "-N", "16384", "-L", "scion-root",
           "-U", UUID, "-E", f"hash_seed={HASH_SEED},root_owner=0:0", "-d", args.staging,
           tmp, args.size]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"mkrootfs: {' '.join(cmd)} failed: {r.stderr.strip()}")
    os.replace(tmp, args.out)


if __name__ == "__main__":
    main()
