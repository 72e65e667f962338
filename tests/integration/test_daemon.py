# SPDX-License-Identifier: BSD-2-Clause
"""`scion daemon` (host/scionhost/daemon.py): several consumers share one
guest's control channel at once.

On one booted guest: two `scion trace` runs at once, each counting the
reads of its own block range while both ranges' workloads run, each
print exactly its own count; a third trace killed with SIGKILL mid-session
has its kernel stream (and so its trace session) closed by the daemon
(the kernel's `channel streams` listing), the others undisturbed; a
`scion record` of the block cache made while both trace is complete,
its counts the kernel's; `scion events --follow` sees a marker posted
meanwhile, once, over one connection (the daemon's log names each
client's pid); garbage and cut frames sent to the daemon's socket get
that connection dropped with a line in the daemon's log; the daemon
starts on demand, stops on `scion daemon --stop` and after its last
client leaves. Restarted with a 64 KiB $SCION_DAEMON_BUFFER_MAX, a
client that asks for a BULK transfer and does not read has DATA dropped,
counted in one log line and told to it once it reads again, every byte
accounted for, while another client's BULK and a trace get exactly
theirs. Following pushed events fills a gap from the kernel's ring
(a fake client, no guest). Without a guest, a client gets one clear
line. The harness runs the other jobs with SCION_NO_DAEMON=1
(tests/run_tests.py); these set it to 0."""

import io
import json
import os
import re
import shutil
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
# The recording made while both traces run reads blocks of neither range.
RECORD_RUN = ("bcache run seq n=30 start=300", 30, 300)
BUFFER_MAX = 64 << 10
# Several times what the socket and BUFFER_MAX hold, so a client that does not read loses some.
SLOW_BULK = 1 << 20
# Fits in BUFFER_MAX: however late its reader runs, none of it may be dropped (the
# virtio-console delivers a BULK faster than a client may be scheduled to read it).
OTHER_BULK = 48 << 10
SLOW_TRACE = (400, 25)
# Any of these clients may be the one to (re)start the daemon.
SMALL_ENV = {**DAEMON_ENV, "SCION_DAEMON_BUFFER_MAX": str(BUFFER_MAX)}
STREAM_ROW = re.compile(r"^(\d+)\s+(\S+)\s+\d+\s+\d+\s+ms (open|closing)\s*$", re.M)


def program(start, n):
    return f"fbt::bcache_read:entry /arg0 >= {start} && arg0 < {start + n}/ {{ @n = count(); }}"


def scion_d(ctx, sock, *args, timeout=120):
    return scion(ctx, sock, *args, env=DAEMON_ENV, timeout=timeout)


def popen(ctx, sock, *args, env=DAEMON_ENV):
    argv = [sys.executable, os.path.join(ctx.root, "host", "scion"), "--socket", sock, *args]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **env})


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


def forget_daemon_log(sock):
    """Remove what earlier runs' daemons logged beside sock: the daemon appends to its
    log, and a pid a check looks for there may be an earlier run's (pids recur)."""
    if os.path.exists(sock + ".daemon.log"):
        os.unlink(sock + ".daemon.log")


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


def record_beside_traces(ctx, sock):
    """A `scion record` while the two traces run: complete, and its counts the workload's
    and the kernel's (`scion record` itself fails when the kernel's totals and what
    arrived disagree)."""
    from scionhost import recfmt
    out = os.path.join(ctx.log_dir, f"{ctx.job}-recording")
    shutil.rmtree(out, ignore_errors=True)
    run, n, start = RECORD_RUN
    streams = open_streams(ctx, sock)
    ctx.result("record/beside-traces", len([s for s in streams if s[1] == "trace"]) == 2,
               repr(streams))
    rc, text, err = scion_d(ctx, sock, "record", "-m", "bcache", "-o", out, "--run", run,
                            timeout=300)
    ctx.result("record/exit", rc == 0 and f"{n} reads" in text and
               re.search(rf"bcache \(.*\), {n} requests, {n} results, 0 dropped", err),
               f"exit {rc}: {text}{err}")
    meta = json.load(open(os.path.join(out, recfmt.META_FILE))) if rc == 0 else {}
    _, trace = recfmt.read_stream(os.path.join(out, recfmt.TRACE_FILE)) if rc == 0 else ({}, [])
    _, log = recfmt.read_stream(os.path.join(out, recfmt.LOG_FILE)) if rc == 0 else ({}, [])
    ctx.result("record/complete", meta.get("complete") is True and
               meta.get("records") == {"trace": n, "log": n}, repr(meta))
    ctx.result("record/is-the-workload",
               [r["block"] for r in trace] == list(range(start, start + n)) and
               [r["seq"] for r in trace] == list(range(1, n + 1)) and
               [r["seq"] for r in log] == list(range(1, n + 1)),
               f"{trace[:2]!r} {log[:2]!r}")


