# SPDX-License-Identifier: BSD-2-Clause
"""Faults that cannot be survived: the report names the faulting code, the
kernel stops every CPU cleanly, and QEMU exits with the panic status."""

import machine


def crash(ctx, name, test, smp, patterns):
    boot = ctx.boot(name, smp=smp, cmdline=f"test={test} panic=exit", single_thread_tcg=True,
                    timeout=120)
    boot.finish()
    for label, pattern in patterns:
        ctx.expect(label, boot, pattern)
    ctx.result("exit-status-panic", boot.status == machine.EXIT_PANIC,
               f"QEMU exit status {boot.status}, expected {machine.EXIT_PANIC} "
               f"(log: {boot.log_path})")
    tail = boot.output[boot.output.find("system halted"):]
    ctx.result("nothing-after-halt", "test " not in tail and "scion>" not in tail,
               f"output after 'system halted' (log: {boot.log_path})")


def job_fault_holding_spinlock_panics(ctx):
    crash(ctx, "lock", "crash_fault_with_lock", 2, [
        ("report", r"page fault \(vector 14\) in kernel mode on cpu \d+"),
        ("backtrace-names-function", r"#0 0x[0-9a-f]+ crash_fault_holding_lock\+0x"),
        ("caller-in-backtrace", r"#\d+ 0x[0-9a-f]+ ktest_crash_fault_with_lock\+0x"),
        ("panic-reason", r"panic: page fault while holding a spinlock"),
        ("halted", r"system halted"),
    ])


def job_stack_overflow_panics(ctx):
    crash(ctx, "overflow", "crash_stack_overflow", 2, [
        ("double-fault", r"panic: double fault on cpu \d+ \(kernel stack overflow\?\)"),
        ("halted", r"system halted"),
    ])
