# SPDX-License-Identifier: BSD-2-Clause
"""One sweep run in QEMU: boot the kernel with the run's CPUs, memory,
boot options and policy modules (the disk attached as a snapshot, the
clock under -icount when the sweep says so), then over the control
channel run the policy's commands, read the monitor sources the sweep
collects, enable its D program, start its recording and its profile
collection, run the
workload's commands and benchmarks, read the aggregations, finish the
recording, read the sources again, and power off.

Figures come only from structured replies: the SHELL op's status (a
command that fails fails the run), the "bench" stream's records
(scionhost.bench), the "monitor" stream's samples read before and after
the workload, whose difference is the figure, the D program's
aggregations (dcollect.py) and the recording's record counts. The
profile collection ([collect] profile) goes to the sweep's database as
`scion profile collect` stores one, under the machine name
"sweep NAME RUN_ID"; the run's row names it. The
console goes to the run's log file and is never parsed. QEMU is in this
process's group and dies with it (PR_SET_PDEATHSIG), and is stopped when
the attempt outlasts the sweep's timeout, so no run leaves a machine
behind. Any failure is a RunFailed of one line.
"""

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from .. import bench, frame, record, replies
from ..client import REPO, Client, ScionError
from ..profile.collect import LiveCollection
from ..profile.monitor_records import BURST, Round, Source, decode_chunk
from . import dcollect
from .plan import DEFAULTS

sys.path.insert(0, os.path.join(REPO, "qemu"))
import machine  # noqa: E402

SOCKET_WAIT_SECONDS = 30
POWEROFF_SECONDS = 20
EXIT_GRACE_SECONDS = 2
MONITOR_BUFSIZE = 64 * 1024
MONITOR_SWITCH_MS = 50
PR_SET_PDEATHSIG = 1
RECORD_BUFSIZE = 128 * 1024     # per CPU, the most a stream takes: a recording must lose nothing
RECORD_SWITCH_MS = 20


class RunFailed(ScionError):
    """A run that did not finish: one line saying where it stopped."""


