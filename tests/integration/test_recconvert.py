# SPDX-License-Identifier: BSD-2-Clause
"""`scion record convert` without QEMU: synthetic recordings built with
recfmt.py of every module (bcache: requests on several CPUs, results with
prefetches, drops, a simulated log without its trace; sched: the start
state (72-byte records with the threads' counters), events and picks, a
lost event, a simulated log; a graft point: calls and how each ended, a
lost call) converted to text and CSV (compared byte for byte with what
they must be) and to CTF, read back with babeltrace2 (every event, its
fields and its time), and bad recordings, each refused in one line with
nothing left behind. Also recfmt.py's own round trip: every record type
encoded and decoded back unchanged."""

import json
import os
import random
import re
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
from scionhost import recfmt
from scionhost.layouts import C
from test_scion_host import describe, one_error_line, run_scion

POLICY = "evict=lru readahead=sequential"
NO = recfmt.NO_BLOCK
MISS, HIT, WAIT, ERROR = 3, 1, 2, 4
STARTED, CACHED, NO_BUFFER = 1, 2, 3


WRITE_SYNC = recfmt.C.BCACHE_REQ_WRITE | recfmt.C.BCACHE_REQ_SYNC


def request(seq, time_ns, cpu, tid, block, in_flight, flags=0):
    return dict(type="request", seq=seq, time_ns=time_ns, cpu=cpu, tid=tid, pid=0,
                block=block, in_flight=in_flight, flags=flags)


def result(seq, cpu, outcome, block, victim, latency_ns, prefetch=(), flags=0):
    return dict(type="result", seq=seq, cpu=cpu, outcome=outcome, block=block, victim=victim,
                latency_ns=latency_ns, flags=flags,
                prefetch=[dict(block=b, victim=v, fate=f) for b, f, v in prefetch])


# Small enough to write the expected text and CSV by hand.
SMALL_TRACE = [request(1, 1000, 0, 7, 18, 0), request(2, 1500, 1, 8, 40, 1),
               request(3, 2100, 2, 7, 18, 1, WRITE_SYNC)]
SMALL_LOG = [result(1, 0, MISS, 18, NO, 900, [(19, STARTED, NO), (20, CACHED, 3)]),
             result(2, 1, HIT, 40, NO, 50),
             result(3, 2, WAIT, 18, 5, 300, [(21, NO_BUFFER, NO)], WRITE_SYNC)]
SMALL_TEXT = """\
trace: bcache, evict=lru readahead=sequential, 3 records, 2 dropped
seq=1 time_ns=1000 cpu=0 tid=7 pid=0 block=18 in_flight=0
seq=2 time_ns=1500 cpu=1 tid=8 pid=0 block=40 in_flight=1
seq=3 time_ns=2100 cpu=2 tid=7 pid=0 block=18 in_flight=1 op=write+sync
log: bcache, evict=lru readahead=sequential, 3 records, 1 dropped
seq=1 cpu=0 block=18 outcome=miss victim=- latency_ns=900 prefetch=19:started/-,20:cached/3
seq=2 cpu=1 block=40 outcome=hit victim=- latency_ns=50 prefetch=-
seq=3 cpu=2 block=18 outcome=wait victim=5 latency_ns=300 prefetch=21:no-buffer/- op=write+sync
"""
SMALL_TRACE_CSV = ("seq,time_ns,cpu,tid,pid,block,in_flight,op\r\n1,1000,0,7,0,18,0,read\r\n"
                   "2,1500,1,8,0,40,1,read\r\n3,2100,2,7,0,18,1,write+sync\r\n")
SMALL_LOG_CSV = ("seq,cpu,block,op,outcome,victim,latency_ns,prefetch\r\n"
                 "1,0,18,read,miss,-,900,19:started/-;20:cached/3\r\n2,1,40,read,hit,-,50,\r\n"
                 "3,2,18,write+sync,wait,5,300,21:no-buffer/-\r\n")
# (time in ns, event, seq) as babeltrace2 must print them: results at their request's
# time plus latency_ns, in time order (seq 2, a hit, finishes before seq 1, a miss).
SMALL_EVENTS = [(1000, "request", 1), (1500, "request", 2), (1550, "result", 2),
                (1900, "result", 1), (2100, "request", 3), (2400, "result", 3)]


# A scheduler's recording (2 CPUs, 100 Hz), begun at tick 5 from CPU 0, while CPU 0 was
# idle: first the start state (thread 5 running on CPU 1, thread 6 queued for CPU 1,
# thread 3 asleep), then events and picks. The trace lost event 11 (thread 5's exit).
SCHED_POLICY = "pick_next=rr tick=rr"
SCHED_CONFIG = (2, 100, 2)          # cpus, hz, slice_ticks
RUNNABLE, BLOCK, EXIT, TICK, YIELD = 1, 2, 3, 4, 5
QUEUED, RUNNING, SLEEPING = 6, 7, 8     # start-state records' kinds


def sched_event(seq, tick, time_ns, cpu, tid, kind, affinity=-1):
    return dict(type="event", seq=seq, tick=tick, time_ns=time_ns, cpu=cpu, tid=tid, kind=kind,
                affinity=affinity)


def sched_state(seq, tick, time_ns, cpu, tid, kind, affinity, ticks_run, switches_in, slice):
    """A start-state record: an event of kind QUEUED, RUNNING or SLEEPING and the
    thread's entity counters (72 bytes on disk)."""
    return dict(sched_event(seq, tick, time_ns, cpu, tid, kind, affinity),
                ticks_run=ticks_run, switches_in=switches_in, slice=slice)


def sched_pick(seq, tick, cpu, tid, prev, queued):
    return dict(type="pick", seq=seq, tick=tick, cpu=cpu, tid=tid, prev=prev, queued=queued)


