# SPDX-License-Identifier: BSD-2-Clause
"""In-kernel test runs on 1, 2, 4 and 8 CPUs, with the test disk attached
(as a snapshot) so the blk_ tests run.

Code-patching tests (poke_*, probe_*, and trace_session_*, whose
programs enable probes) run under single-threaded TCG only
(PLATFORMS.md: QEMU's MTTCG keeps stale translations of code another
vCPU rewrites). The 2-CPU run uses multi-threaded TCG for the rest, so
locks and cross-calls race for real; the 4-CPU run interleaves vCPUs on
one host thread because the machine has two cores.
"""


from common import run_kernel_tests

FAULT_REPORT = r"#0 0x[0-9a-f]+ ktest_fault_victim\+0x[0-9a-f]+"


def check_fault_report(ctx, name, boot):
    """The page-fault test's report names the faulting function in its backtrace."""
    ctx.expect(f"{name}/fault-report-backtrace", boot, FAULT_REPORT)
    ctx.expect(f"{name}/fault-report-kills-thread",
               boot, r"thread 'victim-pf' \(tid \d+\) killed by page fault; the kernel goes on")
    ctx.expect(f"{name}/fault-report-registers", boot, r"rip [0-9a-f]{16} rflags")


def check_disk_tests_ran(ctx, name, boot):
    """The test disk was attached, so the blk_ tests ran instead of skipping."""
    ctx.expect(f"{name}/disk-attached", boot, r"vda: virtio-blk")
    ctx.result(f"{name}/blk-tests-not-skipped", "SKIPPED (no disk" not in boot.output,
               f"blk_ tests skipped: no disk (log: {boot.log_path})")


def job_smp1(ctx):
    boot = run_kernel_tests(ctx, "smp1", 1, "*", single_thread_tcg=True)
    check_fault_report(ctx, "smp1", boot)
    check_disk_tests_ran(ctx, "smp1", boot)


def job_smp2_multithreaded(ctx):
    boot = run_kernel_tests(ctx, "smp2-mttcg", 2, "*,!poke_*,!probe_*,!trace_session_*",
                            single_thread_tcg=False)
    check_fault_report(ctx, "smp2-mttcg", boot)
    check_disk_tests_ran(ctx, "smp2-mttcg", boot)


def job_smp2_patching(ctx):
    run_kernel_tests(ctx, "smp2-patching", 2, "poke_*,probe_*,trace_session_*",
                     single_thread_tcg=True)


def job_smp4(ctx):
    boot = run_kernel_tests(ctx, "smp4", 4, "*", single_thread_tcg=True)
    check_fault_report(ctx, "smp4", boot)
    check_disk_tests_ran(ctx, "smp4", boot)


def job_smp8_large_memory(ctx):
    """Eight CPUs (the most Scion supports) and RAM above 4 GiB; the disk's
    eight queues interrupt eight CPUs."""
    boot = run_kernel_tests(ctx, "smp8-6G", 8, "mm_*,smp_*,xcall_*,sched_affinity,blk_*",
                            single_thread_tcg=True, mem="6G")
    ctx.expect("smp8-6G/all-cpus-online", boot, r"smp: 8 of 8 CPUs online")
    ctx.expect("smp8-6G/memory-above-4G", boot, r"mm: 60\d\d MiB managed")
    check_disk_tests_ran(ctx, "smp8-6G", boot)
