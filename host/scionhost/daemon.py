# SPDX-License-Identifier: BSD-2-Clause
"""`scion daemon`: one process that holds the control channel and shares it
among several `scion` commands at once (issue 27).

QEMU serves one connection on the control socket, so without the daemon
one client holds the channel (and its lock file) for a whole session.
The daemon takes that lock and that connection for as long as it runs,
and listens on a socket of its own beside the control socket (paths());
clients speak the very same frames to it as to the kernel. The daemon:
- sends the kernel's HELLO itself, once, with the version of the first
  client that asks (a HELLO closes every stream in the kernel, so no
  client's HELLO ever reaches it); it answers each client's HELLO with
  the kernel's, or with the mismatch ERROR the kernel would send;
- forwards REQUESTs and routes answers, DATA and streams back to their
  owner, renumbering sequence numbers and streams (mux.py);
- sends every EVENT to every client;
- when a client's socket closes, closes that client's streams in the
  kernel (its trace sessions stop), the others untouched;
- drops a client that sends bytes that are not frames a host may send,
  or leaves a frame cut short, with a line in its log;
- never drops a client's data silently: a slow client's frames wait in
  the daemon (up to CLIENT_BUFFER_MAX bytes, or $SCION_DAEMON_BUFFER_MAX
  when the daemon starts); past that its DATA frames are dropped and
  counted, and once its buffer has drained to half the limit the client
  is told with an EVENT (number 0, "scion daemon: N DATA frames (B bytes)
  ...") and the log gets one line with the same counts (also written
  when the client leaves before it could be told);
- exits linger seconds after its last client leaves, on SIGTERM
  (`scion daemon --stop`), or when the channel closes (the clients then
  see it close, as they would without the daemon).
Its log is paths()'s log file: one line per client (its pid, from the
socket's peer credentials, so a test can tell which command connected
how often), per drop and per failure.
"""

import os
import selectors
import signal
import socket
import struct
import sys
import time
from collections import deque

from . import frame
from .client import ScionError, check_socket_path
from .mux import Owner, Table

CLIENT_BUFFER_MAX = 256 << 20       # bytes waiting for one slow client before DATA is dropped
BUFFER_MAX_ENV = "SCION_DAEMON_BUFFER_MAX"
HELLO_RESEND_SECONDS = 0.5
STOP_GRACE_SECONDS = 5.0            # for the kernel to answer the daemon's last closes
DEFAULT_LINGER = 5.0
FAILED_LINGER = 5.0                 # a daemon without a channel waits this long for a client
NOTICE = "scion daemon: "           # how a client knows a frame is the daemon's, not the kernel's


def paths(control):
    """The daemon's socket, its lock file (held while it runs; holds its pid) and its log."""
    base = control + ".daemon"
    return base, base + ".lock", base + ".log"


class Conn:
    """One client's socket and state."""

    def __init__(self, sock, number):
        self.sock, self.number = sock, number
        self.owner = Owner(f"client {number}")
        self.parser = frame.ReferenceParser(frame.HOST_SENT_TYPES)
        self.out, self.out_bytes = deque(), 0
        self.version = None             # the version of its accepted HELLO
        self.hellos = []                # (seq, version) of HELLOs waiting for the kernel's
        self.mid_since = None           # when it was last left in the middle of a frame
        self.dropped_frames = self.dropped_bytes = 0     # not yet told
        self.closing = False            # flush what is queued, then close