SCHED_TRACE = [sched_state(1, 5, 50_100_000, 1, 5, RUNNING, -1, 9, 4, 1),
               sched_state(2, 5, 50_100_200, 0, 6, QUEUED, 1, 3, 2, 2),
               sched_state(3, 5, 50_100_400, 0, 3, SLEEPING, -1, 12, 5, 0),
               sched_event(4, 5, 50_200_000, 0, 3, RUNNABLE),
               sched_event(6, 6, 60_000_100, 0, 3, TICK),
               sched_event(7, 6, 60_000_900, 1, 5, TICK),
               sched_event(9, 7, 70_000_050, 0, 3, YIELD),
               sched_event(13, 10, 100_000_000, 0, 3, BLOCK)]
SCHED_LOG = [sched_pick(5, 5, 0, 3, 0, 2), sched_pick(8, 6, 1, 6, 5, 2),
             sched_pick(10, 7, 0, 5, 3, 2), sched_pick(12, 9, 0, 3, 5, 1),
             sched_pick(14, 10, 0, 0, 3, 0)]
SCHED_TEXT = """\
trace: sched, pick_next=rr tick=rr, 8 records, 1 dropped
seq=1 tick=5 time_ns=50100000 cpu=1 tid=5 event=running affinity=-1 ticks_run=9 switches=4 slice=1
seq=2 tick=5 time_ns=50100200 cpu=0 tid=6 event=queued affinity=1 ticks_run=3 switches=2 slice=2
seq=3 tick=5 time_ns=50100400 cpu=0 tid=3 event=sleeping affinity=-1 ticks_run=12 switches=5 slice=0
seq=4 tick=5 time_ns=50200000 cpu=0 tid=3 event=runnable affinity=-1
seq=6 tick=6 time_ns=60000100 cpu=0 tid=3 event=tick affinity=-1
seq=7 tick=6 time_ns=60000900 cpu=1 tid=5 event=tick affinity=-1
seq=9 tick=7 time_ns=70000050 cpu=0 tid=3 event=yield affinity=-1
seq=13 tick=10 time_ns=100000000 cpu=0 tid=3 event=block affinity=-1
log: sched, pick_next=rr tick=rr, 5 records, 0 dropped
seq=5 tick=5 cpu=0 tid=3 prev=0 queued=2
seq=8 tick=6 cpu=1 tid=6 prev=5 queued=2
seq=10 tick=7 cpu=0 tid=5 prev=3 queued=2
seq=12 tick=9 cpu=0 tid=3 prev=5 queued=1
seq=14 tick=10 cpu=0 tid=0 prev=3 queued=0
"""
# The start-state records' counters in three more columns, empty for the other events.
SCHED_TRACE_CSV = ("seq,tick,time_ns,cpu,tid,event,affinity,ticks_run,switches_in,slice\r\n"
                   "1,5,50100000,1,5,running,-1,9,4,1\r\n"
                   "2,5,50100200,0,6,queued,1,3,2,2\r\n"
                   "3,5,50100400,0,3,sleeping,-1,12,5,0\r\n"
                   "4,5,50200000,0,3,runnable,-1,,,\r\n6,6,60000100,0,3,tick,-1,,,\r\n"
                   "7,6,60000900,1,5,tick,-1,,,\r\n9,7,70000050,0,3,yield,-1,,,\r\n"
                   "13,10,100000000,0,3,block,-1,,,\r\n")
SCHED_LOG_CSV = ("seq,tick,cpu,tid,prev,queued\r\n5,5,0,3,0,2\r\n8,6,1,6,5,2\r\n"
                 "10,7,0,5,3,2\r\n12,9,0,3,5,1\r\n14,10,0,0,3,0\r\n")
# (time ns, event, fields) as babeltrace2 prints them. The start state is sched:snapshot,
# an event's fields and the counters. A pick is at the event before it in sequence; pick
# 12 follows event 9 (event 11 was lost) by 2 ticks of 10 ms.
SCHED_EVENTS = [
    (50_100_000, "sched:snapshot", 'seq = 1, tick = 5, cpu = 1, tid = 5, '
                                   'kind = ( "running" : container = 7 ), affinity = -1, '
                                   'ticks_run = 9, switches_in = 4, slice = 1'),
    (50_100_200, "sched:snapshot", 'seq = 2, tick = 5, cpu = 0, tid = 6, '
                                   'kind = ( "queued" : container = 6 ), affinity = 1, '
                                   'ticks_run = 3, switches_in = 2, slice = 2'),
    (50_100_400, "sched:snapshot", 'seq = 3, tick = 5, cpu = 0, tid = 3, '
                                   'kind = ( "sleeping" : container = 8 ), affinity = -1, '
                                   'ticks_run = 12, switches_in = 5, slice = 0'),
    (50_200_000, "sched:event", 'seq = 4, tick = 5, cpu = 0, tid = 3, '
                                'kind = ( "runnable" : container = 1 ), affinity = -1'),
    (50_200_000, "sched:pick", "seq = 5, tick = 5, cpu = 0, tid = 3, prev = 0, queued = 2"),
    (60_000_100, "sched:event", 'seq = 6, tick = 6, cpu = 0, tid = 3, '
                                'kind = ( "tick" : container = 4 ), affinity = -1'),
    (60_000_900, "sched:event", 'seq = 7, tick = 6, cpu = 1, tid = 5, '
                                'kind = ( "tick" : container = 4 ), affinity = -1'),
    (60_000_900, "sched:pick", "seq = 8, tick = 6, cpu = 1, tid = 6, prev = 5, queued = 2"),
    (70_000_050, "sched:event", 'seq = 9, tick = 7, cpu = 0, tid = 3, '
                                'kind = ( "yield" : container = 5 ), affinity = -1'),
    (70_000_050, "sched:pick", "seq = 10, tick = 7, cpu = 0, tid = 5, prev = 3, queued = 2"),
    (90_000_050, "sched:pick", "seq = 12, tick = 9, cpu = 0, tid = 3, prev = 5, queued = 1"),
    (100_000_000, "sched:event", 'seq = 13, tick = 10, cpu = 0, tid = 3, '
                                 'kind = ( "block" : container = 2 ), affinity = -1'),
    (100_000_000, "sched:pick", "seq = 14, tick = 10, cpu = 0, tid = 0, prev = 3, queued = 0")]

