# SPDX-License-Identifier: BSD-2-Clause
"""A stand-in for the kernel's end of the control channel, for testing
the host command `scion` without QEMU.

It listens on a UNIX socket and serves one connection at a time, as
QEMU's chardev does, parsing what the host sends with the reference
receiver and answering the ops from canned text. It checks the host, not
the kernel: what it answers is only as right as chan_proto.h's reading
here. Each connection's accepted frames are recorded, so a test can see
that two clients never interleaved.
"""

import os
import socket
import struct
import threading

from scionhost import frame

EINVAL = 22
ENOSYS = 38


class FakeKernel:
    """version: what the kernel's HELLO says; shell: guest command line ->
    (status, output); ignore_hellos: HELLOs to drop first (a kernel still
    booting); silent_ops: ops never answered; noise: bytes sent before
    the HELLO reply (garbage, stray frames, as after a vanished client);
    refuse_other_versions=False answers any host's HELLO, leaving the
    version check to the host; hold_seconds delays every answer."""

    def __init__(self, path, version="v-test", shell=None, ignore_hellos=0, silent_ops=(),
                 noise=b"", hold_seconds=0.0, refuse_other_versions=True):
        self.path = path
        self.version = version
        self.shell = shell or {}
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
            for f in parser.feed(data):
                self._answer(conn, f, log)

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
        if op == frame.OP_STATUS:
            reply = response(f.seq, 0, f"version: {self.version}\nuptime: 1.250 s\ncpus: 2\n"
                             "memory: 262144 KiB\ngrafts: 3 loaded, 1 installed\n")
        elif op == frame.OP_SHELL:
            status, text = self.shell.get(body.decode(), (-2, f"scion: unknown command "
                                                         f"'{body.decode()}'\n"))
            reply = response(f.seq, status, text)
        elif op == frame.OP_GRAFT_LOAD:
            name, _, image = body.partition(b"\0")
            reply = response(f.seq, 0, f"graft: loaded {name.decode()} ({len(image)} bytes)\n")
        elif op == frame.OP_ECHO:
            reply = frame.encode(frame.RESPONSE, f.seq, struct.pack("<i", 0) + body)
        elif op == frame.OP_BULK:
            (n,) = struct.unpack("<I", body)
            reply = b""
            for start in range(0, n, 60000):
                chunk = b"\x5a" * min(60000, n - start)
                reply += frame.encode(frame.DATA, 0, struct.pack("<I", 0) + chunk)
            reply += frame.encode(frame.RESPONSE, f.seq, struct.pack("<iQ", 0, 123456))
        elif op == frame.OP_STATS:
            reply = response(f.seq, 0, "frames_accepted 5\nframes_rejected 0\ngarbage_bytes 0\n")
        else:
            reply = error(f.seq, -ENOSYS, f"unknown op {op}")
        conn.sendall(reply)


def response(seq, status, text):
    return frame.encode(frame.RESPONSE, seq, struct.pack("<i", status) + text.encode())


def error(seq, status, text):
    return frame.encode(frame.ERROR, seq, struct.pack("<i", status) + text.encode())
