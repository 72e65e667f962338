# SPDX-License-Identifier: BSD-2-Clause
"""The D oracle (build/host/d-oracle, tests/dref/), no QEMU: D programs
compiled by the D library and run two ways -- by a reference evaluator of
the checked program and by the kernel's own trace machinery built for the
host (dof_load, trace_probe_handler_for, ecb.c, env.c, dynvar.c, aggbuf.c) --
whose aggregations, records, globals and error counts must agree. One
result per fixed regression (D as people write it: aggregations keyed
and valued by thread-locals and array elements set by other clauses),
one for the random programs (a fixed seed, so a run is reproducible:
exploring new seeds is the libFuzzer target's job, tests/fuzz/run.sh; a
failure says how to rerun that program alone). The run's output is kept in
build/test-logs/ when it fails."""

import re

from common import run_host_checker

SEED = 20261125
PROGRAMS = 3000  # d-oracle's default is 8000; the libFuzzer target explores further
RESULT = re.compile(r"^d-oracle (?:regress )?(\S+): (OK.*|FAILED.*)$")


def job_programs(ctx):
    run_host_checker(ctx, "d-oracle", ["--seed", str(SEED), "--programs", str(PROGRAMS)], RESULT, timeout=900)