# A graft point's recording: the trace lost call 1, whose done is the earliest record;
# call 3 (CPU 1) ends after call 4 (CPU 0), so the log is not in time order.
POINT_POLICY = "point=bcache.evict graft=clock"
DEFAULT, COMMITTED, ABORTED = 1, 2, 3


def point_call(seq, time_ns, cpu, tid, *args):
    return dict(type="call", seq=seq, time_ns=time_ns, cpu=cpu, tid=tid,
                args=list(args) + [0] * (recfmt.POINT_ARGS - len(args)))


def point_done(seq, time_ns, cpu, result, outcome):
    return dict(type="done", seq=seq, time_ns=time_ns, cpu=cpu, result=result, outcome=outcome)


POINT_TRACE = [point_call(2, 5000, 0, 9, 2, NO), point_call(3, 7000, 1, 10, 3, 5),
               point_call(4, 9000, 0, 9, 4)]
POINT_LOG = [point_done(1, 4500, 0, 3, DEFAULT), point_done(2, 5600, 0, 7, COMMITTED),
             point_done(3, 9500, 1, 0, ABORTED), point_done(4, 9100, 0, NO, DEFAULT)]
POINT_TEXT = """\
trace: point, point=bcache.evict graft=clock, 3 records, 1 dropped
seq=2 time_ns=5000 cpu=0 tid=9 args=0x2,0xffffffffffffffff,0x0,0x0,0x0,0x0
seq=3 time_ns=7000 cpu=1 tid=10 args=0x3,0x5,0x0,0x0,0x0,0x0
seq=4 time_ns=9000 cpu=0 tid=9 args=0x4,0x0,0x0,0x0,0x0,0x0
log: point, point=bcache.evict graft=clock, 4 records, 0 dropped
seq=1 time_ns=4500 cpu=0 result=0x3 outcome=default
seq=2 time_ns=5600 cpu=0 result=0x7 outcome=committed
seq=3 time_ns=9500 cpu=1 result=0x0 outcome=aborted
seq=4 time_ns=9100 cpu=0 result=0xffffffffffffffff outcome=default
"""
POINT_TRACE_CSV = ("seq,time_ns,cpu,tid,arg0,arg1,arg2,arg3,arg4,arg5\r\n"
                   "2,5000,0,9,0x2,0xffffffffffffffff,0x0,0x0,0x0,0x0\r\n"
                   "3,7000,1,10,0x3,0x5,0x0,0x0,0x0,0x0\r\n"
                   "4,9000,0,9,0x4,0x0,0x0,0x0,0x0,0x0\r\n")
POINT_LOG_CSV = ("seq,time_ns,cpu,result,outcome\r\n1,4500,0,0x3,default\r\n"
                 "2,5600,0,0x7,committed\r\n3,9500,1,0x0,aborted\r\n"
                 "4,9100,0,0xffffffffffffffff,default\r\n")
POINT_EVENTS = [
    (4500, "point:done", 'seq = 1, cpu = 0, result = 0x3, outcome = ( "default" : container = 1 )'),
    (5000, "point:call", "seq = 2, cpu = 0, tid = 9, args = [ [0] = 0x2, "
                         "[1] = 0xFFFFFFFFFFFFFFFF, [2] = 0x0, [3] = 0x0, [4] = 0x0, [5] = 0x0 ]"),
    (5600, "point:done", 'seq = 2, cpu = 0, result = 0x7, '
                         'outcome = ( "committed" : container = 2 )'),
    (7000, "point:call", "seq = 3, cpu = 1, tid = 10, args = [ [0] = 0x3, [1] = 0x5, "
                         "[2] = 0x0, [3] = 0x0, [4] = 0x0, [5] = 0x0 ]"),
    (9000, "point:call", "seq = 4, cpu = 0, tid = 9, args = [ [0] = 0x4, [1] = 0x0, "
                         "[2] = 0x0, [3] = 0x0, [4] = 0x0, [5] = 0x0 ]"),
    (9100, "point:done", 'seq = 4, cpu = 0, result = 0xFFFFFFFFFFFFFFFF, '
                         'outcome = ( "default" : container = 1 )'),
    (9500, "point:done", 'seq = 3, cpu = 1, result = 0x0, '
                         'outcome = ( "aborted" : container = 3 )')]


def write_recording(directory, trace, log, drops=(0, 0), module="bcache", policy=POLICY,
                    config=(64, 8192)):
    """trace.bin, log.bin (each unless None) and meta.json, as `scion record` writes them."""
    os.makedirs(directory, exist_ok=True)
    for name, stream, records, dropped in (("trace", recfmt.STREAM_TRACE, trace, drops[0]),
                                           ("log", recfmt.STREAM_LOG, log, drops[1])):
        if records is not None:
            recfmt.write_stream(os.path.join(directory, name + ".bin"),
                                recfmt.pack_header(stream, module, policy, config,
                                                   len(records), dropped),
                                [recfmt.encode_record(r) for r in records])
    counts = {name: len(records) for name, records in (("trace", trace), ("log", log))
              if records is not None}
    with open(os.path.join(directory, recfmt.META_FILE), "w") as f:
        f.write('{"module": "%s", "policy": "%s", "kernel_version": "scion-test 1.0", '
                '"config": %s, "records": {%s}, '
                '"drops": {"trace": %d, "log": %d}, "cpus": 4, "bufsize": 65536, '
                '"switch_ms": 200, "complete": true}'
                % (module, policy, json.dumps(recfmt.config_dict(module, list(config))),
                   ", ".join(f'"{k}": {v}' for k, v in counts.items()), *drops))


