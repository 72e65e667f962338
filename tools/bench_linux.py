#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The Linux columns of the system call benchmark (issue 23) and the file
system benchmark (issue 24): Debian's own kernel runs the static binaries
userland/bench_syscalls.c and userland/bench_fs.c in the same QEMU as
Scion's benchmark boots, under -icount shift=0,sleep=off, one boot for
both (bench_syscalls first: its figures stand if the disk part fails).

  1. The kernel: `apt-get download linux-image-amd64` (the metapackage),
     then the linux-image-6.*-amd64 package it depends on, whose
     boot/vmlinuz-* and boot/config-* `dpkg-deb` extracts into
     LINUX_DIR (build/linux/); nothing is installed on the host, the
     packages are deleted, and later runs reuse LINUX_DIR/kernel.json
     without the network (--refresh fetches again). --vmlinuz FILE uses
     a kernel of one's own instead (without modules: no fs column unless
     it has ext2 and virtio-blk built in). The modules ext2 on virtio-blk
     needs (MODULES and their .modinfo depends, followed to the end) go
     to LINUX_DIR/modules/ with a modules.dep written from those fields
     (the package has none: depmod makes it at install).
  2. The initramfs LINUX_DIR/initramfs.cpio (newc, by Debian's cpio):
     /init (userland/bench_linux_init.c), /bench_syscalls,
     /bench_exec_target, /bench_fs, all static musl binaries from USERLAND
     (build/userland/), and /modules/: the modules and /modules/order, a
     load order computed here from modules.dep. The disk:
     LINUX_DIR/fs.img, a fresh ext2 image (mke2fs) as virtio-blk vda.
  3. The boot: qemu/machine.py's command line for Scion's benchmark boots
     (-machine pc -cpu max -smp 1 -m 256M, -icount shift=0,sleep=off,
     which implies single-threaded TCG, -display none -serial stdio
     -nodefaults -no-reboot), -kernel vmlinuz -initrd initramfs.cpio
     -append "console=ttyS0 quiet panic=-1". /init describes the kernel
     (`linux: ...` lines), runs the benchmark and powers off; the console
     is OUT/bench-linux.log, kept whatever happens.
  4. The figures (tools/bench_compare.py parses them, each program's
     output cut at /init's `linux: PROG exit` lines) go with their
     configuration into the "syscalls" and "fs" sections of
     OUT/results.json as the "linux" columns; Scion columns there are kept.

`make bench` runs this as part of tools/bench.py (sections); a
kernel that cannot be fetched leaves the column n/a with a one-line
reason. `make bench-linux` runs it alone:

  tools/bench_linux.py --out build/bench --userland build/userland --linux-dir build/linux
"""

import argparse
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "qemu"))
import harness  # noqa: E402
import bench_compare  # noqa: E402

METAPACKAGE = "linux-image-amd64"
CMDLINE = "console=ttyS0 quiet panic=-1"
PROGRAMS = {"init": "bench_linux_init", "bench_syscalls": "bench_syscalls",
            "bench_exec_target": "bench_exec_target", "bench_fs": "bench_fs"}
# What mounting an ext2 disk on virtio-blk needs of Debian's kernel, whose
# config builds all of it as modules (ext2 only through ext4:
# CONFIG_EXT4_USE_FOR_EXT2); what they depend on is added. crc32c_generic
# is not among ext4's depends (it asks the crypto API for "crc32c", which
# would load it through modprobe, absent here), so it is named.
MODULES = ["virtio", "virtio_ring", "virtio_pci", "virtio_pci_modern_dev",
           "virtio_pci_legacy_dev", "virtio_blk", "crc16", "crc32c_generic", "mbcache", "jbd2",
           "ext4"]
DISK_SIZE_MB = 64           # the fresh ext2 image bench_fs writes on
TIMEOUT = 300               # host seconds for the boot; it takes about 10
SMP, MEM = 1, "256M"


class Unavailable(Exception):
    """There is no Linux kernel or tool to run the column with (one line)."""


class RunError(Exception):
    """The Linux run itself failed (one line, naming the log)."""


def run(argv, cwd=None):
    try:
        return subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    except FileNotFoundError:
        raise Unavailable(f"{argv[0]} is not installed")


def last_line(p):
    lines = [ln for ln in (p.stderr + p.stdout).splitlines() if ln.strip()
             and not ln.startswith("W: ")]
    return lines[-1].strip() if lines else f"exit status {p.returncode}"


def apt_download(package, where):
    """The .deb of package in where (apt-get update once, as root, if apt
    does not know it)."""
    argv = ["apt-get", "-q", "-o", "APT::Sandbox::User=root", "download", package]
    p = run(argv, cwd=where)
    if p.returncode and os.geteuid() == 0:
        run(["apt-get", "-q", "update"])
        p = run(argv, cwd=where)
    debs = glob.glob(os.path.join(where, f"{package}_*.deb"))
    if p.returncode or not debs:
        raise Unavailable(f"cannot fetch Debian's kernel package ({' '.join(argv[-2:])}: "
                          f"{last_line(p)})")
    return debs[0]


def deb_field(deb, field):
    p = run(["dpkg-deb", "-f", deb, field])
    if p.returncode:
        raise Unavailable(f"dpkg-deb cannot read {deb}: {last_line(p)}")
    return p.stdout.strip()


def modinfo(ko):
    """The .modinfo fields of a kernel module file (an ELF64 relocatable):
    {key: value}; "depends" is what modpost found it uses, the same list
    depmod would put into modules.dep."""
    with open(ko, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise Unavailable(f"{ko} is not an ELF64 module (compressed?)")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    sections = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = sections[shstrndx]
    fields = {}
    for name, _type, _flags, _addr, offset, size in sections:
        end = data.index(b"\0", strtab[4] + name)
        if data[strtab[4] + name:end] == b".modinfo":
            for item in data[offset:offset + size].split(b"\0"):
                key, eq, value = item.decode(errors="replace").partition("=")
                if eq:
                    fields.setdefault(key, value)
    return fields


def module_name(path):
    return os.path.basename(path)[:-len(".ko")].replace("-", "_")


def extract(deb, where, members):
    """Extract members (paths as dpkg-deb -c lists them, ./...) of deb into where."""
    names = os.path.join(where, "members")
    with open(names, "w") as f:
        f.write("\n".join(members) + "\n")
    tar = subprocess.run(f"dpkg-deb --fsys-tarfile '{deb}' | tar -x -C '{where}' -T '{names}'",
                         shell=True, capture_output=True, text=True)
    if tar.returncode:
        raise Unavailable(f"cannot extract from {os.path.basename(deb)}: {last_line(tar)}")


def fetch_modules(deb, download, linux_dir):
    """MODULES and what they depend on (their .modinfo's depends, followed
    to the end), extracted from deb into LINUX_DIR/modules/, and
    LINUX_DIR/modules/modules.dep written from those fields in depmod's
    format: Debian's package has no modules.dep (depmod makes it when the
    package is installed). Returns kernel.json's "modules" (paths) and
    "modules_dep" (path)."""
    listing = run(["dpkg-deb", "-c", deb])
    paths = {}
    for line in listing.stdout.splitlines():
        member = line.split()[-1]
        if member.endswith(".ko") and "/lib/modules/" in member:
            paths.setdefault(module_name(member), member)
    want, have, depends = list(MODULES), {}, {}
    while want:
        missing = [m for m in want if m not in paths]
        if missing:
            raise Unavailable(f"{os.path.basename(deb)} has no module {', '.join(missing)} "
                              "(built in? compressed?)")
        extract(deb, download, [paths[m] for m in want])
        for m in want:
            have[m] = os.path.join(download, paths[m])
            named = modinfo(have[m]).get("depends", "").split(",")
            depends[m] = [d.replace("-", "_") for d in named if d]
        want = sorted({d for m in want for d in depends[m]} - set(have))
    out = os.path.join(linux_dir, "modules")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for m, path in have.items():
        shutil.move(path, os.path.join(out, m + ".ko"))
    dep = os.path.join(out, "modules.dep")
    with open(dep, "w") as f:
        for m in sorted(have):
            f.write(f"{m}.ko:" + "".join(f" {d}.ko" for d in depends[m]) + "\n")
    return ([os.path.relpath(os.path.join(out, m + ".ko"), ROOT) for m in sorted(have)],
            os.path.relpath(dep, ROOT))


def load_order(dep_path):
    """The modules of a modules.dep (depmod's format) in an order that loads
    each after everything it depends on (a depth-first topological sort;
    ties in the file's order)."""
    deps = {}
    with open(dep_path) as f:
        for line in f:
            name, _, rest = line.partition(":")
            if name.strip():
                deps[os.path.basename(name.strip())] = [os.path.basename(d) for d in rest.split()]
    order, state = [], {}

    def visit(m, chain):
        if state.get(m) == "done":
            return
        if state.get(m) == "visiting":
            raise Unavailable(f"{dep_path}: a dependency cycle through {' -> '.join(chain)}")
        if m not in deps:
            raise Unavailable(f"{dep_path}: {chain[-2] if len(chain) > 1 else '?'} needs {m}, "
                              "which is not there")
        state[m] = "visiting"
        for d in deps[m]:
            visit(d, chain + [d])
        state[m] = "done"
        order.append(m)

    for m in deps:
        visit(m, [m])
    return order


def fetch_kernel(linux_dir, refresh=False):
    """Debian's kernel, extracted into linux_dir: kernel.json's contents
    (package, version, vmlinuz, config, modules, modules_dep: paths
    relative to the tree). A kernel.json without modules (from before the
    file system rows) fetches again."""
    meta = os.path.join(linux_dir, "kernel.json")
    if not refresh and os.path.exists(meta):
        with open(meta) as f:
            kernel = json.load(f)
        needed = [kernel["vmlinuz"], kernel.get("modules_dep")] + kernel.get("modules", [])
        if (kernel.get("modules") and
                all(p and os.path.exists(os.path.join(ROOT, p)) for p in needed)):
            return kernel
    download = os.path.join(linux_dir, "download")
    shutil.rmtree(download, ignore_errors=True)
    os.makedirs(download)
    try:
        depends = deb_field(apt_download(METAPACKAGE, download), "Depends")
        m = re.search(r"linux-image-[0-9][^ ,]*-amd64", depends)
        if not m:
            raise Unavailable(f"{METAPACKAGE} depends on no linux-image-*-amd64 ({depends})")
        deb = apt_download(m.group(0), download)
        tar = subprocess.run(f"dpkg-deb --fsys-tarfile '{deb}' | tar -x -C '{download}' "
                             "--wildcards './boot/vmlinuz-*' './boot/config-*'",
                             shell=True, capture_output=True, text=True)
        vmlinuz = glob.glob(os.path.join(download, "boot", "vmlinuz-*"))
        if tar.returncode or not vmlinuz:
            raise Unavailable(f"no boot/vmlinuz-* in {os.path.basename(deb)}: {last_line(tar)}")
        boot = os.path.join(linux_dir, "boot")
        shutil.rmtree(boot, ignore_errors=True)
        shutil.move(os.path.join(download, "boot"), boot)
        modules, modules_dep = fetch_modules(deb, download, linux_dir)
        kernel = {"package": deb_field(deb, "Package"), "version": deb_field(deb, "Version"),
                  "vmlinuz": os.path.relpath(glob.glob(os.path.join(boot, "vmlinuz-*"))[0], ROOT),
                  "config": os.path.relpath(glob.glob(os.path.join(boot, "config-*"))[0], ROOT),
                  "modules": modules, "modules_dep": modules_dep,
                  "fetched": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    finally:
        shutil.rmtree(download, ignore_errors=True)
    with open(meta, "w") as f:
        json.dump(kernel, f, indent=2)
        f.write("\n")
    return kernel


def make_initramfs(userland, linux_dir, kernel=None):
    """LINUX_DIR/initramfs.cpio from the static programs in userland and,
    when kernel (kernel.json's contents) has modules, /modules/: them and
    /modules/order, their load order from its modules.dep."""
    if not shutil.which("cpio"):
        raise Unavailable("cpio is not installed (apt-get install cpio)")
    tree = os.path.join(linux_dir, "initramfs")
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    for name, program in PROGRAMS.items():
        src = os.path.join(userland, program)
        if not os.path.exists(src):
            raise Unavailable(f"no {src} (make bench-linux builds it with musl-gcc)")
        shutil.copy(src, os.path.join(tree, name))
        os.chmod(os.path.join(tree, name), 0o755)
    names = ["."] + sorted(PROGRAMS)
    order = []
    if kernel and kernel.get("modules"):
        os.makedirs(os.path.join(tree, "modules"))
        order = load_order(os.path.join(ROOT, kernel["modules_dep"]))
        for ko in order:
            shutil.copy(os.path.join(ROOT, os.path.dirname(kernel["modules_dep"]), ko),
                        os.path.join(tree, "modules", ko))
        with open(os.path.join(tree, "modules", "order"), "w") as f:
            f.write("".join(ko + "\n" for ko in order))
        names += ["modules", "modules/order"] + [f"modules/{ko}" for ko in sorted(order)]
    out = os.path.join(linux_dir, "initramfs.cpio")
    with open(out, "wb") as f:
        p = subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--reproducible", "--quiet"],
                           cwd=tree, input=("\n".join(names) + "\n").encode(), stdout=f,
                           stderr=subprocess.PIPE)
    if p.returncode:
        raise Unavailable(f"cpio failed: {p.stderr.decode(errors='replace').strip()}")
    return out, order


def make_disk(linux_dir):
    """A fresh ext2 image for bench_fs: LINUX_DIR/fs.img (mke2fs, 4 KiB blocks)."""
    mke2fs = shutil.which("mke2fs") or "/usr/sbin/mke2fs"
    path = os.path.join(linux_dir, "fs.img")
    if os.path.exists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.truncate(DISK_SIZE_MB << 20)
    p = run([mke2fs, "-q", "-F", "-t", "ext2", "-b", "4096", path])
    if p.returncode:
        raise Unavailable(f"mke2fs failed: {last_line(p)}")
    return path


def boot(vmlinuz, initramfs, disk, out_dir, timeout=TIMEOUT):
    """Run both benchmarks on Linux: ({kind: figures or the one-line reason
    there are none}, config from the guest, the QEMU command line, the
    log's path, host seconds). bench_syscalls runs first; its figures stand
    whatever happens to the file system part after it."""
    b = harness.Boot("bench-linux", out_dir, timeout=timeout, kernel=vmlinuz, cmdline=CMDLINE,
                     modules=[initramfs], icount=True, smp=SMP, mem=MEM, disk=disk)
    t0 = time.monotonic()
    try:
        b.wait_for(r"linux: bench_fs exit (-?[0-9]+)\n")
        b.finish()                              # /init powers off: QEMU exits by itself
    except harness.BootError as e:
        b.kill()
        if "linux: bench_syscalls exit" not in b.output:
            raise RunError(f"Linux run: {e} (log: {b.log_path})")
    seconds = time.monotonic() - t0
    text = b.output.replace("\r", "")
    # Each program's output: from the end of what came before it to its exit line.
    parts, start = {}, 0
    for kind, prog in (("syscalls", "bench_syscalls"), ("fs", "bench_fs")):
        m = re.compile(rf"^linux: {prog} exit (-?[0-9]+)$", re.M).search(text, start)
        if not m:
            parts[kind] = f"{prog} did not end on Linux (log: {b.log_path})"
            continue
        if m.group(1) != "0":
            setup = re.findall(r"^linux: fs-setup (.*)$", text[start:m.start()], re.M)
            parts[kind] = (f"{prog} exited {m.group(1)} on Linux"
                           f"{' (' + '; '.join(setup) + ')' if setup else ''} (log: {b.log_path})")
        else:
            try:
                parts[kind] = bench_compare.parse(text[start:m.start()], kind)
            except bench_compare.ParseError as e:
                parts[kind] = f"Linux run: {e} (log: {b.log_path})"
        start = m.end()
    if isinstance(parts["syscalls"], str):
        raise RunError(parts["syscalls"])
    guest = {}
    for line in text.splitlines():
        w = line.split(" ", 2)
        if len(w) == 3 and w[0] == "linux:":
            if w[1] == "vulnerability":
                name, _, what = w[2].partition(" ")
                guest.setdefault("vulnerabilities", {})[name] = what
            elif w[1] not in ("bench_syscalls", "bench_fs", "fs-setup"):
                guest[w[1]] = w[2]
    return parts, guest, b.argv, os.path.relpath(b.log_path, ROOT), seconds


def musl_version():
    p = run(["dpkg-query", "-W", "-f", "${Version}", "musl"])
    return f"musl {p.stdout.strip()}" if p.returncode == 0 else "musl"


def linux_columns(userland, linux_dir, out_dir, vmlinuz=None, refresh=False, timeout=TIMEOUT):
    """{kind: (config, figures, log) or the one-line reason there is no
    such column} of the Linux columns ("syscalls", "fs"); raises
    Unavailable or RunError when there is none at all."""
    os.makedirs(linux_dir, exist_ok=True)
    os.makedirs(out_dir, exist_ok=True)
    if vmlinuz:
        kernel = {"package": "(given)", "version": "?", "vmlinuz": vmlinuz}
    else:
        kernel = fetch_kernel(linux_dir, refresh)
        vmlinuz = os.path.join(ROOT, kernel["vmlinuz"])
    initramfs, order = make_initramfs(userland, linux_dir, kernel)
    disk = make_disk(linux_dir)
    parts, guest, argv, log, seconds = boot(vmlinuz, initramfs, disk, out_dir, timeout)
    qemu = subprocess.run([argv[0], "--version"], capture_output=True,
                          text=True).stdout.splitlines()[0]
    flags = " ".join(os.path.basename(a) if a in (vmlinuz, initramfs) else
                     f'"{a}"' if " " in a else a for a in argv[1:])
    flags = flags.replace(disk, os.path.basename(disk))
    config = {
        "kernel": f"Linux {(guest.get('uname', '?').split(' ') + ['?'])[1]} "
                  f"({kernel['package']} {kernel['version']})",
        "package": kernel["package"], "package_version": kernel["version"],
        "uname": guest.get("uname", "?"), "cmdline": guest.get("cmdline", CMDLINE),
        "transparent_hugepage": guest.get("thp", "?"),
        "vulnerabilities": guest.get("vulnerabilities", {}),
        "qemu": qemu, "flags": flags, "qemu_argv": argv,
        "smp": SMP, "mem": MEM, "accel": "tcg, single-threaded (implied by icount)",
        "icount": "shift=0,sleep=off",
        "initramfs": "newc: /init (bench_linux_init), /bench_syscalls, /bench_exec_target, "
                     "/bench_fs" + (", /modules/ (" + " ".join(order) + ")" if order else ""),
        "programs": f"musl-gcc -static -O2 ({musl_version()})",
        "host_seconds": round(seconds, 1),
    }
    columns = {"syscalls": (config, parts["syscalls"], log)}
    if isinstance(parts["fs"], str):
        columns["fs"] = parts["fs"]
    else:
        fs_config = dict(config)
        fs_config.update({
            "disk": f"{os.path.basename(disk)}: a fresh {DISK_SIZE_MB} MiB ext2 image "
                    "(mke2fs -q -F -t ext2 -b 4096), virtio-blk (modern PCI), vda",
            "mount": guest.get("mount", "?"),
            "modules": order,
            "run": "/bench_fs /mnt/bench-fs (a child of /init, after bench_syscalls)",
        })
        columns["fs"] = (fs_config, parts["fs"], log)
    return columns


def sections(userland, linux_dir, out_dir, **kw):
    """The results file's "syscalls" and "fs" sections with their Linux
    columns, or with the reason there is none (printed as one line, never
    fatal: for tools/bench.py)."""
    out = {kind: bench_compare.empty_section(kind) for kind in ("syscalls", "fs")}
    try:
        columns = linux_columns(userland, linux_dir, out_dir, **kw)
    except (Unavailable, RunError) as e:
        columns = {kind: str(e) for kind in out}
    for kind, got in columns.items():
        if isinstance(got, str):
            print(f"bench: no Linux {kind} column: {got}", file=sys.stderr)
            bench_compare.set_unavailable(out[kind], "linux", got)
        else:
            bench_compare.set_system(out[kind], "linux", *got)
    return out["syscalls"], out["fs"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench"),
                    help="the bench directory (results.json, bench-linux.log)")
    ap.add_argument("--userland", default=os.path.join(ROOT, "build", "userland"),
                    help="where the static programs are")
    ap.add_argument("--linux-dir", default=os.path.join(ROOT, "build", "linux"),
                    help="where Debian's kernel and the initramfs go")
    ap.add_argument("--vmlinuz", help="boot this kernel instead of Debian's")
    ap.add_argument("--refresh", action="store_true", help="fetch Debian's kernel again")
    ap.add_argument("--timeout", type=int, default=TIMEOUT, help="host seconds for the boot")
    args = ap.parse_args()
    bench_compare.run_column(
        "bench_linux", "linux", args.out,
        lambda: linux_columns(args.userland, args.linux_dir, args.out, vmlinuz=args.vmlinuz,
                              refresh=args.refresh, timeout=args.timeout),
        (Unavailable, RunError))


if __name__ == "__main__":
    main()
