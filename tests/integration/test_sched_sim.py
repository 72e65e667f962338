# SPDX-License-Identifier: BSD-2-Clause
"""Recording the scheduler's boundaries and replaying them (VINO
self-monitoring for sched.pick_next): `scion record -m sched` writes the
trace (what threads did) and log (what the scheduler chose) of a
workload of computing and sleeping threads; the two streams together
are a well-formed history of every thread (each transition allowed by
the one before, sequence numbers increasing, starting from the state
every thread was in); the kernel's `sim run` and the host's `scion sim
replay` of the trace with rr, fair and lifo print the same summaries and
write the same logs byte for byte, in the open-loop model and following
the recorded history (mode=follow, --follow), where the live policy
reproduces the recorded log record for record (rr, and fair grafted
live), other policies agree less, and a recording started while threads
were already running and queued is followed as exactly; a simulation
leaves the live scheduler as it was; and bad input is refused with one
line."""

import os
import re
import shutil
import subprocess
import sys
import time

from common import graft_path, poweroff
from test_channel import channel_boot, scion
from test_record import recfmt, recording_boot, request, sim

WORKLOAD = "sched run n=6 rounds=4 compute=2 sleep=3"
THREADS, ROUNDS, COMPUTE = 6, 4, 2
POLICIES = ["rr", "fair", "lifo"]
GRAFTS = ["sched_fair", "sched_lifo", "evict_clock"]
ROW = re.compile(r"^(live [^\n]*?|\w+)\s+(\d+)\s+(\d+)\s+([\d.]+|-)\s+(\d+|-)\s+(\d+)\s+(\d+)"
                 r"\s+(\S+)\s*$", re.M)
THREAD_ROW = re.compile(r"^  (\d+)\s+(\d+)\s+(\d+)((?:\s+\d+/\d+)+)\s*$", re.M)
FOLLOW_ROW = re.compile(r"^(live [^\n]*?|\w+)\s+(\d+)\s+(\d+)\s+(\d+/\d+|-)\s+(\S+)\s*$", re.M)


def rows(text):
    """{policy: (picks, switches, wait-mean, wait-max, done, busy, log)}."""
    return {m[1]: (int(m[2]), int(m[3]), m[4], m[5], int(m[6]), int(m[7]), m[8])
            for m in ROW.finditer(text)}


def follow_rows(text):
    """{policy: (picks, switches, (agreed, of) or None, log)} of a follow's table."""
    return {m[1]: (int(m[2]), int(m[3]), tuple(map(int, m[4].split("/"))) if m[4] != "-"
                   else None, m[5]) for m in FOLLOW_ROW.finditer(text)}


def records_bytes(path):
    """A stream file's records, raw, without its header."""
    with open(path, "rb") as f:
        return f.read()[128:]


def thread_rows(text):
    """{tid: (phases, run, [wait/done per policy])}."""
    return {int(m[1]): (int(m[2]), int(m[3]), m[4].split()) for m in THREAD_ROW.finditer(text)}