def big_recording(seed=7, n=2500):
    """Requests on 4 CPUs; the trace lost seqs 100 and 101, the log seq 2000."""
    rnd = random.Random(seed)
    trace, log, now = [], [], 3_000_000_000
    for seq in range(1, n + 1):
        now += rnd.randint(50, 40_000)
        cpu = rnd.randrange(4)
        block = rnd.randrange(8192)
        if seq not in (100, 101):
            trace.append(request(seq, now, cpu, 100 + cpu, block, rnd.randrange(5)))
        outcome = rnd.choice((HIT, MISS, WAIT, ERROR))
        prefetch = [(rnd.randrange(8192), rnd.choice((STARTED, CACHED, NO_BUFFER, 4)),
                     rnd.choice((NO, rnd.randrange(8192)))) for _ in range(rnd.randrange(9))]
        if seq != 2000:
            log.append(result(seq, cpu, outcome, block, rnd.choice((NO, rnd.randrange(8192))),
                              40 if outcome == HIT else rnd.randint(20_000, 400_000), prefetch))
    return trace, log


def convert(directory, to, out=None):
    return run_scion(["record", "convert", directory, "--to", to] + (["-o", out] if out else []))


def babeltrace(ctx, args):
    """babeltrace2's output, or a failed result saying why there is none."""
    if not shutil.which("babeltrace2"):
        ctx.result("babeltrace2-installed", False, "babeltrace2 is not installed; `make deps` "
                   "(qemu/deps.sh) installs it")
        return None
    return subprocess.run(["babeltrace2"] + args, capture_output=True, text=True, timeout=300)


EVENT_LINE = re.compile(r"^\[(\d+)\.(\d{9})\] \(\S+\) bcache:(request|result): "
                        r"\{ seq = (\d+), .*?block = (\d+)(?:.*?outcome = \( \"([\w-]+)\")?")


def ctf_events(ctx, name, ctf):
    """[(time ns, event, seq, block, outcome)] babeltrace2 prints for ctf; results for
    its exit status and stderr."""
    proc = babeltrace(ctx, ["--clock-seconds", ctf])
    if proc is None:
        return None, ""
    ctx.result(f"{name}/babeltrace2-reads-it", proc.returncode == 0 and "ERROR" not in proc.stderr,
               f"exit {proc.returncode}: {proc.stderr[-600:]}")
    events, stray = [], []
    for line in proc.stdout.splitlines():
        m = EVENT_LINE.match(line)
        if not m:
            stray.append(line)
            continue
        events.append((int(m.group(1)) * 10**9 + int(m.group(2)), m.group(3), int(m.group(4)),
                       int(m.group(5)), m.group(6)))
    ctx.result(f"{name}/every-line-an-event", not stray, f"other lines: {stray[:3]}")
    return events, proc.stderr


def expected_events(trace, log):
    """(time, event, seq, block, outcome) of every record, as the CTF trace must hold them."""
    admitted = {r["seq"]: r["time_ns"] for r in trace or []}
    out = [(r["time_ns"], "request", r["seq"], r["block"], None) for r in trace or []]
    total = 0
    for r in log or []:
        total += r["latency_ns"]
        if trace is None:
            start = 0
        else:
            # The trace lost this request: the latest admitted before it in sequence.
            start = admitted.get(r["seq"]) or max(t for s, t in admitted.items() if s < r["seq"])
        out.append((total if trace is None else start + r["latency_ns"], "result", r["seq"],
                    r["block"], recfmt.OUTCOMES[r["outcome"]]))
    return out


def job_text_and_csv(ctx):
    with tempfile.TemporaryDirectory(prefix="scion-rec-") as tmp:
        rec = os.path.join(tmp, "rec")
        write_recording(rec, SMALL_TRACE, SMALL_LOG, drops=(2, 1))
        proc = convert(rec, "text")
        ctx.result("text-stdout-exact", proc.returncode == 0 and proc.stdout == SMALL_TEXT,
                   describe(proc))
        out = os.path.join(tmp, "rec.txt")
        proc = convert(rec, "text", out)
        with open(out) as f:
            ctx.result("text-file-exact", proc.returncode == 0 and f.read() == SMALL_TEXT,
                       describe(proc))
        proc = convert(rec, "csv")
        files = {}
        for name in ("trace.csv", "log.csv"):
            with open(os.path.join(rec, "csv", name), newline="") as f:
                files[name] = f.read()
        ctx.result("csv-exact", proc.returncode == 0 and files == {
            "trace.csv": SMALL_TRACE_CSV, "log.csv": SMALL_LOG_CSV}, f"{describe(proc)} {files}")
        ctx.result("csv-reconvert-replaces", convert(rec, "csv").returncode == 0
                   and sorted(os.listdir(os.path.join(rec, "csv"))) == ["log.csv", "trace.csv"])
        ctx.result("no-temporaries-left", sorted(os.listdir(rec)) == [
            "csv", "log.bin", "meta.json", "trace.bin"], str(os.listdir(rec)))
        sim = os.path.join(tmp, "sim")
        write_recording(sim, None, SMALL_LOG, drops=(0, 1))
        proc = convert(sim, "text")
        ctx.result("log-only-text", proc.returncode == 0 and
                   proc.stdout == SMALL_TEXT[SMALL_TEXT.index("log:"):], describe(proc))
        proc = convert(sim, "csv")
        ctx.result("log-only-csv", proc.returncode == 0 and
                   os.listdir(os.path.join(sim, "csv")) == ["log.csv"], describe(proc))


