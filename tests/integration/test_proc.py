# SPDX-License-Identifier: BSD-2-Clause
"""User processes on Scion: the same static musl binaries test_userland
checks on Linux run here from the program archive and must give Linux's
answers (`NAME: N passed, 0 failed`); the hostile ones are killed by
SIGSEGV with a one-line report naming pid, program, signal and address,
or get their error (bad_pointers, fork_bomb's EAGAIN at the process
limit); an endless loop started in the background is listed by `ps` and
killed from the shell; a system call Scion lacks is counted by number;
and after every program has run, the free memory is what it was after
a first round (every page a process held is given back). Two CPUs under
multi-threaded TCG, so processes really run in parallel."""

import re
import time

from common import graft_path, poweroff, shell_boot
from test_userland import CHECKED, KILLED

PROMPT = r"\nscion> "


def run(boot, line, expect=PROMPT, timeout=120):
    start = boot.mark()
    if timeout:
        boot.command(line, expect, timeout=timeout)
    else:
        boot.command(line, expect)
    return boot.output[start:]


def free_kib(ctx, boot, label):
    """Free memory plus the kernel's page tables, which a new thread
    stack's vmap slot may grow for good (kernel/mm/vmap.c): what the
    processes themselves held must all come back."""
    out = run(boot, "mem")
    m = re.search(r"physical: \d+ KiB managed, (\d+) KiB free", out)
    t = re.search(r"kernel page tables: (\d+) KiB", out)
    ctx.result(f"mem-{label}", m and t, f"no 'physical:' or page-table line in {out!r}")
    return int(m.group(1)) + int(t.group(1)) if m and t else -1


def run_all(ctx, boot, label):
    for name in CHECKED:
        out = run(boot, f"run {name}")
        m = re.search(rf"^{re.escape(name.replace('-pie', ''))}: (\d+) passed, (\d+) failed$", out, re.M)
        ctx.result(f"{label}/{name}", m and m.group(2) == "0" and int(m.group(1)) > 0 and
                   "exited with status" not in out,
                   f"{name} on Scion: {out.strip()[-1500:]!r} (log: {boot.log_path})")
    for name, sig in KILLED.items():
        out = run(boot, f"run {name}")
        ctx.result(f"{label}/{name}-killed",
                   re.search(rf"proc: pid (\d+) \({name}\) killed by SIGSEGV: page fault \([^)]*user mode\)"
                             rf" at pc 0x[0-9a-f]+ address 0x[0-9a-f]+", out) and
                   re.search(rf"run: pid \d+ killed by signal {int(sig)}", out),
                   f"{name}: {out.strip()[-800:]!r}")
    out = run(boot, "run fork_bomb")
    ctx.result(f"{label}/fork_bomb", re.search(r"fork_bomb: \d+ passed, 0 failed", out) and
               re.search(r"fork_bomb: \d+ forks before fork failed with EAGAIN", out),
               f"fork_bomb: {out.strip()[-800:]!r}")
    out = run(boot, "ps")
    ctx.result(f"{label}/no-process-left", re.search(r"^0 processes$", out, re.M),
               f"processes left after the programs: {out!r}")


