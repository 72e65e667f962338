# SPDX-License-Identifier: BSD-2-Clause
"""The sparc64 port's machine layer on QEMU's sun4u (issue 25): the kernel
is built with `make ARCH=sparc64 kernel` (into BUILD/sparc64), then booted
five times:

  selftest=all    the boot self-checks (arch/sparc64/selftest.c): timer
                  ticks advance, 200 nested calls spill and fill register
                  windows and return the right value, a load from an
                  unmapped address gives a fault report naming the faulting
                  function (and its callers) and resumes, the core's
                  spinlocks and random bytes over the arch headers; `N
                  passed, M failed`; power-off, exit status 0
  selftest=panic  the same fault with no fixup: the report, a panic, and
                  exit status 1 through pvpanic-pci (panic=exit, the core's
                  panic option, on every boot that panics)
  selftest=spill32  a window with an even (32-bit) %sp spilled: the spill
                  refused, reported, a panic, exit status 1
  selftest=tl2    a window spilled into unmapped memory: the fault at TL 2
                  reported with TL 1's trap, a panic, exit status 1
  make run        `make run ARCH=sparc64 CMDLINE=frobnicate=1` on a pipe: the
                  portable kernel_main reports the unknown option and the
                  M48T59's date (a year after 2020), and reaches
                  the `scion>` shell on the UART (input polled at the tick);
                  `uptime` and `cpus` answer, `probe list` is refused with
                  its reason, `analysis` analyses every function (the SPARC
                  decoder and the structural analysis in the kernel), `insn`
                  and `cfg` answer, `poweroff` exits 0

A second job, sparc64.kernel_tests, builds the sparc64 test kernel and boots
`test=*`: the portable in-kernel tests pass, the x86-only ones say SKIPPED
with the port's reason (job_kernel_tests).

OpenBIOS's banner comes before the kernel's first line (`Scion ...`);
the checks look only at what follows it."""

import os
import re

import harness
import machine

import sparc64_build
from common import SUMMARY, TEST_LINE


def build_sparc64(ctx, tests=False):
    """The sparc64 kernel (tests: the test kernel) built under the build
    folder's lock (sparc64_build.py); returns (kernel, build arg) or raises."""
    kernel, failure = sparc64_build.build_kernel(ctx, tests=tests)
    if failure:
        raise harness.BootError(f"make ARCH=sparc64{' KERNEL_TESTS=yes' if tests else ''} "
                                f"kernel failed:\n    {failure}")
    return kernel, f"BUILD={sparc64_build.sparc64_build_dir(ctx)}"


def kernel_output(boot):
    """What the kernel printed: from its first line on (OpenBIOS's banner skipped)."""
    out = boot.output
    start = out.find("Scion ")
    return out[start:] if start >= 0 else ""


def expect(ctx, name, text, pattern, boot):
    ok = re.search(pattern, text, re.M) is not None
    ctx.result(name, ok, "" if ok else f"'{pattern}' not in the output (log: {boot.log_path})")


def shell(boot, line, until):
    """Type a shell command; what the console said after it, up to until."""
    start = boot.mark()
    boot.command(line, until)
    return boot.output[start:]


def status(ctx, name, boot, want):
    ctx.result(name, boot.status == want,
               f"QEMU exit status {boot.status}, expected {want} (log: {boot.log_path})")


