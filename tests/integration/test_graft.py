# SPDX-License-Identifier: BSD-2-Clause
"""Grafts as the kernel gets them: .graft files from `make grafts` booted
as multiboot modules, loaded (or refused with one line), installed and
removed from the shell; corrupted and random files refused without harm;
scheduling policies that change what `sched order` prints. Misbehaving
grafts at run time: test_bcache.py."""

import os
import random
import re
import subprocess
import sys
import time

from common import graft_path, poweroff, shell_boot

GOOD = ["sched_fair", "sched_lifo", "test_scale", "tick_count"]
REFUSED_AT_LOAD = [
    ("unexported", r"undefined symbol 'printk' is not exported to grafts"),
    ("wrong_signature", r"graft 'wrong-signature' has signature 'int \(int a\)' but bcache.evict is "
                        r"'int \(void\)'"),
    ("no_such_point", r"graft point 'bcache.teleport', which does not exist"),
]


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
        boot.command("graft install scale", r"'scale' is already installed at test.method")
        boot.command("graft install nosuch", r"no graft named 'nosuch' is loaded")
        boot.command("graft install scale 0", r"usage: graft install NAME \[TID \| pid PID\]")
        boot.command("graft budget test.method 0", r"give 1 to 10000000 us")
        boot.command("graft budget no.point 5", r"no graft point 'no.point'")
        ctx.result("bad-commands-refused", True)
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