def die_with_parent():
    """In QEMU's child before exec: SIGKILL when the process that started it ends."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def qemu_icount(shift):
    """The sweep's icount (a shift, or False) as machine.qemu_command takes it: True
    means shift 0 there, and 0 would mean no icount."""
    if shift is False:
        return False
    return True if shift == 0 else shift


def module_path(name):
    """A policy module: a file, or NAME for build/grafts/NAME.graft."""
    path = name if os.sep in name else os.path.join(REPO, "build", "grafts", name + ".graft")
    if not os.path.isfile(path):
        raise RunFailed(f"no graft module {path} (make grafts)")
    return path


class Machine:
    """QEMU booted for one run, its console in a log file."""

    def __init__(self, run, log_path):
        s = run.settings
        cfg = dict(DEFAULTS, **run.config)
        self.dir = tempfile.mkdtemp(prefix="scion-sweep-")
        self.socket = os.path.join(self.dir, "control.sock")
        disk = s["disk"] if s["disk"] and os.path.isfile(s["disk"]) else None
        if not os.path.isfile(s["kernel"]):
            raise RunFailed(f"no kernel {s['kernel']} (make)")
        try:
            self.argv = machine.qemu_command(
                smp=cfg["cpus"], mem=cfg["mem"], kernel=s["kernel"], cmdline=cfg["bootopts"],
                modules=[module_path(m) for m in run.policy.get("modules", [])], disk=disk,
                disk_snapshot=True, control_socket=self.socket,
                icount=qemu_icount(s["icount"]), single_thread_tcg=True)
        except machine.ConfigError as e:
            raise RunFailed(str(e)) from None
        self.expired = False
        self.log = open(log_path, "w")
        self.log.write("# " + " ".join(self.argv) + "\n")
        self.log.flush()
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=self.log,
                                         stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
        except FileNotFoundError:
            raise RunFailed(f"{self.argv[0]} is not installed (make deps)") from None

    def expire(self):
        """The run's time is up (a timer thread): stop QEMU, so whatever waits on it ends."""
        self.expired = True
        if self.proc.poll() is None:
            self.proc.kill()

    def ended(self, doing):
        """The RunFailed for a QEMU that went away while doing something (given a
        moment to exit: the channel closes just before it does), else None."""
        try:
            status = self.proc.wait(timeout=EXIT_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            return None
        return RunFailed(f"QEMU exited with status {status} while {doing}")

    @contextlib.contextmanager
    def failing(self, doing, what):
        """A ScionError in the body: QEMU's exit while doing it, when it exited, else a
        RunFailed "what: the error"."""
        try:
            yield
        except RunFailed:
            raise
        except ScionError as e:
            raise self.ended(doing) or RunFailed(f"{what}: {e}") from None

    def client(self, timeout):
        deadline = time.monotonic() + SOCKET_WAIT_SECONDS
        while not os.path.exists(self.socket):
            if self.ended("booting") or time.monotonic() > deadline:
                raise self.ended("booting") or RunFailed("QEMU opened no control socket in "
                                                         f"{SOCKET_WAIT_SECONDS} s")
            time.sleep(0.05)
        return Client(self.socket, timeout=timeout, wait=SOCKET_WAIT_SECONDS, direct=True)

    def power_off(self):
        """Type poweroff on the console; QEMU's exit status (killed after a while: None)."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"poweroff\n")
                self.proc.stdin.flush()
            except OSError:
                pass
        try:
            return self.proc.wait(timeout=POWEROFF_SECONDS)
        except subprocess.TimeoutExpired:
            return None
        finally:
            self.close()

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def shell(c, m, command):
    with m.failing(f"running `{command}`", f"`{command}`"):
        status, body = c.request(frame.OP_SHELL, command.encode())
    if status < 0:
        text = body.decode("utf-8", "replace").strip().splitlines()
        raise RunFailed(f"`{command}` failed ({frame.errno_name(status)})"
                        + (f": {text[-1]}" if text else ""))


def monitor_values(c, m, names, timeout):
    """{source: value} of the first samples of names taken after the stream opened."""
    sources, values = {}, {}

    def on_chunk(cpu, count, drops, body):
        if cpu == frame.CHUNK_STATUS:
            return
        for rec in decode_chunk(body, count, cpu):
            if isinstance(rec, Source):
                sources[rec.index] = rec.name
            elif isinstance(rec, Round) and not rec.flags & BURST:
                for index, _, value in rec.samples:
                    values.setdefault(sources.get(index), value)

    with m.failing("reading the monitor", "monitor stream"):
        stream, _, _ = c.stream_open("monitor", MONITOR_BUFSIZE, MONITOR_SWITCH_MS, "",
                                     on_chunk)
        deadline = time.monotonic() + timeout
        while not all(n in values for n in names) and time.monotonic() < deadline:
            c.pump(0.1)
        c.stream_close(stream)
    missing = [n for n in names if n not in values]
    if missing:
        known = ", ".join(sorted(n for n in sources.values() if n))
        raise RunFailed(f"monitor source {missing[0]} "
                        + (f"not sampled in {timeout:g} s" if missing[0] in sources.values()
                           else f"does not exist (sources: {known})"))
    return {n: values[n] for n in names}


class Recorder:
    """The workload recorded as `scion record -m MODULE -o DIR` records it (record.py):
    trace.bin, log.bin and meta.json in DIR, made anew. A recording that lost records
    fails the run; its figures are the records of each stream."""

    def __init__(self, c, module, out, kernel_version):
        shutil.rmtree(out, ignore_errors=True)
        self.c = c
        self.rec = record.Recording(out, {"kernel_version": kernel_version,
                                          "switch_ms": RECORD_SWITCH_MS})
        self.stream, cpus, bufsize = c.stream_open("record", RECORD_BUFSIZE, RECORD_SWITCH_MS,
                                                   module, self.rec.on_chunk)
        self.rec.meta.update(cpus=cpus, bufsize=bufsize)

    def stop(self):
        totals = self.c.stream_close(self.stream)
        if totals.get("drops") or self.rec.dropped() or totals.get("records") != \
                self.rec.arrived():
            self.rec.discard()
            raise RunFailed(f"record: the kernel sent {totals.get('records')} records "
                            f"({totals.get('drops')} dropped), {self.rec.arrived()} arrived; "
                            f"give the workload less to record")
        meta = self.rec.finish()
        return {f"record.{k}": v for k, v in meta["records"].items()}


def execute(run, dest, timeout):
    """Perform one run: ({figure: value}, facts about the run), or RunFailed. QEMU is
    stopped when the run takes longer than timeout seconds."""
    started = time.monotonic()
    program = run.settings["collect"]["d"]
    try:
        d_meta = dcollect.compile_program(program, run.settings["kernel"]) if program else None
    except dcollect.DError as e:
        raise RunFailed(str(e)) from None
    m = Machine(run, dest.log)
    timer = threading.Timer(timeout, m.expire)
    timer.daemon = True
    timer.start()
    try:
        figures, facts = session(run, m, d_meta, dest, timeout, started)
    except ScionError:
        m.close()
        if m.expired:
            raise RunFailed(f"the run took longer than its {timeout} s; QEMU stopped") from None
        raise
    except BaseException:
        m.close()
        raise
    finally:
        timer.cancel()
    status = m.power_off()
    if status != 0:
        raise RunFailed(f"QEMU did not power off cleanly (exit status {status})")
    facts["seconds"] = round(time.monotonic() - started, 3)
    return figures, facts


def session(run, m, d_meta, dest, timeout, started):
    """The run's commands and figures over the control channel of machine m."""
    facts = {}
    monitor_names = run.settings["collect"]["monitor"]
    with m.client(timeout) as c:
        with m.failing("booting", "STATUS"):
            facts["kernel_version"] = replies.status(c)["version"]
        facts["boot_seconds"] = round(time.monotonic() - started, 3)
        for command in run.policy.get("commands", []):
            shell(c, m, command)
        before = monitor_values(c, m, monitor_names, timeout) if monitor_names else {}
        work = time.monotonic()
        figures = {}
        tracing = recording = profile = None
        if run.settings["collect"]["profile"]:
            with m.failing("starting the profile collection", "profile"):
                profile = LiveCollection(c, dest.db, dest.profile_machine,
                                         params={"sweep_run": dest.profile_machine})
        if d_meta:
            with m.failing("starting the D program", "D program"):
                tracing = dcollect.Session(c, d_meta)
        if run.settings["collect"]["record"]:
            with m.failing("starting the recording", "record"):
                recording = Recorder(c, run.settings["collect"]["record"], dest.record_dir,
                                     facts["kernel_version"])
        for command in run.workload.get("commands", []):
            shell(c, m, command)
        if "bench" in run.workload:
            with m.failing("benchmarking", "bench"):
                items, _ = bench.run(c, run.workload["bench"], timeout)
            for f in bench.figures(items):
                figures[f"bench.{f['figure']}"] = f["value"]
        if tracing:
            with m.failing("ending the D program", "D program"):
                figures.update(tracing.stop())
        if recording:
            with m.failing("ending the recording", "record"):
                figures.update(recording.stop())
        if profile:
            with m.failing("ending the profile collection", "profile"):
                try:
                    profile.end()
                except BaseException as e:
                    profile.abandon(e)
                    raise
            # Its sample count follows the guest's clock over host exchanges: not a figure.
            facts["collection_id"] = profile.cid
        facts["work_seconds"] = round(time.monotonic() - work, 3)
        if monitor_names:
            after = monitor_values(c, m, monitor_names, timeout)
            figures.update({n: after[n] - before[n] for n in monitor_names})
    return figures, facts
