# SPDX-License-Identifier: BSD-2-Clause
"""Drive one QEMU boot of Scion over its serial console.

A Boot starts QEMU with the console on pipes, collects everything the
kernel prints (a reader thread; '\\r' dropped), lets a test wait for
patterns and send input, and ends with QEMU's exit status. The serial
log is always written under the log directory; a failed boot's log is
kept there for reading (its path is in the failure message).
"""

import atexit
import os
import re
import signal
import subprocess
import sys
import threading
import time

import machine

FORBIDDEN_DEFAULT = (r"panic:", r"FAILED")
# Seconds finish() gives a QEMU still running when its job failed (an exception).
FAILED_JOB_GRACE = 5

# Boots whose process group may still run: ended when the program exits
# (a test's exception or a Ctrl-C must not leave QEMU behind).
_live = set()


@atexit.register
def _end_all():
    for boot in list(_live):
        boot._end_group()


class BootError(Exception):
    """The boot did not behave as the test expected."""


class Boot:
    def __init__(self, name, log_dir, timeout=120, argv=None, **qemu_args):
        """argv: the command to run as it is (another machine's QEMU, `make
        run`); otherwise qemu_args build the x86 QEMU command line."""
        self.name = name
        self.timeout = timeout
        self.log_path = os.path.join(log_dir, name.replace("/", "_") + ".log")
        os.makedirs(log_dir, exist_ok=True)
        self.argv = list(argv) if argv else machine.qemu_command(**qemu_args)
        self._out = bytearray()
        self._lock = threading.Condition()
        self._eof = False
        self.started = time.monotonic()
        # A process group of its own, so that ending it ends what it started
        # (`make run` leaves QEMU behind when only make is killed).
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, process_group=0)
        _live.add(self)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.status = None

    def _read(self):
        while True:
            chunk = self.proc.stdout.read1(65536)
            with self._lock:
                if not chunk:
                    self._eof = True
                    self._lock.notify_all()
                    return
                self._out += chunk.replace(b"\r", b"")
                self._lock.notify_all()

    @property
    def output(self):
        with self._lock:
            return self._out.decode("utf-8", "replace")

    def remaining(self):
        return max(0.0, self.started + self.timeout - time.monotonic())

    def wait_for(self, pattern, start=0, timeout=None):
        """Wait until pattern (a regex) appears in the output after offset start.
        Returns the match; raises BootError on timeout or when QEMU ends first."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + (self.remaining() if timeout is None else
                                       min(timeout, self.remaining()))
        with self._lock:
            while True:
                m = rx.search(self._out.decode("utf-8", "replace"), start)
                if m:
                    return m
                if self._eof:
                    raise BootError(f"QEMU ended before '{pattern}' appeared")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BootError(f"'{pattern}' did not appear within the time limit")
                self._lock.wait(left)

    def mark(self):
        """Offset of the end of the output so far (for waiting on what comes next)."""
        with self._lock:
            return len(self._out.decode("utf-8", "replace"))

    def send(self, data):
        if isinstance(data, str):
            data = data.encode()
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise BootError("QEMU stopped reading its console")

    def command(self, line, expect, timeout=30):
        """Type a shell command and wait for a pattern in what follows."""
        start = self.mark()
        self.send(line + "\n")
        return self.wait_for(expect, start=start, timeout=timeout)

    def _end_group(self):
        """SIGKILL whatever is left of the process group (none: a no-op)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        _live.discard(self)

    def finish(self):
        """Wait for QEMU to exit (killing it at the time limit); write the log. Called
        while an exception propagates (a job's `finally`: the job has failed), it waits
        FAILED_JOB_GRACE seconds at most, not what is left of the boot's time."""
        wait = self.remaining()
        if sys.exc_info()[0] is not None:
            wait = min(wait, FAILED_JOB_GRACE)
        try:
            self.status = self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            self._end_group()
            self.proc.wait()
            self.status = None
        self._end_group()
        self._reader.join(timeout=5)
        with open(self.log_path, "w") as f:
            f.write("# " + " ".join(self.argv) + "\n")
            f.write(self.output)
        return self.status

    def kill(self):
        if self.proc.poll() is None:
            self._end_group()
        return self.finish()

    def check_forbidden(self, forbidden=FORBIDDEN_DEFAULT):
        text = self.output
        for pattern in forbidden:
            m = re.search(pattern, text)
            if m:
                line = text[text.rfind("\n", 0, m.start()) + 1:text.find("\n", m.start())]
                raise BootError(f"forbidden output '{pattern}': {line.strip()} (log: {self.log_path})")