def job_ctf_small(ctx):
    with tempfile.TemporaryDirectory(prefix="scion-rec-") as tmp:
        rec = os.path.join(tmp, "rec")
        write_recording(rec, SMALL_TRACE, SMALL_LOG, drops=(2, 1))
        proc = convert(rec, "ctf")
        ctx.result("converts", proc.returncode == 0, describe(proc))
        events, stderr = ctf_events(ctx, "small", os.path.join(rec, "ctf"))
        if events is None:
            return
        ctx.result("events-times-in-order", [e[:3] for e in events] == SMALL_EVENTS,
                   str(events))
        ctx.result("fields", sorted(events) == sorted(expected_events(SMALL_TRACE, SMALL_LOG)),
                   str(events))
        ctx.result("drops-reported", "discarded 2 events" in stderr and
                   "discarded 1 event " in stderr, stderr)
        details = babeltrace(ctx, [os.path.join(rec, "ctf"), "-c", "sink.text.details"])
        env = ["module: bcache", f"policy: {POLICY}", "kernel_version: scion-test 1.0",
               "buffers: 64", "blocks: 8192", "trace_drops: 2", "log_drops: 1"]
        ctx.result("env", all(line in details.stdout for line in env),
                   details.stdout[:1500])
        ctx.result("clock", "Frequency (Hz): 1,000,000,000" in details.stdout
                   and "Offset (cycles): 1000" in details.stdout, details.stdout[:1500])
        with open(os.path.join(rec, "ctf", "metadata")) as f:
            metadata = f.read()
        ctx.result("metadata-ctf-1.8", metadata.startswith("/* CTF 1.8")
                   and "major = 1;" in metadata and "minor = 8;" in metadata
                   and "byte_order = le;" in metadata)
        again = os.path.join(tmp, "again")
        convert(rec, "ctf", again)
        same = all(open(os.path.join(again, f), "rb").read() ==
                   open(os.path.join(rec, "ctf", f), "rb").read() for f in os.listdir(again))
        ctx.result("reproducible", same and sorted(os.listdir(again)) == ["log", "metadata",
                                                                           "trace"])


def job_ctf_big(ctx):
    trace, log = big_recording()
    with tempfile.TemporaryDirectory(prefix="scion-rec-") as tmp:
        rec = os.path.join(tmp, "rec")
        write_recording(rec, trace, log, drops=(2, 1))
        proc = convert(rec, "ctf")
        ctx.result("converts", proc.returncode == 0, describe(proc))
        sizes = {f: os.path.getsize(os.path.join(rec, "ctf", f)) for f in ("trace", "log")}
        ctx.result("several-64k-packets", all(s % 65536 == 0 and s >= 3 * 65536
                                              for s in sizes.values()), str(sizes))
        events, _ = ctf_events(ctx, "big", os.path.join(rec, "ctf"))
        if events is None:
            return
        ctx.result("one-event-per-record", len(events) == len(trace) + len(log),
                   f"{len(events)} events for {len(trace)} + {len(log)} records")
        want = expected_events(trace, log)
        ctx.result("fields-and-times", sorted(events) == sorted(want),
                   str(sorted(set(events) ^ set(want))[:4]))
        for kind in ("request", "result"):
            times = [e[0] for e in events if e[1] == kind]
            ctx.result(f"{kind}-times-forward", times == sorted(times))

        sim = os.path.join(tmp, "sim")
        write_recording(sim, None, log)
        proc = convert(sim, "ctf")
        events, _ = ctf_events(ctx, "log-only", os.path.join(sim, "ctf"))
        ctx.result("log-only-cumulative-latency", proc.returncode == 0 and events is not None
                   and sorted(events) == sorted(expected_events(None, log)),
                   f"{describe(proc)} {events[:3] if events else events}")


ANY_EVENT_LINE = re.compile(r"^\[(\d+)\.(\d{9})\] \(\S+\) (\w+:\w+): \{ (.*) \}$")


def ctf_lines(ctx, name, ctf):
    """[(time ns, event, fields)] babeltrace2 prints for ctf, in its order, and its
    stderr; results for its exit status and for lines that are not events."""
    proc = babeltrace(ctx, ["--clock-seconds", ctf])
    if proc is None:
        return None, ""
    ctx.result(f"{name}/babeltrace2-reads-it", proc.returncode == 0 and "ERROR" not in proc.stderr,
               f"exit {proc.returncode}: {proc.stderr[-600:]}")
    events, stray = [], []
    for line in proc.stdout.splitlines():
        m = ANY_EVENT_LINE.match(line)
        if m:
            events.append((int(m.group(1)) * 10**9 + int(m.group(2)), m.group(3), m.group(4)))
        else:
            stray.append(line)
    ctx.result(f"{name}/every-line-an-event", not stray, f"other lines: {stray[:3]}")
    return events, proc.stderr


def check_ctf(ctx, name, rec, trace, log, want, env, offset):
    """rec converted to CTF: babeltrace2 prints want, event for event; env and the
    clock's offset as given."""
    proc = convert(rec, "ctf")
    ctx.result(f"{name}/converts", proc.returncode == 0, describe(proc))
    events, stderr = ctf_lines(ctx, name, os.path.join(rec, "ctf"))
    if events is None:
        return None
    ctx.result(f"{name}/one-event-per-record", len(events) == len(trace or []) + len(log or []),
               f"{len(events)} events")
    ctx.result(f"{name}/events-exact", events == want,
               "\n".join(f"{got} != {wanted}" for got, wanted in zip(events, want)
                         if got != wanted) or str(events))
    for kind in {e[1] for e in want}:
        times = [e[0] for e in events if e[1] == kind]
        ctx.result(f"{name}/{kind}-times-forward", times == sorted(times), str(times))
    details = babeltrace(ctx, [os.path.join(rec, "ctf"), "-c", "sink.text.details"])
    ctx.result(f"{name}/env", all(line in details.stdout for line in env), details.stdout[:1500])
    # babeltrace2 groups the digits of some numbers with commas.
    ctx.result(f"{name}/clock-offset",
               f"Offset (cycles): {offset}\n" in details.stdout.replace(",", ""),
               details.stdout[:1500])
    return stderr


