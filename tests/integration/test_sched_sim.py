# SPDX-License-Identifier: BSD-2-Clause
"""Recording the scheduler's boundaries and replaying them (VINO
self-monitoring for sched.pick_next): `scion record -m sched` writes the
trace (what threads did) and log (what the scheduler chose) of a
workload of computing and sleeping threads; the two streams together
are a well-formed history of every thread (each transition allowed by
the one before, sequence numbers increasing); the kernel's `sim run`
and the host's `scion sim replay` of the trace with rr, fair and lifo
print the same summaries and write the same logs byte for byte; a
simulation leaves the live scheduler as it was; and bad input is
refused with one line."""

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import graft_path, poweroff  # noqa: E402
from test_channel import channel_boot, scion  # noqa: E402
from test_record import recfmt, recording_boot, request, sim  # noqa: E402

WORKLOAD = "sched run n=6 rounds=4 compute=2 sleep=3"
THREADS, ROUNDS, COMPUTE = 6, 4, 2
POLICIES = ["rr", "fair", "lifo"]
GRAFTS = ["sched_fair", "sched_lifo", "evict_clock"]
ROW = re.compile(r"^(live [^\n]*?|\w+)\s+(\d+)\s+(\d+)\s+([\d.]+|-)\s+(\d+|-)\s+(\d+)\s+(\d+)"
                 r"\s+(\S+)\s*$", re.M)
THREAD_ROW = re.compile(r"^  (\d+)\s+(\d+)\s+(\d+)((?:\s+\d+/\d+)+)\s*$", re.M)


def rows(text):
    """{policy: (picks, switches, wait-mean, wait-max, done, busy, log)}."""
    return {m[1]: (int(m[2]), int(m[3]), m[4], m[5], int(m[6]), int(m[7]), m[8])
            for m in ROW.finditer(text)}


def thread_rows(text):
    """{tid: (phases, run, [wait/done per policy])}."""
    return {int(m[1]): (int(m[2]), int(m[3]), m[4].split()) for m in THREAD_ROW.finditer(text)}


def check_history(rf, trace, log):
    """'' when every thread's transitions, in the two streams merged by sequence
    number, are ones the scheduler makes; else the first that is not. The window is
    where both recording grafts were installed: from the log's first record to the
    trace's last. Before it only the trace says which threads are blocked or dead (a
    pick it did not see may have run a queued one, or preempted a running one)."""
    for name, stream in (("trace", trace), ("log", log)):
        seqs = [r["seq"] for r in stream]
        if any(b <= a for a, b in zip(seqs, seqs[1:])):
            return f"the {name}'s sequence numbers do not increase"
    if {r["seq"] for r in trace} & {r["seq"] for r in log}:
        return "a sequence number in both streams"
    if not trace or not log:
        return "an empty stream"
    lo, hi = log[0]["seq"], trace[-1]["seq"]
    state, on_cpu = {}, {}
    kinds = rf.EVENTS
    for r in trace:
        if r["seq"] < lo and kinds.get(r["kind"]) in ("block", "exit"):
            state[r["tid"]] = "blocked" if kinds[r["kind"]] == "block" else "dead"
        elif r["seq"] < lo:
            state.pop(r["tid"], None)
    merged = sorted((r for r in trace + log if lo <= r["seq"] <= hi), key=lambda r: r["seq"])
    for r in merged:
        where = f"seq {r['seq']}"
        if r["type"] == "event":
            tid, kind, st = r["tid"], kinds.get(r["kind"]), state.get(r["tid"])
            if kind == "runnable":
                if st not in (None, "blocked"):
                    return f"{where}: thread {tid} became runnable while {st}"
                state[tid] = "queued"
            elif kind in ("tick", "yield", "block", "exit"):
                if st not in (None, "running"):
                    return f"{where}: thread {tid} {kind} while {st}"
                if kind == "tick" and on_cpu.get(r["cpu"], tid) != tid:
                    return f"{where}: thread {tid} charged a tick on CPU {r['cpu']}, which runs " \
                           f"{on_cpu.get(r['cpu'])}"
                state[tid] = {"block": "blocked", "exit": "dead"}.get(kind, "running")
            else:
                return f"{where}: unknown event kind {r['kind']}"
        else:
            cpu, tid, prev = r["cpu"], r["tid"], r["prev"]
            if on_cpu.get(cpu, prev) != prev:
                return f"{where}: CPU {cpu} switched from {prev}, but it ran {on_cpu[cpu]}"
            if prev and state.get(prev) in (None, "running") and tid != prev:
                state[prev] = "queued"      # preempted or yielded: back on the queue
            if tid and tid != prev:
                if state.get(tid) not in (None, "queued"):
                    return f"{where}: CPU {cpu} chose thread {tid}, which was {state[tid]}"
                state[tid] = "running"
            on_cpu[cpu] = tid
    return ""


def job_record_and_replay(ctx):
    rf = recfmt(ctx)
    boot, sock, out = recording_boot(ctx, GRAFTS)
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
                   sum(" sched:event: " in e for e in events) == len(trace) and
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
    return rf.SCHED_EVENT.pack(rf.SCHED_EVENT.size, rf.TYPE_SCHED_EVENT, 0, seq, tick, tick,
                               tid, rf.EVENT_KINDS[kind], affinity)


def job_bad_input(ctx):
    """Truncated, mismatched and impossible sched traces, unknown policies: one line."""
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
        m = boot.command(f"sim run {rec} rr fair", r"sim: rec\d+: sched[\s\S]*?scion> ")
        r = rows(m.group(0))
        ctx.result("kernel/uploaded-trace-replays", r.get("rr") and r.get("fair") and
                   r["rr"][5] == 2, m.group(0))
        poweroff(ctx, boot)
    finally:
        boot.finish()