class Daemon:
    def __init__(self, control, timeout, wait, linger, log=sys.stderr,
                 buffer_max=CLIENT_BUFFER_MAX):
        self.control, self.timeout, self.wait, self.linger = control, timeout, wait, linger
        self.buffer_max = buffer_max
        self.sock_path, self.lock_path, self.log_path = paths(control)
        self.logf = log
        self.sel = selectors.DefaultSelector()
        self.table = Table(self.say)
        self.clients = {}
        self.numbered = 0
        self.kernel = None              # the channel's socket
        self.kout, self.kparser = bytearray(), frame.ReferenceParser(frame.KERNEL_SENT_TYPES)
        self.hello = None               # the kernel's HELLO payload, once handshaken
        self.version = None             # the version it accepted
        self.trying = None              # (version, deadline, next resend, seqs) of a handshake
        self.failed = None              # why the channel could not be had: told to every client
        self.idle_since = time.monotonic()
        self.stopping = None            # (why, deadline)
        self.lock_file = self.channel_lock = None
        self.stop_asked = False
        self.hello_seqs = set()         # every HELLO the daemon sent: their late answers

    def say(self, text):
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.logf.write(f"{stamp} scion daemon[{os.getpid()}]: {text}\n")
        self.logf.flush()

    # -- start and stop --------------------------------------------------------------------

    def start(self):
        """Take the daemon's lock and socket; False when another daemon has them."""
        import fcntl
        check_socket_path(self.sock_path)
        self.lock_file = open(self.lock_path, "a+")
        try:
            fcntl.flock(self.lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        self.lock_file.truncate(0)
        self.lock_file.write(f"{os.getpid()}\n")
        self.lock_file.flush()
        try:
            os.unlink(self.sock_path)   # a dead daemon's: its lock was free
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.sock_path)
        listener.listen(64)
        listener.setblocking(False)
        self.sel.register(listener, selectors.EVENT_READ, "listen")
        self.listener = listener
        self.say(f"listening on {self.sock_path} for {self.control}")
        self.connect_kernel()
        return True

    def connect_kernel(self):
        from .client import Client
        link = Client(self.control, timeout=self.timeout, wait=self.wait, direct=True)
        try:
            link.open_channel()
        except ScionError as e:
            # Told to the client that started the daemon (which connects within
            # FAILED_LINGER) and any other waiting; the next one starts a daemon that
            # tries again.
            self.failed = str(e)
            self.linger = FAILED_LINGER
            self.say(f"no channel: {e}")
            return
        self.channel_lock, self.kernel = link.take_channel()
        self.kernel.setblocking(False)
        self.sel.register(self.kernel, selectors.EVENT_READ, "kernel")
        self.say(f"connected to {self.control}")

    def stop(self, why):
        if not self.stopping:
            self.say(f"stopping: {why}")
            for c in list(self.clients.values()):
                self.drop(c, why, tell=True)
            self.stopping = (why, time.monotonic() + STOP_GRACE_SECONDS)

    def finish(self):
        for c in list(self.clients.values()):
            self.flush_blocking(c)
            self.sel.unregister(c.sock)
            c.sock.close()
        try:
            os.unlink(self.sock_path)
        except FileNotFoundError:
            pass
        self.listener.close()
        if self.kernel:
            self.kernel.close()
        if self.channel_lock:
            self.channel_lock.close()
        self.lock_file.close()
        self.say("exited")

    # -- the loop ---------------------------------------------------------------------------

    def run(self):
        # A signal only sets a flag; the wakeup socket ends the select at once.
        wake_r, wake_w = socket.socketpair()
        wake_r.setblocking(False)
        wake_w.setblocking(False)
        signal.set_wakeup_fd(wake_w.fileno())
        self.sel.register(wake_r, selectors.EVENT_READ, "wake")

        def ask_stop(*_):
            self.stop_asked = True
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, ask_stop)
        while True:
            now = time.monotonic()
            if self.stop_asked:
                self.stop_asked = False
                self.stop("stopped (scion daemon --stop)")
            if self.stopping and ((not self.table.pending and not self.kout) or
                                  now >= self.stopping[1]):
                break
            if not self.clients and not self.stopping and now - self.idle_since >= self.linger:
                self.stop(f"no client for {self.linger:g} s")
                continue
            self.tick(now)
            for key, events in self.sel.select(self.wakeup(now)):
                if key.data == "listen":
                    self.accept()
                elif key.data == "wake":
                    try:
                        key.fileobj.recv(64)
                    except OSError:
                        pass
                elif key.data == "kernel":
                    if events & selectors.EVENT_READ:
                        self.read_kernel()
                    if events & selectors.EVENT_WRITE and self.kernel:
                        self.write_kernel()
                else:
                    c = key.data
                    if events & selectors.EVENT_READ and c.number in self.clients:
                        self.read_client(c)
                    if events & selectors.EVENT_WRITE and c.number in self.clients:
                        self.write_client(c)
        self.finish()

    def wakeup(self, now):
        times = [1.0]
        if self.trying:
            times.append(self.trying[2] - now)
        if any(c.mid_since for c in self.clients.values()):
            times.append(frame.IDLE_RESET_MS / 1000)
        if not self.clients:
            times.append(self.idle_since + self.linger - now)
        return max(0.01, min(times))

    def tick(self, now):
        for c in list(self.clients.values()):
            if c.mid_since and now - c.mid_since >= frame.IDLE_RESET_MS / 1000:
                self.drop(c, f"a frame cut short (nothing more for {frame.IDLE_RESET_MS} ms "
                          "in the middle of it)", tell=True, bad=True)
        if self.trying:
            version, deadline, resend, seqs = self.trying
            if now >= deadline:
                self.trying = None
                self.refuse_hellos(version, f"no HELLO from the kernel within {self.timeout:g} "
                                   f"s (socket {self.control}; still booting? --timeout waits "
                                   "longer)")
            elif now >= resend:
                self.send_hello(version)

    # -- clients ----------------------------------------------------------------------------

    def accept(self):
        try:
            sock, _ = self.listener.accept()
        except OSError:
            return
        if self.stopping:
            sock.close()
            return
        sock.setblocking(False)
        self.numbered += 1
        c = Conn(sock, self.numbered)
        self.clients[c.number] = c
        self.sel.register(sock, selectors.EVENT_READ, c)
        self.say(f"client {c.number}: connected{peer_pid(sock)}")

    def read_client(self, c):
        try:
            data = c.sock.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            cut = " in the middle of a frame (a frame cut short)" if c.parser.mid_frame else ""
            self.drop(c, f"closed its socket{cut}", tell=False, bad=bool(cut))
            return
        frames = c.parser.feed(data)
        if c.parser.garbage_bytes or c.parser.rejected:
            what = (f"{c.parser.garbage_bytes} bytes that are no frame" if c.parser.garbage_bytes
                    else f"a frame the host may not send ({c.parser.rejections[0][0]})")
            self.drop(c, f"sent {what}", tell=True, bad=True)
            return
        c.mid_since = time.monotonic() if c.parser.mid_frame else None
        for f in frames:
            if c.number not in self.clients:
                return
            if f.type == frame.HELLO:
                self.client_hello(c, f)
            elif c.version is None:
                self.to_client(c, frame.encode(frame.ERROR, f.seq, frame.encode_status(
                    -frame.C.EPERM, b"no handshake: send a HELLO first")))
            else:
                self.client_request(c, f)

    def client_request(self, c, f):
        if not self.kernel:
            self.drop(c, "the control channel is gone", tell=True)
            return
        try:
            out, answer = self.table.request(c.owner, f.seq, f.payload)
        except frame.FrameError as e:
            out, answer = None, frame.encode(frame.ERROR, f.seq, frame.encode_status(
                -frame.C.EINVAL, str(e).encode()))
        if answer:
            self.to_client(c, answer)
        if out:
            self.to_kernel(out)

    def client_hello(self, c, f):
        version = bytes(f.payload).decode("utf-8", "replace")
        if self.failed:
            self.to_client(c, frame.encode(frame.ERROR, f.seq, frame.encode_status(
                -frame.C.EIO, self.failed.encode())))
            c.closing = True
            self.linger = 0
            return
        if self.hello is not None:
            self.answer_hello(c, f.seq, version)
            return
        c.hellos.append((f.seq, version))
        if not self.trying:
            self.trying = (version, time.monotonic() + self.timeout, 0, set())
            self.send_hello(version)

    def answer_hello(self, c, seq, version):
        if version == self.version:
            c.version = version
            self.to_client(c, frame.encode(frame.HELLO, seq, self.hello))
            return
        kernel = self.hello.split(b"\n", 1)[0].decode("utf-8", "replace")
        text = f"version mismatch: host {version}, kernel {kernel}".encode()
        self.to_client(c, frame.encode(frame.ERROR, seq,
                                       frame.encode_status(-frame.C.EPROTO, text)))

    def to_client(self, c, data, droppable=False):
        if droppable and c.out_bytes + len(data) > self.buffer_max:
            # Frames arrive in bursts (a virtio-console delivers hundreds of KiB at
            # once): what the client's socket still takes is not waiting here.
            self.push_out(c)
        if droppable and c.out_bytes + len(data) > self.buffer_max:
            c.dropped_frames += 1
            c.dropped_bytes += len(data)
            return
        c.out.append(data)
        c.out_bytes += len(data)
        self.tell_drops(c)
        self.sel.modify(c.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, c)

    def dropped_words(self, c):
        return (f"{c.dropped_frames} DATA frame{'s' if c.dropped_frames != 1 else ''} "
                f"({c.dropped_bytes} bytes) dropped while {self.buffer_max} bytes waited "
                "for it")

    def tell_drops(self, c):
        """Once a slow client's buffer has drained to half the limit, tell it (and the
        log) what was dropped since it was last told: one line per episode, not per
        frame. Checked as frames are queued and as they leave, since after the last
        dropped frame nothing more may come to queue."""
        if not c.dropped_frames or c.out_bytes >= self.buffer_max // 2:
            return
        words = self.dropped_words(c)
        self.say(f"{c.owner.name}: read too slowly: {words}; told it")
        c.dropped_frames = c.dropped_bytes = 0
        c.out.append(frame.encode(frame.EVENT, 0, f"0 0 {NOTICE}{words}".encode()))
        c.out_bytes += len(c.out[-1])

    def push_out(self, c):
        """Move c's queued frames into its socket while it takes them; never
        blocks, and leaves a broken socket to write_client."""
        while c.out:
            try:
                n = c.sock.send(c.out[0])
            except OSError:
                return
            c.out_bytes -= n
            if n < len(c.out[0]):
                c.out[0] = c.out[0][n:]
                return
            c.out.popleft()

    def write_client(self, c):
        while c.out:
            try:
                n = c.sock.send(c.out[0])
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self.drop(c, "its socket broke", tell=False)
                return
            c.out_bytes -= n
            if n < len(c.out[0]):
                c.out[0] = c.out[0][n:]
                self.tell_drops(c)
                return
            c.out.popleft()
            self.tell_drops(c)
        if c.closing:
            self.drop(c, "answered", tell=False, quiet=True)
        else:
            self.sel.modify(c.sock, selectors.EVENT_READ, c)

    def flush_blocking(self, c, seconds=2.0):
        c.sock.settimeout(seconds)
        try:
            while c.out:
                c.sock.sendall(c.out.popleft())
        except OSError:
            pass

    def drop(self, c, why, tell, bad=False, quiet=False):
        """Forget client c: tell it why (an ERROR with seq 0) when it can still read,
        close its streams in the kernel."""
        if c.number not in self.clients:
            return
        del self.clients[c.number]
        if c.dropped_frames:
            self.say(f"{c.owner.name}: read too slowly: {self.dropped_words(c)}; left "
                     "before it could be told")
        if not quiet:
            self.say(f"{c.owner.name}: {'dropped: ' if bad else ''}{why}")
        if tell:
            c.out.append(frame.encode(frame.ERROR, 0, frame.encode_status(
                -frame.C.EIO, f"{NOTICE}{why}".encode())))
            self.flush_blocking(c, 0.5)
        self.sel.unregister(c.sock)
        c.sock.close()
        closes = self.table.forget(c.owner)
        if closes:
            self.say(f"{c.owner.name}: closing its {len(closes)} stream"
                     f"{'s' if len(closes) != 1 else ''} in the kernel")
        for out in closes:
            self.to_kernel(out)
        if not self.clients:
            self.idle_since = time.monotonic()

    # -- the kernel -------------------------------------------------------------------------

    def to_kernel(self, data):
        if not self.kernel:
            return
        self.kout += data
        self.sel.modify(self.kernel, selectors.EVENT_READ | selectors.EVENT_WRITE, "kernel")

    def write_kernel(self):
        try:
            n = self.kernel.send(self.kout)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self.kernel_lost("the control channel broke")
            return
        del self.kout[:n]
        if not self.kout:
            self.sel.modify(self.kernel, selectors.EVENT_READ, "kernel")

    def read_kernel(self):
        try:
            data = self.kernel.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.kernel_lost("the control channel closed (Scion powered off or QEMU exited)")
            return
        rejected = self.kparser.rejected
        for f in self.kparser.feed(data):
            try:
                self.kernel_frame(f)
            except frame.FrameError as e:
                self.say(f"malformed {frame.TYPE_NAMES.get(f.type)} from the kernel: {e}")
        if self.kparser.rejected > rejected:
            self.say(f"{self.kparser.rejected - rejected} damaged frames from the kernel "
                     "(see `scion channel`)")

    def kernel_lost(self, why):
        """The clients see their sockets close once what the kernel sent has reached them."""
        self.say(why)
        self.sel.unregister(self.kernel)
        self.kernel.close()
        self.kernel, self.kout = None, bytearray()
        self.table.pending.clear()
        self.table.order.clear()
        for c in list(self.clients.values()):
            self.flush_blocking(c, 5.0)
            self.drop(c, why, tell=False, quiet=True)
        self.stopping = (why, time.monotonic())

    def send_hello(self, version):
        _, deadline, _, seqs = self.trying
        seq = self.table.next_seq()
        seqs.add(seq)
        self.hello_seqs.add(seq)
        self.trying = (version, deadline, time.monotonic() + HELLO_RESEND_SECONDS, seqs)
        self.to_kernel(frame.encode_hello(seq, version))

    def refuse_hellos(self, version, text):
        for c in list(self.clients.values()):
            for seq, v in [h for h in c.hellos if h[1] == version]:
                c.hellos.remove((seq, v))
                self.to_client(c, frame.encode(frame.ERROR, seq, frame.encode_status(
                    -frame.C.EPROTO, text.encode())))
        self.next_hello()

    def next_hello(self):
        """Another version waits for a handshake: try it."""
        for c in self.clients.values():
            if c.hellos and not self.trying and self.hello is None:
                self.trying = (c.hellos[0][1], time.monotonic() + self.timeout, 0, set())
                self.send_hello(c.hellos[0][1])

    def kernel_frame(self, f):
        if self.trying and f.seq in self.trying[3] | {0} and f.type == frame.HELLO:
            self.hello, self.version = bytes(f.payload), self.trying[0]
            self.trying = None
            self.say(f"handshake done: kernel {frame.decode_hello(f.payload)[0]}")
            for c in list(self.clients.values()):
                for seq, version in c.hellos:
                    self.answer_hello(c, seq, version)
                c.hellos.clear()
            return
        if f.type == frame.HELLO:
            return      # the answer to a resent HELLO
        if f.type == frame.ERROR and self.trying and f.seq in self.trying[3]:
            version = self.trying[0]
            self.trying = None
            text = frame.decode_status(f.payload)[1].decode("utf-8", "replace").strip()
            self.say(f"handshake refused: {text}")
            self.refuse_hellos(version, text)
            return
        if f.type == frame.EVENT:
            for c in list(self.clients.values()):
                if c.version is not None:
                    self.to_client(c, frame.encode(frame.EVENT, f.seq, f.payload))
            return
        if f.type in (frame.RESPONSE, frame.ERROR):
            if f.seq not in self.table.pending:
                if f.seq in self.hello_seqs:
                    return      # an answer to a resent HELLO
                if f.seq == 0 and f.type == frame.ERROR:
                    self.say("the kernel refused a frame of the daemon's: " + frame.decode_status(
                        f.payload)[1].decode("utf-8", "replace").strip())
                    return
                self.say(f"an answer to no request (seq {f.seq}) from the kernel: dropped")
                return
            route, sends = self.table.answer(f)
            for out in sends:
                self.to_kernel(out)
            if route.owner:
                c = self.conn_of(route.owner)
                if c:
                    self.to_client(c, route.frame)
                    kstream = self.opened_stream(route.owner)
                    for early in self.table.claim_early(kstream) if kstream else []:
                        if early.owner:
                            self.to_client(c, early.frame, droppable=True)
            self.next_hello()
            return
        if f.type == frame.DATA:
            for route in self.table.data(f):
                c = self.conn_of(route.owner) if route.owner else None
                if c:
                    self.to_client(c, route.frame, droppable=True)

    def opened_stream(self, owner):
        """The kernel stream owner adopted last (its early chunks follow the answer)."""
        if not owner.streams:
            return None
        return owner.streams[max(owner.streams)]

    def conn_of(self, owner):
        for c in self.clients.values():
            if c.owner is owner:
                return c
        return None


def peer_pid(sock):
    """ " (pid N)" of the process at the other end of a UNIX socket, where the system
    says (Linux's SO_PEERCRED), else ""."""
    try:
        pid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                  struct.calcsize("3i")))[0]
    except (AttributeError, OSError, struct.error):
        return ""
    return f" (pid {pid})" if pid > 0 else ""


def buffer_max_from_env():
    """$SCION_DAEMON_BUFFER_MAX (bytes), else CLIENT_BUFFER_MAX."""
    text = os.environ.get(BUFFER_MAX_ENV, "").strip()
    if not text:
        return CLIENT_BUFFER_MAX
    if not text.isdigit() or int(text) < 1:
        raise ScionError(f"{BUFFER_MAX_ENV}: give a number of bytes, not '{text}'")
    return int(text)


def run_daemon(control, timeout, wait, linger):
    """`scion daemon` in the foreground (the clients start it with stdout and stderr
    on the log file). Returns the exit status."""
    d = Daemon(control, timeout, wait, linger, buffer_max=buffer_max_from_env())
    if not d.start():
        d.say("another daemon already serves this channel")
        return 0
    d.run()
    return 0
