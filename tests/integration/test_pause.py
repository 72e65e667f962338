# SPDX-License-Identifier: BSD-2-Clause
"""`scion break` and `scion thread` (host/scionhost/debug.py, kernel/debug/):
a conditional breakpoint (`pause_target if arg0 == 2`, a D predicate)
pauses only the thread whose argument is 2 among three that call the
function (`pausework 3`): the kernel posts an event naming it, the other
two run to their end meanwhile, `scion thread TID regs` shows its
argument register and `stack` its callers; continued, it pauses again at
its next call (the breakpoint is still there); `scion thread TID step`
before that runs one instruction at a time: to pause_target's return,
then back in its caller, one line each, and refuses a thread that is not
paused (kernel/debug/step.c); once `scion break` ends
and the thread is continued, it completes every call with the right
results. A breakpoint in the timer interrupt pauses nothing and says why;
bad requests get one line; `text verify` finds the text as booted."""

import os
import re
import signal
import subprocess
import sys
import time

from common import poweroff
from test_channel import channel_boot
from test_channel import scion as scion_direct

# `scion break` holds a trace session while the other commands run: they share the
# channel through `scion daemon` (the harness runs other jobs with SCION_NO_DAEMON=1).
DAEMON_ENV = {"SCION_NO_DAEMON": "0"}


def scion(ctx, sock, *args, timeout=60):
    return scion_direct(ctx, sock, *args, env=DAEMON_ENV, timeout=timeout)

WORKERS = 3
CALLS = 40
STATUS = re.compile(r"pausework: worker (\d+) tid (\d+) calls (\d+) wrong (\d+) (done|running)")


def worker_status(ctx, sock):
    rc, out, err = scion(ctx, sock, "shell", "pausework", "status")
    return {int(m.group(1)): (int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5))
            for m in STATUS.finditer(out)}


def wait_for(what, fn, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = fn()
        if value:
            return value
        time.sleep(0.2)
    return None


def paused_tids(ctx, sock):
    rc, out, err = scion(ctx, sock, "thread", "list")
    return [int(m.group(1)) for m in re.finditer(r"^\s+(\d+)\s+pausework\s", out, re.M)]


def start_break(ctx, sock, *words):
    argv = [sys.executable, os.path.join(ctx.root, "host", "scion"), "--socket", sock,
            "break", *words]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **DAEMON_ENV, "SCION_KSYMS": ctx.ksyms})


def tracing(ctx, sock):
    """Whether a trace session's stream is open (the breakpoint's D program runs)."""
    rc, out, err = scion(ctx, sock, "shell", "channel", "streams")
    return re.search(r"^\s*\d+\s+trace\s.*\bopen\s*$", out, re.M) is not None


def check_conditional(ctx, boot, sock):
    brk = start_break(ctx, sock, "pause_target", "if", "arg0", "==", "2", "--duration", "300")
    try:
        ctx.result("break-enabled", wait_for("enabled", lambda: tracing(ctx, sock)),
                   "the breakpoint's trace session never opened")
        boot.command(f"pausework {WORKERS}", r"pausework: \d+ workers started")
        tids = wait_for("a pause", lambda: paused_tids(ctx, sock))
        status = wait_for("the others' end", lambda: (
            lambda s: s if s.get(1, (0, 0, 0, ""))[3] == "done" and
            s.get(3, (0, 0, 0, ""))[3] == "done" else None)(worker_status(ctx, sock)))
        ctx.result("only-the-matching-thread", tids and status and
                   tids == [status[2][0]] and status[2][1] == 0 and status[2][3] == "running"
                   and status[1][1] == CALLS and status[3][1] == CALLS,
                   f"paused {tids}; workers {status}")
        if not tids:
            return
        tid = str(tids[0])
        rc, out, err = scion(ctx, sock, "events")
        ctx.result("event", re.search(rf"pause: thread {tid} \(pausework\) paused at "
                                      r"pause_target\b", out) is not None, f"events: {out}")
        rc, out, err = scion(ctx, sock, "thread", tid, "regs")
        ctx.result("regs", rc == 0 and re.search(r"rdi 0+2\b", out) is not None,
                   f"exit {rc}: {out}{err}")
        rc, out, err = scion(ctx, sock, "thread", tid, "stack")
        lines = [line.strip() for line in out.splitlines()]
        ctx.result("stack", rc == 0 and lines[:1] == ["pause_target+0x0"] and
                   any(line.startswith("worker_main+") for line in lines),
                   f"exit {rc}: {out}{err}")
        check_step(ctx, sock, tid)
        rc, out, err = scion(ctx, sock, "thread", tid, "continue")
        ctx.result("continue", rc == 0 and f"thread {tid} resumed" in out, f"exit {rc}: {out}{err}")
        again = wait_for("the next pause", lambda: (
            lambda s: s if s.get(2, (0, 0, 0, ""))[1] == 1 and paused_tids(ctx, sock) else None)(
            worker_status(ctx, sock)))
        ctx.result("pauses-again-at-next-call", again is not None,
                   f"workers {worker_status(ctx, sock)}")
    finally:
        brk.send_signal(signal.SIGINT)
        out, err = brk.communicate(timeout=60)
    ctx.result("break-ends", brk.returncode == 0, f"exit {brk.returncode}: {out}{err}")
    rc, out, err = scion(ctx, sock, "thread", "all", "continue")
    done = wait_for("the paused one's end", lambda: (
        lambda s: s if s.get(2, (0, 0, 0, ""))[3] == "done" else None)(worker_status(ctx, sock)))
    ctx.result("resumed-thread-completes", done and all(
        done[w][1] == CALLS and done[w][2] == 0 for w in (1, 2, 3)), f"workers {done}")


