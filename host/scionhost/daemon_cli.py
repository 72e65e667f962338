# SPDX-License-Identifier: BSD-2-Clause
"""`scion daemon`: run the daemon that shares the control channel among
several clients (daemon.py) in the foreground, ask whether one runs
(--status) or stop it (--stop).

Clients start the daemon themselves when none answers, so running it by
hand is for watching its log on the terminal. Whether one runs is its lock
file's business (held while it runs, holding its pid): a pid file alone
could name a process long gone.
"""

import errno
import fcntl
import os
import signal
import sys
import time

from .client import ScionError
from .daemon import DEFAULT_LINGER, paths, run_daemon

STOP_WAIT_SECONDS = 15.0


def running_pid(control):
    """The pid of the daemon serving control, or None when none runs."""
    _, lock_path, _ = paths(control)
    try:
        f = open(lock_path, "r")
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ScionError(f"cannot read the daemon's lock file {lock_path}: {e.strerror}") from None
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return None         # nobody holds it
        except BlockingIOError:
            pass
        text = f.read().strip()
    return int(text) if text.isdigit() else None


def cmd_daemon(args):
    sock, _, log = paths(args.socket)
    if args.stop or args.status:
        pid = running_pid(args.socket)
        if args.status:
            print(f"running, pid {pid}, socket {sock}, log {log}" if pid else
                  f"no daemon serves {args.socket}")
            return 0 if pid else 1
        if not pid:
            print(f"scion: no daemon serves {args.socket}", file=sys.stderr)
            return 0
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError as e:
            if e.errno != errno.ESRCH:
                raise ScionError(f"cannot stop the daemon (pid {pid}): {e.strerror}") from None
        deadline = time.monotonic() + STOP_WAIT_SECONDS
        while running_pid(args.socket) and time.monotonic() < deadline:
            time.sleep(0.05)
        if running_pid(args.socket):
            raise ScionError(f"the daemon (pid {pid}) is still running after "
                             f"{STOP_WAIT_SECONDS:g} s (its log: {log})")
        print(f"scion: stopped the daemon (pid {pid})", file=sys.stderr)
        return 0
    linger = args.linger
    if linger is None:
        try:
            linger = float(os.environ.get("SCION_DAEMON_LINGER", DEFAULT_LINGER))
        except ValueError:
            raise ScionError("SCION_DAEMON_LINGER: give a number of seconds") from None
    return run_daemon(args.socket, args.timeout, args.wait, linger)


def add_daemon(sub, subcommand):
    p = subcommand(sub, "daemon", "share the control channel among several scion commands at "
                   "once (clients start it themselves; it exits LINGER seconds after its last "
                   "client leaves)", cmd_daemon)
    what = p.add_mutually_exclusive_group()
    what.add_argument("--stop", action="store_true", help="stop the running daemon: its "
                      "clients' streams are closed in the kernel and the clients told")
    what.add_argument("--status", action="store_true", help="say whether a daemon runs "
                      "(exit status 1 when none)")
    p.add_argument("--linger", type=float, metavar="S", help="seconds to stay after the last "
                   f"client leaves (default $SCION_DAEMON_LINGER, else {DEFAULT_LINGER:g})")
    return p
