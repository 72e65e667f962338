# SPDX-License-Identifier: BSD-2-Clause
"""Recording the block cache's boundaries and replaying them (VINO
self-monitoring): `scion record` writes the trace and log of a workload;
replayed with the live policy the simulated log equals the recorded one;
replayed with another policy its hits and misses equal a live run of the
same workload with that policy grafted; the kernel's `sim run` and the
host's `scion sim replay` write the same logs byte for byte; a
simulation leaves the live cache exactly as it was; and corrupt or
mismatched input is refused with one line, never replayed in part."""

import json
import os
import re
import shutil
import subprocess

from bcache_model import command_workload
from common import graft_path, poweroff
from test_bcache import RUN, read_dump
from test_channel import channel_boot, scion

BUFFERS = 16
WORKLOAD = "bcache run random n=400 range=48 seed=7"
GRAFTS = ["evict_clock", "evict_2q", "readahead_stride", "readahead_recorded"]
# Each policy replayed, and the grafts a live run of it installs.
POLICIES = [("lru", []), ("2q", ["2q"]), ("clock+stride", ["clock", "stride"]),
            ("2q+recorded", ["2q", "recorded"])]
ROW = re.compile(r"^evict=(\S+) readahead=(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+"
                 r"[\d.]+\s+(\d+)/(\d+)\s+(\S+)", re.M)


def recfmt(ctx):
    from scionhost import recfmt as module
    return module


