# SPDX-License-Identifier: BSD-2-Clause
"""What each recordable module's records become in a CTF trace (recctf.py
writes it): for every module, the event classes of each stream, the
enumerations and structures their fields use, and how each record gets
its timestamp.

A field is (name, TSDL type) or (name, TSDL type, length), the length a
number (a fixed array) or the name of an earlier field (a sequence, whose
length field recctf.py fills in from the list it counts). recctf.py
derives both the TSDL declaration and the byte layout from these lists,
so the two cannot disagree. Field names are the decoded records' keys
(recfmt.py), and TSDL keywords (event, stream, clock, ...) are not
allowed as field names.

Timing functions take the trace and log records (lists, either empty)
and the streams' headers, and return a Timing: the clock's base (the
value every stored timestamp counts from), each stream's times in
kernel-clock ns, the clock's description and, per stream, how a time
was derived (said when one does not fit 64 bits)."""

import bisect
from typing import Callable, NamedTuple

from . import recfmt


class EventClass(NamedTuple):
    name: str           # the decoded record's class (recfmt.record_class: its "type", or
                        # "snapshot" for a sched start-state event); the event is "MODULE:NAME"
    id: int             # its CTF event id: the record type (recfmt.TYPE_*), or VARIANT_ID
                        # plus it for a second class of the same record type
    fields: tuple       # (name, TSDL type[, length]), in payload order


class Enum(NamedTuple):
    name: str           # declared as `enum NAME : CONTAINER { labels }`
    container: str      # an integer typealias of recctf.SCALARS
    labels: dict        # value -> label


class Timing(NamedTuple):
    base: int           # ns: the clock's offset; stored timestamps count from it
    times: dict         # "trace"/"log" -> [ns], one per record, in record order
    clock: str          # the clock's description in the metadata
    how: dict           # "trace"/"log" -> how a time was computed, for errors


class Module(NamedTuple):
    streams: dict       # "trace"/"log" -> (EventClass, ...) by record type
    enums: tuple        # (Enum, ...) the fields use
    structs: tuple      # ((name, fields), ...): `struct NAME` element types of arrays
    timing: Callable    # (trace records, log records, {stream: header}) -> Timing


KERNEL_CLOCK = "Scion kernel clock, ns since boot"
# A record type with a second form (a sched event's 72-byte start-state record) has a
# second event class, whose id is this plus the type: record types are 16 bits, so
# the id can be no record type's.
VARIANT_ID = 1 << 16


# --- bcache: demand reads (trace) and what became of them (log) ---

BCACHE_REQUEST = EventClass("request", recfmt.TYPE_BCACHE_REQUEST, (
    ("seq", "uint64_t"), ("tid", "uint64_t"), ("pid", "uint64_t"), ("cpu", "uint32_t"),
    ("block", "uint64_t"), ("in_flight", "uint64_t"), ("flags", "uint32_t")))
BCACHE_RESULT = EventClass("result", recfmt.TYPE_BCACHE_RESULT, (
    ("seq", "uint64_t"), ("cpu", "uint32_t"), ("block", "uint64_t"), ("flags", "uint32_t"),
    ("outcome", "enum outcome_t"), ("victim", "uint64_t"), ("latency_ns", "uint64_t"),
    ("nprefetch", "uint8_t"), ("prefetch", "struct prefetch", "nprefetch")))
PREFETCH_FIELDS = (("block", "uint64_t"), ("victim", "uint64_t"), ("fate", "enum fate_t"))


def bcache_timing(trace, log, headers):
    """A request at its admission; a result at its request's admission plus its
    latency_ns. Without requests (a simulated log) the results run back to back
    from 0, each ending its latency after the last."""
    if not trace:
        log_times, total = [], 0
        for r in log:
            total += r["latency_ns"]
            log_times.append(total)
        return Timing(0, {"trace": [], "log": log_times},
                      "a simulated log's clock: each result ends its latency after the last, "
                      "from 0", {"trace": "", "log": "the running sum of latency_ns"})
    trace_times = [r["time_ns"] for r in trace]
    base = min(trace_times)
    by_seq = sorted((r["seq"], r["time_ns"]) for r in trace)
    seqs = [seq for seq, _ in by_seq]
    log_times = []
    for r in log:
        # A result whose request the trace dropped: the request just before it in
        # sequence was admitted no later, the closest bound the recording has.
        i = bisect.bisect_right(seqs, r["seq"])
        admitted = by_seq[i - 1][1] if i else base
        log_times.append(admitted + r["latency_ns"])
    return Timing(base, {"trace": trace_times, "log": log_times}, KERNEL_CLOCK,
                  {"trace": "its admission", "log": "admission plus latency_ns"})


# --- sched: what threads did (trace) and what the scheduler chose (log) ---

SCHED_EVENT = EventClass("event", recfmt.TYPE_SCHED_EVENT, (
    ("seq", "uint64_t"), ("tick", "uint64_t"), ("cpu", "uint32_t"), ("tid", "uint64_t"),
    ("kind", "enum event_kind_t"), ("affinity", "int32_t")))
