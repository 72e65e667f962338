# SPDX-License-Identifier: BSD-2-Clause
"""The block cache's write path (kernel/bcache/, bcache_write_bytes):
its in-kernel tests (tests/kernel/test_bcache_write.c) with the block
cache's others, on 2 CPUs under multi-threaded TCG so writers, the
flush thread and completions race for real."""

from common import run_kernel_tests


def job_kernel_tests(ctx):
    boot = run_kernel_tests(ctx, "bcache-smp2", 2, "bcache_*", single_thread_tcg=False)
    ctx.expect("bcache-smp2/write-tests-ran", boot, r"test bcache_write_read_back: OK")
