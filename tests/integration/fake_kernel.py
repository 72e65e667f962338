# SPDX-License-Identifier: BSD-2-Clause
"""A stand-in for the kernel's end of the control channel, for testing
the host command `scion` without QEMU.

It listens on a UNIX socket and serves one connection at a time, as
QEMU's chardev does, parsing what the host sends with the reference
receiver and answering the ops from canned text and canned records
(the structured replies of chan_reply.h, built with the host's layouts;
list answers are paged a few records at a time, so the host's paging is
exercised). It checks the host, not
the kernel: what it answers is only as right as chan_proto.h's reading
here. Each connection's accepted frames are recorded, so a test can see
that two clients never interleaved.
"""

import os
import socket
import threading

from scionhost import frame
from scionhost.layouts import layout

EINVAL = 22
ENOSYS = 38


class FakeKernel:
    """version: what the kernel's HELLO says; shell: guest command line ->
    (status, output); ignore_hellos: HELLOs to drop first (a kernel still
    booting); silent_ops: ops never answered; noise: bytes sent before
    the HELLO reply (garbage, stray frames, as after a vanished client);
    refuse_other_versions=False answers any host's HELLO, leaving the
    version check to the host; hold_seconds delays every answer; answers:
    op -> function(body) -> (status, reply body[, frames]), replacing the
    canned answer of that op (default_answers); frames, when given, are
    encoded frames sent before the answer (a stream's last DATA chunks)."""

    def __init__(self, path, version="v-test", shell=None, ignore_hellos=0, silent_ops=(),
                 noise=b"", hold_seconds=0.0, refuse_other_versions=True, answers=None):
        self.path = path
        self.version = version
        self.shell = shell or {}
        self.answers = {**default_answers(version), **(answers or {})}
        self.ignore_hellos = ignore_hellos
        self.silent_ops = set(silent_ops)
        self.noise = noise
        self.hold_seconds = hold_seconds
        self.refuse_other_versions = refuse_other_versions
        self.sessions = []          # per connection: [(type, seq, op or None, body)]
        self.hellos_seen = 0
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(path)
        self._listener.listen(8)
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def close(self):
        self._stop = True
        self._listener.close()
        self._thread.join(5)
        if os.path.exists(self.path):
            os.unlink(self.path)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _serve(self):
        while not self._stop:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with conn:
                self._session(conn)

    def _session(self, conn):
        parser = frame.ReferenceParser()
        log = []
        self.sessions.append(log)
        conn.settimeout(0.2)
        while not self._stop:
            try:
                data = conn.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            if not data:
                return
            try:
                for f in parser.feed(data):
                    self._answer(conn, f, log)
            except OSError:
                return          # the host hung up in the middle of an answer

    def _answer(self, conn, f, log):
        if f.type == frame.HELLO:
            log.append((f.type, f.seq, None, f.payload))
            self.hellos_seen += 1
            if self.hellos_seen <= self.ignore_hellos:
                return
            host = f.payload.decode()
            if host != self.version and self.refuse_other_versions:
                conn.sendall(error(f.seq, -EINVAL, f"version mismatch: host {host}, "
                                                   f"kernel {self.version}"))
                return
            conn.sendall(self.noise + frame.encode(frame.HELLO, f.seq,
                                                   f"{self.version}\ngcc 12, x86_64".encode()))
            self.noise = b""
            return
        op, body = frame.decode_request(f.payload)
        log.append((f.type, f.seq, op, body))
        if op in self.silent_ops:
            return
        if self.hold_seconds:
            threading.Event().wait(self.hold_seconds)
        if op in self.answers:
            status, answer, *before = self.answers[op](body)
            reply = b"".join(before) + frame.encode(
                frame.RESPONSE if status >= 0 else frame.ERROR, f.seq,
                frame.encode_status(status, answer))
        elif op == frame.OP_SHELL:
            status, text = self.shell.get(body.decode(), (-2, f"scion: unknown command "
                                                         f"'{body.decode()}'\n"))
            reply = response(f.seq, status, text)
        elif op == frame.OP_GRAFT_LOAD:
            name, _, image = body.partition(b"\0")
            reply = response(f.seq, 0, f"graft: loaded {name.decode()} ({len(image)} bytes)\n")
        elif op == frame.OP_ECHO:
            reply = frame.encode(frame.RESPONSE, f.seq, frame.encode_status(0, body))
        elif op == frame.OP_BULK:
            n = layout("chan_bulk_request").unpack(body)["bytes"]
            reply = b""
            for start in range(0, n, 60000):
                chunk = b"\x5a" * min(60000, n - start)
                reply += frame.encode(frame.DATA, 0, frame.encode_data(0, chunk))
            reply += frame.encode(frame.RESPONSE, f.seq, frame.encode_status(
                0, layout("chan_bulk_reply").pack(cycles=123456)))
        else:
            reply = error(f.seq, -ENOSYS, f"unknown op {op}")
        conn.sendall(reply)