def check_history(rf, trace, log):
    """'' when the two streams, merged by sequence number, are a history the scheduler
    makes; else the first record that is not. The recording starts with the state of
    every thread (which runs on which CPU, which are queued, which sleep); after it,
    each transition must be one the scheduler allows from the one before, each pick's
    previous thread the one its CPU ran, its choice a queued thread, and its queue
    length the number queued (a preempted or yielding thread back on the queue)."""
    for name, stream in (("trace", trace), ("log", log)):
        seqs = [r["seq"] for r in stream]
        if any(b <= a for a, b in zip(seqs, seqs[1:])):
            return f"the {name}'s sequence numbers do not increase"
    if {r["seq"] for r in trace} & {r["seq"] for r in log}:
        return "a sequence number in both streams"
    if not trace or not log:
        return "an empty stream"
    state, on_cpu, started = {}, {}, False
    at_start = {"queued": "queued", "running": "running", "sleeping": "blocked"}
    for r in sorted(trace + log, key=lambda r: r["seq"]):
        where = f"seq {r['seq']}"
        if r["type"] == "event":
            tid, kind, st = r["tid"], rf.EVENTS.get(r["kind"]), state.get(r["tid"])
            if kind in at_start:
                if started or st:
                    return f"{where}: thread {tid} {kind} at the start, " + \
                        ("after the start" if started else "twice")
                state[tid] = at_start[kind]
                if kind == "running":
                    on_cpu[r["cpu"]] = tid
                continue
            started = True
            if kind == "runnable":
                if st not in (None, "blocked"):
                    return f"{where}: thread {tid} became runnable while {st}"
                state[tid] = "queued"
            elif kind in ("tick", "yield", "block", "exit"):
                if st != "running" or on_cpu.get(r["cpu"]) != tid:
                    return f"{where}: thread {tid} {kind} on CPU {r['cpu']} while {st}"
                if kind in ("block", "exit"):
                    state[tid] = "blocked" if kind == "block" else "dead"
            else:
                return f"{where}: unknown event kind {r['kind']}"
            continue
        started = True
        cpu, tid, prev = r["cpu"], r["tid"], r["prev"]
        if on_cpu.get(cpu, 0) != prev:
            return f"{where}: CPU {cpu} switched from {prev}, but it ran {on_cpu.get(cpu, 0)}"
        if prev and state.get(prev) == "running":
            state[prev] = "queued"      # preempted or yielded: back on the queue
        queued = sum(1 for v in state.values() if v == "queued")
        if r["queued"] != queued:
            return f"{where}: {r['queued']} queued, the history says {queued}"
        if tid:
            if state.get(tid) != "queued":
                return f"{where}: CPU {cpu} chose thread {tid}, which was {state.get(tid)}"
            state[tid] = "running"
        on_cpu[cpu] = tid
    return ""


