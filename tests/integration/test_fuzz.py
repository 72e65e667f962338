# SPDX-License-Identifier: BSD-2-Clause
"""A short libFuzzer run of every target in tests/fuzz/ (the parsers of
untrusted input: console lines, boot command lines, multiboot
information, glob patterns, program archives). `make fuzz FUZZ_SECONDS=n` runs longer.
Then, with the binary run.sh built, the sandbox verifier's target must
see the reviewer's hostile graft escape when it runs it unverified, and
refuse it verified."""

import os
import re
import subprocess
import tempfile

SECONDS_PER_TARGET = 3
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
    check_sfi_verify_sees_escapes(ctx)


# The reviewer's graft: bts with a register bit offset writes (offset >> 3)
# bytes past its masked operand; given the target page's address in %rdi
# (the fuzzer's first argument) it writes that page.
HOSTILE_GRAFT = os.path.join("grafts", "hostile", "bit_test_store.graft")
TARGET_PAGE = 0x300000000000  # WINDOW_TARGET, tests/sfi/window_layout.h
ESCAPE = re.compile(r"escaped its sandbox.*?fault (0x[0-9a-f]+)")


def check_sfi_verify_sees_escapes(ctx):
    binary = os.path.join(ctx.build, "fuzz", "fuzz_sfi_verify")
    graft = os.path.join(ctx.build, HOSTILE_GRAFT)
    if not os.path.isfile(binary) or not os.path.isfile(graft):
        ctx.result("sfi_verify-sees-escapes", False, f"{binary} or {graft} is missing "
                   "(tests/fuzz/run.sh builds the first, make grafts the second)")
        return
    log = os.path.join(ctx.log_dir, "fuzz.sfi_verify-escapes.log")
    with tempfile.TemporaryDirectory() as tmp:
        text = os.path.join(tmp, "bit_test_store.text")
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.text", graft, text], check=True)
        runs = {}
        for mode, env in (("unverified", dict(os.environ, SFI_FUZZ_SKIP_VERIFY="1")),
                          ("verified", dict(os.environ, SFI_FUZZ_SKIP_VERIFY="0"))):
            proc = subprocess.run([binary, "-runs=1", f"-artifact_prefix={tmp}/", text], cwd=tmp,
                                  env=env, capture_output=True, text=True, timeout=120)
            runs[mode] = (proc.returncode, proc.stdout + proc.stderr)
    escape = ESCAPE.search(runs["unverified"][1])
    seen = runs["unverified"][0] != 0 and escape and int(escape.group(1), 16) == TARGET_PAGE
    refused = runs["verified"][0] == 0 and "0 accepted and run" in runs["verified"][1] \
        and "1 refused" in runs["verified"][1]
    if not (seen and refused):
        os.makedirs(ctx.log_dir, exist_ok=True)
        with open(log, "w") as f:
            for mode, (rc, out) in runs.items():
                f.write(f"==== {mode}: exit status {rc}\n{out}\n")
    ctx.result("sfi_verify-sees-an-escape", seen,
               f"{HOSTILE_GRAFT} run unverified: {escape.group(0) if escape else 'no escape reported'}"
               f" (want the fault at 0x{TARGET_PAGE:x}; log: {log})")
    ctx.result("sfi_verify-refuses-it", refused, f"{HOSTILE_GRAFT} verified: exit status "
               f"{runs['verified'][0]}, want it refused without a crash (log: {log})")
