# SPDX-License-Identifier: BSD-2-Clause
"""Grafts as the kernel gets them: .graft files from `make grafts` booted
as multiboot modules, loaded (or refused with one line), installed and
removed from the shell; misbehaving grafts aborted with their changes
undone; corrupted and random files refused without harm; scheduling
policies that change what `sched order` prints."""

import os
import random
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import poweroff, shell_boot  # noqa: E402

GOOD = ["sched_fair", "sched_lifo", "test_scale", "tick_count"]
# Misbehaving grafts at test.method: (file, graft name, reason in the abort line).
MISBEHAVING = [
    ("loop", "loop", r"time budget of \d+ us exceeded, pc loop\+0x[0-9a-f]+"),
    ("null_deref", "null-deref", r"page fault \(read, not present\) at address 0x0, pc null-deref\+0x[0-9a-f]+"),
    ("forged_store", "forged-store",
     r"page fault \(write, not present\) at address 0xffffc7ff00000000, pc forged-store\+0x[0-9a-f]+"),
    ("divide_zero", "divide-zero", r"divide error at pc divide-zero\+0x[0-9a-f]+"),
    ("lock_forever", "lock-forever", r"time budget of \d+ us exceeded, pc lock-forever\+0x[0-9a-f]+"),
]
REFUSED_AT_LOAD = [
    ("unexported", r"undefined symbol 'printk' is not exported to grafts"),
    ("wrong_signature", r"graft 'wrong-signature' has signature 'int \(int a\)' but test.method is "
                        r"'long \(long a, long b\)'"),
    ("no_such_point", r"graft point 'bcache.teleport', which does not exist"),
]


def graft_path(ctx, name):
    for sub in ("", "bad"):
        path = os.path.join(ctx.build, "grafts", sub, name + ".graft")
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"{name}.graft is not built (make grafts)")


def job_misbehaving_grafts(ctx):
    """Each misbehaving graft is aborted, its change undone, its lock freed, and the default used."""
    modules = [graft_path(ctx, n) for n in GOOD + [m[0] for m in MISBEHAVING]]
    boot = shell_boot(ctx, "misbehaving", smp=2, single_thread_tcg=True, modules=modules)
    try:
        boot.command("graft install scale", r"'scale' installed at test.method")
        boot.command("testpoint 6 7", r"test.method\(6, 7\) = 42; cells 0-3: 6 7 0 0")
        boot.command("graft remove scale", r"'scale' removed")
        ctx.result("good-graft-runs", True)
        for _, name, reason in MISBEHAVING:
            boot.command(f"graft install {name}", rf"'{name}' installed at test.method")
            start = boot.mark()
            boot.send("testpoint 1 2\n")
            m = boot.wait_for(r"test.method\(1, 2\) = (\d+); cells 0-3: (\d+) (\d+) (\d+) (\d+)",
                              start=start, timeout=60)
            said = boot.output[start:]
            ok = re.search(rf"graft: '{name}' aborted at test.method: {reason}; 1 change undone, "
                           r"graft removed, default used", said) is not None
            ctx.result(f"{name}-aborted-with-reason", ok, said.strip()[-300:])
            ctx.result(f"{name}-default-result-and-cell-undone",
                       m.group(1) == "3" and m.group(4) == "0", m.group(0))
            boot.command(f"graft remove {name}", rf"remove {name}: it is not installed")
        m = boot.command("graft locks", r"lock 7: \w+")
        ctx.result("locks-free-after-aborts", "held by" not in boot.output[-600:],
                   boot.output[-600:])
        m = boot.command("graft list", r"lock-forever\s+test.method\s+-\s+loaded\s+1\s+0\s+1")
        ctx.result("list-counts-the-abort", True)
        boot.command("graft install scale", r"installed")
        boot.command("testpoint 5 5", r"test.method\(5, 5\) = 25")
        ctx.result("grafts-work-after-aborts", True)
        boot.command("graft install loop", r"test.method already runs 'scale' for every thread")
        boot.command("graft install nosuch", r"no graft named 'nosuch' is loaded")
        boot.command("graft install scale 0", r"usage: graft install NAME \[TID\]")
        boot.command("graft budget test.method 0", r"give 1 to 10000000 us")
        boot.command("graft budget no.point 5", r"no graft point 'no.point'")
        ctx.result("bad-commands-refused", True)
    finally:
        poweroff(ctx, boot)


