# SPDX-License-Identifier: BSD-2-Clause
"""The "monitor" stream's records taken apart (kernel/include/scion/
monitor_rec.h, through layouts.py): a chunk of one CPU's buffer is
records back to back, each starting with struct monitor_rec_head
{type, size}; a status chunk (cpu CHAN_CHUNK_STATUS) holds one struct
monitor_stream_status.

decode_chunk() returns the chunk's records as Source, Thread, Process
and Round tuples, in the order they were written. Everything is checked before it
is believed: a record that runs past the chunk, a size too small for its
type or not matching a round's sample count, an unknown type, a record
count other than the chunk header's: each is a RecordError whose message
is one line naming the CPU and the byte, never an exception from struct.
Nothing here touches a database (collect.py does).
"""

from collections import namedtuple

from .. import frame
from ..layouts import C, layout, text

HEAD = layout("monitor_rec_head", "type", "size")
SOURCE = layout("monitor_rec_source", "head.type", "head.size", "index", "kind", "scope",
                "interval_ms", "reserved", "name", "unit")
THREAD = layout("monitor_rec_thread", "head.type", "head.size", "reserved", "tid", "name")
PROCESS = layout("monitor_rec_process", "head.type", "head.size", "pid", "name")
ROUND = layout("monitor_rec_round", "head.type", "head.size", "nsamples", "flags", "seq",
               "lost_before", "mono_ns", "wall_ns")
SAMPLE = layout("monitor_sample", "source", "reserved", "scope_id", "value")
STATUS = layout("monitor_stream_status", "version", "sources", "rounds_written",
                "samples_written", "samples_dropped", "rounds_dropped", "redflags",
                "last_wall_ns", "ended", "reserved")

# enum monitor_kind and enum monitor_scope (scion/monitor.h) -> the database's words.
KINDS = {C.MONITOR_COUNTER: "counter", C.MONITOR_GAUGE: "gauge"}
SCOPES = {C.MONITOR_SCOPE_GLOBAL: "global", C.MONITOR_SCOPE_CPU: "cpu",
          C.MONITOR_SCOPE_THREAD: "thread", C.MONITOR_SCOPE_PROCESS: "process"}
BURST = C.MONITOR_ROUND_BURST
CONTINUED = C.MONITOR_ROUND_CONTINUED

Source = namedtuple("Source", "index kind scope interval_ms name unit")
Thread = namedtuple("Thread", "tid name")
Process = namedtuple("Process", "pid name")
# samples: [(source index, scope_id, value)]; cpu: the buffer it came in.
Round = namedtuple("Round", "seq flags lost_before mono_ns wall_ns samples cpu")


class RecordError(frame.FrameError):
    """A chunk that is not what monitor_rec.h lays out: one line."""


def _source(body, off, cpu):
    r = SOURCE.unpack(body, off)
    kind, scope = KINDS.get(r["kind"]), SCOPES.get(r["scope"])
    name = text(r["name"])
    if kind is None or scope is None or not name:
        raise RecordError(f"monitor stream: CPU {cpu}'s source record at byte {off} has kind "
                          f"{r['kind']}, scope {r['scope']}, name {name!r}: not a source "
                          f"monitor.h describes")
    return Source(r["index"], kind, scope, r["interval_ms"], name, text(r["unit"]))


def _thread(body, off, cpu):
    r = THREAD.unpack(body, off)
    return Thread(r["tid"], text(r["name"]))


def _process(body, off, cpu):
    r = PROCESS.unpack(body, off)
    return Process(r["pid"], text(r["name"]))


def _round(body, off, size, cpu):
    r = ROUND.unpack(body, off)
    n = r["nsamples"]
    if size != ROUND.size + n * SAMPLE.size or n > C.MONITOR_ROUND_SAMPLES_MAX:
        raise RecordError(f"monitor stream: CPU {cpu}'s round record at byte {off} (seq "
                          f"{r['seq']}) is {size} bytes for {n} samples (a round of n samples "
                          f"is {ROUND.size} + n x {SAMPLE.size} bytes, n at most "
                          f"{C.MONITOR_ROUND_SAMPLES_MAX})")
    start = off + ROUND.size
    samples = [(s, scope_id, value) for s, _, scope_id, value in
               SAMPLE.struct.iter_unpack(body[start:start + n * SAMPLE.size])]
    return Round(r["seq"], r["flags"], r["lost_before"], r["mono_ns"], r["wall_ns"], samples,
                 cpu)