def read_frames(s, parser, until, seconds=30):
    """Frames from raw socket s until until(frames so far) holds, or the deadline."""
    frames, deadline = [], time.monotonic() + seconds
    while not until(frames) and time.monotonic() < deadline:
        s.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = s.recv(1 << 16)
        except socket.timeout:
            break
        if not chunk:
            break
        frames += parser.feed(chunk)
    return frames


def slow_client(ctx, sock, since):
    """The daemon restarted with SMALL_ENV: a raw client asks for SLOW_BULK bytes and reads
    nothing until they have all been sent, while another client's BULK and a trace run.
    since: where the restarted daemon's part of the log begins."""
    from scionhost import frame
    from scionhost.client import host_version
    from scionhost.commands import BULK_REQUEST
    trace = popen(ctx, sock, "trace", "-n", program(*SLOW_TRACE), env=SMALL_ENV)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        wait_streams(ctx, sock, 1, seconds=60)
        s.connect(sock + ".daemon")
        parser = frame.ReferenceParser(frame.KERNEL_SENT_TYPES)
        s.sendall(frame.encode_hello(1, host_version(sock)))
        hello = read_frames(s, parser, lambda fs: fs)
        s.sendall(frame.encode_request(2, frame.OP_BULK, BULK_REQUEST.pack(bytes=SLOW_BULK)))
        # The kernel runs requests in order: this BULK starts once all of the slow one
        # has gone to the daemon, which drops what does not fit in BUFFER_MAX.
        rc, out, err = scion(ctx, sock, "bulk", str(OTHER_BULK), env=SMALL_ENV, timeout=120)
        ctx.result("slow-client/other-bulk-exact", rc == 0 and
                   out.startswith(f"received {OTHER_BULK} bytes"), f"exit {rc}: {out}{err}")
        rc, out, err = scion(ctx, sock, "shell", "bcache", "run", "seq", f"n={SLOW_TRACE[1]}",
                             f"start={SLOW_TRACE[0]}", env=SMALL_ENV, timeout=300)
        trace.send_signal(signal.SIGINT)
        out, err = trace.communicate(timeout=120)
        ctx.result("slow-client/other-trace-exact", trace.returncode == 0 and
                   count_of(out) == SLOW_TRACE[1], f"exit {trace.returncode}, count "
                   f"{count_of(out)} (want {SLOW_TRACE[1]}): {out}{err}")
        told_early = "read too slowly" in daemon_log(sock)[since:]

        def answered_and_told(fs):
            return any(f.type == frame.RESPONSE and f.seq == 2 for f in fs) and \
                any(f.type == frame.EVENT and frame.decode_event(f.payload)[0] == 0
                    for f in fs)
        frames = hello + read_frames(s, parser, answered_and_told)
    finally:
        s.close()
        if trace.poll() is None:
            trace.kill()
            trace.communicate()
    got = sum(len(frame.decode_data(f.payload)[1]) for f in frames if f.type == frame.DATA)
    notices = [frame.decode_event(f.payload)[2] for f in frames if f.type == frame.EVENT and
               frame.decode_event(f.payload)[0] == 0]
    answer = [frame.decode_status(f.payload)[0] for f in frames
              if f.type == frame.RESPONSE and f.seq == 2]
    log = daemon_log(sock)[since:]
    me = re.search(rf"client (\d+): connected \(pid {os.getpid()}\)", log)
    lines = re.findall(rf"client {me[1] if me else 'none'}: read too slowly: (\d+) DATA frames "
                       rf"\((\d+) bytes\) dropped while {BUFFER_MAX} bytes waited for it; "
                       "told it", log)
    ctx.result("slow-client/dropped-and-logged-once", not told_early and len(lines) == 1 and
               int(lines[0][0]) > 0, f"{lines} (told before it read: {told_early}): "
               f"{log[-1500:]}")
    dropped_frames, dropped_bytes = (int(x) for x in lines[0]) if lines else (0, 0)
    ctx.result("slow-client/told-once-it-read", answer == [0] and notices == [
        f"scion daemon: {dropped_frames} DATA frames ({dropped_bytes} bytes) dropped while "
        f"{BUFFER_MAX} bytes waited for it"], f"answer {answer}, notices {notices}")
    # Every byte asked for either arrived or is in the count: frames are whole.
    overhead = len(frame.encode(frame.DATA, 0, frame.encode_data(0, b"")))
    ctx.result("slow-client/every-byte-accounted", 0 < got < SLOW_BULK and
               got + dropped_bytes - dropped_frames * overhead == SLOW_BULK,
               f"{got} arrived, {dropped_frames} frames of {dropped_bytes} bytes dropped "
               f"({overhead} bytes of framing each), {SLOW_BULK} asked for")


