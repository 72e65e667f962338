# SPDX-License-Identifier: BSD-2-Clause
"""DTrace as people use it: the one-liner corpus of tests/oneliners/
(oneliner_corpus.py: each program, the guest workload that makes it fire,
its checks; dtrace_checks.py: reading dtrace's output and the checks
themselves) run with `scion trace` against one live two-CPU guest.

tests/trace/ compares small programs with exact expected files, one
feature at a time; this job runs the idioms (latency with self->,
aggregations keyed by function, caller, stack, CPU and thread, quantize,
speculations, printa formats, ...) and checks the SHAPE and VALUES of
what they print: keys that name kernel functions and never look like byte
dumps, totals equal to a second count of the same events or to what the
deterministic workload did, histogram arithmetic, no drop warnings. Issue
20 (`@["lock"] = avg(timestamp - self->t)` keyed by a 256-byte dump) is
what it is for.

One result per one-liner and check, named ONELINER/CHECK; a failing
result carries the program, its exit status and its output. The guest is
booted with single-threaded TCG (probes patch text). job_oneliner_checks
runs the checks on printed text alone (no QEMU): issue 20's output must
fail them, dtrace's correct output pass.
"""

import os
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
from common import graft_path, poweroff
from test_channel import channel_boot, scion

import dtrace_checks as checks
import oneliner_corpus as corpus


def indent(text, limit):
    text = text if len(text) <= limit else text[:limit] + f"\n... ({len(text) - limit} more bytes)"
    return "".join("        " + ln + "\n" for ln in text.splitlines())


def run_case(ctx, sock, case, symbols, guest):
    for command in case.setup:
        guest(command)
    argv = ["trace", *case.flags]
    if case.script:
        argv += ["-s", os.path.join(ctx.root, "tests", "oneliners", case.script)]
    else:
        argv += ["-n", case.program]
    if case.run:
        argv += ["--run", case.run]
    started = time.monotonic()
    try:
        rc, out, err = scion(ctx, sock, *argv, timeout=180)
    finally:
        for command in case.teardown:
            guest(command)
    seconds = time.monotonic() - started
    out_obj = checks.Output(rc, out, err, case.quiet, symbols, guest)
    generic = [checks.check_status(case.status), checks.check_stderr(case.allow),
               checks.check_shape()]
    for name, fn in generic + case.checks:
        try:
            fn(out_obj)
            ok, why = True, ""
        except checks.Fail as e:
            ok, why = False, str(e)
        except Exception as e:      # a check that cannot read the output is a failure too
            ok, why = False, f"{type(e).__name__}: {e}"
        detail = ""
        if not ok:
            known = f" [known: {case.known}]" if case.known else ""
            detail = (f"{why}{known}\n    program: {case.program or case.script}"
                      f"{'  (run: ' + case.run + ')' if case.run else ''}\n"
                      f"    exit {rc} after {seconds:.1f} s; stdout:\n{indent(out, 2500)}"
                      f"    stderr:\n{indent(err, 800)}")
        ctx.result(f"{case.name}/{name}", ok, detail)


def job_oneliners(ctx):
    symbols = checks.KernelSymbols(ctx.ksyms)
    boot, sock = channel_boot(ctx, "oneliners", smp=2, single_thread_tcg=True)

    def guest(command):
        rc, out, err = scion(ctx, sock, "shell", *command.split())
        if rc != 0:
            raise checks.Fail(f"guest command `{command}` failed: {out}{err}")
        return out

    try:
        names = [c.name for c in corpus.CORPUS]
        names += [f"{c.name}/{check}" for c in corpus.CORPUS for check, _ in c.checks]
        ctx.result("names-unique", len(names) == len(set(names)),
                   f"one-liners or checks named twice: "
                   f"{sorted({n for n in names if names.count(n) > 1})}")
        for graft in sorted({g for c in corpus.CORPUS for g in c.grafts}):
            rc, out, err = scion(ctx, sock, "graft", "load", graft_path(ctx, graft))
            ctx.result(f"load-{graft}", rc == 0, f"exit {rc}: {out}{err}")
        for case in corpus.CORPUS:
            try:
                run_case(ctx, sock, case, symbols, guest)
            except checks.Fail as e:            # a setup or teardown command failed
                ctx.result(f"{case.name}/setup", False, str(e))
            except subprocess.TimeoutExpired as e:
                ctx.result(f"{case.name}/ran", False, f"no answer: {e}")
        rc, out, err = scion(ctx, sock, "text", "verify")
        ctx.result("text-restored", rc == 0, out + err)
    finally:
        poweroff(ctx, boot)


def issue20_text(key_bytes):
    """What `scion trace` printed for issue 20's one-liner (not quiet): the
    tick's record, then the aggregation keyed by key_bytes."""
    from scionhost.dprintf import print_bytes
    return ("CPU     ID                    FUNCTION:NAME\n"
            "  0   2076                      :tick-200ms \n\n" +
            print_bytes(key_bytes, -50, False) + " %16d\n" % 2973)


def job_oneliner_checks(ctx):
    """The checks against known text: a 256-byte thread-local key printed
    where "lock" belongs fails shape and keys; the right output passes."""
    case = next(c for c in corpus.CORPUS if c.name == "lock-latency-avg")
    fns = dict([checks.check_shape()] + case.checks)
    good = issue20_text(b"lock".ljust(256, b"\0"))
    bad = issue20_text(b"\x04" + bytes(255))
    for label, text, want_ok in (("correct", good, True), ("issue-20", bad, False)):
        o = checks.Output(0, text, "", False)
        for name, fn in fns.items():
            try:
                fn(o)
                ok, why = True, "passed"
            except checks.Fail as e:
                ok, why = False, str(e)
            ctx.result(f"{label}-output/{name}", ok == want_ok,
                       f"expected it to {'pass' if want_ok else 'fail'}: {why}\n{text}")