def job_machine_layer(ctx):
    kernel, build_arg = build_sparc64(ctx)
    ctx.result("builds", True)

    # 1. The self-checks, then power-off.
    boot = harness.Boot(f"{ctx.job}-selftest", ctx.log_dir, timeout=30,
                        argv=machine.sparc64_qemu_command(kernel, "selftest=all"))
    boot.finish()
    out = kernel_output(boot)
    tests = TEST_LINE.findall(out)
    for test, verdict in tests:
        ctx.result(f"selftest/{test}", verdict == "OK", f"{verdict} (log: {boot.log_path})")
    names = {t for t, _ in tests}
    for want in ("sparc64_timer_ticks", "sparc64_window_spill_fill", "sparc64_fault_report",
                 "sparc64_core_spinlock_random"):
        ctx.result(f"selftest/ran-{want}", want in names, f"no line for {want} (log: {boot.log_path})")
    summary = SUMMARY.findall(out)
    failures = sum(1 for _, v in tests if v != "OK")
    ctx.result("selftest/summary", bool(summary) and summary[-1] == (str(len(tests) - failures),
                                                                      str(failures)),
               f"summary {summary[-1] if summary else 'missing'} for {len(tests)} test lines "
               f"(log: {boot.log_path})")
    expect(ctx, "selftest/report-headline", out,
           r"^trap: data MMU miss \(tt 0x068\) at TL 1 in kernel mode$", boot)
    expect(ctx, "selftest/report-state", out,
           r"TSTATE 0x[0-9a-f]{16} \(CWP \d+, PSTATE 0x[0-9a-f]+\)  fault address 0x0*50000000$",
           boot)
    expect(ctx, "selftest/report-names-function", out,
           r"^  #0 0x[0-9a-f]+ selftest_fault_load\+0x", boot)
    expect(ctx, "selftest/backtrace-callers", out,
           r"#1 0x[0-9a-f]+ check_fault\+0x[0-9a-f]+\n  #2 0x[0-9a-f]+ selftest_run\+0x", boot)
    expect(ctx, "selftest/recovered", out, r"^trap: recovered", boot)
    ctx.result("selftest/no-panic", "panic:" not in out, f"panic (log: {boot.log_path})")
    status(ctx, "selftest/poweroff-exit-status-0", boot, machine.SPARC64_EXIT_POWEROFF)

    # 2. The same fault unrecovered: the report, then a panic through pvpanic.
    boot = harness.Boot(f"{ctx.job}-panic", ctx.log_dir, timeout=30,
                        argv=machine.sparc64_qemu_command(kernel, "selftest=panic panic=exit"))
    boot.finish()
    out = kernel_output(boot)
    expect(ctx, "panic/report-names-function", out,
           r"^  TPC   0x[0-9a-f]+ selftest_fault_load\+0x", boot)
    expect(ctx, "panic/backtrace", out, r"^  #1 0x[0-9a-f]+ selftest_run\+0x", boot)
    expect(ctx, "panic/panic-line", out, r"^panic: fatal trap 0x068 at TL 1$", boot)
    # The core's panic backtrace goes through the trap: trap_common, then the faulting pc.
    expect(ctx, "panic/backtrace-crosses-trap", out,
           r"trap_common\+0x[0-9a-f]+\n  #\d+ 0x[0-9a-f]+ selftest_fault_load\+0x", boot)
    status(ctx, "panic/exit-status-1", boot, machine.SPARC64_EXIT_PANIC)

    # 3. A 32-bit frame's spill is refused; 4. a fault inside the spill handler (TL 2).
    for arg, patterns in (
            ("spill32", (("report", r"^trap: window spill refused .* \(tt 0x080\) at TL 1 "),
                         ("names-function", r"^  TPC   0x[0-9a-f]+ selftest_bad_window\+0x"),
                         ("even-sp", r"fault address 0x0*40000ff0$"),
                         ("panic-line", r"^panic: fatal trap 0x080 at TL 1$"))),
            ("tl2", (("report", r"^trap: data MMU miss \(tt 0x068\) at TL 2 in kernel mode$"),
                     ("in-spill-handler", r"TPC is in the trap table: the handler of tt 0x080 "
                                          r"for traps at TL 0"),
                     ("outer-trap", r"^  inside a trap: TL 1 was tt 0x080 at 0x[0-9a-f]+ "
                                    r"selftest_bad_window\+0x"),
                     ("panic-line", r"^panic: fatal trap 0x068 at TL 2$")))):
        boot = harness.Boot(f"{ctx.job}-{arg}", ctx.log_dir, timeout=30,
                            argv=machine.sparc64_qemu_command(kernel,
                                                              f"selftest={arg} panic=exit"))
        boot.finish()
        out = kernel_output(boot)
        for label, pattern in patterns:
            expect(ctx, f"{arg}/{label}", out, pattern, boot)
        status(ctx, f"{arg}/exit-status-1", boot, machine.SPARC64_EXIT_PANIC)

    # 5. make run ARCH=sparc64 from a pipe: the console, then poweroff.
    boot = harness.Boot(f"{ctx.job}-make-run", ctx.log_dir, timeout=60,
                        argv=["make", "--no-print-directory", "run", "ARCH=sparc64", build_arg,
                              "CMDLINE=frobnicate=1"])
    try:
        boot.wait_for(r"scion> ")
        expect(ctx, "make-run/unknown-option-reported", kernel_output(boot),
               r"^boot: unknown option 'frobnicate' ignored", boot)
        expect(ctx, "make-run/rtc-date", kernel_output(boot),
               r"^machine: sun4u .* M48T59 clock 20[2-9]\d-\d\d-\d\d \d\d:\d\d:\d\d$", boot)
        boot.command("uptime", r"up \d+\.\d{3} s, \d+ ticks at 100 Hz")
        ctx.result("make-run/uptime", True)
        boot.command("cpus", r"1 CPU online, cycle counter 100\.000 MHz")
        ctx.result("make-run/cpus", True)
        boot.command("probe list", r"probe: sparc64: no splicer yet \(issue 25\)")
        ctx.result("make-run/probe-refused", True)
        # The structural analysis over the SPARC decoder, in the kernel: every
        # function analysed, none refused.
        out = shell(boot, "analysis", r"took \d+ cycles")
        m = re.search(r"analysis: (\d+) functions, (\d+) analysed, (\d+) not;", out)
        ctx.result("make-run/analysis-every-function",
                   m and int(m.group(1)) > 500 and m.group(1) == m.group(2) and m.group(3) == "0",
                   f"{out[-400:]!r}")
        out = shell(boot, "insn trap_table", r"free after:[^\n]*\n")
        ctx.result("make-run/insn-trap-table",
                   re.search(r"^  ba\n  control flow: branch always, one delay slot", out, re.M)
                   and re.search(r"^  target 0x[0-9a-f]+ trap_common\+0x0 ", out, re.M),
                   f"{out[-600:]!r}")
        out = shell(boot, "cfg kmalloc", r"scion> ")
        ctx.result("make-run/cfg-kmalloc", re.search(
            r"^kmalloc 0x[0-9a-f]+, \d+ bytes: \d+ blocks, \d+ instructions, [1-9]\d* calls", out,
            re.M) and "return" in out, f"{out[-600:]!r}")
        boot.command("poweroff", r"powering off")
    finally:
        boot.finish()
    status(ctx, "make-run/poweroff-exit-status-0", boot, 0)


