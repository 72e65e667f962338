# SPDX-License-Identifier: BSD-2-Clause
"""One session with the kernel over its control channel (COM2 on a UNIX
socket QEMU listens on).

By default a Client talks to the kernel through `scion daemon`
(daemon.py), which holds the channel and shares it among several
clients at once: the Client connects to the daemon's socket beside the
control socket, starting the daemon when none answers there, and speaks
the same frames to it as to the kernel. SCION_NO_DAEMON=1 (`scion
--direct`), or direct=True, connects straight to the control socket as
before: the Client then locks the channel for the whole session (QEMU
serves one connection at a time, and two hosts' frames must never
interleave; a running daemon holds that lock too), connects, shakes hands (HELLO with the host's build version, resent until
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
import subprocess
import sys
import time
from collections import deque

from . import frame
from .layouts import layout

# host/scionhost/client.py -> the repository.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
HELLO_RESEND_SECONDS = 0.5
LOCK_POLL_SECONDS = 0.05
DAEMON_POLL_SECONDS = 0.05
DAEMON_NOTICE = "scion daemon: "    # daemon.NOTICE: a frame of the daemon's, not the kernel's
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


def use_daemon():
    """Whether Clients go through `scion daemon` (SCION_NO_DAEMON=1: straight to the kernel)."""
    return os.environ.get("SCION_NO_DAEMON", "") in ("", "0")


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

    def __init__(self, socket_path=None, timeout=30.0, wait=30.0, version=None, direct=None):
        self.socket_path = socket_path or default_socket_path()
        self.direct = not use_daemon() if direct is None else direct
        self.daemon_notice = None       # why the daemon dropped this client, when it said
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
        try:
            if self.direct:
                self.open_channel()
            else:
                self._connect_daemon()
            self._handshake()
        except BaseException:
            self.close()
            raise

    def open_channel(self):
        """Lock the channel and connect to the control socket, with no handshake
        (the daemon's own, and a direct session's first step)."""
        check_socket_path(self.socket_path)
        if not os.path.exists(self.socket_path):
            raise self._no_socket()
        self._take_lock()
        self._connect()

    def take_channel(self):
        """(lock file, socket) of an open_channel(), now the caller's to close."""
        taken = self._lock_file, self._sock
        self._lock_file = self._sock = None
        return taken

    def _connect_daemon(self):
        """Connect to the daemon's socket, starting a daemon when none listens there."""
        from .daemon import paths
        check_socket_path(self.socket_path)
        if not os.path.exists(self.socket_path):
            raise self._no_socket()
        path, _, log = paths(self.socket_path)
        check_socket_path(path)
        started = False
        deadline = time.monotonic() + self.timeout
        while True:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self._sock.connect(path)
                return
            except (FileNotFoundError, ConnectionRefusedError):
                self._sock.close()
                self._sock = None
            except OSError as e:
                raise ScionError(f"cannot connect to the daemon at {path}: {e.strerror}") from None
            if not started:
                self._start_daemon(log)
                started = True
            if time.monotonic() >= deadline:
                raise ScionError(f"the scion daemon did not start listening on {path} within "
                                 f"{self.timeout:g} s (its log: {log})")
            time.sleep(DAEMON_POLL_SECONDS)

    def _start_daemon(self, log):
        scion = os.path.join(REPO, "host", "scion")
        argv = [sys.executable, scion, "--socket", self.socket_path, "--timeout",
                str(self.timeout), "--wait", str(self.wait if self.wait != float("inf")
                                                 else 1e9), "daemon"]
        try:
            with open(log, "a") as out:
                subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                 start_new_session=True, close_fds=True)
        except OSError as e:
            raise ScionError(f"cannot start the scion daemon ({log}): {e.strerror}") from None

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
        # Through the daemon the answer may wait for the channel's lock too.
        deadline = time.monotonic() + self.timeout + (0 if self.direct else min(self.wait, 1e9))
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
        kernel could not read (seq 0) concern nobody here. The daemon's own
        words come as an ERROR with seq 0 (why it drops this client: kept
        for the ChannelLost that follows) or an EVENT numbered 0 (data it
        had to drop: said on stderr at once)."""
        if f.type == frame.ERROR and f.seq == 0 and not self.direct:
            try:
                text = frame.decode_status(f.payload)[1].decode("utf-8", "replace").strip()
            except frame.FrameError:
                return
            if text.startswith(DAEMON_NOTICE):
                self.daemon_notice = text
            return
        if f.type == frame.EVENT:
            try:
                event = frame.decode_event(f.payload)
            except frame.FrameError:
                # An event is information, not an answer: keep it as text.
                event = (0, 0, bytes(f.payload).decode("utf-8", "replace").rstrip("\n"))
            if event[0] == 0 and event[2].startswith(DAEMON_NOTICE) and not self.direct:
                sys.stderr.write(f"scion: {event[2]}\n")
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
        if self.daemon_notice:
            return ChannelLost(self.daemon_notice, detail=self.daemon_notice)
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
