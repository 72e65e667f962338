# SPDX-License-Identifier: BSD-2-Clause
"""Recordings survive the guest (issue 20): each kind of recording is started
against a guest running a long workload, QEMU is killed once data has been
arriving for a while (the command's .part file growing), and what is on disk
is checked: the final files exist and read back whole (recfmt.read_stream, the
JSON, the consumer's text), meta.json says "complete": false with a reason, the
records kept are the ones that arrived (every one well formed, sequence numbers
strictly increasing, none twice, header counts equal to the files' records, a
bcache request's block the one the workload read at its sequence number, and
nothing that had reached the .part file before the kill missing), the command
exited with status 3 and one line, and `scion record convert` and `scion sim
replay` warn about the incomplete recording and go on. A `scion record` killed
itself leaves .part files that `scion record recover` turns into a recording.

The normal path is test_record.py's, test_sched_sim.py's and test_streams.py's."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from bcache_model import command_workload
from test_channel import channel_boot, scion
from test_record import recfmt
from test_sched_sim import check_history

EXIT_INCOMPLETE = 3
BCACHE_BUFFERS = 16
BCACHE_WORK = "bcache run random n=200000 range=500 seed=3"
SCHED_WORK = "sched run n=16 rounds=100 compute=1 sleep=1"
PROBE_SPEC = "fbt::bcache_read:entry"
# meta.json's reason: the channel, then the drops if the buffers overflowed (the serial
# line carries less than these workloads record).
LOST = (r"the channel closed after [\d.]+ s: Scion powered off or QEMU exited"
        r"(?:; \d+ records? (?:were|was) dropped in full buffers)?")
LOST_LINE = rf"an incomplete recording \({LOST}\)"


def generous_budgets(boot, *points):
    """The machine is shared: a QEMU the host leaves waiting looks, from inside, like a
    recording graft overrunning its time budget, which removes it (and the recording
    loses that stream from then on; the kernel's events say so). Raise the budgets."""
    for point in points:
        boot.command(f"graft budget {point} 1000000", rf"graft: {re.escape(point)} budget")


def start_scion(ctx, sock, *args):
    """host/scion against sock, in the background."""
    argv = [sys.executable, os.path.join(ctx.root, "host", "scion"), "--socket", sock, *args]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_arriving(proc, path, min_bytes, timeout=150):
    """Poll path (a .part file) until it holds min_bytes and has grown at three
    polls: data has been arriving for a while. Returns (ok, detail)."""
    deadline, sizes = time.monotonic() + timeout, []
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False, f"the command ended first (exit {proc.returncode})"
        size = os.path.getsize(path) if os.path.exists(path) else 0
        sizes.append(size)
        grew = sum(b > a for a, b in zip(sizes, sizes[1:]))
        if size >= min_bytes and grew >= 3:
            return True, f"{size} bytes after {len(sizes)} polls"
        time.sleep(0.25)
    return False, f"{path}: sizes {sizes[-8:]} within {timeout} s"


def kill_guest(ctx, boot, proc, path, min_bytes, snapshot=None):
    """Wait for data, take a snapshot of the .part file (snapshot(path) -> what it
    holds), kill QEMU, wait for the command. Returns (rc, stdout, stderr, held)."""
    ok, detail = wait_arriving(proc, path, min_bytes)
    ctx.result("data-arriving", ok, detail)
    held = snapshot(path) if ok and snapshot else None
    boot.proc.kill()
    boot.finish()
    try:
        out, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return proc.returncode, out, err, held


def one_line(ctx, name, rc, err, pattern):
    """The command exited EXIT_INCOMPLETE and said so in one line matching pattern
    (after the lines `scion probe record` and `scion trace` print about drops, as
    dtrace does)."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    m = re.fullmatch(pattern, lines[-1]) if lines else None
    ctx.result(name, rc == EXIT_INCOMPLETE and m and "Traceback" not in err and
               all(re.fullmatch(r"(scion|dtrace): \d+ drops? on CPU \d+", ln)
                   for ln in lines[:-1]),
               f"exit {rc}: {err[-600:]}")
    return m


def part_records(rf, path):
    """The raw records a recording's .part file holds now."""
    try:
        return set(rf.read_partial(path)[1])
    except rf.RecError:
        return set()


def check_recording(ctx, rf, out, held, module):
    """The final files of an incomplete recording in out; returns (trace, log) decoded
    (empty on failure)."""
    names = sorted(os.listdir(out))
    ctx.result("final-files", names == [rf.LOG_FILE, rf.META_FILE, rf.TRACE_FILE],
               f"{out} holds {names}")
    try:
        th, trace = rf.read_stream(os.path.join(out, rf.TRACE_FILE), rf.STREAM_TRACE)
        lh, log = rf.read_stream(os.path.join(out, rf.LOG_FILE), rf.STREAM_LOG)
        meta = json.load(open(os.path.join(out, rf.META_FILE)))
    except (rf.RecError, OSError, ValueError) as e:
        ctx.result("readable", False, str(e))
        return [], []
    ctx.result("readable", th["module"] == lh["module"] == module, f"{th} {lh}")
    ctx.result("meta-incomplete", meta.get("complete") is False and
               re.fullmatch(LOST, meta.get("reason", "")) and
               meta.get("records") == {"trace": len(trace), "log": len(log)} and
               meta.get("module") == module, json.dumps(meta))
    ctx.result("non-empty", len(trace) > 0 and len(log) > 0, f"{len(trace)} + {len(log)}")
    for name, records in (("trace", trace), ("log", log)):
        seqs = [r["seq"] for r in records]
        ctx.result(f"{name}-seq-increasing", all(a < b for a, b in zip(seqs, seqs[1:])),
                   f"{seqs[:10]}")
    # Nothing that reached the host before the kill is missing from the final files.
    raw = set()
    for name in (rf.TRACE_FILE, rf.LOG_FILE):
        with open(os.path.join(out, name), "rb") as f:
            raw |= set(rf.split_records(f.read()[rf.HEADER.size:]))
    ctx.result("kept-what-arrived", held and held <= raw,
               f"{len(held or ())} records in the .part files before the kill, "
               f"{len(held - raw) if held else '-'} of them missing")
    return trace, log


def held_both(rf):
    def snapshot(path):
        return part_records(rf, path) | part_records(rf, path.replace(rf.TRACE_FILE, rf.LOG_FILE))
    return snapshot


def fresh(ctx, name):
    d = os.path.join(ctx.log_dir, f"{ctx.job}-{name}")
    shutil.rmtree(d, ignore_errors=True)
    return d


def job_bcache(ctx):
    """`scion record -m bcache` with QEMU killed mid-run: the recording of what arrived,
    converted and replayed with a warning; then `scion record` itself killed: its .part
    files recovered."""
    rf = recfmt(ctx)
    out = fresh(ctx, "recording")
    boot, sock = channel_boot(ctx, "bcache", smp=2, single_thread_tcg=True)
    try:
        boot.command(f"bcache reset {BCACHE_BUFFERS}", r"scion> ")
        generous_budgets(boot, "bcache.request", "bcache.result")
        proc = start_scion(ctx, sock, "record", "-m", "bcache", "-o", out, "--run", BCACHE_WORK)
        rc, _, err, held = kill_guest(ctx, boot, proc, os.path.join(out, rf.TRACE_FILE + ".part"),
                                      rf.HEADER.size + 10000 * rf.REQUEST.size, held_both(rf))
    finally:
        boot.kill()
    m = one_line(ctx, "exit-and-line", rc, err, rf"scion: {re.escape(out)}: {LOST_LINE}: kept the "
                 r"(\d+) requests and (\d+) results that arrived")
    trace, log = check_recording(ctx, rf, out, held, "bcache")
    ctx.result("line-counts", m and (int(m[1]), int(m[2])) == (len(trace), len(log)), err)
    # The requests are the workload's: the block read at each sequence number.
    blocks = command_workload(BCACHE_WORK)
    ctx.result("requests-are-the-workload",
               trace and all(blocks[r["seq"] - 1] == r["block"] for r in trace),
               repr(trace[:3]))
    # A result without its request is one the kill explains: the reading thread moved
    # to another CPU between the two, and the kill took the tail of the request's CPU
    # buffer, so some CPU's last request that arrived is before it (CI's file shows it:
    # request 11827 lost with CPU 1's tail after 11575, its result sent from CPU 0).
    # Anything else is a result the kernel sent before its request: a bug.
    dropped = rf.read_stream(os.path.join(out, rf.TRACE_FILE))[0]["drops"] if trace else 0
    orphans = {r["seq"] for r in log} - {r["seq"] for r in trace}
    last = {c: max((r["seq"] for r in trace if r["cpu"] == c), default=0) for c in range(2)}
    unexplained = sorted(s for s in orphans if s <= min(last.values()))
    ctx.result("results-follow-requests", len(unexplained) <= dropped,
               f"{len(orphans)} results without their request, {len(unexplained)} of them "
               f"not explained by a lost CPU tail (last request per CPU {last}), "
               f"{dropped} records dropped")

    rc, text, err = scion(ctx, sock, "record", "convert", out, "--to", "text")
    warn = rf"scion: {re.escape(out)}: {LOST_LINE}: converting the {len(trace)} trace records " \
           rf"and {len(log)} log records that arrived"
    ctx.result("convert-warns-and-converts", rc == 0 and re.fullmatch(warn, err.strip()) and
               len(text.splitlines()) == len(trace) + len(log) + 2, f"exit {rc}: {err[-400:]}")
    rc, text, err = scion(ctx, sock, "record", "convert", out, "--to", "ctf")
    ctx.result("convert-ctf", rc == 0 and os.path.isdir(os.path.join(out, "ctf")), text + err)
    rc, text, err = scion(ctx, sock, "sim", "replay", out, "--policy", "lru", "--policy", "2q",
                          timeout=300)
    warn = rf"scion-sim: {re.escape(out)}: {LOST_LINE}: replaying the {len(trace)} requests " \
           r"that arrived"
    row = re.search(r"^evict=lru readahead=sequential .* (\d+)/(\d+) ", text, re.M)
    ctx.result("sim-replay-warns-and-replays", rc == 0 and re.search(warn, err) and
               len(err.strip().splitlines()) == 1 and row and int(row[2]) == len(trace) and
               0 < int(row[1]) <= len(log), f"exit {rc}: {text[-600:]}{err[-400:]}")
    # A malformed file of an incomplete recording is still refused with its one line.
    bad = fresh(ctx, "truncated")
    shutil.copytree(out, bad, ignore=shutil.ignore_patterns("ctf", "sim"))
    path = os.path.join(bad, rf.TRACE_FILE)
    os.truncate(path, os.path.getsize(path) - 20)
    rc, text, err = scion(ctx, sock, "record", "convert", bad, "--to", "text")
    ctx.result("convert-refuses-truncated", rc == 1 and re.fullmatch(
        r"scion: record convert: .*trace.bin: record \d+: a record of 56 bytes at byte \d+ "
        r"\(truncated\)", err.strip()) and not text, f"exit {rc}: {err}")
    rc, text, err = scion(ctx, sock, "sim", "replay", bad, "--policy", "lru")
    ctx.result("sim-refuses-truncated", rc == 1 and re.search(r"^scion-sim: .*truncated", err,
               re.M), f"exit {rc}: {err}")

    # `scion record` killed itself: the .part files hold what arrived, and recover turns
    # them into a recording the kernel takes (upload checks every byte).
    out = fresh(ctx, "host-killed")
    boot, sock = channel_boot(ctx, "host-killed", smp=2, single_thread_tcg=True)
    try:
        boot.command(f"bcache reset {BCACHE_BUFFERS}", r"scion> ")
        generous_budgets(boot, "bcache.request", "bcache.result")
        # Long enough that the command cannot end before the kill: on a busy host most
        # records of a short run can be dropped in full buffers (CI saw 4419 of 8000 go,
        # and the 6000-request run end before 1000 requests had arrived).
        proc = start_scion(ctx, sock, "record", "-m", "bcache", "-o", out, "--run",
                           "bcache run random n=40000 range=500 seed=3")
        part = os.path.join(out, rf.TRACE_FILE + ".part")
        ok, detail = wait_arriving(proc, part, rf.HEADER.size + 1000 * rf.REQUEST.size)
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        held = held_both(rf)(part)
        names = sorted(os.listdir(out))
        ctx.result("host-killed/parts-left", ok and names == sorted(
            n + ".part" for n in (rf.TRACE_FILE, rf.LOG_FILE, rf.META_FILE)), f"{detail}: {names}")
        rc, text, err = scion(ctx, sock, "record", "convert", out, "--to", "text")
        ctx.result("host-killed/convert-says-recover", rc == 1 and
                   "`scion record recover" in err and len(err.strip().splitlines()) == 1, err)
        rc, text, err = scion(ctx, sock, "record", "recover", out)
        ctx.result("host-killed/recover", rc == 0 and re.fullmatch(
            rf"scion: {re.escape(out)}: recovered an incomplete recording: \d+ requests, \d+ "
            r"results", err.strip()), f"exit {rc}: {err}")
        th, trace = rf.read_stream(os.path.join(out, rf.TRACE_FILE), rf.STREAM_TRACE)
        lh, log = rf.read_stream(os.path.join(out, rf.LOG_FILE), rf.STREAM_LOG)
        meta = json.load(open(os.path.join(out, rf.META_FILE)))
        raw = set()
        for name in (rf.TRACE_FILE, rf.LOG_FILE):
            with open(os.path.join(out, name), "rb") as f:
                raw |= set(rf.split_records(f.read()[rf.HEADER.size:]))
        seqs = [r["seq"] for r in trace]
        ctx.result("host-killed/recovered", sorted(os.listdir(out)) ==
                   [rf.LOG_FILE, rf.META_FILE, rf.TRACE_FILE] and held <= raw and
                   all(a < b for a, b in zip(seqs, seqs[1:])) and
                   meta.get("complete") is False and meta.get("reason", "").startswith(
                       "recovered from the .part files") and meta.get("cpus") == 2 and
                   all(blocks[r["seq"] - 1] == r["block"] for r in trace),
                   f"{len(held)} held, {len(raw)} recovered: {json.dumps(meta)}")
        # The guest finishes the workload; the next session closes the abandoned stream.
        rc, text, err = scion(ctx, sock, "--timeout", "240", "record", "upload", out,
                              timeout=300)
        ctx.result("host-killed/upload-accepted", rc == 0 and re.fullmatch(r"rec\d+", text.strip())
                   and re.search(r"an incomplete recording \(recovered .*\): uploading the "
                                 rf"{len(trace)} trace records and {len(log)} log records", err),
                   f"exit {rc}: {text}{err}")
        if rc == 0:
            m = boot.command(f"sim run {text.strip()} lru", r"sim: rec\d+: (\d+) requests"
                             r"[\s\S]*?scion> ", timeout=120)
            ctx.result("host-killed/kernel-replays", int(m.group(1)) == len(trace), m.group(0))
        boot.command("poweroff", r"powering off")
    finally:
        boot.finish()


def job_sched(ctx):
    """`scion record -m sched` with QEMU killed mid-run: a history that holds together up
    to the first record that did not arrive; the replays take that much."""
    rf = recfmt(ctx)
    out = fresh(ctx, "recording")
    boot, sock = channel_boot(ctx, "sched", smp=2, single_thread_tcg=True)
    try:
        generous_budgets(boot, "sched.event", "sched.pick")
        proc = start_scion(ctx, sock, "record", "-m", "sched", "-o", out, "--run", SCHED_WORK)
        rc, _, err, held = kill_guest(ctx, boot, proc, os.path.join(out, rf.TRACE_FILE + ".part"),
                                      rf.HEADER.size + 1500 * rf.SCHED_EVENT.size, held_both(rf))
    finally:
        boot.kill()
    m = one_line(ctx, "exit-and-line", rc, err, rf"scion: {re.escape(out)}: {LOST_LINE}: kept the "
                 r"(\d+) events and (\d+) picks that arrived")
    trace, log = check_recording(ctx, rf, out, held, "sched")
    ctx.result("line-counts", m and (int(m[1]), int(m[2])) == (len(trace), len(log)), err)
    seqs = sorted(r["seq"] for r in trace + log)
    ctx.result("no-seq-twice", len(seqs) == len(set(seqs)), f"{len(seqs)} records")
    # The history up to the first missing sequence number holds together.
    gap = next((b for a, b in zip(seqs, seqs[1:]) if b != a + 1), None)
    stop = next((a + 1 for a, b in zip(seqs, seqs[1:]) if b != a + 1), seqs[-1] + 1) \
        if seqs else 0
    why = check_history(rf, [r for r in trace if r["seq"] < stop],
                        [r for r in log if r["seq"] < stop]) if seqs else "nothing"
    ctx.result("history-holds-to-first-gap", why == "", f"{why} (first gap before {gap})")
    rc, text, err = scion(ctx, sock, "record", "convert", out, "--to", "csv")
    ctx.result("convert-warns-and-converts", rc == 0 and re.fullmatch(
        rf"scion: {re.escape(out)}: {LOST_LINE}: converting the {len(trace)} trace records and "
        rf"{len(log)} log records that arrived", err.strip()), f"exit {rc}: {err}")
    for follow in ([], ["--follow"]):
        rc, text, err = scion(ctx, sock, "sim", "replay", out, "--policy", "rr", "--policy",
                              "fair", *follow, timeout=300)
        verb = "following" if follow else "replaying"
        ctx.result(f"sim-replay{'-follow' if follow else ''}-warns-and-replays", rc == 0 and
                   re.search(rf"^scion-sim: {re.escape(out)}: {LOST_LINE}: {verb} the \d+ events",
                             err, re.M) and len(err.strip().splitlines()) == 1 and
                   re.search(r"^rr\s+\d+", text, re.M), f"exit {rc}: {text[-500:]}{err[-500:]}")
        if follow and rc == 0:
            agree = re.search(r"^rr\s+(\d+)\s+\d+\s+(\d+)/(\d+)", text, re.M)
            ctx.result("follow-live-policy-agrees", agree and agree[2] == agree[3] == agree[1]
                       and int(agree[1]) == sum(1 for r in log if r["seq"] < stop), text)


def job_probes(ctx):
    """`scion probe record --json -o FILE` with QEMU killed mid-run: FILE holds the
    records that arrived, FILE.part gone."""
    out = fresh(ctx, "probes.json")
    if os.path.exists(out):
        os.unlink(out)
    boot, sock = channel_boot(ctx, "probes", smp=2, single_thread_tcg=True)
    try:
        boot.command(f"bcache reset {BCACHE_BUFFERS}", r"scion> ")
        # The normal path first: FILE whole at the end, no FILE.part.
        rc, text, err = scion(ctx, sock, "probe", "record", PROBE_SPEC, "--json", "-o", out,
                              "--run", "bcache run seq n=20 start=100")
        got = json.load(open(out)) if rc == 0 and os.path.exists(out) else {}
        ctx.result("normal-path", rc == 0 and not text and got.get("complete") is True and
                   [r["arg0"] for r in got["records"]] == list(range(100, 120)) and
                   got["totals"]["records"] == 20 and not os.path.exists(out + ".part"),
                   f"exit {rc}: {err}")
        os.unlink(out) if os.path.exists(out) else None
        proc = start_scion(ctx, sock, "probe", "record", PROBE_SPEC, "--json", "-o", out,
                           "--run", BCACHE_WORK)

        def snapshot(path):
            with open(path) as f:
                lines = f.read().splitlines()[1:-1]     # the last one may be cut short
            return {(r["timestamp_ns"], r["cpu"], r["arg0"]) for r in map(json.loads, lines)}
        rc, _, err, held = kill_guest(ctx, boot, proc, out + ".part", 1024 * 1024, snapshot)
    finally:
        boot.kill()
    one_line(ctx, "exit-and-line", rc, err, rf"scion: {re.escape(out)}: {LOST_LINE}: kept the "
             r"\d+ records that arrived")
    try:
        got = json.load(open(out))
    except (OSError, ValueError) as e:
        ctx.result("readable", False, str(e))
        return
    recs = got.get("records", [])
    ctx.result("readable", not os.path.exists(out + ".part") and got.get("complete") is False
               and re.fullmatch(LOST, got.get("reason", "")) and got.get("totals") is None,
               json.dumps({k: v for k, v in got.items() if k != "records"}))
    keys = [(r["timestamp_ns"], r["cpu"], r["arg0"]) for r in recs]
    blocks = command_workload(BCACHE_WORK)
    ctx.result("records-well-formed", recs and all(
        r["name"] == "fbt:kernel:bcache_read:entry" for r in recs) and
        len(set(keys)) == len(keys) and all(a["timestamp_ns"] <= b["timestamp_ns"]
                                            for a, b in zip(recs, recs[1:])), repr(recs[:2]))
    # One thread reads the workload's blocks in order: the records are a prefix of it, or
    # with drops (the buffers overflow when the serial line falls behind) a subsequence.
    reads, it = [r["arg0"] for r in recs], iter(blocks)
    ctx.result("records-are-the-workload", reads == blocks[:len(reads)] if not got["dropped"]
               else all(any(b == a for b in it) for a in reads),
               f"{reads[:8]} vs {blocks[:8]}, {got['dropped']} dropped")
    ctx.result("kept-what-arrived", held and held <= set(keys),
               f"{len(held or ())} in the .part before the kill, {len(keys)} kept")


def job_trace(ctx):
    """`scion trace -o FILE` with QEMU killed mid-run: FILE holds the output of what
    arrived (a line per firing), FILE.part gone."""
    out = fresh(ctx, "trace.txt")
    if os.path.exists(out):
        os.unlink(out)
    program = 'fbt::bcache_read:entry { printf("%d %d\\n", cpu, arg0); }'
    boot, sock = channel_boot(ctx, "trace", smp=2, single_thread_tcg=True)
    try:
        boot.command(f"bcache reset {BCACHE_BUFFERS}", r"scion> ")
        # The normal path first: FILE whole at the end, no FILE.part.
        rc, text, err = scion(ctx, sock, "trace", "-q", "-o", out, "-n", program, "--run",
                              "bcache run seq n=20 start=100")
        lines = open(out).read().split() if rc == 0 and os.path.exists(out) else []
        ctx.result("normal-path", rc == 0 and not text and not err and
                   lines[1::2] == [str(b) for b in range(100, 120)] and
                   not os.path.exists(out + ".part"), f"exit {rc}: {lines[:6]} {err}")
        os.unlink(out) if os.path.exists(out) else None
        proc = start_scion(ctx, sock, "trace", "-q", "-o", out, "-n", program, "--run",
                           BCACHE_WORK)

        def snapshot(path):
            with open(path) as f:
                return f.read().splitlines()[:-1]
        rc, _, err, held = kill_guest(ctx, boot, proc, out + ".part", 128 * 1024, snapshot)
    finally:
        boot.kill()
    one_line(ctx, "exit-and-line", rc, err, rf"scion: {re.escape(out)}: the trace ended early "
             r"\(the channel closed after [\d.]+ s: Scion powered off or QEMU exited\): kept "
             r"the output of the (\d+) records that arrived")
    try:
        lines = [ln for ln in open(out).read().splitlines() if ln]
    except OSError as e:
        ctx.result("readable", False, str(e))
        return
    blocks = command_workload(BCACHE_WORK)
    ok = all(re.fullmatch(r"\d+ \d+", ln) for ln in lines)
    reads = [int(ln.split()[1]) for ln in lines] if ok else []
    ctx.result("readable", lines and ok and not os.path.exists(out + ".part"),
               f"{len(lines)} lines: {lines[:3]}")
    # In the workload's order, none invented; but not always a prefix: when the
    # reading thread moved between CPUs, the kill may take the tail of one CPU's
    # buffer while the other's later records had already been sent (CI saw it).
    it = iter(blocks)
    ctx.result("output-is-the-workload", len(reads) >= 1000 and
               all(any(b == a for b in it) for a in reads),
               f"{len(reads)} reads, {reads[:8]} vs {blocks[:8]}")
    m = re.search(r"kept the output of the (\d+) records", err)
    ctx.result("line-counts", m and int(m[1]) == len(lines), f"{len(lines)} lines: {err}")
    before = [ln for ln in held or [] if ln]
    ctx.result("kept-what-arrived", held is not None and lines[:len(before)] == before,
               f"{len(before)} lines before the kill, {len(lines)} after")