def job_sched(ctx):
    with tempfile.TemporaryDirectory(prefix="scion-rec-") as tmp:
        rec = os.path.join(tmp, "rec")
        write_recording(rec, SCHED_TRACE, SCHED_LOG, drops=(1, 0), module="sched",
                        policy=SCHED_POLICY, config=SCHED_CONFIG)
        with open(os.path.join(rec, "trace.bin"), "rb") as f:
            sizes = [len(raw) for raw in recfmt.split_records(f.read()[recfmt.HEADER.size:])]
        ctx.result("start-state-records-72-bytes", sizes == [72] * 3 + [48] * 5, str(sizes))
        proc = convert(rec, "text")
        ctx.result("text-exact", proc.returncode == 0 and proc.stdout == SCHED_TEXT,
                   describe(proc))
        proc = convert(rec, "csv")
        files = {}
        for name in ("trace.csv", "log.csv"):
            with open(os.path.join(rec, "csv", name), newline="") as f:
                files[name] = f.read()
        ctx.result("csv-exact", proc.returncode == 0 and files == {
            "trace.csv": SCHED_TRACE_CSV, "log.csv": SCHED_LOG_CSV}, f"{describe(proc)} {files}")
        env = ["module: sched", f"policy: {SCHED_POLICY}", "cpus: 2", "hz: 100",
               "slice_ticks: 2", "trace_drops: 1", "log_drops: 0"]
        stderr = check_ctf(ctx, "ctf", rec, SCHED_TRACE, SCHED_LOG, SCHED_EVENTS, env,
                           50_100_000)
        ctx.result("ctf/drops-reported", stderr is not None and "discarded 1 event " in stderr,
                   str(stderr))
        with open(os.path.join(rec, "ctf", "metadata")) as f:
            metadata = f.read()
        snapshot_class = ('event {\n\tname = "sched:snapshot";\n\tid = 65539;\n'
                          '\tstream_id = 0;\n\tfields := struct {\n'
                          '\t\tuint64_t seq;\n\t\tuint64_t tick;\n\t\tuint32_t cpu;\n'
                          '\t\tuint64_t tid;\n\t\tenum event_kind_t kind;\n'
                          '\t\tint32_t affinity;\n\t\tuint64_t ticks_run;\n'
                          '\t\tuint64_t switches_in;\n\t\tint32_t slice;\n\t};\n};\n')
        ctx.result("ctf/snapshot-class-declared", snapshot_class in metadata, metadata[-2500:])
        # babeltrace2 groups the digits of some numbers with commas.
        details = babeltrace(ctx, [os.path.join(rec, "ctf"), "-c", "sink.text.details"])
        read_as = ("    Event class `sched:snapshot` (ID 65539):\n"
                   "      Payload field class: Structure (9 members):\n"
                   "        seq: Unsigned integer (64-bit Base 10)\n")
        counters = ("        affinity: Signed integer (32-bit Base 10)\n"
                    "        ticks_run: Unsigned integer (64-bit Base 10)\n"
                    "        switches_in: Unsigned integer (64-bit Base 10)\n"
                    "        slice: Signed integer (32-bit Base 10)\n"
                    "  Stream class (ID 1):\n")
        shown = details.stdout.replace(",", "") if details else ""
        ctx.result("ctf/snapshot-class-read", details is not None and details.returncode == 0
                   and read_as in shown and counters in shown[shown.find(read_as):],
                   shown[:3000])
        # A sched event whose size disagrees with its kind is refused in one line, as
        # sched replay refuses it: a start-state kind in 48 bytes, a runnable in 72.
        for name, kind, tail in (("state-kind-in-48-bytes", QUEUED, b""),
                                 ("runnable-in-72-bytes", RUNNABLE, bytes(24))):
            bad = os.path.join(tmp, name)
            write_recording(bad, SCHED_TRACE, SCHED_LOG, module="sched", policy=SCHED_POLICY,
                            config=SCHED_CONFIG)
            size = recfmt.SCHED_EVENT.size + len(tail)
            recfmt.write_stream(os.path.join(bad, "trace.bin"),
                                recfmt.pack_header(recfmt.STREAM_TRACE, "sched", SCHED_POLICY,
                                                   SCHED_CONFIG, len(SCHED_TRACE), 0),
                                [recfmt.SCHED_EVENT.pack(
                                    head__size=size, head__type=recfmt.TYPE_SCHED_EVENT, seq=1,
                                    tick=5, time_ns=50_100_000, tid=6, kind=kind,
                                    affinity=-1) + tail]
                                + [recfmt.encode_record(r) for r in SCHED_TRACE[1:]])
            proc = convert(bad, "text")
            ctx.result(f"{name}-refused", one_error_line(proc, "scion: record convert: ")
                       and f"{size} bytes at byte 128" in proc.stderr and not proc.stdout,
                       describe(proc))
        # A simulated log (no trace): each pick at its tick, 10 ms apart at 100 Hz.
        sim = os.path.join(tmp, "sim")
        write_recording(sim, None, SCHED_LOG, module="sched", policy=SCHED_POLICY,
                        config=SCHED_CONFIG)
        want = [(r["tick"] * 10_000_000, "sched:pick", fields)
                for r, (_, _, fields) in zip(SCHED_LOG, (e for e in SCHED_EVENTS
                                                          if e[1] == "sched:pick"))]
        check_ctf(ctx, "log-only", sim, None, SCHED_LOG, want, ["module: sched", "hz: 100"],
                  50_000_000)