# Portable tests that must run (not be skipped) and pass on sun4u: threads and the
# scheduler, the allocator and stack guard pages, grafts' transactions (a fault and a
# budget overrun aborting them through the trap table), records, the symbol table.
SPARC64_MUST_PASS = ("calendar_known_dates", "clock_fast_tick", "dnlc_lru_by_hand",
                     "graft_fault_aborts", "graft_budget_aborts_spinning_graft",
                     "graft_nested_transactions", "mm_stack_guard_page", "sched_fair_share",
                     "sched_follow_live_recording", "sched_sleep_ms", "symtab_covers_text",
                     "monitor_sources_table", "trace_load_native_byte_order",
                     "stack_walk_names_the_callers")
# x86-only features: these must say SKIPPED with the port's one-line reason.
SPARC64_MUST_SKIP = (("mm_image_permissions", "no per-page permissions"),
                     ("probe_monitor_hits", "sparc64: no splicer yet (issue 25)"),
                     ("trace_session_in_kernel", "sparc64: no splicer yet (issue 25)"),
                     ("trace_reads_refuse_device_memory", "nothing is mapped in the MMIO window"))


def job_kernel_tests(ctx):
    """The sparc64 test kernel (KERNEL_TESTS=yes) boots `test=*` on sun4u: every
    portable in-kernel test it builds passes or says SKIPPED (reason); the closing
    `N passed, M failed` counts the run ones (skips are neither) and power-off ends
    QEMU with status 0."""
    kernel, _ = build_sparc64(ctx, tests=True)
    boot = harness.Boot(f"{ctx.job}-all", ctx.log_dir, timeout=120,
                        argv=machine.sparc64_qemu_command(kernel, "test=* panic=exit"))
    boot.finish()
    out = kernel_output(boot)
    tests = TEST_LINE.findall(out)
    verdicts = dict(tests)
    for test, verdict in tests:
        ok = verdict == "OK" or re.fullmatch(r"SKIPPED \(.+\)", verdict) is not None
        ctx.result(f"test/{test}", ok, f"{verdict} (log: {boot.log_path})")
    for want in SPARC64_MUST_PASS:
        ctx.result(f"ran/{want}", verdicts.get(want) == "OK",
                   f"{verdicts.get(want, 'no line')} (log: {boot.log_path})")
    for want, reason in SPARC64_MUST_SKIP:
        v = verdicts.get(want, "")
        ctx.result(f"skipped/{want}", v.startswith("SKIPPED (") and reason in v,
                   f"'{v or 'no line'}', expected SKIPPED with '{reason}' (log: {boot.log_path})")
    n_ok = sum(1 for v in verdicts.values() if v == "OK")
    n_failed = sum(1 for v in verdicts.values() if v.startswith("FAILED"))
    n_skipped = sum(1 for v in verdicts.values() if v.startswith("SKIPPED"))
    summary = SUMMARY.findall(out)
    ctx.result("summary", bool(summary) and summary[-1] == (str(n_ok), str(n_failed)),
               f"summary {summary[-1] if summary else 'missing'} for {n_ok} OK and {n_failed} "
               f"FAILED lines (log: {boot.log_path})")
    expect(ctx, "summary-counts-skips", out,
           rf"^ktest: {n_ok} passed, {n_failed} failed, {n_skipped} skipped$", boot)
    ctx.result("enough-tests", n_ok >= 50, f"only {n_ok} tests passed (log: {boot.log_path})")
    status(ctx, "exit-status-0", boot, machine.SPARC64_EXIT_POWEROFF)
