# SPDX-License-Identifier: BSD-2-Clause
"""Helpers shared by the integration jobs: in-kernel test runs, shell boots."""

import glob
import os
import re
import subprocess

import machine

TEST_LINE = re.compile(r"^test (\S+): (OK(?= \(\d+ ms\)$)|FAILED: .*|SKIPPED.*)", re.M)
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed$", re.M)


def graft_path(ctx, name):
    """build/grafts/NAME.graft, or build/grafts/bad/NAME.graft for a misbehaving one."""
    for sub in ("", "bad"):
        path = os.path.join(ctx.build, "grafts", sub, name + ".graft")
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"{name}.graft is not built (make grafts)")


def run_kernel_tests(ctx, name, smp, selector, single_thread_tcg, mem="256M", timeout=400,
                     programs=None):
    """Boot with test=selector, add one result per test, check the ending.
    programs=True boots with the program archive (as ctx.boot).
    Returns the Boot (finished) for further checks."""
    boot = ctx.boot(name, smp=smp, mem=mem, cmdline=f"test={selector} panic=exit",
                    single_thread_tcg=single_thread_tcg, timeout=timeout, programs=programs)
    boot.finish()
    out = boot.output
    tests = TEST_LINE.findall(out)
    for test, verdict in tests:
        if verdict.startswith("SKIPPED"):
            continue
        ctx.result(f"{name}/{test}", verdict == "OK",
                   verdict if verdict != "OK" else "")
    summary = SUMMARY.findall(out)
    failures = sum(1 for _, v in tests if v.startswith("FAILED"))
    ctx.result(f"{name}/summary", bool(summary) and int(summary[-1][1]) == failures and tests,
               f"summary {summary[-1] if summary else 'missing'} for {len(tests)} test lines "
               f"(log: {boot.log_path})")
    want = machine.EXIT_TESTS_FAILED if failures else machine.EXIT_TESTS_PASSED
    ctx.result(f"{name}/exit-status", boot.status == want,
               f"QEMU exit status {boot.status}, expected {want} (log: {boot.log_path})")
    ctx.result(f"{name}/no-panic", "panic:" not in out, f"panic in the run (log: {boot.log_path})")
    return boot


PROMPT = r"scion> "


def shell_boot(ctx, name, **kw):
    """Boot to the shell prompt (kernel image by default, kw as for ctx.boot:
    programs=True adds build/userland/programs.cpio as a module,
    programs=PATH another .cpio file)."""
    kw.setdefault("timeout", 180)
    boot = ctx.boot(name, **kw)
    boot.wait_for(PROMPT)
    return boot


def poweroff(ctx, boot):
    """Type poweroff, then check QEMU exited 0 and nothing panicked."""
    try:
        if boot.proc.poll() is None:
            boot.command("poweroff", r"powering off")
    finally:
        boot.finish()
    ctx.result("poweroff-exit-status-0", boot.status == 0,
               f"QEMU exit status {boot.status} (log: {boot.log_path})")
    ctx.result("no-panic", "panic:" not in boot.output, f"panic (log: {boot.log_path})")


HOST_DETAIL_MAX = 600


def run_host_checker(ctx, name, args, result, timeout, program=None):
    """Run build/host/NAME (a host checker that prints one `<result>`
    line per item and closes with `N passed, M failed`), or program (an
    argv list: a script) with args: one result per line result matches
    (group 1 the item, group 2 its verdict, OK... or FAILED...), one for
    a run that ended badly. Its output is kept in build/test-logs/JOB.log
    when it fails."""
    binary = os.path.join(ctx.build, "host", name)
    if not os.path.isfile(binary):
        ctx.result("binary", False, f"{binary} is missing (make {os.path.relpath(binary, ctx.root)})")
        return
    argv = (program or [binary]) + args
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    out = proc.stdout + proc.stderr
    log = os.path.join(ctx.log_dir, f"{ctx.job}.log")
    closing = SUMMARY.search(proc.stdout)
    if proc.returncode != 0 or not closing or int(closing.group(2)) != 0:
        os.makedirs(ctx.log_dir, exist_ok=True)
        with open(log, "w") as f:
            f.write(out)
    found = 0
    for line in proc.stdout.splitlines():
        m = result.match(line)
        if not m:
            continue
        found += 1
        ok = m.group(2).startswith("OK")
        ctx.result(m.group(1), ok, "" if ok else f"{m.group(2)[:HOST_DETAIL_MAX]} (log: {log})")
    if not found or not closing or (proc.returncode != 0 and int(closing.group(2)) == 0):
        tail = "\n    ".join(out.strip().splitlines()[-10:])
        ctx.result("run", False, f"exit status {proc.returncode} (log: {log}):\n    {tail}")


def elf_files(directory):
    """The ELF files of directory (no symbolic links), sorted: a decoder's or an
    analysis's corpus."""
    files = []
    for path in sorted(glob.glob(os.path.join(directory, "*"))):
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            if f.read(4) == b"\x7fELF":
                files.append(path)
    return files