# type -> (its name, its least size, the size it must be exactly or None)
_TYPES = {C.MONITOR_REC_SOURCE: ("source", SOURCE.size, SOURCE.size),
          C.MONITOR_REC_THREAD: ("thread", THREAD.size, THREAD.size),
          C.MONITOR_REC_ROUND: ("round", ROUND.size, None),
          C.MONITOR_REC_PROCESS: ("process", PROCESS.size, PROCESS.size)}
_DECODE = {C.MONITOR_REC_SOURCE: _source, C.MONITOR_REC_THREAD: _thread,
           C.MONITOR_REC_PROCESS: _process}


def decode_chunk(body, count, cpu):
    """One CPU's chunk (count records, as its header says) -> [Source | Thread | Process |
    Round]."""
    body = bytes(body)
    out, off, end = [], 0, len(body)
    while off < end:
        if end - off < HEAD.size:
            raise RecordError(f"monitor stream: CPU {cpu}'s chunk of {end} bytes ends in the "
                              f"middle of a record header at byte {off} (a truncated chunk)")
        rtype, size = HEAD.struct.unpack_from(body, off)
        what = _TYPES.get(rtype)
        if what is None:
            raise RecordError(f"monitor stream: CPU {cpu}'s record at byte {off} has type "
                              f"{rtype}, which monitor_rec.h does not define (a corrupt "
                              f"stream, or a kernel of another version)")
        name, least, exact = what
        if size < least or (exact is not None and size != exact):
            raise RecordError(f"monitor stream: CPU {cpu}'s {name} record at byte {off} says "
                              f"it is {size} bytes; a {name} record is "
                              f"{exact if exact is not None else f'at least {least}'}")
        if off + size > end:
            raise RecordError(f"monitor stream: CPU {cpu}'s {name} record at byte {off} is "
                              f"{size} bytes, past the chunk's end at byte {end} (a truncated "
                              f"chunk)")
        if rtype == C.MONITOR_REC_ROUND:
            out.append(_round(body, off, size, cpu))
        else:
            out.append(_DECODE[rtype](body, off, cpu))
        off += size
    if len(out) != count:
        raise RecordError(f"monitor stream: CPU {cpu}'s chunk holds {len(out)} records; its "
                          f"header says {count}")
    return out


def decode_status(body):
    """A status chunk -> {member: value} of struct monitor_stream_status."""
    body = bytes(body)
    if len(body) != STATUS.size:
        raise RecordError(f"monitor stream: a status chunk of {len(body)} bytes; struct "
                          f"monitor_stream_status is {STATUS.size}")
    st = STATUS.unpack(body)
    if st["version"] != C.MONITOR_STREAM_VERSION:
        raise RecordError(f"monitor stream version {st['version']}; this scion reads version "
                          f"{C.MONITOR_STREAM_VERSION}")
    return st


# ---- building records (tests, benchmarks) ------------------------------------

def source_record(index, kind, scope, name, unit, interval_ms=100):
    return SOURCE.pack(head__type=C.MONITOR_REC_SOURCE, head__size=SOURCE.size, index=index,
                       kind=kind, scope=scope, interval_ms=interval_ms, name=name.encode(),
                       unit=unit.encode())


def thread_record(tid, name):
    return THREAD.pack(head__type=C.MONITOR_REC_THREAD, head__size=THREAD.size, tid=tid,
                       name=name.encode())


def process_record(pid, name):
    return PROCESS.pack(head__type=C.MONITOR_REC_PROCESS, head__size=PROCESS.size, pid=pid,
                        name=name.encode())


def round_record(seq, mono_ns, wall_ns, samples, flags=0, lost_before=0):
    """samples: [(source index, scope_id, value)]."""
    head = ROUND.pack(head__type=C.MONITOR_REC_ROUND,
                      head__size=ROUND.size + len(samples) * SAMPLE.size,
                      nsamples=len(samples), flags=flags, seq=seq, lost_before=lost_before,
                      mono_ns=mono_ns, wall_ns=wall_ns)
    return head + b"".join(SAMPLE.struct.pack(s, 0, scope_id, value)
                           for s, scope_id, value in samples)


def status_record(**values):
    return STATUS.pack(version=C.MONITOR_STREAM_VERSION, **values)
