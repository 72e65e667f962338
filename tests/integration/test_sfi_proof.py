# SPDX-License-Identifier: BSD-2-Clause
"""The SFI proof (build/host/sfi-proof, tests/sfi/sfi_proof.c), no QEMU:
every instruction form the sandbox's verifier accepts, verified after
each guard context and run single-stepped in the window child, where the
CPU reports any store or branch that leaves the sandbox. One result per
opcode form (it failed if any of its runs escaped), one for the harness;
and the self-test, one result per known-bad form that must be seen
escaping (and per confined control). `make sfi-proof FULL=1` runs the
exhaustive enumeration instead of the quick sample. A run's output is
kept in build/test-logs/ when it fails."""

import re

from common import run_host_checker

RESULT = re.compile(r"^sfi-proof (?:selftest )?(.+?): (OK.*|FAILED.*)$")


def run_proof(ctx, args, timeout):
    run_host_checker(ctx, "sfi-proof", args, RESULT, timeout)


def job_quick(ctx):
    run_proof(ctx, ["--quick"], timeout=900)


def job_self_test(ctx):
    run_proof(ctx, ["--self-test"], timeout=300)