def job_point(ctx):
    with tempfile.TemporaryDirectory(prefix="scion-rec-") as tmp:
        rec = os.path.join(tmp, "rec")
        write_recording(rec, POINT_TRACE, POINT_LOG, drops=(1, 0), module="point",
                        policy=POINT_POLICY, config=())
        proc = convert(rec, "text")
        ctx.result("text-exact", proc.returncode == 0 and proc.stdout == POINT_TEXT,
                   describe(proc))
        proc = convert(rec, "csv")
        files = {}
        for name in ("trace.csv", "log.csv"):
            with open(os.path.join(rec, "csv", name), newline="") as f:
                files[name] = f.read()
        ctx.result("csv-exact", proc.returncode == 0 and files == {
            "trace.csv": POINT_TRACE_CSV, "log.csv": POINT_LOG_CSV}, f"{describe(proc)} {files}")
        env = ["module: point", f"policy: {POINT_POLICY}", "trace_records: 3",
               "log_records: 4", "trace_drops: 1"]
        stderr = check_ctf(ctx, "ctf", rec, POINT_TRACE, POINT_LOG, POINT_EVENTS, env, 4500)
        ctx.result("ctf/drops-reported", stderr is not None and "discarded 1 event " in stderr,
                   str(stderr))
        with open(os.path.join(rec, "ctf", "metadata")) as f:
            metadata = f.read()
        ctx.result("ctf/enum-labels-declared", 'enum point_outcome_t : uint32_t { "default" = 1, '
                   '"committed" = 2, "aborted" = 3 };' in metadata, metadata[-1500:])


# One record of every type recfmt.py encodes, with values that fill their fields (the
# widest numbers, negative signed ones); the sched event in both of its forms.
TOP64 = (1 << 64) - 1
ROUND_TRIP = [
    ("request", dict(request(1, TOP64, 3, 7, TOP64 - 1, 5), flags=0)),
    ("request-write", dict(request(1, TOP64, 3, 7, TOP64 - 1, 0xffffffff),
                           flags=C.BCACHE_REQ_WRITE | C.BCACHE_REQ_SYNC | C.BCACHE_REQ_WHOLE)),
    ("result", dict(result(2, 1, HIT, 40, NO, 50), disk_reads=0, flags=0)),
    ("result-write", dict(result(2, 1, MISS, 40, 7, 50), disk_reads=0,
                          flags=C.BCACHE_REQ_WRITE | C.BCACHE_REQ_WHOLE)),
    ("result-prefetch-max", dict(result(3, 2, MISS, 18, 5, 900,
                                        [(100 + k, k % 4 + 1, NO if k % 2 else k)
                                         for k in range(recfmt.PREFETCH_MAX)]), disk_reads=2,
                                 flags=0)),
    ("event", sched_event(4, 6, 60_000_100, 1, 3, YIELD, 1)),
    ("snapshot-running", sched_state(1, 5, 50_100_000, 1, 5, RUNNING, -1, TOP64, 1 << 40, 2)),
    ("snapshot-queued", sched_state(2, 5, 50_100_200, 0, 6, QUEUED, 1, 0, 0, -(1 << 31))),
    ("snapshot-sleeping", sched_state(3, 5, 50_100_400, 0, 3, SLEEPING, -1, 12, 5, (1 << 31) - 1)),
    ("pick", dict(sched_pick(5, 5, 1, 3, 0, 2), head_cpu=0)),
    ("call", point_call(6, 5000, 0, 9, *range(TOP64 - 5, TOP64 + 1))),
    ("done", point_done(7, 9100, 1, TOP64, ABORTED)),
]
# Bytes of each record class (a result's: before its prefetch entries).
ROUND_TRIP_SIZES = {"request": 56, "result": 48, "event": 48, "snapshot": 72, "pick": 48,
                    "call": 80, "done": 40}


def job_records_round_trip(ctx):
    """recfmt.encode_record and decode_record are each other's inverse for every record
    type: decoding gives back every field encoded (the counters of a start-state record
    too), and encoding what was decoded gives back the same bytes."""
    covered = set()
    for name, r in ROUND_TRIP:
        raw = recfmt.encode_record(r)
        decoded = recfmt.decode_record(raw)
        covered.add(decoded["type"])
        kept = {key: value for key, value in decoded.items() if key != "size"}
        size = (ROUND_TRIP_SIZES[recfmt.record_class(decoded)]
                + len(r.get("prefetch", ())) * recfmt.PREFETCH.size)
        ctx.result(f"{name}", kept == r and decoded["size"] == len(raw) == size
                   and recfmt.encode_record(decoded) == raw
                   and recfmt.decode_record(recfmt.encode_record(decoded)) == decoded,
                   f"{r} -> {len(raw)} bytes -> {decoded}")
    ctx.result("every-record-type", covered == {t for kinds in recfmt.STREAM_RECORDS.values()
                                                for t in kinds.values()}, str(covered))
    ctx.result("every-start-state-kind", {r["kind"] for _, r in ROUND_TRIP if "slice" in r}
               == recfmt.STATE_KINDS)
    # A start-state kind has no 48-byte form: without its counters it is refused.
    try:
        recfmt.encode_record(sched_event(1, 5, 50_100_000, 0, 3, SLEEPING))
        refused = "encoded"
    except ValueError as e:
        refused = str(e)
    ctx.result("state-kind-without-counters-refused",
               "without ticks_run, switches_in, slice" in refused, refused)
    # A whole stream, header and all: read_stream gives back what write_stream wrote.
    with tempfile.TemporaryDirectory(prefix="scion-rec-") as tmp:
        write_recording(tmp, SCHED_TRACE, SCHED_LOG, module="sched", policy=SCHED_POLICY,
                        config=SCHED_CONFIG)
        _, trace = recfmt.read_stream(os.path.join(tmp, "trace.bin"), recfmt.STREAM_TRACE)
        ctx.result("sched-trace-file", [{k: v for k, v in r.items() if k != "size"}
                                         for r in trace] == SCHED_TRACE, str(trace[:4]))


