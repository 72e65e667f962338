# SPDX-License-Identifier: BSD-2-Clause
"""`scion daemon` (host/scionhost/daemon.py): several consumers share one
guest's control channel at once.

On one booted guest: two `scion trace` runs at once, each counting the
reads of its own block range while both ranges' workloads run, each
print exactly its own count; a third trace killed with SIGKILL mid-session
has its kernel stream (and so its trace session) closed by the daemon
(the kernel's `channel streams` listing), the others undisturbed;
`scion events --follow` sees a marker posted meanwhile; garbage and cut
frames sent to the daemon's socket get that connection dropped with a
line in the daemon's log; the daemon starts on demand, stops on
`scion daemon --stop` and after its last client leaves. Without a guest,
a client gets one clear line. The harness runs the other jobs with
SCION_NO_DAEMON=1 (tests/run_tests.py); these set it to 0."""

import os
import re
import signal
import socket
import subprocess
import sys
import time

from test_channel import channel_boot, scion
from common import poweroff

LINGER = 3
DAEMON_ENV = {"SCION_NO_DAEMON": "0", "SCION_DAEMON_LINGER": str(LINGER)}
# Each trace counts the reads of its own blocks; both workloads run while both trace.
TRACES = {"a": (100, 40), "b": (150, 70)}
STREAM_ROW = re.compile(r"^(\d+)\s+(\S+)\s+\d+\s+\d+\s+ms (open|closing)\s*$", re.M)


def program(start, n):
    return f"fbt::bcache_read:entry /arg0 >= {start} && arg0 < {start + n}/ {{ @n = count(); }}"


def scion_d(ctx, sock, *args, timeout=120):
    return scion(ctx, sock, *args, env=DAEMON_ENV, timeout=timeout)


def popen(ctx, sock, *args):
    argv = [sys.executable, os.path.join(ctx.root, "host", "scion"), "--socket", sock, *args]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **DAEMON_ENV})


def open_streams(ctx, sock):
    """The kernel's open streams, as (id, source), from its own listing."""
    rc, out, err = scion_d(ctx, sock, "shell", "channel", "streams")
    return [(int(m[1]), m[2]) for m in STREAM_ROW.finditer(out) if m[3] == "open"]


def wait_streams(ctx, sock, want, seconds=120):
    deadline = time.monotonic() + seconds
    while True:
        streams = open_streams(ctx, sock)
        if len([s for s in streams if s[1] == "trace"]) == want or time.monotonic() > deadline:
            return streams
        time.sleep(0.5)


