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

import os
import re
import subprocess

RESULT = re.compile(r"^sfi-proof (?:selftest )?(.+?): (OK.*|FAILED.*)$")
CLOSING = re.compile(r"^(\d+) passed, (\d+) failed$", re.M)
DETAIL_MAX = 600


def run_proof(ctx, args, timeout):
    binary = os.path.join(ctx.build, "host", "sfi-proof")
    if not os.path.isfile(binary):
        ctx.result("binary", False, f"{binary} is missing (make {os.path.relpath(binary, ctx.root)})")
        return
    proc = subprocess.run([binary] + args, capture_output=True, text=True, timeout=timeout)
    out = proc.stdout + proc.stderr
    log = os.path.join(ctx.log_dir, f"{ctx.job}.log")
    closing = CLOSING.search(proc.stdout)
    failed = proc.returncode != 0 or not closing or int(closing.group(2)) != 0
    if failed:
        os.makedirs(ctx.log_dir, exist_ok=True)
        with open(log, "w") as f:
            f.write(out)
    found = 0
    for line in proc.stdout.splitlines():
        m = RESULT.match(line)
        if m:
            found += 1
            verdict = m.group(2)
            ok = verdict.startswith("OK")
            ctx.result(m.group(1), ok,
                       "" if ok else f"{verdict[:DETAIL_MAX]} (log: {log})")
    if not found or not closing or (proc.returncode != 0 and int(closing.group(2)) == 0):
        tail = "\n    ".join(out.strip().splitlines()[-10:])
        ctx.result("run", False, f"exit status {proc.returncode} (log: {log}):\n    {tail}")


def job_quick(ctx):
    run_proof(ctx, ["--quick"], timeout=900)


def job_self_test(ctx):
    run_proof(ctx, ["--self-test"], timeout=300)