def job_record_and_replay(ctx):
    rf = recfmt(ctx)
    # Under -icount (8 ns an instruction) a worker's compute ticks are exactly what it
    # is charged: a host busy elsewhere cannot slip a tick in before it sleeps.
    boot, sock, out = recording_boot(ctx, GRAFTS, icount=3)
    try:
        rc, text, err = scion(ctx, sock, "record", "-m", "sched", "-o", out, "--run", WORKLOAD,
                              timeout=300)
        ctx.result("record-exit", rc == 0 and "dropped" in err, text + err)
        th, trace = rf.read_stream(os.path.join(out, rf.TRACE_FILE)) if rc == 0 else ({}, [])
        lh, log = rf.read_stream(os.path.join(out, rf.LOG_FILE)) if rc == 0 else ({}, [])
        meta = rf.read_meta(out) if rc == 0 else {}
        ctx.result("meta", meta.get("complete") and meta.get("module") == "sched" and
                   meta.get("policy") == "pick_next=rr tick=rr" and
                   meta.get("config") == {"cpus": 2, "hz": 100, "slice_ticks": 2}, repr(meta))
        why = check_history(rf, trace, log) if rc == 0 else "no recording"
        ctx.result("history-well-formed", not why, why)
        # The workers: the threads that ended; each was charged its compute ticks.
        ended = [r["tid"] for r in trace if rf.EVENTS.get(r["kind"]) == "exit"]
        ticks = {t: sum(1 for r in trace if r["tid"] == t and rf.EVENTS[r["kind"]] == "tick")
                 for t in ended}
        want = sorted(ROUNDS * COMPUTE * (1 + k % 3) for k in range(THREADS))
        m = re.search(r"(\d+) ticks computed", text)
        ctx.result("workers-in-trace", len(ended) == THREADS and sorted(ticks.values()) == want
                   and m and int(m.group(1)) == sum(want),
                   f"ended {ended}, ticks {sorted(ticks.values())}, want {want}; {text}")

        # As text, CSV and CTF, a line or an event per record.
        rc, conv, err = scion(ctx, sock, "record", "convert", out, "--to", "text")
        lines = conv.splitlines()
        ctx.result("convert-text", rc == 0 and len(lines) == len(trace) + len(log) + 2 and
                   sum(" event=" in x for x in lines) == len(trace) and
                   sum(" prev=" in x for x in lines) == len(log), conv[-300:] + err)
        rc, conv, err = scion(ctx, sock, "record", "convert", out, "--to", "csv")
        csv_rows = open(os.path.join(out, "csv", "log.csv")).read().splitlines() if rc == 0 else []
        ctx.result("convert-csv", rc == 0 and len(csv_rows) == len(log) + 1 and
                   csv_rows[0] == "seq,tick,cpu,tid,prev,queued", conv + err)
        rc, conv, err = scion(ctx, sock, "record", "convert", out, "--to", "ctf")
        bt = subprocess.run(["babeltrace2", os.path.join(out, "ctf")], capture_output=True,
                            text=True, timeout=120) if rc == 0 else None
        events = bt.stdout.splitlines() if bt else []
        ctx.result("convert-ctf", bt and bt.returncode == 0 and
                   len(events) == len(trace) + len(log) and
                   sum(" sched:event: " in e or " sched:snapshot: " in e
                       for e in events) == len(trace) and
                   sum(" sched:snapshot: " in e for e in events) > 0 and
                   sum(" sched:pick: " in e for e in events) == len(log),
                   f"convert exit {rc} {conv}{err}; babeltrace2 {bt and bt.returncode}: "
                   f"{len(events)} events {bt and bt.stderr[-300:]}")

        # Replayed on the host with each policy.
        rc, host_text, err = sim(ctx, "replay", out, "--no-progress",
                                 *sum((["--policy", p] for p in POLICIES), []))
        host = rows(host_text)
        host_threads = thread_rows(host_text)
        ctx.result("host-replay", rc == 0 and set(POLICIES) <= set(host) and
                   any(k.startswith("live") for k in host), host_text + err)
        busy = {host[p][5] for p in POLICIES if p in host}
        ctx.result("every-policy-runs-the-same-work", len(busy) == 1 and
                   busy == {sum(v[1] for v in host_threads.values())},
                   f"busy {busy}, threads {host_threads}")
        ctx.result("policies-differ", len({host[p][:4] for p in POLICIES if p in host}) > 1,
                   host_text)

        # The kernel's replay of the same trace: same table, same logs.
        rc, text, err = scion(ctx, sock, "record", "upload", out)
        rec = text.strip()
        ctx.result("upload", rc == 0 and re.fullmatch(r"rec\d+", rec), text + err)
        before = live_state(boot)
        m = boot.command(f"sim run {rec} " + " ".join(POLICIES),
                         r"sim: \w+: sched[\s\S]*?scion> ", timeout=300)
        kernel = rows(m.group(0))
        ctx.result("kernel-rows-as-host", {k: v[:6] for k, v in kernel.items()} ==
                   {k: v[:6] for k, v in host.items()}, f"{kernel}\n    {host}")
        ctx.result("kernel-threads-as-host", thread_rows(m.group(0)) == host_threads,
                   m.group(0))
        for p in POLICIES:
            fetched = os.path.join(out, f"kernel-{p}")
            log_rec = kernel.get(p, (0,) * 7)[6]
            rc, text, err = scion(ctx, sock, "record", "download", log_rec, "-o", fetched)
            same = rc == 0 and p in host and open(os.path.join(fetched, rf.LOG_FILE), "rb").read() \
                == open(host[p][6], "rb").read()
            ctx.result(f"kernel-log-equals-host-log/{p}", same, text + err)
        follow_kernel_and_host(ctx, rf, boot, sock, out, rec, log, "rr", POLICIES)
        after = live_state(boot)
        ctx.result("simulation-leaves-live-scheduler-unchanged", before == after,
                   f"before {before}\n    after {after}")

        # A recording kept in the kernel, replayed there.
        m = boot.command("record start sched", r"record: rec(\d+): recording sched")
        boot.command("sched run n=3 rounds=2 compute=1 sleep=2", r"all done after \d+ ticks",
                     timeout=120)
        m = boot.command("record stop", r"record: rec(\d+): sched, (\d+) events, (\d+) picks, "
                         r"(\d+) dropped")
        ctx.result("kernel-recording", int(m.group(2)) > 0 and int(m.group(3)) > 0 and
                   m.group(4) == "0", m.group(0))
        n = m.group(1)
        m = boot.command(f"record show rec{n} trace 1 3", r"(seq=\d+ tick=\d+ [^\n]*\n){3}")
        ctx.result("record-show", "event=" in m.group(0), m.group(0))
        m = boot.command(f"sim run rec{n} rr lifo", r"sim: rec\d+: sched[\s\S]*?scion> ",
                         timeout=300)
        r = rows(m.group(0))
        ctx.result("kernel-recording-replays", "rr" in r and "lifo" in r, m.group(0))
        poweroff(ctx, boot)
    finally:
        boot.finish()


