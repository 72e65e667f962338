# SPDX-License-Identifier: BSD-2-Clause
"""One session with the kernel over its control channel (COM2 on a UNIX
socket QEMU listens on).

A Client locks the channel for the whole session (QEMU serves one
connection at a time, and two hosts' frames must never interleave),
connects, shakes hands (HELLO with the host's build version, resent until
the kernel answers, since it may still be booting or resynchronising after
a client that vanished mid-frame), then sends REQUESTs and matches
RESPONSEs by sequence number, passing DATA to a callback and keeping
EVENTs. Streams (STREAM_OPEN / STREAM_CLOSE) deliver their DATA chunks
to the callback given when opening them, during any request or pump().
Every failure is a ScionError whose message is the one line the `scion`
command prints after "scion: "; losing the channel mid-session (it
closes, or the kernel stops answering) is its subclass ChannelLost.
"""

import fcntl
import os
import random
import socket
import time
from collections import deque

from . import frame
from .layouts import layout

# host/scionhost/client.py -> the repository.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
HELLO_RESEND_SECONDS = 0.5
LOCK_POLL_SECONDS = 0.05
SUN_PATH_MAX = 107      # bytes of a UNIX socket path, without the NUL
_STREAM_OPEN_REPLY = layout("chan_stream_open_reply", "stream", "cpus", "bufsize")
_STREAM_CLOSE = layout("chan_stream_close_request", "stream")


class ScionError(Exception):
    """A failure to report as one line, "scion: MESSAGE"."""


class ChannelLost(ScionError):
    """The channel closed (QEMU exited, Scion powered off) or the kernel stopped
    answering in the middle of a session: what arrived before is all there is.
    Commands that collect data (record.py, streams.py, trace.py) keep it.
    closed: the channel closed (else the kernel stopped answering); detail: what
    happened, in a few words without the socket's path."""

    def __init__(self, message, closed=True, detail=None):
        super().__init__(message)
        self.closed, self.detail = closed, detail or message


def answer(lay, body, what, exact=True):
    """An answer body that is (exact) or starts with struct lay.name -> {member: value};
    a ScionError of one line naming what when it is not."""
    try:
        return frame.decode_struct(lay, body, what, exact)
    except frame.FrameError as e:
        raise ScionError(str(e)) from None


def default_socket_path():
    return os.environ.get("SCION_SOCKET") or os.path.join(REPO, "build", "control.sock")


def host_version(socket_path=None):
    """The build this host command belongs to: SCION_HOST_VERSION if set
    (tests fake another build with it), else the first line of the
    version.txt beside socket_path when there is one (make run puts the
    socket in its build directory: build/control.sock, and
    build/sparc64/control.sock for ARCH=sparc64), else of
    build/version.txt (written by make), else "unknown"."""
    if "SCION_HOST_VERSION" in os.environ:
        return os.environ["SCION_HOST_VERSION"]
    paths = [os.path.join(REPO, "build", "version.txt")]
    if socket_path:
        paths.insert(0, os.path.join(os.path.dirname(os.path.abspath(socket_path)), "version.txt"))
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                return f.readline().strip() or "unknown"
        except OSError:
            continue
    return "unknown"


def check_socket_path(path):
    if len(os.fsencode(path)) > SUN_PATH_MAX:
        raise ScionError(f"socket path {path} is longer than {SUN_PATH_MAX} bytes, the limit "
                         "of UNIX sockets; give a shorter --socket")