def response(seq, status, text):
    return frame.encode(frame.RESPONSE, seq, frame.encode_status(status, text.encode()))


def error(seq, status, text):
    return frame.encode(frame.ERROR, seq, frame.encode_status(status, text.encode()))


# --- canned structured replies (kernel/include/scion/chan_reply.h) ---------

PAGE_RECORDS = 2        # records per list answer: small, so lists take several


def list_answer(name, records, page=PAGE_RECORDS):
    """An op answering a list of (key, {member: value}) records, paged as the kernel does."""
    lay, head, request = layout(name), layout("chan_list_head"), layout("chan_list_request")

    def answer(body):
        if len(body) < request.size:
            return -EINVAL, b"list: a request shorter than its start"
        start = request.unpack(body)["start"]
        after = [(key, r) for key, r in records if key > start]
        shown = after[:page]
        more = len(after) > page
        head_bytes = head.pack(count=len(shown), total=len(records), record_bytes=lay.size,
                               more=int(more), next=shown[-1][0] if shown else start)
        return 0, head_bytes + b"".join(lay.pack(**r) for _, r in shown)
    return answer


def struct_answer(name, **values):
    return lambda body: (0, layout(name).pack(**values))


def default_answers(version):
    probes = [(1, dict(id=1, sites=1, consumers=0, count=-1,
                       name=b"fbt:kernel:kernel_main:entry")),
              (2, dict(id=2, sites=1, consumers=1, count=42,
                       name=b"fbt:kernel:thread_create:entry"))]
    grafts = [(1, dict(name=b"lifo", point=b"sched.pick_next", installed=1, invocations=55,
                       commits=55, time_us=12, mode=1)),
              (2, dict(name=b"loop", point=b"test.method", installed=1, scope_tid=7,
                       invocations=1, aborts=1, time_us=5000, mode=2,
                       last_abort=b"time budget exceeded")),
              (3, dict(name=b"spare", point=b"test.event", installed=0, mode=3))]
    metrics = [(1, dict(id=1, kind=1, function=b"thread_create", calls=12)),
               (2, dict(id=2, kind=2, function=b"thread_yield", tid=4, calls=4, area=6001)),
               (3, dict(id=3, kind=3, function=b"thread_sleep_ticks"))]
    events = [(n, dict(number=n, uptime_ms=1000 + n, text=f"mark: {n}".encode()))
              for n in range(1, 6)]
    return {
        frame.OP_STATUS: struct_answer(
            "chan_status", version=version.encode(), build=b"gcc 12, x86_64", uptime_ms=1250,
            cpus=2, memory_kib=262144, memory_free_kib=200000, grafts_loaded=3,
            grafts_installed=1, probes=721, probe_sites=3, jump_sites=2, breakpoint_sites=1,
            probe_installs=5, probe_removals=2, sync_rounds=9, jumps_refused=1,
            cycles_per_second=3000000000),
        frame.OP_STATS: struct_answer("chan_channel_stats", frames_accepted=5,
                                      rejected=[0, 1, 0, 0, 0, 0, 2]),
        frame.OP_PROBE_LIST: lambda body: list_answer("chan_probe_info", [
            p for p in probes if body[8:] in (b"", b"fbt:::entry") or
            body[8:].decode() in p[1]["name"].decode()])(body),
        frame.OP_GRAFT_LIST: list_answer("chan_graft_info", grafts),
        frame.OP_METRICS: list_answer("chan_metric_info", metrics),
        frame.OP_EVENTS: list_answer("chan_event_info", events),
    }
