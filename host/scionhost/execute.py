# SPDX-License-Identifier: BSD-2-Clause
"""`scion exec PROG [ARGS]`: run a program of Scion's boot archive from
the host, like a shell would (the EXEC op, kernel/proc/exec_op.c).

The kernel answers with the pid at once and sends the program's stdout
and stderr as records of an "exec" stream (struct chan_exec_output, then
the bytes); they are printed here as they come, each on the host's own
stdout or stderr. Once the program has ended, a status chunk (struct
chan_exec_status) says how; the host checks every output byte arrived,
closes the stream and exits with the program's exit status, or 128 +
the signal that killed it (with one line on stderr, as a shell says
"Segmentation fault"). Ctrl-C sends the program SIGINT and goes on
waiting for its end. --detach prints the pid and returns at once (the
program's output is discarded).

Execution is the API other commands use (`scion trace -c`): start a
program suspended, do what must be done before it runs, resume it,
pump the channel until it has ended.
"""

import argparse
import signal
import sys

from . import frame
from .client import ScionError, answer
from .layouts import layout

REQUEST = layout("chan_exec_request", "flags", "argc", "switch_ms", "reserved")
REPLY = layout("chan_exec_reply", "pid", "stream")
OUTPUT = layout("chan_exec_output", "bytes", "fd", "size")
STATUS = layout("chan_exec_status", "pid", "wait_status", "how", "code", "output_bytes")
RESUME = layout("chan_exec_resume_request", "pid", "reserved")
SIGNAL = layout("chan_signal_request", "pid", "sig")
SUSPENDED, DETACH = frame.EXEC_SUSPENDED, frame.EXEC_DETACH
EXITED, KILLED = frame.EXEC_EXITED, frame.EXEC_KILLED
MAX_ARGS = frame.EXEC_MAX_ARGS
POLL_SECONDS = 0.05


def encode_request(argv, flags=0, switch_ms=0):
    """The EXEC request body: the structure, then argv as NUL-terminated strings.
    Nothing is checked here that the kernel checks (it answers bad input itself)."""
    strings = b"".join(a.encode() + b"\0" for a in argv)
    return REQUEST.pack(flags=flags, argc=len(argv), switch_ms=switch_ms) + strings


def decode_output(body, count):
    """An exec chunk's body of count records -> [(fd, bytes)]."""
    out, at = [], 0
    for _ in range(count):
        if at + OUTPUT.size > len(body):
            raise frame.FrameError(f"exec chunk of {len(body)} bytes ends inside record "
                                   f"{len(out) + 1} of {count}")
        r = OUTPUT.unpack(body, at)
        if r["size"] % 8 or r["size"] < OUTPUT.size + r["bytes"] or at + r["size"] > len(body):
            raise frame.FrameError(f"exec record of {r['size']} bytes holding {r['bytes']} at "
                                   f"offset {at} of a {len(body)}-byte chunk")
        out.append((r["fd"], body[at + OUTPUT.size:at + OUTPUT.size + r["bytes"]]))
        at += r["size"]
    if at != len(body):
        raise frame.FrameError(f"exec chunk: {len(body) - at} bytes after its {count} records")
    return out


def exit_status(status):
    """A shell's exit status for how the program ended."""
    return status["code"] if status["how"] == EXITED else 128 + status["code"]


def signal_name(sig):
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


def write_output(fd, data):
    """The default sink: the host's stdout or stderr, flushed at once."""
    out = sys.stderr if fd == 2 else sys.stdout
    out.flush()
    out.buffer.write(data)
    out.buffer.flush()


class Execution:
    """A program started with EXEC in client's session: pid, stream, and,
    once it ended, status ({pid, wait_status, how, code, output_bytes})."""

    def __init__(self, client, argv, suspended=False, detach=False, on_output=write_output,
                 switch_ms=0):
        self.client, self.argv, self.on_output = client, list(argv), on_output
        self.status, self.received = None, 0
        flags = (SUSPENDED if suspended else 0) | (DETACH if detach else 0)
        st, body = client.request(frame.OP_EXEC, encode_request(self.argv, flags, switch_ms))
        if st < 0:
            raise ScionError(body.decode("utf-8", "replace").strip() or
                             f"exec {self.argv[0]}: {frame.errno_name(st)}")
        r = answer(REPLY, body, "EXEC")
        self.pid, self.stream = r["pid"], r["stream"]
        if self.stream:
            client.watch_stream(self.stream, self._chunk)
            # Chunks that came before the answer (the program may have run already).
            early = [d for s, d in client.data if s == self.stream]
            client.data[:] = [(s, d) for s, d in client.data if s != self.stream]
            for data in early:
                client._chunk(self.stream, data)

    def _chunk(self, cpu, count, drops, body):
        if cpu == frame.CHUNK_STATUS:
            self.status = answer(STATUS, body, "exec status")
            return
        for fd, data in decode_output(body, count):
            self.received += len(data)
            self.on_output(fd, data)

    def resume(self):
        st, body = self.client.request(frame.OP_EXEC_RESUME, RESUME.pack(pid=self.pid))
        if st < 0:
            raise ScionError(body.decode("utf-8", "replace").strip() or
                             f"exec resume {self.pid}: {frame.errno_name(st)}")

    def poll(self, seconds=POLL_SECONDS):
        """Take the channel's frames for up to seconds; whether the program has ended."""
        if self.status is None:
            self.client.pump(seconds)
        return self.status is not None

    def interrupt(self, sig=signal.SIGINT):
        """Send the program a signal (the SIGNAL op: the guest's `kill`)."""
        self.client.request(frame.OP_SIGNAL, SIGNAL.pack(pid=self.pid, sig=int(sig)))

    def finish(self):
        """After the status: close the stream and check every output byte arrived."""
        self.client.stream_close(self.stream)
        if self.received != self.status["output_bytes"]:
            raise ScionError(f"exec {self.argv[0]}: the kernel sent {self.status['output_bytes']} "
                             f"bytes of output, {self.received} arrived")
        return self.status

    def describe_end(self):
        """One line for a program a signal ended (None when it exited)."""
        if self.status["how"] == KILLED:
            return (f"{self.argv[0]}: pid {self.pid} killed by "
                    f"{signal_name(self.status['code'])} (signal {self.status['code']})")
        return None


def cmd_exec(args):
    from .client import Client
    argv = [args.program] + args.args
    with Client(args.socket, timeout=args.timeout, wait=args.wait) as client:
        ex = Execution(client, argv, detach=args.detach)
        if args.detach:
            print(ex.pid)
            return 0
        while True:
            try:
                while not ex.poll(0.5):
                    pass
                break
            except KeyboardInterrupt:
                ex.interrupt()
        ex.finish()
    line = ex.describe_end()
    if line:
        sys.stderr.write(f"scion: exec: {line}\n")
    return exit_status(ex.status)


def add_exec(sub, subcommand):
    p = subcommand(sub, "exec", "run a program of the boot archive: its output as it comes, "
                   "then its exit status as ours (128 + the signal that killed it)", cmd_exec)
    p.add_argument("--detach", action="store_true",
                   help="print the pid and return; the program's output is discarded")
    p.add_argument("program", metavar="PROG", help="a program of the boot archive, e.g. hello")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARG",
                   help=f"its arguments (argv[0] is PROG; at most {MAX_ARGS} in all)")
    return p