def corrupt(path, fn):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    with open(path, "wb") as f:
        f.write(fn(data))


def with_records(count):
    def fn(data):
        data[recfmt.HEADER.size - 16:recfmt.HEADER.size - 8] = count.to_bytes(8, "little")
        return data
    return fn


def with_type(index, rtype):
    """Record index (from 0) of a request stream gets type rtype."""
    def fn(data):
        offset = recfmt.HEADER.size + index * recfmt.REQUEST.size + 2
        data[offset:offset + 2] = rtype.to_bytes(2, "little")
        return data
    return fn


def with_module(module):
    """A file whose header names another module."""
    def fn(data):
        data[16:32] = module.encode().ljust(16, b"\0")
        return data
    return fn


def with_sched_log(directory):
    """A scheduler's log beside the block cache's trace."""
    other = directory + ".sched"
    write_recording(other, None, SCHED_LOG, module="sched", policy=SCHED_POLICY,
                    config=SCHED_CONFIG)
    shutil.copy(os.path.join(other, "log.bin"), os.path.join(directory, "log.bin"))


BAD = [
    # (name, what to do to a good recording, what stderr says)
    ("missing-meta", lambda d: os.unlink(os.path.join(d, "meta.json")), "meta.json"),
    ("meta-not-json", lambda d: corrupt(os.path.join(d, "meta.json"), lambda b: b[:20]),
     "not JSON"),
    ("missing-trace", lambda d: os.unlink(os.path.join(d, "trace.bin")), "trace.bin: missing"),
    ("truncated-header", lambda d: corrupt(os.path.join(d, "log.bin"), lambda b: b[:100]),
     "shorter than a recording header"),
    ("bad-magic", lambda d: corrupt(os.path.join(d, "trace.bin"), lambda b: b"X" + b[1:]),
     "not a Scion recording"),
    ("record-cut-short", lambda d: corrupt(os.path.join(d, "log.bin"), lambda b: b[:-8]),
     "truncated"),
    ("more-records-promised", lambda d: corrupt(os.path.join(d, "trace.bin"), with_records(4)),
     "its header says 4"),
    ("unknown-record-type", lambda d: corrupt(os.path.join(d, "trace.bin"), with_type(1, 7)),
     "unknown type 7"),
    ("result-in-the-trace", lambda d: shutil.copy(os.path.join(d, "log.bin"),
                                                   os.path.join(d, "trace.bin")),
     "not a trace"),
    ("meta-disagrees", lambda d: corrupt(os.path.join(d, "meta.json"),
                                         lambda b: b.replace(b'"log": 3', b'"log": 5')),
     "meta.json says 5"),
    ("empty-directory", lambda d: [os.unlink(os.path.join(d, f)) for f in os.listdir(d)],
     "meta.json"),
    ("unknown-module", lambda d: [corrupt(os.path.join(d, f), with_module("disk"))
                                  for f in ("trace.bin", "log.bin")],
     "trace.bin: a recording of module 'disk'; this reads bcache, sched, point"),
    ("modules-differ", with_sched_log, "log.bin: a sched recording, beside a bcache one"),
]


def job_bad_input(ctx):
    with tempfile.TemporaryDirectory(prefix="scion-rec-") as tmp:
        for name, damage, says in BAD:
            rec = os.path.join(tmp, name)
            write_recording(rec, SMALL_TRACE, SMALL_LOG)
            damage(rec)
            before = sorted(os.listdir(rec))
            outs = {"text": None, "text-file": os.path.join(tmp, name + ".txt"),
                    "csv": None, "ctf": None}
            for label, out in outs.items():
                proc = convert(rec, label.split("-")[0], out)
                ok = (one_error_line(proc, "scion: ") and proc.returncode == 1
                      and says in proc.stderr and not proc.stdout and "Traceback" not in
                      proc.stderr and sorted(os.listdir(rec)) == before
                      and not (out and os.path.exists(out)))
                ctx.result(f"{name}/{label}", ok, f"{describe(proc)}; files {os.listdir(rec)}")
        proc = convert(os.path.join(tmp, "nowhere"), "ctf")
        ctx.result("no-directory", one_error_line(proc, "scion: ") and proc.returncode == 1
                   and "no such recording directory" in proc.stderr, describe(proc))

        rec = os.path.join(tmp, "good")
        write_recording(rec, SMALL_TRACE, SMALL_LOG)
        proc = convert(rec, "ctf", os.path.join(tmp, "no", "such", "dir"))
        ctx.result("unwritable-output", one_error_line(proc, "scion: record convert: cannot "
                                                       "write") and proc.returncode == 1,
                   describe(proc))
        # Found while writing the CTF trace: the half-written directory goes too.
        late = os.path.join(tmp, "late")
        write_recording(late, SMALL_TRACE, SMALL_LOG[:2] + [dict(SMALL_LOG[2],
                                                                 latency_ns=(1 << 64) - 10)])
        proc = convert(late, "ctf")
        ctx.result("clock-overflow-found-late", one_error_line(proc, "scion: ")
                   and "does not fit the 64-bit clock" in proc.stderr
                   and sorted(os.listdir(late)) == ["log.bin", "meta.json", "trace.bin"],
                   f"{describe(proc)}; files {os.listdir(late)}")
        theirs = os.path.join(tmp, "theirs")
        os.makedirs(theirs)
        open(os.path.join(theirs, "notes.txt"), "w").close()
        proc = convert(rec, "ctf", theirs)
        ctx.result("foreign-output-directory-kept", one_error_line(proc, "scion: ")
                   and "is not a ctf conversion" in proc.stderr
                   and os.listdir(theirs) == ["notes.txt"], describe(proc))
