# SPDX-License-Identifier: BSD-2-Clause
"""Booting the way users do: `make run` through the GRUB ISO, with the
console on a pipe; its option checking; and boot options on the command
line (unknown or refused ones are reported, the rest still applied)."""

import os
import re
import subprocess

import machine

from common import poweroff, shell_boot


def job_grub_iso_to_shell(ctx):
    boot = shell_boot(ctx, "iso", iso=ctx.iso, kernel=None, smp=2)
    try:
        ctx.expect("loader-is-grub", boot, r"multiboot2 from 'GRUB")
        boot.command("cpus", r"2 CPUs online")
        ctx.result("cpus", True)
        boot.command("version", r"Scion \S+ \(")
    finally:
        poweroff(ctx, boot)


def build_dir_arg(ctx):
    """BUILD= for make: the build directory the tests run from."""
    return f"BUILD={os.path.relpath(ctx.build, ctx.root)}"


def make_run(ctx, args, stdin_text, timeout=180):
    return subprocess.run(["make", "--no-print-directory", "run", build_dir_arg(ctx)] + args,
                          cwd=ctx.root,
                          input=stdin_text, capture_output=True, text=True, timeout=timeout)


def job_make_run_from_a_pipe(ctx):
    """printf 'cpus\\ntests\\npoweroff\\n' | make run SMP=4 prints the CPUs and exits 0;
    the kernel a user boots has no in-kernel tests (the test kernel has them)."""
    proc = make_run(ctx, ["SMP=4"], "cpus\ntests\nbench\npoweroff\n")
    log = os.path.join(ctx.log_dir, "boot.make_run_from_a_pipe.log")
    os.makedirs(ctx.log_dir, exist_ok=True)
    with open(log, "w") as f:
        f.write(proc.stdout + proc.stderr)
    ctx.result("exit-status-0", proc.returncode == 0,
               f"make run exited {proc.returncode} (log: {log})")
    ctx.result("prints-cpus", "4 CPUs online" in proc.stdout, f"no '4 CPUs online' (log: {log})")
    table = proc.stdout.split("cpu  hw-id", 1)[-1].split("scion>", 1)[0]
    rows = re.findall(r"^\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+\S+$", table, re.M)
    ctx.result("one-row-per-cpu", len(rows) == 4, f"{len(rows)} CPU rows (log: {log})")
    for command in ("tests", "bench"):
        ctx.result(f"no-{command}-in-the-user-kernel",
                   f"{command}: this kernel has no in-kernel tests or benchmarks; the test "
                   "kernel has them" in proc.stdout, f"'{command}' answered otherwise (log: {log})")


def job_make_run_refuses_bad_options(ctx):
    for args, words in ((["SMP=9"], "SMP="), (["SMP=0"], "SMP="), (["SMP=two"], "SMP="),
                        (["MEM=lots"], "MEM="), (["MEM=16M"], "MEM="), (["MEM=64G"], "MEM="),
                        (["TCG=fast"], "TCG=")):
        proc = make_run(ctx, args, "", timeout=60)
        ok = (proc.returncode != 0 and f"make run: {words}" in proc.stderr
              and "Scion" not in proc.stdout and "ISO" not in proc.stdout)
        ctx.result(f"refuses-{args[0]}", ok,
                   f"exit {proc.returncode}, stderr: {proc.stderr.strip()[-200:]!r}")


def job_boot_options_reported(ctx):
    boot = ctx.boot("options", cmdline="frobnicate=1 panic=sometimes test=lib_* panic=exit",
                    single_thread_tcg=True, timeout=120)
    boot.finish()
    ctx.expect("unknown-option", boot, r"boot: unknown option 'frobnicate' ignored")
    ctx.expect("refused-value", boot,
               r"boot: option panic: value 'sometimes' refused \(EINVAL\); expected halt\|exit")
    ctx.expect("rest-applied", boot, r"test lib_format: OK")
    ctx.result("exit-status", boot.status == machine.EXIT_TESTS_PASSED,
               f"QEMU exit status {boot.status} (log: {boot.log_path})")


def job_no_tests_selected_fails(ctx):
    boot = ctx.boot("no-match", cmdline="test=no_such_test panic=exit", timeout=60)
    boot.finish()
    ctx.expect("reported", boot, r"ktest: no test matches 'no_such_test'")
    ctx.result("exit-status", boot.status == machine.EXIT_TESTS_FAILED,
               f"QEMU exit status {boot.status}, a selector matching nothing must fail")


def job_make_gdb_reaches_kernel_main(ctx):
    """make gdb: QEMU halted with its gdbstub, gdb with symbols, a breakpoint at kernel_main."""
    gdb_input = "continue\nbt\nkill\nquit\n"
    # Its own control socket: `make run` may be booting beside it on the default one.
    socket_arg = f"CONTROL_SOCKET={os.path.join(ctx.log_dir, 'make-gdb.sock')}"
    proc = subprocess.run(["make", "--no-print-directory", "gdb", build_dir_arg(ctx), socket_arg],
                          cwd=ctx.root,
                          input=gdb_input,
                          capture_output=True, text=True, timeout=180)
    log = os.path.join(ctx.log_dir, "boot.make_gdb.log")
    os.makedirs(ctx.log_dir, exist_ok=True)
    with open(log, "w") as f:
        f.write(proc.stdout + proc.stderr)
    ctx.result("breakpoint-at-kernel_main", "Breakpoint 1, kernel_main ()" in proc.stdout,
               f"gdb did not stop in kernel_main (log: {log})")
    ctx.result("symbolized-backtrace", "in arch_boot_main (" in proc.stdout,
               f"no symbolized caller in gdb's backtrace (log: {log})")