def follow_kernel_and_host(ctx, rf, boot, sock, out, rec, log, live, policies, name=""):
    """Follow recording out (in the kernel: rec) with each policy on the host and in the
    kernel: the live policy agrees at every pick and reproduces the recorded log record
    for record; every policy's table row and log are the same in both; lifo, when asked
    to follow round robin's history, disagrees somewhere. Returns the host's rows."""
    tag = f"{name}/" if name else ""
    rc, text, err = sim(ctx, "replay", out, "--no-progress", "--follow",
                        *sum((["--policy", p] for p in policies), []))
    host = follow_rows(text)
    ctx.result(f"{tag}host-follow", rc == 0 and set(policies) <= set(host) and
               any(k.startswith("live") for k in host), text + err)
    mine = host.get(live, (0, 0, None, ""))
    ctx.result(f"{tag}follow-{live}-agrees-at-every-pick", len(log) > 0 and mine[0] == len(log)
               and mine[2] == (len(log), len(log)), f"{mine}, {len(log)} picks recorded")
    same = rc == 0 and records_bytes(mine[3]) == records_bytes(os.path.join(out, rf.LOG_FILE))
    ctx.result(f"{tag}follow-{live}-log-equals-recorded-log", same, mine[3])
    for p in policies:
        if p != live:
            ctx.result(f"{tag}follow-{p}-agreement-counted", p in host and host[p][2] and
                       host[p][2][1] == len(log) and host[p][2][0] <= len(log), text)
    if live == "rr" and "lifo" in policies:
        ctx.result(f"{tag}follow-lifo-differs-from-rr", host.get("lifo", (0, 0, None))[2] and
                   host["lifo"][2][0] < len(log), text)
    m = boot.command(f"sim run {rec} " + " ".join(policies) + " mode=follow",
                     r"sim: \w+: sched[\s\S]*?scion> ", timeout=300)
    kernel = follow_rows(m.group(0))
    ctx.result(f"{tag}kernel-follow-rows-as-host", {k: v[:3] for k, v in kernel.items()} ==
               {k: v[:3] for k, v in host.items()}, f"{kernel}\n    {host}")
    for p in policies:
        fetched = os.path.join(out, f"kernel-follow-{p}")
        rc, text, err = scion(ctx, sock, "record", "download", kernel.get(p, (0,) * 4)[3],
                              "-o", fetched)
        same = rc == 0 and p in host and open(os.path.join(fetched, rf.LOG_FILE), "rb").read() \
            == open(host[p][3], "rb").read()
        ctx.result(f"{tag}kernel-follow-log-equals-host-log/{p}", same, text + err)
    return host