def job_refused_at_load(ctx):
    """Bad grafts, a corrupted corpus and random bytes: one line each, nothing loaded, no harm."""
    corpus = os.path.join(ctx.build, "test-logs", "corrupt-grafts")
    subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "mkcorrupt_grafts.py"),
                    graft_path(ctx, "test_scale"), corpus], check=True, capture_output=True)
    expected = {}
    with open(os.path.join(corpus, "expected.txt")) as f:
        for line in f:
            name, _, text = line.rstrip("\n").partition("\t")
            expected[name] = text
    rng = random.Random(5)
    for i in range(4):
        with open(os.path.join(corpus, f"random-{i}.graft"), "wb") as f:
            f.write(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000))))
    modules = [graft_path(ctx, n) for n, _ in REFUSED_AT_LOAD]
    modules += [os.path.join(corpus, n) for n in sorted(expected)]
    modules += [os.path.join(corpus, f"random-{i}.graft") for i in range(4)]
    modules.append(graft_path(ctx, "test_scale"))
    boot = shell_boot(ctx, "refused", modules=modules)
    try:
        out = boot.output
        for name, pattern in REFUSED_AT_LOAD:
            ok = re.search(rf"graft: {name}.graft: refused: .*{pattern}", out) is not None
            ctx.result(f"{name}-refused", ok, f"no refusal line for {name} (log: {boot.log_path})")
        for name, text in sorted(expected.items()):
            line = re.search(rf"^graft: {re.escape(name)}: refused: (.*)$", out, re.M)
            ctx.result(f"corrupt/{name}", line is not None and text in line.group(1),
                       f"{line.group(0) if line else 'no refusal line'}; expected '{text}'")
        for i in range(4):
            ctx.result(f"random-{i}-refused",
                       re.search(rf"^graft: random-{i}.graft: refused: \S", out, re.M) is not None,
                       f"(log: {boot.log_path})")
        boot.command("graft avail", r"test_scale.graft\s+\d+ bytes\s+'scale' for test.method")
        boot.command("graft install scale", r"installed")
        boot.command("testpoint 2 21", r"= 42")
        ctx.result("kernel-fine-after-refusals", True)
    finally:
        poweroff(ctx, boot)


def job_scheduler_policies(ctx):
    """sched.pick_next grafts change the order `sched order` reports."""
    modules = [graft_path(ctx, n) for n in GOOD]
    boot = shell_boot(ctx, "sched-policies", smp=2, single_thread_tcg=True, modules=modules)
    try:
        order = r"first-run order of 6 threads: ([\d ]+)\r?\n"
        m = boot.command("sched order 6", order)
        ctx.result("round-robin-fifo", m.group(1).split() == list("012345"), m.group(0))
        boot.command("graft install lifo", r"installed at sched.pick_next")
        m = boot.command("sched order 6", order)
        ctx.result("lifo-reverses", m.group(1).split() == list("543210"), m.group(0))
        boot.command("graft install fair", r"sched.pick_next already runs 'lifo'")
        boot.command("graft remove lifo", r"removed")
        boot.command("graft install fair", r"installed")
        m = boot.command("sched order 6", order)
        ctx.result("fair-ties-oldest-first", m.group(1).split() == list("012345"), m.group(0))
        boot.command("graft remove fair", r"removed")
        boot.command("graft install tick-count", r"installed at timer.tick")
        time.sleep(0.5)  # a few ticks
        m = boot.command("graft list", r"tick-count\s+timer.tick\s+global\s+installed\s+(\d+)\s+(\d+)\s+0")
        ctx.result("event-graft-runs-every-tick", int(m.group(1)) > 0 and m.group(1) == m.group(2),
                   m.group(0))
        boot.command("threads", r"scheduling policy: round robin")
        ctx.result("shell-fine", True)
    finally:
        poweroff(ctx, boot)