def sim(ctx, *args):
    p = subprocess.run([os.path.join(ctx.build, "host", "scion-sim"), *args],
                       capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def rows(text):
    """{"evict=E readahead=R": (hits, misses, evictions, prefetches, agree, of, log)}."""
    return {f"evict={m[1]} readahead={m[2]}": (int(m[3]), int(m[4]), int(m[5]), int(m[6]),
                                               int(m[8]), int(m[9]), m[10])
            for m in ROW.finditer(text)}


def decisions(rf, records):
    """The policy's decisions of a log: what a replay must reproduce (not timing)."""
    out = []
    for r in records:
        outcome = "hit" if rf.OUTCOMES[r["outcome"]] in ("hit", "wait") else \
            rf.OUTCOMES[r["outcome"]]
        out.append((r["seq"], r["block"], outcome, r["victim"],
                    tuple((p["block"], p["victim"], p["fate"]) for p in r["prefetch"])))
    return out


def recording_boot(ctx, grafts, icount=False):
    """A 2-CPU boot with the channel and grafts loaded, and an empty directory for a
    recording: (boot, socket, directory). icount (as qemu/machine.py takes it): the
    guest's time counts its instructions, so a host that is busy elsewhere cannot add
    ticks to a workload."""
    boot, sock = channel_boot(ctx, "record", smp=2, single_thread_tcg=True, icount=icount,
                              modules=[graft_path(ctx, n) for n in grafts])
    out = os.path.join(ctx.log_dir, f"{ctx.job}-recording")
    shutil.rmtree(out, ignore_errors=True)
    return boot, sock, out


def job_record_and_replay(ctx):
    rf = recfmt(ctx)
    boot, sock, out = recording_boot(ctx, GRAFTS)
    try:
        boot.command(f"bcache reset {BUFFERS}", r"scion> ")
        rc, _, err = scion(ctx, sock, "record", "-m", "bcache", "-o", out, "--run", WORKLOAD,
                           timeout=300)
        ctx.result("record-exit", rc == 0, err)
        meta = json.load(open(os.path.join(out, rf.META_FILE))) if rc == 0 else {}
        th, trace = rf.read_stream(os.path.join(out, rf.TRACE_FILE)) if rc == 0 else ({}, [])
        lh, log = rf.read_stream(os.path.join(out, rf.LOG_FILE)) if rc == 0 else ({}, [])
        ctx.result("meta", meta.get("complete") and meta.get("records") ==
                   {"trace": 400, "log": 400} and meta.get("policy") ==
                   "evict=lru readahead=sequential" and meta.get("config") ==
                   {"buffers": BUFFERS, "blocks": th.get("config", [0, 0])[1]}, repr(meta))
        blocks = command_workload(WORKLOAD)
        ctx.result("trace-is-the-workload", [r["block"] for r in trace] == blocks and
                   [r["seq"] for r in trace] == list(range(1, 401)) and
                   len({r["tid"] for r in trace}) == 1, repr(trace[:3]))
        ctx.result("log-matches-trace", [r["seq"] for r in log] == list(range(1, 401)) and
                   [r["block"] for r in log] == blocks, repr(log[:3]))

        # The recording as CTF: babeltrace2 prints one event per record.
        rc, text, err = scion(ctx, sock, "record", "convert", out, "--to", "ctf")
        bt = subprocess.run(["babeltrace2", os.path.join(out, "ctf")], capture_output=True,
                            text=True, timeout=120) if rc == 0 else None
        events = bt.stdout.splitlines() if bt else []
        ctx.result("ctf-read-by-babeltrace2", bt and bt.returncode == 0 and len(events) == 800
                   and sum("bcache:request:" in e for e in events) == 400,
                   f"convert exit {rc} {err}; babeltrace2 "
                   f"{bt and bt.returncode}: {len(events)} events {bt and bt.stderr[-300:]}")

        # Replayed on the host with the live policy, the log is the recorded one.
        simdir = os.path.join(out, "sim")
        rc, text, err = sim(ctx, "replay", out, "--no-progress",
                            *sum((["--policy", p] for p, _ in POLICIES), []))
        got = rows(text)
        live = got.get("evict=lru readahead=sequential")
        ctx.result("host-replay-exit", rc == 0 and len(got) == len(POLICIES), text + err)
        ctx.result("live-policy-replay-agrees", live and live[4] == live[5] == 400, repr(live))
        if rc == 0:
            _, simlog = rf.read_stream(os.path.join(simdir, "lru+sequential.log.bin"))
            ctx.result("simulated-log-equals-recorded", decisions(rf, simlog) ==
                       decisions(rf, log), f"{len(simlog)} simulated, {len(log)} recorded")

        # Each alternate policy: the replay's counts are a live run's with it grafted.
        for spec, grafts in POLICIES[1:]:
            for g in grafts:
                boot.command(f"graft install {g}", r"scion> ")
            boot.command(f"bcache reset {BUFFERS}", r"scion> ")
            m = boot.command(WORKLOAD, RUN, timeout=300)
            for g in grafts:
                boot.command(f"graft remove {g}", r"scion> ")
            evict, _, readahead = spec.partition("+")
            row = got.get(f"evict={evict} readahead={readahead or 'sequential'}")
            live_counts = (int(m.group(2)), int(m.group(3)))
            ctx.result(f"replay-{spec}-as-live-run", row and row[:2] == live_counts,
                       f"replay {row and row[:2]}, live {live_counts}")

        # The kernel's replay of the same trace writes the same logs, byte for byte.
        rc, text, err = scion(ctx, sock, "record", "upload", out)
        rec = text.strip()
        ctx.result("upload", rc == 0 and re.fullmatch(r"rec\d+", rec), text + err)
        before = read_dump(boot)
        stats_before = boot.command("bcache stats", r"(reads[^\n]*\n[^\n]*prefetches[^\n]*)\n")
        m = boot.command(f"sim run {rec} " + " ".join(p for p, _ in POLICIES),
                         r"sim: \w+: \d+ requests[\s\S]*?scion> ", timeout=300)
        kernel_rows = rows(m.group(0))
        ctx.result("kernel-sim-rows-as-host", {k: v[:6] for k, v in kernel_rows.items()} ==
                   {k: v[:6] for k, v in got.items()}, f"{kernel_rows}\n    {got}")
        for policy, row in sorted(kernel_rows.items()):
            fetched = os.path.join(out, f"kernel-{row[6]}")
            rc, text, err = scion(ctx, sock, "record", "download", row[6], "-o", fetched)
            host_row = got.get(policy)
            same = rc == 0 and host_row and open(os.path.join(fetched, rf.LOG_FILE), "rb").read() \
                == open(host_row[6], "rb").read()
            ctx.result(f"kernel-log-equals-host-log/{policy.replace(' ', ',')}", same,
                       text + err)
        after = read_dump(boot)
        stats_after = boot.command("bcache stats", r"(reads[^\n]*\n[^\n]*prefetches[^\n]*)\n")
        ctx.result("simulation-leaves-live-cache-unchanged",
                   before == after and stats_before.group(1) == stats_after.group(1),
                   f"{len(before)} dump lines before, {len(after)} after")

        # A recording kept in the kernel, replayed there.
        boot.command(f"bcache reset {BUFFERS}", r"scion> ")
        m = boot.command("record start bcache", r"record: rec(\d+): recording bcache")
        boot.command("bcache run loop size=24 rounds=3", RUN, timeout=300)
        m = boot.command("record stop", r"record: rec(\d+): bcache, (\d+) requests, (\d+) "
                         r"results, (\d+) dropped")
        ctx.result("kernel-recording", m.group(2) == m.group(3) == "72" and m.group(4) == "0",
                   m.group(0))
        m = boot.command(f"sim run rec{m.group(1)} lru clock",
                         r"sim: rec\d+: \d+ requests[\s\S]*?scion> ", timeout=300)
        r = rows(m.group(0))
        lru = r.get("evict=lru readahead=sequential")
        ctx.result("kernel-recording-replays", lru and lru[4] == lru[5] == 72 and
                   "evict=clock readahead=sequential" in r, m.group(0))
        poweroff(ctx, boot)
    finally:
        boot.finish()


def write_recording(rf, path, stream, module, records, count=None, config=(16, 8192)):
    header = rf.pack_header(stream, module, "evict=lru readahead=sequential", config,
                            len(records) if count is None else count, 0)
    rf.write_stream(path, header, records)


def request(rf, seq, block):
    return rf.encode_record({"type": "request", "cpu": 0, "seq": seq, "time_ns": 1000 * seq,
                             "tid": 5, "pid": 0, "block": block, "in_flight": 0})


def job_bad_input(ctx):
    """Corrupt, truncated and mismatched recordings: one line, exit 1, no log left."""
    rf = recfmt(ctx)
    d = os.path.join(ctx.log_dir, f"{ctx.job}-bad")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    good = [request(rf, s, s % 7) for s in range(1, 41)]
    cases = {
        "truncated-record": (good, lambda p: open(p, "r+b").truncate(os.path.getsize(p) - 20),
                             r"cut short"),
        "fewer-than-header": (good[:30], None, r"30 records, its header says 40"),
        "bad-magic": (good, lambda p: open(p, "r+b").write(b"NOTSCION"), r"not a Scion recording"),
        "other-module": (good, "nosuch", r"a trace of module 'nosuch'; scion-sim replays "
                         r"bcache and sched"),
        "out-of-order": (good[:5] + [request(rf, 3, 1)], None, r"record 6: sequence number 3 "
                         r"after 5 \(out of order\)"),
        "beyond-disk": (good[:5] + [request(rf, 6, 99999)], None,
                        r"record 6: block 99999 is beyond the disk \(8192 blocks\)"),
        "log-as-trace": (good, "log", r"not a trace"),
    }
    for name, (records, change, expect) in cases.items():
        path = os.path.join(d, f"{name}.bin")
        module = change if change == "nosuch" else "bcache"
        stream = rf.STREAM_LOG if change == "log" else rf.STREAM_TRACE
        write_recording(rf, path, stream, module, records,
                        count=40 if name == "fewer-than-header" else None)
        if callable(change):
            change(path)
        outdir = os.path.join(d, f"{name}-out")
        os.makedirs(outdir)
        rc, out, err = sim(ctx, "replay", path, "--model", "1000,100000", "--out", outdir,
                           "--policy", "lru")
        ctx.result(f"host/{name}", rc == 1 and re.search(expect, err) and
                   len(err.strip().splitlines()) == 1 and "Traceback" not in err and
                   not os.listdir(outdir), f"exit {rc}: {err}{out}")
    path = os.path.join(d, "good.bin")
    write_recording(rf, path, rf.STREAM_TRACE, "bcache", good)
    rc, out, err = sim(ctx, "replay", path, "--model", "1000,100000", "--policy", "nosuch")
    ctx.result("host/unknown-policy", rc == 1 and "'nosuch' is not a block cache policy" in err,
               err)
    rc, out, err = sim(ctx, "replay", path, "--policy", "lru")
    ctx.result("host/no-model", rc == 1 and "no recorded log to calibrate" in err, err)
    rc, out, err = sim(ctx, "replay", path, "--model", "1000,100000", "--policy", "fair")
    ctx.result("host/sched-policy-for-bcache", rc == 1 and "'fair' is not a block cache policy"
               in err, err)
    rc, out, err = sim(ctx, "replay", path, "--model", "1000,100000", "--policy", "2q+clock")
    ctx.result("host/two-eviction-policies", rc == 1 and "names a second evict policy" in err,
               err)

    # The kernel refuses the same: uploads, then replays of what it does not have.
    boot, sock = channel_boot(ctx, "bad", smp=1, single_thread_tcg=True)
    try:
        # The kernel checks uploads itself: send the bad files past the host's check.
        from scionhost import frame, record
        from scionhost.client import Client
        for name, expect in (("truncated-record", r"the last record is cut short"),
                             ("fewer-than-header", r"30 records, its header says 40"),
                             ("bad-magic", r"does not start with a version 1 trace header"),
                             ("log-as-trace", r"does not start with a version 1 trace header")):
            data = open(os.path.join(d, f"{name}.bin"), "rb").read()
            with Client(sock, timeout=30) as client:
                status, body = client.request(frame.OP_REC_PUT, record.PUT_REQUEST.pack(
                    rec=0, stream=record.recfmt.STREAM_TRACE, flags=record.PUT_FINISH) + data)
            text = body.decode("utf-8", "replace")
            ctx.result(f"upload-refused/{name}", status < 0 and
                       re.search(r"upload rec\d+ refused: .*" + expect, text), f"{status}: {text}")
        boot.command("record list", r"store: 0 of \d+ bytes")
        for cmd, expect in (("sim run rec99 lru", r"sim: no complete recording rec99"),
                            ("sim run banana lru", r"sim: 'banana' is not a recording"),
                            ("sim run", r"sim: usage: "),
                            ("record show rec1 log 0", r"record: usage: record show"),
                            ("record start nosuch", r"record: 'nosuch' is neither a recordable "
                             r"module \(`record modules`\) nor a graft point"),
                            ("record stop", r"record: nothing is being recorded")):
            boot.command(cmd, expect)
        poweroff(ctx, boot)
    finally:
        boot.finish()


def point_records(boot, command, count_pattern=RUN):
    """`record start bcache.evict`, command, `record stop`; then the trace and the log
    as printed by `record show`: ([call lines], [done lines], the command's match)."""
    boot.command("bcache reset 8", r"scion> ")
    boot.command("record start bcache.evict", r"record: rec\d+: recording bcache.evict")
    m = boot.command(command, count_pattern, timeout=300)
    stop = boot.command("record stop", r"record: rec(\d+): point, (\d+) requests, (\d+) results, "
                        r"(\d+) dropped")
    rec = stop.group(1)
    calls = boot.command(f"record show rec{rec} trace 1 1000",
                         rf"rec{rec} trace: [^\n]*\n(?:seq=\d+ time_ns=\d+ cpu=\d+ tid=\d+ "
                         r"args=[0-9a-fx,]+\r?\n)*scion> ")
    dones = boot.command(f"record show rec{rec} log 1 1000",
                         rf"rec{rec} log: [^\n]*\n(?:seq=\d+ time_ns=\d+ cpu=\d+ "
                         r"result=0x[0-9a-f]+ outcome=\w+\r?\n)*scion> ")
    return (re.findall(r"seq=\d+ time_ns=\d+ cpu=\d+ tid=\d+ args=\S+", calls.group(0)),
            re.findall(r"result=0x([0-9a-f]+) outcome=(\w+)", dones.group(0)), m, stop)


def job_point_recording(ctx):
    """Any graft point recorded on its own: every call, and whether the default, a graft
    or an aborted graft answered."""
    boot, sock = channel_boot(ctx, "point", smp=1, single_thread_tcg=True,
                              modules=[graft_path(ctx, n) for n in ("evict_clock", "bad_victim")])
    out = os.path.join(ctx.log_dir, f"{ctx.job}-point")
    shutil.rmtree(out, ignore_errors=True)
    try:
        work = "bcache run random n=60 range=24 seed=3"
        calls, dones, m, stop = point_records(boot, work)
        evictions = int(m.group(6))
        ctx.result("default/one-call-per-eviction", evictions > 0 and len(calls) == evictions
                   == len(dones) and stop.group(4) == "0", f"{len(calls)} calls, {len(dones)} "
                   f"done, {evictions} evictions: {stop.group(0)}")
        ctx.result("default/answers", all(o == "default" and int(r, 16) < 8 for r, o in dones),
                   repr(dones[:4]))
        boot.command("graft install clock", r"scion> ")
        calls, dones, m, _ = point_records(boot, work)
        boot.command("graft remove clock", r"scion> ")
        ctx.result("graft/committed", dones and len(dones) == int(m.group(6)) and
                   all(o == "committed" for _, o in dones), repr(dones[:4]))
        boot.command("graft install bad-victim", r"scion> ")
        calls, dones, m, _ = point_records(boot, work)
        ctx.result("misbehaving/aborted-then-default", len(dones) > 1 and
                   dones[0][1] == "aborted" and all(o == "default" for _, o in dones[1:]),
                   repr(dones[:4]))
        boot.command("record start bcache.evict", r"scion> ")
        boot.command("record start bcache.readahead", r"record: rec\d+ is recording; `record "
                     r"stop` first")
        boot.command("record stop", r"record: rec\d+: point")
        boot.command("record start no.such.point", r"record: 'no.such.point' is neither")

        # Over the channel into files, and as text.
        boot.command("bcache reset 8", r"scion> ")
        rc, _, err = scion(ctx, sock, "record", "-m", "bcache.readahead", "-o", out, "--run",
                           "bcache run seq n=30")
        rf = recfmt(ctx)
        th, trace = rf.read_stream(os.path.join(out, rf.TRACE_FILE)) if rc == 0 else ({}, [])
        lh, log = rf.read_stream(os.path.join(out, rf.LOG_FILE)) if rc == 0 else ({}, [])
        ctx.result("host/recorded", rc == 0 and len(trace) == len(log) == 30 and
                   th["module"] == "point" and th["policy"] ==
                   "point=bcache.readahead graft=default" and
                   [r["args"][0] for r in trace] == list(range(30)), err + repr(trace[:2]))
        rc, text, err = scion(ctx, sock, "record", "convert", out, "--to", "text")
        lines = text.splitlines()
        ctx.result("host/text", rc == 0 and len(lines) == 62 and lines[1].startswith("seq=1 ") and
                   "args=0x0,0xffffffffffffffff,0x0" in lines[1], text[:400] + err)
        rc, text, err = scion(ctx, sock, "record", "convert", out, "--to", "csv")
        rows = [open(os.path.join(out, "csv", f)).read().splitlines() if rc == 0 else []
                for f in ("trace.csv", "log.csv")]
        ctx.result("host/csv", rc == 0 and [len(r) for r in rows] == [31, 31] and
                   rows[0][1].startswith("1,") and rows[1][0] == "seq,time_ns,cpu,result,outcome"
                   and all(r.endswith(",default") for r in rows[1][1:]), text + err)
        # As CTF: babeltrace2 prints one event per record, each outcome by its label.
        rc, text, err = scion(ctx, sock, "record", "convert", out, "--to", "ctf")
        bt = subprocess.run(["babeltrace2", os.path.join(out, "ctf")], capture_output=True,
                            text=True, timeout=120) if rc == 0 else None
        events = bt.stdout.splitlines() if bt else []
        ctx.result("host/ctf-read-by-babeltrace2", bt and bt.returncode == 0 and
                   len(events) == 60 and sum(" point:call: " in e for e in events) == 30 and
                   sum('outcome = ( "default"' in e for e in events) == 30,
                   f"convert exit {rc} {err}; babeltrace2 {bt and bt.returncode}: "
                   f"{len(events)} events {bt and bt.stderr[-300:]}")
        poweroff(ctx, boot)
    finally:
        boot.finish()