def daemon_log(sock):
    try:
        with open(sock + ".daemon.log") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def wait_log(sock, pattern, seconds=10):
    deadline = time.monotonic() + seconds
    while not re.search(pattern, daemon_log(sock)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return re.search(pattern, daemon_log(sock))


def count_of(out):
    """The one count an `@n = count()` program prints."""
    numbers = re.findall(r"^\s*(\d+)\s*$", out, re.M)
    return int(numbers[-1]) if numbers else None


def read_until_closed(s, seconds=10):
    s.settimeout(seconds)
    data = b""
    try:
        while True:
            chunk = s.recv(1 << 16)
            if not chunk:
                return data, True
            data += chunk
    except OSError:
        return data, False


def bad_input(ctx, sock):
    """Garbage, a frame left cut short, a frame cut by a close: each connection dropped
    with a line in the log (the traces running meanwhile are checked later)."""
    from scionhost import frame
    path = sock + ".daemon"
    good = frame.encode_hello(1, "whatever")
    cases = [("garbage", b"this is not a frame\n" * 4, "sent \\d+ bytes that are no frame", True),
             ("cut-short", good[:10], "a frame cut short \\(", True),
             ("cut-by-close", good[:20], "closed its socket in the middle of a frame", False)]
    for name, data, line, wait in cases:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.sendall(data)
        if wait:
            reply, closed = read_until_closed(s)
            frames = frame.ReferenceParser(frame.KERNEL_SENT_TYPES).feed(reply)
            told = [frame.decode_status(f.payload)[1].decode() for f in frames
                    if f.type == frame.ERROR and f.seq == 0]
            ctx.result(f"bad-input/{name}/told", closed and len(told) == 1 and
                       told[0].startswith("scion daemon: ") and "\n" not in told[0],
                       f"closed {closed}, told {told!r}")
        s.close()
        ctx.result(f"bad-input/{name}/logged", wait_log(sock, r"client \d+: dropped: " + line),
                   daemon_log(sock)[-1500:])


def job_shared_channel(ctx):
    boot, sock = channel_boot(ctx, "shared", smp=2, single_thread_tcg=True)
    procs = []
    try:
        rc, out, err = scion_d(ctx, sock, "status")
        rc2, out2, _ = scion_d(ctx, sock, "daemon", "--status")
        ctx.result("started-on-demand", rc == 0 and "version:" in out and rc2 == 0 and
                   out2.startswith("running, pid ") and os.path.exists(sock + ".daemon"),
                   f"status {rc}: {out}{err}; daemon --status {rc2}: {out2}")
        events = popen(ctx, sock, "events", "--follow", "--count", "1", "--duration", "300")
        traces = {k: popen(ctx, sock, "trace", "-n", program(*TRACES[k])) for k in TRACES}
        procs = [events, *traces.values()]
        streams = wait_streams(ctx, sock, 2)
        ctx.result("two-sessions-open", len([s for s in streams if s[1] == "trace"]) == 2,
                   repr(streams))

        victim = popen(ctx, sock, "trace", "-n", program(*TRACES["a"]))
        procs.append(victim)
        before = wait_streams(ctx, sock, 3)
        victim.send_signal(signal.SIGKILL)
        victim.communicate(timeout=30)
        after = wait_streams(ctx, sock, 2, seconds=30)
        gone = set(before) - set(after)
        ctx.result("killed-consumer/session-stopped",
                   len([s for s in before if s[1] == "trace"]) == 3 and len(gone) == 1 and
                   set(after) < set(before), f"before {before}, after {after}")
        ctx.result("killed-consumer/logged", wait_log(sock, r"closing its 1 stream in the kernel"),
                   daemon_log(sock)[-1500:])

        bad_input(ctx, sock)

        for k, (start, n) in TRACES.items():
            rc, out, err = scion_d(ctx, sock, "shell", "bcache", "run", "seq", f"n={n}",
                                   f"start={start}", timeout=300)
            ctx.result(f"workload-{k}", rc == 0 and f"{n} reads" in out, out + err)
        scion_d(ctx, sock, "shell", "channel", "event", "daemon-marker")
        for k, p in traces.items():
            p.send_signal(signal.SIGINT)
        for k, p in traces.items():
            out, err = p.communicate(timeout=120)
            want = TRACES[k][1]
            ctx.result(f"trace-{k}-exact", p.returncode == 0 and count_of(out) == want,
                       f"exit {p.returncode}, count {count_of(out)} (want {want}): {out}{err}")
        out, err = events.communicate(timeout=120)
        ctx.result("events-follow-beside-traces",
                   events.returncode == 0 and "mark: daemon-marker" in out,
                   f"exit {events.returncode}: {out[-800:]}{err}")
        ctx.result("no-session-left", wait_streams(ctx, sock, 0, seconds=30) == [],
                   repr(open_streams(ctx, sock)))

        rc, out, err = scion_d(ctx, sock, "daemon", "--stop")
        rc2, out2, _ = scion_d(ctx, sock, "daemon", "--status")
        ctx.result("stopped", rc == 0 and "stopped the daemon" in err and rc2 == 1 and
                   not os.path.exists(sock + ".daemon"), f"{rc}: {out}{err}; {rc2}: {out2}")
        rc, out, err = scion_d(ctx, sock, "status")
        ctx.result("restarted-on-demand", rc == 0 and "version:" in out, out + err)
        deadline = time.monotonic() + LINGER + 20
        while scion_d(ctx, sock, "daemon", "--status")[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.5)
        ctx.result("exits-after-last-client", scion_d(ctx, sock, "daemon", "--status")[0] == 1,
                   daemon_log(sock)[-800:])
        rc, out, err = scion(ctx, sock, "--direct", "status", env={"SCION_NO_DAEMON": "0"})
        ctx.result("direct-still-works", rc == 0 and "version:" in out, out + err)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
        poweroff(ctx, boot)


def one_line(rc, out, err, want):
    return rc == 1 and out == "" and err.count("\n") == 1 and err.startswith("scion: ") and \
        want in err


def job_no_guest(ctx):
    """No guest: one clear line, and no daemon left behind."""
    os.makedirs(ctx.log_dir, exist_ok=True)
    missing = os.path.join(ctx.log_dir, f"{ctx.job}-missing.sock")
    rc, out, err = scion_d(ctx, missing, "status")
    ctx.result("no-socket-one-line", one_line(rc, out, err, "no control socket at"),
               f"exit {rc}: {out!r} {err!r}")
    stale = os.path.join(ctx.log_dir, f"{ctx.job}-stale.sock")
    for path in (stale, stale + ".daemon.log"):
        if os.path.exists(path):
            os.unlink(path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(stale)       # a socket file nobody listens on: QEMU has exited
    s.close()
    rc, out, err = scion_d(ctx, stale, "status")
    ctx.result("stale-socket-one-line", one_line(rc, out, err, "nothing listens on"),
               f"exit {rc}: {out!r} {err!r}")
    deadline = time.monotonic() + 10
    while scion_d(ctx, stale, "daemon", "--status")[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    ctx.result("no-daemon-left", scion_d(ctx, stale, "daemon", "--status")[0] == 1,
               daemon_log(stale))
    rc, out, err = scion_d(ctx, stale, "daemon", "--stop")
    ctx.result("stop-without-daemon", rc == 0 and "no daemon serves" in err, out + err)