class Client:
    """A locked, handshaken session; use it as a context manager.

    kernel_version and build_info come from the kernel's HELLO; events
    holds the (number, uptime_ms, text) of EVENT frames (on_event, when
    set, is called with each as well), data the (stream, bytes) of DATA
    frames no callback took, in arrival order.
    """

    def __init__(self, socket_path=None, timeout=30.0, wait=30.0, version=None):
        self.socket_path = socket_path or default_socket_path()
        self.timeout = timeout
        self.wait = wait
        self.host_version = version if version is not None else host_version(self.socket_path)
        self.kernel_version = None
        self.build_info = None
        self.events = []
        self.on_event = None
        self.data = []
        self._streams = {}      # open stream id -> on_chunk(cpu, records, drops, body)
        self._sock = None
        self._lock_file = None
        self._decoder = frame.ReferenceParser(frame.KERNEL_SENT_TYPES)
        self._frames = deque()
        # A random start keeps late answers meant for an earlier client
        # (whose sequence numbers we cannot know) from matching ours.
        self._seq = random.randrange(1, 1 << 31)

    def __enter__(self):
        self.open()
        return self

    def __exit__(self, *exc):
        self.close()

    def open(self):
        check_socket_path(self.socket_path)
        if not os.path.exists(self.socket_path):
            raise self._no_socket()
        try:
            self._take_lock()
            self._connect()
            self._handshake()
        except BaseException:
            self.close()
            raise

    def close(self):
        if self._sock:
            self._sock.close()
            self._sock = None
        if self._lock_file:
            self._lock_file.close()     # releases the flock
            self._lock_file = None

    def request(self, op, body=b"", on_data=None, timeout=None):
        """Send one REQUEST; return the (status, body) of the RESPONSE or
        ERROR carrying its sequence number. DATA frames arriving meanwhile
        go to on_data(stream, bytes), or to self.data; each one restarts
        the timeout, so a long bulk transfer is not cut off."""
        timeout = self.timeout if timeout is None else timeout
        seq = self._next_seq()
        try:
            self._send(frame.encode_request(seq, op, body))
        except frame.FrameError as e:
            raise ScionError(f"{frame.OP_NAMES.get(op, op)}: {e}") from None
        deadline = time.monotonic() + timeout
        while True:
            f = self._next_frame(deadline)
            if f is None:
                what = f"no response to {frame.OP_NAMES.get(op, f'op {op}')} within {timeout:g} s"
                raise ChannelLost(f"{what} (socket {self.socket_path})", closed=False,
                                  detail=what)
            if f.type in (frame.RESPONSE, frame.ERROR) and f.seq == seq:
                return self._decode(frame.decode_status, f)
            if f.type == frame.DATA:
                stream, data = self._decode(frame.decode_data, f)
                if stream in self._streams:
                    self._chunk(stream, data)
                elif on_data:
                    on_data(stream, data)
                else:
                    self.data.append((stream, data))
                deadline = time.monotonic() + timeout
            else:
                self._keep_unasked(f)

    def pump(self, seconds):
        """Take frames for seconds: stream chunks to their callbacks, events kept."""
        deadline = time.monotonic() + seconds
        while True:
            f = self._next_frame(deadline)
            if f is None:
                return
            if f.type == frame.DATA:
                stream, data = self._decode(frame.decode_data, f)
                if stream in self._streams:
                    self._chunk(stream, data)
                else:
                    self.data.append((stream, data))
            else:
                self._keep_unasked(f)

    def stream_open(self, source, bufsize, switch_ms, args, on_chunk):
        """Open a stream of source; on_chunk(cpu, records, drops, body) gets
        each chunk. Returns (stream id, CPUs, buffer size)."""
        text = f"{source} {bufsize} {switch_ms} {args}".rstrip()
        status, body = self.request(frame.OP_STREAM_OPEN, text.encode())
        if status < 0:
            raise ScionError(body.decode("utf-8", "replace").strip() or
                             f"stream open {source}: {frame.errno_name(status)}")
        r = answer(_STREAM_OPEN_REPLY, body, "STREAM_OPEN")
        self._streams[r["stream"]] = on_chunk
        return r["stream"], r["cpus"], r["bufsize"]

    def watch_stream(self, stream, on_chunk):
        """Send stream's chunks to on_chunk(cpu, records, drops, body) (a
        stream another op opened, e.g. TRACE_START)."""
        self._streams[stream] = on_chunk

    def stream_close(self, stream):
        """Close a stream (its last chunks arrive first); returns the
        kernel's totals (struct chan_stream_totals) as a dict of ints
        (bytes, records, drops, frames, switches)."""
        status, body = self.request(frame.OP_STREAM_CLOSE, _STREAM_CLOSE.pack(stream=stream))
        self._streams.pop(stream, None)
        if status < 0:
            raise ScionError(body.decode("utf-8", "replace").strip() or
                             f"stream close {stream}: {frame.errno_name(status)}")
        try:
            return frame.decode_stream_totals(body)
        except frame.FrameError as e:
            raise ScionError(f"malformed STREAM_CLOSE answer: {e}") from None

    def _chunk(self, stream, data):
        cpu, records, drops, body = self._decode(frame.decode_chunk,
                                                 frame.Frame(frame.DATA, 0, data))
        try:
            self._streams[stream](cpu, records, drops, body)
        except frame.FrameError as e:
            raise ScionError(f"stream {stream}: {e}") from None

    def _no_socket(self):
        return ScionError(f"no control socket at {self.socket_path} (is Scion running? "
                          "start it with `scion run` or `make run`)")

    def _take_lock(self):
        lock_path = self.socket_path + ".lock"
        try:
            self._lock_file = open(lock_path, "a")
        except OSError as e:
            raise ScionError(f"cannot open the lock file {lock_path}: {e.strerror}") from None
        deadline = time.monotonic() + self.wait
        while True:
            try:
                fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise ScionError("another client holds the control channel at "
                                     f"{self.socket_path}") from None
                time.sleep(LOCK_POLL_SECONDS)

    def _connect(self):
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._sock.connect(self.socket_path)
        except FileNotFoundError:
            raise self._no_socket() from None
        except ConnectionRefusedError:
            raise ScionError(f"nothing listens on {self.socket_path} (a stale socket: Scion "
                             "has exited; start it with `scion run` or `make run`)") from None
        except OSError as e:
            raise ScionError(f"cannot connect to {self.socket_path}: {e.strerror}") from None

    def _handshake(self):
        hello_seqs = set()
        deadline = time.monotonic() + self.timeout
        next_hello = time.monotonic()
        while True:
            now = time.monotonic()
            if now >= deadline:
                raise ScionError(f"no HELLO from the kernel within {self.timeout:g} s (socket "
                                 f"{self.socket_path}; still booting? --timeout waits longer)")
            if now >= next_hello:
                seq = self._next_seq()
                hello_seqs.add(seq)
                self._send(frame.encode_hello(seq, self.host_version))
                next_hello = now + HELLO_RESEND_SECONDS
            f = self._next_frame(min(next_hello, deadline))
            if f is None:
                continue
            # Seq 0 is accepted too: the header does not say the kernel echoes it.
            if f.type == frame.HELLO and (f.seq in hello_seqs or f.seq == 0):
                self.kernel_version, self.build_info = frame.decode_hello(f.payload)
                break
            if f.type == frame.ERROR and f.seq in hello_seqs:
                status, text = self._decode(frame.decode_status, f)
                message = text.decode("utf-8", "replace").strip()
                if message.startswith("scion: "):
                    message = message[len("scion: "):]
                raise ScionError(message or f"the kernel refused the handshake "
                                 f"({frame.errno_name(status)})")
            # Anything else is resynchronisation noise (errors about the
            # bytes of a vanished client) or unasked EVENTs.
            self._keep_unasked(f)
        if self.kernel_version != self.host_version:
            raise ScionError(f"version mismatch: host {self.host_version}, "
                             f"kernel {self.kernel_version}")

    def _keep_unasked(self, f):
        """EVENTs are kept; late HELLO replies (one per resent HELLO),
        answers meant for an earlier client and ERRORs about frames the
        kernel could not read (seq 0) concern nobody here."""
        if f.type == frame.EVENT:
            try:
                event = frame.decode_event(f.payload)
            except frame.FrameError:
                # An event is information, not an answer: keep it as text.
                event = (0, 0, bytes(f.payload).decode("utf-8", "replace").rstrip("\n"))
            self.events.append(event)
            if self.on_event:
                self.on_event(*event)

    def _next_seq(self):
        self._seq = self._seq % 0xFFFFFFFF + 1     # 1 .. 2^32-1, never 0
        return self._seq

    def _send(self, data):
        self._sock.settimeout(self.timeout)
        try:
            self._sock.sendall(data)
        except socket.timeout:
            raise ChannelLost(f"the kernel does not read the control channel (socket "
                              f"{self.socket_path}; sending timed out after {self.timeout:g} s)",
                              closed=False, detail=f"sending timed out after {self.timeout:g} s"
                              ) from None
        except OSError:
            raise self._closed() from None

    def _closed(self):
        return ChannelLost(f"the control channel at {self.socket_path} closed (Scion powered "
                           "off or QEMU exited)", detail="Scion powered off or QEMU exited")

    def _next_frame(self, deadline):
        """The next frame the kernel sent, or None at the deadline."""
        while not self._frames:
            now = time.monotonic()
            if now >= deadline:
                return None
            # No idle reset on this side: the kernel writes each frame whole
            # (a pause inside one is the guest being slow, not a lost sender),
            # and a bad frame still resynchronises the decoder.
            self._sock.settimeout(deadline - now)
            try:
                chunk = self._sock.recv(1 << 16)
            except socket.timeout:
                continue
            except OSError:
                raise self._closed() from None
            if not chunk:
                raise self._closed()
            self._frames.extend(self._decoder.feed(chunk))
        return self._frames.popleft()

    @staticmethod
    def _decode(decoder, f):
        try:
            return decoder(f.payload)
        except frame.FrameError as e:
            raise ScionError(f"malformed {frame.TYPE_NAMES[f.type]} from the kernel: {e}") from None