def job_follow_live_policies(ctx):
    """With sched_fair grafted live, a recording followed with fair agrees at every pick;
    a recording started while a workload's threads already run and wait on the queue
    begins with their state and is followed as exactly (kernel and host alike)."""
    rf = recfmt(ctx)
    boot, sock, out = recording_boot(ctx, GRAFTS)
    try:
        boot.command("graft install fair", r"'fair' installed at sched.pick_next")
        rc, text, err = scion(ctx, sock, "record", "-m", "sched", "-o", out, "--run", WORKLOAD,
                              timeout=300)
        boot.command("graft remove fair", r"'fair' removed")
        meta = rf.read_meta(out) if rc == 0 else {}
        ctx.result("fair-recorded", rc == 0 and meta.get("complete") and
                   meta.get("policy") == "pick_next=fair tick=rr", f"{meta}{text}{err}")
        _, trace = rf.read_stream(os.path.join(out, rf.TRACE_FILE)) if rc == 0 else ({}, [])
        _, log = rf.read_stream(os.path.join(out, rf.LOG_FILE)) if rc == 0 else ({}, [])
        why = check_history(rf, trace, log) if rc == 0 else "no recording"
        ctx.result("fair-history-well-formed", not why, why)
        rc, text, err = scion(ctx, sock, "record", "upload", out)
        rec = text.strip()
        follow_kernel_and_host(ctx, rf, boot, sock, out, rec, log, "fair", ["fair", "rr"],
                               "fair-live")

        # Recording begins while the workload runs: its threads are running and queued.
        worker = subprocess.Popen([sys.executable, os.path.join(ctx.root, "host", "scion"),
                                   "--socket", sock, "--timeout", "300", "shell", "sched",
                                   "run", "n=6", "rounds=25",
                                   "compute=3", "sleep=2"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        try:
            workers = set()
            for _ in range(100):
                m = boot.command("threads", r"tid[^\n]*\n([\s\S]*?)scheduling policy")
                workers = {int(f.split()[0]) for f in m.group(1).splitlines()
                           if len(f.split()) > 2 and f.split()[1] == "sched-run"}
                if workers:
                    break
                time.sleep(0.2)
            m = boot.command("record start sched", r"record: rec(\d+): recording sched")
            time.sleep(1.5)
            m = boot.command("record stop", r"record: rec(\d+): sched, (\d+) events, (\d+) "
                             r"picks, (\d+) dropped")
            n, picks = m.group(1), int(m.group(3))
            ctx.result("mid-run-recording", workers and picks > 0 and m.group(4) == "0",
                       f"{m.group(0)}; workers {workers}")
            m = boot.command(f"sim run rec{n} rr mode=follow", r"sim: rec\d+: sched[\s\S]*?scion> ",
                             timeout=300)
            kernel = follow_rows(m.group(0))
            ctx.result("mid-run-kernel-follow-agrees", kernel.get("rr", (0, 0, None))[2] ==
                       (picks, picks), m.group(0))
        finally:
            wout, werr = worker.communicate(timeout=300)
        ctx.result("mid-run-workload", worker.returncode == 0 and "all done" in wout, wout + werr)
        mid = os.path.join(ctx.log_dir, f"{ctx.job}-midrun")
        shutil.rmtree(mid, ignore_errors=True)
        rc, text, err = scion(ctx, sock, "record", "download", f"rec{n}", "-o", mid)
        _, trace = rf.read_stream(os.path.join(mid, rf.TRACE_FILE)) if rc == 0 else ({}, [])
        _, log = rf.read_stream(os.path.join(mid, rf.LOG_FILE)) if rc == 0 else ({}, [])
        start = {r["tid"]: rf.EVENTS[r["kind"]] for r in trace if r["kind"] in rf.STATE_KINDS}
        busy = {t for t, k in start.items() if t in workers and k in ("running", "queued")}
        ctx.result("mid-run-start-state-names-busy-workers", len(busy) >= 2 and
                   "queued" in start.values(), f"start state {start}, workers {workers}")
        why = check_history(rf, trace, log) if rc == 0 else "no recording: " + err
        ctx.result("mid-run-history-well-formed", not why, why)
        follow_kernel_and_host(ctx, rf, boot, sock, mid, f"rec{n}", log, "rr", POLICIES,
                               "mid-run")
        poweroff(ctx, boot)
    finally:
        boot.finish()


def live_state(boot):
    """The live scheduler as a simulation must leave it: the graft points' slots, the
    thread list, and every sleeping thread's counters (they cannot change while it
    sleeps; the shell and the channel's threads do run)."""
    m = boot.command("graft points", r"(sched\.pick_next[^\n]*\n)")
    points = m.group(1)
    m = boot.command("threads", r"tid[^\n]*\n([\s\S]*?)scheduling policy: ([^\n]*)\n")
    threads = []
    for line in m.group(1).splitlines():
        f = line.split()
        if len(f) >= 7 and f[2] == "sleeping" and not f[1].startswith(("shell", "channel")):
            threads.append(tuple(f))
        elif len(f) >= 2:
            threads.append((f[0], f[1]))
    return points, m.group(2).strip(), sorted(threads)


def event(rf, seq, tick, tid, kind, affinity=-1):
    return rf.encode_record({"type": "event", "cpu": 0, "seq": seq, "tick": tick, "time_ns": tick,
                             "tid": tid, "kind": rf.EVENT_KINDS[kind], "affinity": affinity})


def pick(rf, seq, tick, cpu, tid, prev, queued):
    return rf.encode_record({"type": "pick", "cpu": cpu, "seq": seq, "tick": tick, "tid": tid,
                             "prev": prev, "queued": queued})


def follow_recording(rf, d, name, picks):
    """A recording directory whose trace is thread 5 becoming runnable, charged a tick and
    blocking on CPU 0, and whose log is picks (raw): DIR/NAME with trace.bin, log.bin."""
    path = os.path.join(d, name)
    os.makedirs(path)
    trace = [event(rf, 1, 10, 5, "runnable"), event(rf, 3, 11, 5, "tick"),
             event(rf, 4, 11, 5, "block")]
    for stream, fname, records in ((rf.STREAM_TRACE, rf.TRACE_FILE, trace),
                                   (rf.STREAM_LOG, rf.LOG_FILE, picks)):
        header = rf.pack_header(stream, "sched", "pick_next=rr tick=rr", [2, 100, 2],
                                len(records), 0)
        rf.write_stream(os.path.join(path, fname), header, records)
    return path


def job_bad_input(ctx):
    """Truncated, mismatched and impossible sched traces, unknown policies, recordings
    whose log does not fit their trace: one line."""
    rf = recfmt(ctx)
    d = os.path.join(ctx.log_dir, f"{ctx.job}-bad")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    good = [event(rf, 1, 10, 5, "runnable"), event(rf, 2, 11, 5, "tick"),
            event(rf, 3, 12, 5, "block"), event(rf, 4, 14, 5, "runnable"),
            event(rf, 5, 15, 5, "tick"), event(rf, 6, 15, 5, "exit")]

    def write(name, records, module="sched", count=None, cpus=2):
        path = os.path.join(d, f"{name}.bin")
        header = rf.pack_header(rf.STREAM_TRACE, module, "pick_next=rr tick=rr", [cpus, 100, 2],
                                len(records) if count is None else count, 0)
        rf.write_stream(path, header, records)
        return path

    cases = {
        "truncated": (write("truncated", good), "truncate", r"cut short"),
        "fewer-than-header": (write("fewer", good[:4], count=6), None,
                              r"4 records, its header says 6"),
        "unknown-module": (write("module", good, module="nosuch"), None,
                           r"a trace of module 'nosuch'; scion-sim replays bcache and sched"),
        "out-of-order": (write("order", good[:3] + [event(rf, 2, 14, 5, "runnable")]), None,
                         r"record 4 .*out of order"),
        "tick-while-blocked": (write("blocked", good[:3] + [event(rf, 4, 13, 5, "tick")]), None,
                               r"record 4: thread 5 was charged a tick while it was blocked"),
        "after-exit": (write("afterexit", good + [event(rf, 7, 16, 5, "runnable")]), None,
                       r"record 7: thread 5 became runnable after it ended"),
        "affinity": (write("affinity", [event(rf, 1, 10, 5, "runnable", affinity=3)]), None,
                     r"record 1 .*an affinity to a CPU the trace does not have"),
        "no-cpus": (write("nocpus", good, cpus=0), None, r"0 CPUs \(1\.\.64\)"),
    }
    for name, (path, change, expect) in cases.items():
        if change == "truncate":
            with open(path, "r+b") as f:
                f.truncate(os.path.getsize(path) - 20)
        outdir = os.path.join(d, f"{name}-out")
        os.makedirs(outdir)
        rc, out, err = sim(ctx, "replay", path, "--out", outdir, "--policy", "rr")
        ctx.result(f"host/{name}", rc == 1 and re.search(expect, err) and
                   len(err.strip().splitlines()) == 1 and not os.listdir(outdir),
                   f"exit {rc}: {err}{out}")
    path = write("good", good)
    for policy, expect in (("lru", r"is a sched trace: 'lru' is not a scheduling policy"),
                           ("nosuch", r"'nosuch' is not a scheduling policy")):
        rc, out, err = sim(ctx, "replay", path, "--policy", policy, "--out", d)
        ctx.result(f"host/policy-{policy}", rc == 1 and re.search(expect, err) and
                   len(err.strip().splitlines()) == 1, err)
    rc, out, err = sim(ctx, "replay", path, "--policy", "rr", "--model", "1,2", "--out", d)
    ctx.result("host/model-for-sched", rc == 1 and "--model is the block cache's" in err, err)

    # Following: the log is needed, and must fit the trace.
    fits = follow_recording(rf, d, "follow-good", [pick(rf, 2, 10, 0, 5, 0, 1),
                                                  pick(rf, 5, 11, 0, 0, 5, 0)])
    follow_cases = {
        "follow-no-log": (os.path.join(fits, rf.TRACE_FILE), r"no log: --follow replays"),
        "follow-unknown-thread": (follow_recording(rf, d, "follow-unknown", [
            pick(rf, 2, 10, 0, 9, 0, 1), pick(rf, 5, 11, 0, 0, 9, 0)]),
            r"log record 1 \(seq 2\): CPU 0 chose thread 9, which the trace never named"),
        "follow-out-of-order": (follow_recording(rf, d, "follow-order", [
            pick(rf, 2, 10, 0, 5, 0, 1), pick(rf, 1, 11, 0, 0, 5, 0)]),
            r"log record 2 \(seq 1\): its sequence number is not after the record before "
            r"\(out of order\)"),
    }
    for name, (target, expect) in follow_cases.items():
        outdir = os.path.join(d, f"{name}-out")
        os.makedirs(outdir)
        rc, out, err = sim(ctx, "replay", target, "--follow", "--out", outdir, "--policy", "rr")
        ctx.result(f"host/{name}", rc == 1 and re.search(expect, err) and
                   len(err.strip().splitlines()) == 1 and not os.listdir(outdir) and not out,
                   f"exit {rc}: {err}{out}")
    rc, out, err = sim(ctx, "replay", fits, "--follow", "--policy", "rr", "--policy", "lifo",
                       "--no-progress")
    fit_rows = follow_rows(out)
    ctx.result("host/follow-fits", rc == 0 and fit_rows.get("rr", (0, 0, None))[2] == (2, 2),
               out + err)

    boot, sock = channel_boot(ctx, "bad", smp=1, single_thread_tcg=True,
                              modules=[graft_path(ctx, n) for n in GRAFTS])
    try:
        rec_dir = os.path.join(d, "upload")
        os.makedirs(rec_dir)
        shutil.copy(path, os.path.join(rec_dir, rf.TRACE_FILE))
        rc, text, err = scion(ctx, sock, "record", "upload", rec_dir)
        rec = text.strip()
        for cmd, expect in ((f"sim run {rec} lru", r"sim: rec\d+ is a sched recording: 'lru' is "
                             r"not a scheduling policy"),
                            (f"sim run {rec} clock", r"'clock' is not a scheduling policy"),
                            (f"sim run {rec} nosuch", r"'nosuch' is not a scheduling policy"),
                            (f"sim run {rec} rr model=1,2", r"'model=1,2' is not a scheduling"),
                            (f"sim run {rec}", r"sim: name 1 to 8 policies")):
            m = boot.command(cmd, expect + r"[^\n]*\n(scion> )")
            ctx.result(f"kernel/{cmd.split(' ', 3)[-1]}", m.group(0).count("\n") == 1, m.group(0))
        # A block cache recording with a scheduling policy: the other way round.
        bdir = os.path.join(d, "bcache-upload")
        os.makedirs(bdir)
        header = rf.pack_header(rf.STREAM_TRACE, "bcache", "evict=lru readahead=sequential",
                                [16, 8192], 3, 0)
        rf.write_stream(os.path.join(bdir, rf.TRACE_FILE), header,
                        [request(rf, k, k) for k in (1, 2, 3)])
        rc, text, err = scion(ctx, sock, "record", "upload", bdir)
        m = boot.command(f"sim run {text.strip()} fair model=1,2",
                         r"sim: 'fair' is not a block cache policy[^\n]*\n(scion> )")
        ctx.result("kernel/sched-policy-for-bcache", rc == 0, m.group(0))
        # Following in the kernel: a recording without a log, a log that does not fit.
        for cmd, expect in ((f"sim run {rec} rr mode=follow", r"sim: rec\d+ has no log: "
                             r"mode=follow replays"),
                            (f"sim run {rec} rr mode=sideways", r"sim: 'mode=sideways': give "
                             r"mode=open")):
            m = boot.command(cmd, expect + r"[^\n]*\n(scion> )")
            ctx.result(f"kernel/{cmd.split(' ', 3)[-1]}", m.group(0).count("\n") == 1, m.group(0))
        for name, (target, expect) in follow_cases.items():
            if name == "follow-no-log":
                continue
            rc, text, err = scion(ctx, sock, "record", "upload", target)
            m = boot.command(f"sim run {text.strip()} rr lifo mode=follow",
                             r"sim: rec\d+: " + expect + r"[^\n]*\n(scion> )")
            ctx.result(f"kernel/{name}", rc == 0 and m.group(0).count("\n") == 1, m.group(0))
        rc, text, err = scion(ctx, sock, "record", "upload", fits)
        m = boot.command(f"sim run {text.strip()} rr lifo mode=follow",
                         r"sim: rec\d+: sched[\s\S]*?scion> ")
        kernel = {k: v[:3] for k, v in follow_rows(m.group(0)).items()}
        ctx.result("kernel/follow-fits", kernel and kernel == {k: v[:3] for k, v in
                                                             fit_rows.items()},
                   f"{m.group(0)}\n    host {fit_rows}")
        m = boot.command(f"sim run {rec} rr fair", r"sim: rec\d+: sched[\s\S]*?scion> ")
        r = rows(m.group(0))
        ctx.result("kernel/uploaded-trace-replays", r.get("rr") and r.get("fair") and
                   r["rr"][5] == 2, m.group(0))
        poweroff(ctx, boot)
    finally:
        boot.finish()