# The start state a recording begins with (kinds queued, running, sleeping): an event
# and the counters of the thread's entity that policies read.
SCHED_SNAPSHOT = EventClass("snapshot", VARIANT_ID + recfmt.TYPE_SCHED_EVENT,
                            SCHED_EVENT.fields + (("ticks_run", "uint64_t"),
                                                  ("switches_in", "uint64_t"),
                                                  ("slice", "int32_t")))
assert tuple(f[0] for f in SCHED_SNAPSHOT.fields[-3:]) == recfmt.STATE_FIELDS
SCHED_PICK = EventClass("pick", recfmt.TYPE_SCHED_PICK, (
    ("seq", "uint64_t"), ("tick", "uint64_t"), ("cpu", "uint32_t"), ("tid", "uint64_t"),
    ("prev", "uint64_t"), ("queued", "uint32_t")))


def ticks_ns(ticks, hz):
    return ticks * 10**9 // hz


def sched_timing(trace, log, headers):
    """An event (a start-state record too) at its time_ns. A pick records only its
    tick; events and picks share one sequence, so a pick is timed at the event just
    before it in sequence (what made the scheduler choose), plus the whole ticks
    between that event's tick and the pick's (nonzero only where the trace lost
    events). A pick before every recorded event takes the first event's time.
    Without events (a simulated log) a pick is at its tick times 1/hz, hz from the
    header."""
    hz = next((h["config"][recfmt.CONFIG_HZ] for h in headers.values()
               if h["config"][recfmt.CONFIG_HZ]), 0)
    if not trace:
        if log and not hz:
            raise recfmt.RecError("the log's header gives no timer rate (hz), and without "
                                  "the trace's events nothing else times its picks")
        log_times = [ticks_ns(r["tick"], hz) for r in log]
        return Timing(min(log_times, default=0), {"trace": [], "log": log_times},
                      f"a log without its trace: its ticks at {hz} Hz",
                      {"trace": "", "log": f"its tick at {hz} Hz"})
    trace_times = [r["time_ns"] for r in trace]
    by_seq = sorted((r["seq"], r["time_ns"], r["tick"]) for r in trace)
    seqs = [seq for seq, _, _ in by_seq]
    log_times = []
    for r in log:
        _, time_ns, tick = by_seq[max(bisect.bisect_left(seqs, r["seq"]) - 1, 0)]
        later = r["tick"] - tick if hz and r["tick"] > tick else 0
        log_times.append(time_ns + ticks_ns(later, hz) if later else time_ns)
    return Timing(min(trace_times), {"trace": trace_times, "log": log_times}, KERNEL_CLOCK,
                  {"trace": "time_ns", "log": "the event before it plus the ticks since"})


# --- point: a graft point's calls (trace) and how each ended (log) ---

POINT_CALL = EventClass("call", recfmt.TYPE_POINT_CALL, (
    ("seq", "uint64_t"), ("cpu", "uint32_t"), ("tid", "uint64_t"),
    ("args", "uint64_hex_t", recfmt.POINT_ARGS)))
POINT_DONE = EventClass("done", recfmt.TYPE_POINT_DONE, (
    ("seq", "uint64_t"), ("cpu", "uint32_t"), ("result", "uint64_hex_t"),
    ("outcome", "enum point_outcome_t")))


def point_timing(trace, log, headers):
    """Both records carry the kernel clock's time_ns. The base is the earlier of the
    two streams' first times: a call the trace dropped may leave its done record
    earlier than every call kept."""
    trace_times = [r["time_ns"] for r in trace]
    log_times = [r["time_ns"] for r in log]
    return Timing(min(trace_times + log_times, default=0),
                  {"trace": trace_times, "log": log_times}, KERNEL_CLOCK,
                  {"trace": "time_ns", "log": "time_ns"})


MODULES = {
    "bcache": Module(streams={"trace": (BCACHE_REQUEST,), "log": (BCACHE_RESULT,)},
                     enums=(Enum("outcome_t", "uint8_t", recfmt.OUTCOMES),
                            Enum("fate_t", "uint32_t", recfmt.FATES)),
                     structs=(("prefetch", PREFETCH_FIELDS),), timing=bcache_timing),
    "sched": Module(streams={"trace": (SCHED_EVENT, SCHED_SNAPSHOT), "log": (SCHED_PICK,)},
                    enums=(Enum("event_kind_t", "uint32_t", recfmt.EVENTS),),
                    structs=(), timing=sched_timing),
    recfmt.POINT_MODULE: Module(streams={"trace": (POINT_CALL,), "log": (POINT_DONE,)},
                                enums=(Enum("point_outcome_t", "uint32_t",
                                            recfmt.POINT_OUTCOMES),),
                                structs=(), timing=point_timing),
}
# Every module a recording can hold converts: recfmt.py and this table change together.
assert set(MODULES) == set(recfmt.STREAM_RECORDS)
