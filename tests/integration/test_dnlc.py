# SPDX-License-Identifier: BSD-2-Clause
"""The directory name lookup cache (kernel/dnlc/) from the shell: `dnlc
run` workloads give exactly the hits, misses and evictions that an
independent model (dnlc_model.py) predicts under the default LRU and
under the replacement grafts dnlc_fifo and dnlc_clock installed at
dnlc.evict (the model's predictions differ between the policies, so the
counts show which one is in force); a recording of dnlc.lookup holds
each lookup's key (its name's hash) and outcome as the model says; the
Squid study's case (6000 names, 2181 entries); `dnlc` prints size,
entries and counters one per line; `dnlc size` and `dnlc reset` work and
bad arguments get one line; the boot option dnlc=N sizes the cache (and
refuses 0). The in-kernel tests (tests/kernel/test_dnlc.c) also run
here, on two CPUs under multi-threaded TCG so resizes race lookups for
real."""

import re

from common import PROMPT, graft_path, poweroff, run_kernel_tests, shell_boot
from dnlc_model import (RUN, RUN_FIELDS, WORKLOAD_DIR, WORKLOAD_FS, Dnlc, fnv1a)

POLICIES = [("lru", None), ("fifo", "dnlc-fifo"), ("clock", "dnlc-clock")]
# Workloads on 8 entries; the random ones tell the policies apart.
WORKLOADS = ["dnlc run loop size=8 rounds=3", "dnlc run loop size=9 rounds=3 start=100",
             "dnlc run random n=300 range=16 seed=5", "dnlc run random n=400 range=14 seed=7 neg=3"]


def answer(boot, command):
    """What command printed, as a list of lines (the echo and the prompt left out)."""
    start = boot.mark()
    boot.send(command + "\n")
    boot.wait_for(PROMPT, start=start + len(command))
    text = boot.output[start:]
    lines = [ln.strip() for ln in text.splitlines()]
    # The mark may fall inside the last prompt ("cion> dnlc size 0"): drop its tail with the echo.
    return [ln for ln in lines if ln and not ln.endswith(command) and not ln.startswith("scion>")]


def stats(boot):
    """`dnlc` as a dict of its lines (name -> value text)."""
    return dict(ln.split(None, 1) for ln in answer(boot, "dnlc") if len(ln.split(None, 1)) == 2)


def run_and_compare(ctx, boot, model, label, command, lookups=None):
    m = boot.command(command, RUN, timeout=120)
    got = dict(zip(RUN_FIELDS, map(int, m.groups())))
    want = model.run(command, lookups)
    ctx.result(f"{label}/as-model", got == want, f"kernel {got}\n    model  {want}")
    return got


def job_in_kernel(ctx):
    run_kernel_tests(ctx, "ktests", 2, "dnlc_*", single_thread_tcg=False)


