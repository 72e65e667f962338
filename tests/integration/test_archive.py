# SPDX-License-Identifier: BSD-2-Clause
"""The program archive as the kernel gets it: build/userland/programs.cpio
booted as a module (ctx.boot(..., programs=True)) becomes the file tree
the shell's ls lists -- every program of build/userland at the root,
etc/ with motd; the GRUB ISO carries it too; damaged archives (truncated,
the old portable format, a path with "..") are refused with one line
each at boot, next to a good one that still loads, and never taken for
grafts."""

import os
import re

from common import poweroff, shell_boot

ARCHIVE_LINE = re.compile(r"boot module programs\.cpio: program archive, (\d+) files and "
                          r"(\d+) directories")


def programs(ctx):
    """The programs the archive should hold: every file of build/userland but the archives."""
    return sorted(n for n in os.listdir(ctx.userland)
                  if os.path.isfile(os.path.join(ctx.userland, n)) and "." not in n
                  and n != "selected-names")


def run(boot, line, expect=r"\nscion> "):
    """Type a command; what the console printed up to expect (then the prompt)."""
    start = boot.mark()
    m = boot.command(line, expect)
    return boot.output[start:m.end()]


def check_listing(ctx, boot, prefix=""):
    out = run(boot, "ls", r"\d+ entr(y|ies) in /\nscion> ")
    names = re.findall(r"^[-d][-rwxsStT]{9} +\d+ (\S+)$", out, re.M)
    want = programs(ctx) + ["etc/"]
    missing = sorted(set(want) - set(names))
    ctx.result(prefix + "ls-root", not missing and len(names) == len(want),
               f"ls / listed {names}, expected {sorted(want)} (log: {boot.log_path})")
    pie = re.search(r"^-rwxr-xr-x +(\d+) hello$", out, re.M)
    size = os.path.getsize(os.path.join(ctx.userland, "hello"))
    ctx.result(prefix + "ls-size-and-mode", pie and int(pie.group(1)) == size,
               f"hello listed as {pie.group(0) if pie else 'nothing'}, expected -rwxr-xr-x "
               f"and {size} bytes")
    out = run(boot, "ls /etc", r"\d+ entr(y|ies) in /etc\nscion> ")
    motd = os.path.getsize(os.path.join(ctx.root, "userland", "root", "etc", "motd"))
    ctx.result(prefix + "ls-etc", re.search(rf"^-rw-r--r-- +{motd} motd$", out, re.M) and
               "1 entry in /etc" in out, f"ls /etc: {out!r}")


def job_ls(ctx):
    boot = shell_boot(ctx, "ls", programs=True)
    try:
        m = ARCHIVE_LINE.search(boot.output)
        ctx.result("loaded-line", m and int(m.group(1)) == len(programs(ctx)) + 1 and
                   m.group(2) == "2", f"{m.group(0) if m else 'no archive line'}: expected "
                   f"{len(programs(ctx)) + 1} files (the programs and motd) and 2 directories "
                   f"(. and etc) (log: {boot.log_path})")
        ctx.result("not-a-graft", not re.search(r"graft.*programs\.cpio", boot.output),
                   "the graft loader looked at programs.cpio")
        check_listing(ctx, boot)
        out = run(boot, "ls /etc/motd")
        ctx.result("ls-file", re.search(r"^-rw-r--r-- +\d+ /etc/motd$", out, re.M), repr(out))
        out = run(boot, "ls /nothing")
        ctx.result("ls-missing", "ls: /nothing: ENOENT" in out, repr(out))
    finally:
        poweroff(ctx, boot)


def damaged(ctx):
    """Three damaged archives next to the log, each named for what is wrong."""
    with open(ctx.programs_archive, "rb") as f:
        good = f.read()
    os.makedirs(ctx.log_dir, exist_ok=True)
    files = {}
    files["truncated"] = good[:len(good) // 2]
    files["odc"] = b"070707" + good[6:]
    # Rename the entry etc/motd (its name right after a 110-byte header, not the
    # string inside a program) to ../motdx in place: the same length.
    at = good.find(b"etc/motd\0")
    while at >= 0 and good[at - 110:at - 104] != b"070701":
        at = good.find(b"etc/motd\0", at + 1)
    files["dotdot"] = good[:at] + b"../motdx\0" + good[at + 9:]
    paths = {}
    for name, data in files.items():
        paths[name] = os.path.join(ctx.log_dir, f"{ctx.job}-{name}.cpio")
        with open(paths[name], "wb") as f:
            f.write(data)
    return paths


def job_damaged(ctx):
    paths = damaged(ctx)
    boot = shell_boot(ctx, "damaged", modules=list(paths.values()), programs=True)
    try:
        out = boot.output
        for name, pattern in (("truncated", r"runs past the end"),
                              ("odc", r"magic 070707 is the old portable format"),
                              ("dotdot", r"'\.\./motdx': a '\.\.' component in the name")):
            mod = os.path.basename(paths[name])
            ctx.result(f"refused-{name}", re.search(
                rf"boot module {re.escape(mod)}: refused as a program archive: cpio: offset "
                rf"\d+: .*{pattern}", out), f"no refusal line for {mod} (log: {boot.log_path})")
        ctx.expect("good-one-loaded", boot, ARCHIVE_LINE.pattern)
        check_listing(ctx, boot)
    finally:
        poweroff(ctx, boot)


def job_grub_iso(ctx):
    """The ISO (make iso, PROGRAMS=all) hands GRUB the archive as a module2."""
    boot = shell_boot(ctx, "iso", iso=ctx.iso, kernel=None)
    try:
        ctx.expect("loaded-line", boot, ARCHIVE_LINE.pattern)
        check_listing(ctx, boot, "iso-")
    finally:
        poweroff(ctx, boot)
