# SPDX-License-Identifier: BSD-2-Clause
"""A short libFuzzer run of every target in tests/fuzz/ (the parsers of
untrusted input: console lines, boot command lines, multiboot
information, glob patterns). `make fuzz FUZZ_SECONDS=n` runs longer."""

import os
import re
import subprocess

SECONDS_PER_TARGET = 10
LINE = re.compile(r"^fuzz (\S+): (OK.*|FAILED: .*)$", re.M)


def job_targets(ctx):
    proc = subprocess.run([os.path.join(ctx.root, "tests", "fuzz", "run.sh"),
                           str(SECONDS_PER_TARGET)], cwd=ctx.root, capture_output=True,
                          text=True, timeout=900)
    found = LINE.findall(proc.stdout)
    for target, verdict in found:
        ctx.result(target, verdict.startswith("OK"), verdict)
    if not found or (proc.returncode != 0 and all(v.startswith("OK") for _, v in found)):
        ctx.result("run.sh", False, f"exit {proc.returncode}: {(proc.stdout + proc.stderr)[-400:]}")
