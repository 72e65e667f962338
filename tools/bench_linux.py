#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The Linux column of the system call benchmark (issue 23): Debian's own
kernel runs the static binary userland/bench_syscalls.c in the same QEMU
as Scion's benchmark boots, under -icount shift=0,sleep=off.

  1. The kernel: `apt-get download linux-image-amd64` (the metapackage),
     then the linux-image-6.*-amd64 package it depends on, whose
     boot/vmlinuz-* and boot/config-* `dpkg-deb` extracts into
     LINUX_DIR (build/linux/); nothing is installed on the host, the
     packages are deleted, and later runs reuse LINUX_DIR/kernel.json
     without the network (--refresh fetches again). --vmlinuz FILE uses
     a kernel of one's own instead.
  2. The initramfs LINUX_DIR/initramfs.cpio (newc, by Debian's cpio):
     /init (userland/bench_linux_init.c), /bench_syscalls,
     /bench_exec_target, all static musl binaries from USERLAND
     (build/userland/).
  3. The boot: qemu/machine.py's command line for Scion's benchmark boots
     (-machine pc -cpu max -smp 1 -m 256M, -icount shift=0,sleep=off,
     which implies single-threaded TCG, -display none -serial stdio
     -nodefaults -no-reboot), -kernel vmlinuz -initrd initramfs.cpio
     -append "console=ttyS0 quiet panic=-1". /init describes the kernel
     (`linux: ...` lines), runs the benchmark and powers off; the console
     is OUT/bench-linux.log, kept whatever happens.
  4. The figures (tools/bench_compare.py parses them) go with their
     configuration into the "syscalls" section of OUT/results.json as
     the "linux" column; a Scion column there is kept.

`make bench` runs this as part of tools/bench.py (syscalls_section); a
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
            "bench_exec_target": "bench_exec_target"}
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


def fetch_kernel(linux_dir, refresh=False):
    """Debian's kernel, extracted into linux_dir: kernel.json's contents
    (package, version, vmlinuz, config: paths relative to the tree)."""
    meta = os.path.join(linux_dir, "kernel.json")
    if not refresh and os.path.exists(meta):
        with open(meta) as f:
            kernel = json.load(f)
        if os.path.exists(os.path.join(ROOT, kernel["vmlinuz"])):
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
        kernel = {"package": deb_field(deb, "Package"), "version": deb_field(deb, "Version"),
                  "vmlinuz": os.path.relpath(glob.glob(os.path.join(boot, "vmlinuz-*"))[0], ROOT),
                  "config": os.path.relpath(glob.glob(os.path.join(boot, "config-*"))[0], ROOT),
                  "fetched": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    finally:
        shutil.rmtree(download, ignore_errors=True)
    with open(meta, "w") as f:
        json.dump(kernel, f, indent=2)
        f.write("\n")
    return kernel


def make_initramfs(userland, linux_dir):
    """LINUX_DIR/initramfs.cpio from the static programs in userland."""
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
    out = os.path.join(linux_dir, "initramfs.cpio")
    names = "\n".join(["."] + sorted(PROGRAMS)) + "\n"
    with open(out, "wb") as f:
        p = subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--reproducible", "--quiet"],
                           cwd=tree, input=names.encode(), stdout=f, stderr=subprocess.PIPE)
    if p.returncode:
        raise Unavailable(f"cpio failed: {p.stderr.decode(errors='replace').strip()}")
    return out


def boot(vmlinuz, initramfs, out_dir, timeout=TIMEOUT):
    """Run the benchmark on Linux: (figures, config from the guest, the
    QEMU command line, the log's path)."""
    b = harness.Boot("bench-linux", out_dir, timeout=timeout, kernel=vmlinuz, cmdline=CMDLINE,
                     modules=[initramfs], icount=True, smp=SMP, mem=MEM)
    t0 = time.monotonic()
    try:
        m = b.wait_for(r"linux: bench_syscalls exit (-?[0-9]+)\n")
        b.finish()                              # /init powers off: QEMU exits by itself
    except harness.BootError as e:
        b.kill()
        raise RunError(f"Linux run: {e} (log: {b.log_path})")
    seconds = time.monotonic() - t0
    text = b.output
    if m.group(1) != "0":
        raise RunError(f"bench_syscalls exited {m.group(1)} on Linux (log: {b.log_path})")
    try:
        figures = bench_compare.parse(text)
    except bench_compare.ParseError as e:
        raise RunError(f"Linux run: {e} (log: {b.log_path})")
    guest = {}
    for line in text.splitlines():
        w = line.split(" ", 2)
        if len(w) == 3 and w[0] == "linux:":
            if w[1] == "vulnerability":
                name, _, what = w[2].partition(" ")
                guest.setdefault("vulnerabilities", {})[name] = what
            elif w[1] != "bench_syscalls":
                guest[w[1]] = w[2]
    return figures, guest, b.argv, os.path.relpath(b.log_path, ROOT), seconds


def musl_version():
    p = run(["dpkg-query", "-W", "-f", "${Version}", "musl"])
    return f"musl {p.stdout.strip()}" if p.returncode == 0 else "musl"


def linux_column(userland, linux_dir, out_dir, vmlinuz=None, refresh=False, timeout=TIMEOUT):
    """(config, figures, log) of the Linux column; raises Unavailable or RunError."""
    os.makedirs(linux_dir, exist_ok=True)
    os.makedirs(out_dir, exist_ok=True)
    if vmlinuz:
        kernel = {"package": "(given)", "version": "?", "vmlinuz": vmlinuz}
    else:
        kernel = fetch_kernel(linux_dir, refresh)
        vmlinuz = os.path.join(ROOT, kernel["vmlinuz"])
    initramfs = make_initramfs(userland, linux_dir)
    figures, guest, argv, log, seconds = boot(vmlinuz, initramfs, out_dir, timeout)
    qemu = subprocess.run([argv[0], "--version"], capture_output=True,
                          text=True).stdout.splitlines()[0]
    flags = " ".join(os.path.basename(a) if a in (vmlinuz, initramfs) else
                     f'"{a}"' if " " in a else a for a in argv[1:])
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
        "initramfs": "newc: /init (bench_linux_init), /bench_syscalls, /bench_exec_target",
        "programs": f"musl-gcc -static -O2 ({musl_version()})",
        "host_seconds": round(seconds, 1),
    }
    return config, figures, log


def syscalls_section(userland, linux_dir, out_dir, **kw):
    """The results file's "syscalls" section with the Linux column, or with
    the reason there is none (printed as one line, never fatal: for
    tools/bench.py)."""
    section = bench_compare.empty_section()
    try:
        config, figures, log = linux_column(userland, linux_dir, out_dir, **kw)
        bench_compare.set_system(section, "linux", config, figures, log)
    except (Unavailable, RunError) as e:
        print(f"bench: no Linux column: {e}", file=sys.stderr)
        bench_compare.set_unavailable(section, "linux", str(e))
    return section


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
        lambda: linux_column(args.userland, args.linux_dir, args.out, vmlinuz=args.vmlinuz,
                             refresh=args.refresh, timeout=args.timeout),
        (Unavailable, RunError))


if __name__ == "__main__":
    main()