def job_programs(ctx):
    boot = shell_boot(ctx, "programs", programs=True, smp=2, single_thread_tcg=False,
                      timeout=600)
    try:
        out = run(boot, "run hello one two")
        ctx.result("hello", "hello from user space (argv[0] = hello)" in out and
                   "hello: argv[2] = two" in out, f"hello: {out!r}")
        out = run(boot, "run hello-pie")
        ctx.result("hello-static-pie", "hello from user space (argv[0] = hello-pie)" in out,
                   f"hello-pie: {out!r}")
        # Two processes writing lines at once, each line a writev of one
        # entry per byte: every line comes through whole.
        out = run(boot, "run tty_lines")
        whole = [f"tty_lines: {who} {n} abcdefghijklmnopqrstuvwxyz0123456789"
                 for who in ("parent", "child") for n in range(60)]
        lines = set(out.replace("\r", "").split("\n"))
        broken = [line for line in whole if line not in lines]
        ctx.result("tty-writev-whole", not broken and "tty_lines: 4 passed, 0 failed" in out,
                   f"{len(broken)} lines not whole, e.g. {broken[:2]}: {out[-1200:]!r}")
        # A first round warms the heap's slabs; the second must give every page back.
        run_all(ctx, boot, "round1")
        before = free_kib(ctx, boot, "before")
        run_all(ctx, boot, "round2")
        after = free_kib(ctx, boot, "after")
        run_all(ctx, boot, "round3")
        after3 = free_kib(ctx, boot, "after3")
        ctx.result("memory-given-back", before > 0 and after == before == after3,
                   f"{before} KiB free (and kernel page tables) before the second round, "
                   f"{after} KiB after it, {after3} KiB after a third")

        start = boot.mark()
        out = run(boot, "run spin &")
        m = re.search(r"\[(\d+)\] /spin", out)
        ctx.result("spin-started", m, f"run spin &: {out!r}")
        # Its own line comes when it runs: wait for it, so that it cannot
        # fall among the next command's output.
        boot.wait_for(r"spin: pid \d+ spinning forever\n", start=start, timeout=60)
        if m:
            pid = m.group(1)
            out = run(boot, "ps")
            ctx.result("ps-lists-spin", re.search(rf"^ +{pid} +0 alive .* spin$", out, re.M),
                       f"ps: {out!r}")
            out = run(boot, f"kill {pid} 9")
            ctx.result("kill-spin", "kill:" not in out, f"kill: {out!r}")
            # It dies at its CPU's next timer interrupt: give it some host time.
            gone = False
            for _ in range(50):
                out = run(boot, "ps")
                if not re.search(rf"^ +{pid} ", out, re.M):
                    gone = True
                    break
                time.sleep(0.2)
            ctx.result("spin-gone", gone, f"ps after kill: {out!r}")
        out = run(boot, "kill 99999")
        ctx.result("kill-no-such", "kill: 99999: no such process" in out, f"{out!r}")
        out = run(boot, "run nosuch")
        ctx.result("run-missing", re.search(r"run: /nosuch: ENOENT", out), f"{out!r}")
        out = run(boot, "run etc/motd")
        ctx.result("run-not-executable", re.search(r"run: /etc/motd: EACCES", out), f"{out!r}")
        out = run(boot, "syscalls")
        ctx.result("enosys-counted", re.search(r"^ +400 \(no such call\) +\d+$", out, re.M) and
                   re.search(r"^ +1 write +\d+$", out, re.M), f"syscalls: {out!r}")
    finally:
        poweroff(ctx, boot)


def job_per_process_graft(ctx):
    """A vm.fault_around graft installed for one process changes that
    process's page faults only (8 pages a fault: 64 pages in 8 faults),
    a KernInst count scoped to each process sees exactly its own faults,
    and the graft is removed when its process exits."""
    boot = shell_boot(ctx, "per-process-graft", programs=True,
                      modules=[graft_path(ctx, "fault_around8")], timeout=300)
    try:
        pids = []
        for _ in range(2):
            out = run(boot, "run touch_pages 64 --wait &", r"\[(\d+)\] /touch_pages\n")
            pids.append(re.search(r"\[(\d+)\] /touch_pages", out).group(1))
        grafted, plain = pids
        out = run(boot, f"graft install fault-around-8 pid {grafted}")
        ctx.result("install-for-pid", f"installed at vm.fault_around for process {grafted}" in out,
                   f"{out!r}")
        out = run(boot, "graft install fault-around-8 pid 99999")
        ctx.result("install-for-missing-pid", "no process 99999" in out, f"{out!r}")
        for pid in pids:
            out = run(boot, f"count proc_page_fault pid {pid}")
            ctx.result(f"count-pid-{pid}", "(one process)" in out, f"{out!r}")
        out = run(boot, f"kill {grafted} 10", r"touch_pages: \d+ passed, \d+ failed\n")
        m = re.search(r"touch_pages: 64 pages, (\d+) faults", out)
        ctx.result("grafted-process-faults", m and m.group(1) == "8",
                   f"with fault-around-8: {out!r}")
        ctx.result("graft-removed-at-exit",
                   re.search(rf"proc: pid {grafted} \(touch_pages\) exits: 1 graft installed for it "
                             r"removed", boot.output) or
                   boot.wait_for(rf"pid {grafted} \(touch_pages\) exits: 1 graft", timeout=30),
                   f"no removal line (log: {boot.log_path})")
        out = run(boot, f"kill {plain} 10", r"touch_pages: \d+ passed, \d+ failed\n")
        m = re.search(r"touch_pages: 64 pages, (\d+) faults", out)
        ctx.result("other-process-unchanged", m and m.group(1) == "64",
                   f"without the graft: {out!r}")
        out = run(boot, "stats")
        counts = re.findall(r"count +proc_page_fault tid \d+: (\d+) calls", out)
        ctx.result("counts-per-process", counts == ["8", "64"], f"stats: {out!r}")
        out = run(boot, "graft list")
        ctx.result("graft-not-installed-after-exit",
                   re.search(r"^fault-around-8 +vm\.fault_around +- +loaded", out, re.M),
                   f"graft list: {out!r}")
    finally:
        poweroff(ctx, boot)