def follower_connections(ctx, sock, pid):
    """How many times process pid connected to the daemon (its log names each client's)."""
    return len(re.findall(rf"client \d+: connected \(pid {pid}\)", daemon_log(sock)))


def job_shared_channel(ctx):
    boot, sock = channel_boot(ctx, "shared", smp=2, single_thread_tcg=True)
    forget_daemon_log(sock)
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
        record_beside_traces(ctx, sock)

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
                   events.returncode == 0 and out.count("mark: daemon-marker") == 1,
                   f"exit {events.returncode}: {out[-800:]}{err}")
        # It followed for the whole job: polling would have connected every half second.
        ctx.result("events-follow-one-connection",
                   follower_connections(ctx, sock, events.pid) == 1,
                   f"{follower_connections(ctx, sock, events.pid)} connections of pid "
                   f"{events.pid}: {daemon_log(sock)[-1500:]}")
        ctx.result("no-session-left", wait_streams(ctx, sock, 0, seconds=30) == [],
                   repr(open_streams(ctx, sock)))

        rc, out, err = scion_d(ctx, sock, "daemon", "--stop")
        rc2, out2, _ = scion_d(ctx, sock, "daemon", "--status")
        ctx.result("stopped", rc == 0 and "stopped the daemon" in err and rc2 == 1 and
                   not os.path.exists(sock + ".daemon"), f"{rc}: {out}{err}; {rc2}: {out2}")
        since = len(daemon_log(sock))
        rc, out, err = scion(ctx, sock, "status", env=SMALL_ENV)
        ctx.result("restarted-on-demand", rc == 0 and "version:" in out, out + err)
        slow_client(ctx, sock, since)
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


class PushingClient:
    """What follow_pushed uses of a Client: events, and a pump() that brings the next
    batch of pushed ones."""

    def __init__(self, batches):
        self.events, self.batches = [], list(batches)

    def pump(self, seconds):
        if self.batches:
            self.events += self.batches.pop(0)


def job_follow_gaps(ctx):
    """No guest: pushed events printed once each; the daemon's notice (number 0) is no
    event; a jump in the numbers filled from the ring, only what it lost reported."""
    from scionhost import streams

    def ev(n):
        return (n, 1000 * n, f"event {n}")
    asked = []

    def ring(client, after):
        asked.append(after)
        return [ev(n) for n in (6, 7, 8, 9)]       # 5 has left the ring
    client = PushingClient([[ev(8)], [ev(9), ev(10)], [ev(11)]])
    client.events = [ev(4), (0, 0, "scion daemon: 3 DATA frames (12 bytes) dropped"), ev(4)]
    out, err = io.StringIO(), io.StringIO()
    follower = streams.Follower(3, 6, out, err)
    streams.follow_pushed(client, follower, time.monotonic() + 30, ring=ring)
    numbers = [int(line.split()[0]) for line in out.getvalue().splitlines()]
    ctx.result("follow/gap-filled-from-ring", numbers == [4, 6, 7, 8, 9, 10] and asked == [4]
               and follower.done(), f"printed {numbers}, ring asked after {asked}")
    ctx.result("follow/lost-reported", err.getvalue() == "scion: 1 event lost\n",
               repr(err.getvalue()))


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
    if os.path.exists(stale):
        os.unlink(stale)
    forget_daemon_log(stale)
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