def check_step(ctx, sock, tid):
    """Two steps from pause_target's entry: its ret (lea; ret), then its caller."""
    rc, out, err = scion(ctx, sock, "thread", tid, "step")
    m = re.search(rf"pause: thread {tid} stepped to pause_target\+(0x[0-9a-f]+)$", out, re.M)
    ctx.result("step-in-function", rc == 0 and m is not None and int(m.group(1), 16) > 0,
               f"exit {rc}: {out}{err}")
    rc, out, err = scion(ctx, sock, "thread", "list")
    ctx.result("step-still-paused", m is not None and re.search(
        rf"^\s+{tid}\s+pausework\s+pause_target\+{m.group(1)}\s", out, re.M) is not None,
               f"exit {rc}: {out}{err}")
    rc, out, err = scion(ctx, sock, "thread", tid, "stack")
    lines = [line.strip() for line in out.splitlines()]
    ctx.result("step-stack", m is not None and lines[:1] == [f"pause_target+{m.group(1)}"] and
               any(line.startswith("worker_main+") for line in lines), f"exit {rc}: {out}{err}")
    rc, out, err = scion(ctx, sock, "thread", tid, "step")
    ctx.result("step-returns-to-caller", rc == 0 and re.search(
        rf"pause: thread {tid} stepped to worker_main\+0x[0-9a-f]+$", out, re.M) is not None,
               f"exit {rc}: {out}{err}")
    rc, out, err = scion(ctx, sock, "thread", "99999", "step")
    ctx.result("step-not-paused", rc == 1 and len(err.strip().splitlines()) == 1 and
               "thread 99999 cannot step: it is not paused" in err, f"exit {rc}: {out}{err}")


def check_refused(ctx, sock):
    brk = start_break(ctx, sock, "clock_timer_interrupt", "--duration", "2")
    out, err = brk.communicate(timeout=120)
    rc, listing, lerr = scion(ctx, sock, "thread", "list")
    m = re.search(r"(\d+) hits not paused \(last at clock_timer_interrupt\S*: (.*)\)", listing)
    ctx.result("refused-in-interrupt", brk.returncode == 0 and m and int(m.group(1)) > 0 and
               m.group(2) in ("interrupts masked at the probe", "in an interrupt handler") and
               "0 paused now" in listing, f"break exit {brk.returncode}: {err}; {listing}{lerr}")


def check_bad(ctx, sock):
    rc, out, err = scion(ctx, sock, "break", "not a function")
    ctx.result("bad-spec", rc != 0 and len(err.strip().splitlines()) == 1, f"exit {rc}: {err}")
    rc, out, err = scion(ctx, sock, "break", "pause_target", "when", "arg0")
    ctx.result("bad-condition", rc != 0 and "if PREDICATE" in err, f"exit {rc}: {err}")
    rc, out, err = scion(ctx, sock, "thread", "99999", "regs")
    ctx.result("not-paused", rc == 1 and "thread 99999 is not paused" in err,
               f"exit {rc}: {out}{err}")


def job_break(ctx):
    boot, sock = channel_boot(ctx, "break", smp=2, single_thread_tcg=True)
    try:
        check_conditional(ctx, boot, sock)
        check_refused(ctx, sock)
        check_bad(ctx, sock)
        m = boot.command("text verify", r"text: (identical|\d+ ranges? differ)", timeout=120)
        ctx.result("text-verify", m.group(1) == "identical", m.group(0))
        scion(ctx, sock, "daemon", "--stop")
    finally:
        poweroff(ctx, boot)