def job_policies(ctx):
    """Default LRU and the grafts give the model's counts; the command's output and errors."""
    boot = shell_boot(ctx, "policies", smp=2, single_thread_tcg=True, timeout=400,
                      modules=[graft_path(ctx, "dnlc_fifo"), graft_path(ctx, "dnlc_clock")])
    try:
        s = stats(boot)
        ctx.result("boot-size", s.get("size") == "2181" and s.get("eviction") == "lru (default)"
                   and s.get("admission") == "all (default)", str(s))
        want_lines = ["size", "entries", "eviction", "admission", "lookups", "hits",
                      "negative-hits", "misses", "too-long", "enters", "removes", "evictions",
                      "purges", "hit-ratio"]
        ctx.result("one-counter-per-line", list(s) == want_lines, f"{list(s)}")

        # The models must disagree on the random workloads, or the test could not tell.
        preds = {}
        for policy, _ in POLICIES:
            model = Dnlc(8, policy)
            preds[policy] = [model.run(c) for c in WORKLOADS]
        for c in range(2, len(WORKLOADS)):
            distinct = len({str(preds[p][c]) for p, _ in POLICIES}) == len(POLICIES)
            ctx.result(f"models-differ/{c}", distinct, str({p: preds[p][c] for p, _ in POLICIES}))

        for policy, graft in POLICIES:
            if graft:
                boot.command(f"graft install {graft}", rf"'{graft}' installed at dnlc.evict")
            boot.command("dnlc size 8", r"dnlc: size 8, emptied\r?\n")
            boot.command("dnlc reset", r"dnlc: counters zero\r?\n")
            model = Dnlc(8, policy)
            total = dict(lookups=0, hits=0, negative=0, misses=0, evictions=0)
            for k, command in enumerate(WORKLOADS):
                got = run_and_compare(ctx, boot, model, f"{policy}/{k}", command)
                for key in total:
                    total[key] += got[key]
            s = stats(boot)
            shown = {k: int(s.get(n, -1)) for k, n in [("lookups", "lookups"), ("hits", "hits"),
                                                      ("negative", "negative-hits"),
                                                      ("misses", "misses"),
                                                      ("evictions", "evictions")]}
            ctx.result(f"{policy}/counters-shown", shown == total and s.get("entries") == "8" and
                       s.get("enters") == str(total["misses"]), f"dnlc says {s}, runs added to {total}")
            name = f"{graft} (graft)" if graft else "lru (default)"
            ctx.result(f"{policy}/policy-shown", s.get("eviction") == name, str(s.get("eviction")))
            if graft:
                boot.command(f"graft remove {graft}", rf"'{graft}' removed")

        # The Squid study: 6000 cache files through 2181 entries, then a DNLC big enough.
        squid = "dnlc run random n=12000 range=6000 seed=3"
        boot.command("dnlc size 2181", r"dnlc: size 2181, emptied")
        small = run_and_compare(ctx, boot, Dnlc(2181), "squid-2181", squid)
        boot.command("dnlc size 8000", r"dnlc: size 8000, emptied")
        large = run_and_compare(ctx, boot, Dnlc(8000), "squid-8000", squid)
        ctx.result("squid/bigger-dnlc-hits-more", large["hits"] * 2 > small["hits"] * 3,
                   f"2181 entries: {small['hits']} hits, 8000: {large['hits']}")

        for label, command, error in [
                ("zero", "dnlc size 0", r"dnlc: give 1 to 65536 entries, not 0"),
                ("too-many", "dnlc size 65537", r"dnlc: give 1 to 65536 entries, not 65537"),
                ("not-a-number", "dnlc size x", r"dnlc: 'x' is not a number of entries"),
                ("no-size", "dnlc size", r"dnlc: usage: dnlc \[size N"),
                ("unknown", "dnlc frob", r"dnlc: usage: dnlc \[size N"),
                ("bad-pattern", "dnlc run zigzag", r"dnlc: run: name a pattern: loop or random"),
                ("bad-key", "dnlc run random n=lots", r"dnlc: run: 'n=lots': give key=number"),
                ("zero-range", "dnlc run random range=0", r"dnlc: run: range, size and seed")]:
            lines = answer(boot, command)
            ctx.result(f"refused/{label}", len(lines) == 1 and re.match(error, lines[0]),
                       f"{command!r} printed {lines}")
        s = stats(boot)
        ctx.result("refused-size-kept", s.get("size") == "8000", str(s))
        lines = answer(boot, "dnlc size 100")
        s = stats(boot)
        ctx.result("size-100", lines == ["dnlc: size 100, emptied"] and s.get("size") == "100"
                   and s.get("entries") == "0", f"{lines}, then {s}")
        run_and_compare(ctx, boot, Dnlc(100), "after-errors", "dnlc run random n=500 range=150 seed=2")
    finally:
        poweroff(ctx, boot)


TRACE = re.compile(r"seq=(\d+) time_ns=\d+ cpu=\d+ tid=\d+ args=(\S+)")


def job_recorded_lookups(ctx):
    """`record start dnlc.lookup` writes every lookup's key and outcome, in order."""
    boot = shell_boot(ctx, "recorded", smp=2, single_thread_tcg=True, timeout=300)
    try:
        command = "dnlc run random n=60 range=12 seed=4 neg=4"
        boot.command("dnlc size 6", r"dnlc: size 6, emptied")
        m = boot.command("record start dnlc.lookup", r"record: (rec\d+): recording dnlc.lookup")
        rec = m.group(1)
        model, want = Dnlc(6), []
        run_and_compare(ctx, boot, model, "recorded-run", command, lookups=want)
        boot.command("record stop", rf"record: {rec}: point, 60 requests, 60 results, 0 dropped")
        lines = answer(boot, f"record show {rec} trace 1 60")
        got = []
        for line in lines:
            t = TRACE.match(line)
            if t:
                got.append([int(a, 16) for a in t.group(2).split(",")])
        ctx.result("sixty-records", len(got) == 60, f"{len(got)} records: {lines[:3]}")
        bad = []
        for i, (args, (name, outcome)) in enumerate(zip(got, want)):
            fs, d, h, length, entry, out = args
            entry = entry - (1 << 32) if entry >= 1 << 31 else entry
            ok = (fs == WORKLOAD_FS and d == WORKLOAD_DIR and h == fnv1a(name.encode()) and
                  length == len(name) and out == outcome and (entry == -1) == (outcome == 3))
            if not ok:
                bad.append(f"lookup {i + 1} of {name}: recorded {args}, model outcome {outcome}")
        ctx.result("keys-and-outcomes-as-model", not bad and got, "\n    ".join(bad[:5]))
        outcomes = {o for _, o in want}
        ctx.result("all-outcomes-seen", outcomes == {1, 2, 3}, str(outcomes))
    finally:
        poweroff(ctx, boot)


def job_boot_option(ctx):
    """dnlc=N sizes the cache at boot; a value out of range is refused with one line."""
    boot = shell_boot(ctx, "boot-option", cmdline="dnlc=0 dnlc=100")
    try:
        ctx.expect("refused-zero", boot,
                   r"boot: option dnlc: value '0' refused \(ERANGE\); expected 1\.\.65536")
        ctx.expect("boot-line", boot, r"dnlc: 100 entries of names up to 31 bytes")
        s = stats(boot)
        ctx.result("size-100", s.get("size") == "100" and s.get("entries") == "0", str(s))
        run_and_compare(ctx, boot, Dnlc(100), "run", "dnlc run random n=400 range=150 seed=8")
    finally:
        poweroff(ctx, boot)
