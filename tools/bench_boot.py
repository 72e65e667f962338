# SPDX-License-Identifier: BSD-2-Clause
"""A benchmark boot of `make bench` and the control channel session that
reads its figures.

The benchmark tools (bench.py, bench_trace.py, bench_sfi.py) read what
the kernel measured only as structured data: figures from the "bench"
stream (host/scionhost/bench.py), graft counters from GRAFT_LIST, the
version from STATUS. Each boot therefore has the control channel on a
UNIX socket beside the console; the console is only written to (the
final poweroff) and its log kept for people.

QEMU creates the socket once it runs; the session then says HELLO until
the kernel answers (scionhost.client), so nothing waits for the
console's prompt.
"""

import os
import sys
import time
from contextlib import contextmanager

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for path in (os.path.join(ROOT, "qemu"), os.path.join(ROOT, "host")):
    if path not in sys.path:
        sys.path.insert(0, path)
import harness  # noqa: E402
from scionhost import client, frame, replies  # noqa: E402

SOCKET_WAIT_SECONDS = 30
ANSWER_TIMEOUT = 900.0          # a workload run through SHELL under icount may take minutes


def boot(name, out_dir, **qemu_args):
    """Start QEMU for a benchmark boot with the control channel on
    OUT_DIR/NAME.sock: (the harness.Boot, the socket's path)."""
    sock = os.path.join(out_dir, name + ".sock")
    if os.path.exists(sock):
        os.unlink(sock)
    return harness.Boot(name, out_dir, control_socket=sock, **qemu_args), sock


@contextmanager
def session(b, sock, direct=None):
    """A control channel session with the booting kernel (direct: True
    straight to the kernel, False through `scion daemon`, None as
    $SCION_NO_DAEMON says)."""
    deadline = time.monotonic() + SOCKET_WAIT_SECONDS
    while not os.path.exists(sock):
        if b.proc.poll() is not None or time.monotonic() > deadline:
            sys.exit(f"bench: no control socket from QEMU (log: {b.log_path})")
        time.sleep(0.05)
    with client.Client(sock, timeout=ANSWER_TIMEOUT, wait=10, direct=direct) as c:
        yield c


def shell(c, command):
    """Run a guest shell command over the channel; its status must be 0 (its text,
    for people, is shown only when it failed)."""
    status, body = c.request(frame.OP_SHELL, command.encode())
    if status < 0:
        sys.exit(f"bench: `{command}` failed ({frame.errno_name(status)}): "
                 f"{body.decode('utf-8', 'replace').strip()}")


def kernel_version(c):
    return replies.status(c)["version"]


def power_off(b):
    """Ask the guest to power off (typed on its console) and wait for QEMU to exit."""
    if b.proc.poll() is None:
        try:
            b.send("poweroff\n")
        except harness.BootError:
            pass
    return b.finish()
