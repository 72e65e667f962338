# SPDX-License-Identifier: BSD-2-Clause
"""Recordings of a module's boundaries, as kernel/include/scion/recfmt.h
lays them out (its structures and numbers reach Python through the
layouts the build generates from it: layouts.py): a file is a 128-byte
header and records in sequence order; every record starts with u16 size, u16 type,
u32 cpu, then u64 seq. A recording directory holds trace.bin (the
module's inputs), log.bin (its outputs) and meta.json (module, policy,
kernel version, configuration, record and drop counts).

Reading never trusts the bytes: a short, truncated or mislabelled file
raises RecError with one line naming the file and the record.

While `scion record` runs, each stream is also on disk as NAME.part
(trace.bin.part, log.bin.part; PART_SUFFIX): the same header, whose
record and drop counts are provisional (rewritten after each chunk is
appended, so they may lag the body by one chunk), then the records in
the order they arrived (each CPU's in order, the CPUs interleaved), the
last one possibly cut short if the host died while writing it.
read_partial() reads such a file; `scion record recover DIR` turns the
parts into a recording."""

import json
import os

from .layouts import C, layout

MAGIC = C.REC_MAGIC.encode()
VERSION = C.REC_VERSION
HEADER = layout("rec_file_header")
STREAM_TRACE, STREAM_LOG = C.REC_STREAM_TRACE, C.REC_STREAM_LOG
STREAM_NAMES = {STREAM_TRACE: "trace", STREAM_LOG: "log"}
POINT_MODULE = C.REC_POINT_MODULE        # STREAM_RECORDS has its streams' records
# What each stream of a module holds (decoded records' "type").
STREAM_RECORDS = {"bcache": {STREAM_TRACE: "request", STREAM_LOG: "result"},
                  "sched": {STREAM_TRACE: "event", STREAM_LOG: "pick"},
                  POINT_MODULE: {STREAM_TRACE: "call", STREAM_LOG: "done"}}
CONFIG_BUFFERS, CONFIG_BLOCKS = C.REC_BCACHE_CONFIG_BUFFERS, C.REC_BCACHE_CONFIG_BLOCKS
CONFIG_CPUS, CONFIG_HZ, CONFIG_SLICE = (C.REC_SCHED_CONFIG_CPUS, C.REC_SCHED_CONFIG_HZ,
                                        C.REC_SCHED_CONFIG_SLICE)
CONFIG_NAMES = {"bcache": ("buffers", "blocks"), "sched": ("cpus", "hz", "slice_ticks")}
CONFIG_WORDS = C.REC_CONFIG_WORDS
# What a module's trace and log hold, in words (`scion record` and the kernel's `record stop`;
# a graft point's recording says requests and results, as bcache's does).
STREAM_WHAT = {"sched": ("events", "picks")}

HEAD = layout("rec_head").ordered("size", "type", "cpu")    # every record's first word
SEQ = layout("rec_common")                        # and its second: the sequence number
TYPE_BCACHE_REQUEST, TYPE_BCACHE_RESULT = C.REC_BCACHE_REQUEST, C.REC_BCACHE_RESULT
TYPE_SCHED_EVENT, TYPE_SCHED_PICK = C.REC_SCHED_EVENT, C.REC_SCHED_PICK
REQUEST = layout("rec_bcache_request")
RESULT = layout("rec_bcache_result")
PREFETCH = layout("rec_bcache_prefetch")
# A graft point recorded on its own (module "point"): its calls and how each ended.
TYPE_POINT_CALL, TYPE_POINT_DONE = C.REC_POINT_CALL, C.REC_POINT_DONE
POINT_CALL = layout("rec_point_call")
POINT_ARGS = len(POINT_CALL.unpack(bytes(POINT_CALL.size))["args"])   # argument words a call records
POINT_DONE = layout("rec_point_done")
POINT_OUTCOMES = {C.GRAFT_OUTCOME_DEFAULT: "default", C.GRAFT_OUTCOME_COMMITTED: "committed",
                  C.GRAFT_OUTCOME_ABORTED: "aborted"}
LOG_TYPES = frozenset({TYPE_BCACHE_RESULT, TYPE_SCHED_PICK, TYPE_POINT_DONE})  # the rest: traces'
PREFETCH_MAX = C.BCACHE_PREFETCH_MAX
NO_BLOCK = C.BCACHE_NO_BLOCK

SCHED_EVENT = layout("rec_sched_event")
SCHED_PICK = layout("rec_sched_pick")
EVENTS = {C.SCHED_EVENT_RUNNABLE: "runnable", C.SCHED_EVENT_BLOCK: "block",
          C.SCHED_EVENT_EXIT: "exit", C.SCHED_EVENT_TICK: "tick", C.SCHED_EVENT_YIELD: "yield",
          C.SCHED_EVENT_QUEUED: "queued", C.SCHED_EVENT_RUNNING: "running",
          C.SCHED_EVENT_SLEEPING: "sleeping"}
# A sched recording starts with the state of every thread (kinds queued, running, sleeping):
# an event record with the entity's counters after it (recfmt.h's rec_sched_state).
STATE_KINDS = frozenset({C.SCHED_EVENT_QUEUED, C.SCHED_EVENT_RUNNING, C.SCHED_EVENT_SLEEPING})
SCHED_STATE = layout("rec_sched_state")
STATE_FIELDS = ("ticks_run", "switches_in", "slice")   # a decoded start-state record's counters
EVENT_KINDS = {name: kind for kind, name in EVENTS.items()}

OUTCOMES = {C.BCACHE_OUTCOME_HIT: "hit", C.BCACHE_OUTCOME_WAIT: "wait",
            C.BCACHE_OUTCOME_MISS: "miss", C.BCACHE_OUTCOME_ERROR: "error"}
FATES = {C.BCACHE_PREFETCH_STARTED: "started", C.BCACHE_PREFETCH_CACHED: "cached",
         C.BCACHE_PREFETCH_NO_BUFFER: "no-buffer", C.BCACHE_PREFETCH_FAILED: "failed"}

TRACE_FILE, LOG_FILE, META_FILE = "trace.bin", "log.bin", "meta.json"
PART_SUFFIX = ".part"       # a file still being written (see the module's docstring)


class RecError(Exception):
    """A recording that cannot be read, with one line saying why."""


def _text(raw):
    return raw.split(b"\0", 1)[0].decode("ascii", "replace")


def pack_header(stream, module, policy, config, records, drops):
    config = (list(config) + [0] * CONFIG_WORDS)[:CONFIG_WORDS]
    return HEADER.pack(magic=MAGIC, version=VERSION, stream=stream, header_bytes=HEADER.size,
                       module=module.encode()[:C.REC_MODULE_MAX],
                       policy=policy.encode()[:C.REC_POLICY_MAX - 1], config=config,
                       records=records, drops=drops)


def unpack_header(data, what="file"):
    if len(data) < HEADER.size:
        raise RecError(f"{what}: {len(data)} bytes, shorter than a recording header "
                       f"({HEADER.size})")
    h = HEADER.unpack(data)
    magic, version, stream, header_bytes = h["magic"], h["version"], h["stream"], h["header_bytes"]
    if magic != MAGIC:
        raise RecError(f"{what}: not a Scion recording (no {MAGIC.decode()} magic)")
    if version != VERSION or header_bytes != HEADER.size:
        raise RecError(f"{what}: recording format version {version} ({header_bytes}-byte "
                       f"header); this reads version {VERSION}")
    if stream not in STREAM_NAMES:
        raise RecError(f"{what}: unknown stream {stream} in its header")
    return {"stream": stream, "module": _text(h["module"]), "policy": _text(h["policy"]),
            "config": h["config"], "records": h["records"], "drops": h["drops"]}


def _fields(lay, data, offset, *names, prefix=""):
    r = lay.unpack(data, offset)
    return {name: r[prefix + name] for name in names}


def decode_record(data, offset=0):
    """One record at offset: a dict (with "size"), or RecError."""
    if offset + HEAD.size + 8 > len(data):
        raise RecError(f"a record head at byte {offset} runs past the end")
    size, rtype, cpu = HEAD.unpack_from(data, offset)
    if size < HEAD.size + 8 or size % 8 or offset + size > len(data):
        raise RecError(f"a record of {size} bytes at byte {offset} "
                       f"({'truncated' if offset + size > len(data) else 'bad size'})")
    if rtype == TYPE_BCACHE_REQUEST and size == REQUEST.size:
        return {"type": "request", "size": size, "cpu": cpu, **_fields(
            REQUEST, data, offset, "seq", "time_ns", "tid", "pid", "block", "in_flight",
            "flags")}
    if rtype == TYPE_BCACHE_RESULT and size >= RESULT.size:
        r = RESULT.unpack(data, offset)
        nprefetch = r["nprefetch"]
        if nprefetch > PREFETCH_MAX or size != RESULT.size + nprefetch * PREFETCH.size:
            raise RecError(f"a result record at byte {offset}: {nprefetch} prefetches "
                           f"in {size} bytes")
        prefetch = [_fields(PREFETCH, data, offset + RESULT.size + k * PREFETCH.size,
                            "block", "victim", "fate") for k in range(nprefetch)]
        return {"type": "result", "size": size, "cpu": cpu, "seq": r["seq"],
                "outcome": r["outcome"], "block": r["block"], "victim": r["victim"],
                "latency_ns": r["latency_ns"], "disk_reads": r["disk_reads"],
                "flags": r["flags"], "prefetch": prefetch}
    if rtype == TYPE_SCHED_EVENT and size in (SCHED_EVENT.size, SCHED_STATE.size):
        r = {"type": "event", "size": size, "cpu": cpu, **_fields(
            SCHED_EVENT, data, offset, "seq", "tick", "time_ns", "tid", "kind", "affinity")}
        if size == SCHED_STATE.size:     # a start-state record: the counters policies read
            r.update(_fields(SCHED_STATE, data, offset, *STATE_FIELDS))
        return r
    if rtype == TYPE_SCHED_PICK and size == SCHED_PICK.size:
        p = SCHED_PICK.unpack(data, offset)
        return {"type": "pick", "size": size, "cpu": p["cpu"], "seq": p["seq"],
                "tick": p["tick"], "tid": p["tid"], "prev": p["prev"], "queued": p["queued"],
                "head_cpu": cpu}
    if rtype == TYPE_POINT_CALL and size == POINT_CALL.size:
        return {"type": "call", "size": size, "cpu": cpu, **_fields(
            POINT_CALL, data, offset, "seq", "time_ns", "tid", "args")}
    if rtype == TYPE_POINT_DONE and size == POINT_DONE.size:
        return {"type": "done", "size": size, "cpu": cpu, **_fields(
            POINT_DONE, data, offset, "seq", "time_ns", "result", "outcome")}
    return {"type": f"type {rtype}", "size": size, "cpu": cpu,
            "seq": SEQ.unpack(data, offset)["seq"]}


def is_state_event(r):
    """Whether decoded record r is one of a sched recording's start-state records
    (recfmt.h's rec_sched_state: an event of kind queued, running or sleeping with
    its entity's counters, 72 bytes) rather than an ordinary 48-byte event. The size
    decides, as in the kernel's `record show`: a decoded event has the counters
    exactly when it was 72 bytes."""
    return r["type"] == "event" and "ticks_run" in r


def record_class(r):
    """What decoded record r is, a little finer than its "type": "snapshot" for a
    start-state record (is_state_event), else its type. The converters show the two
    kinds of sched event differently (CSV columns, CTF event classes)."""
    return "snapshot" if is_state_event(r) else r["type"]


def _head(lay, rtype, cpu, size=None):
    return {"head.size": size or lay.size, "head.type": rtype, "head.cpu": cpu}


def encode_record(r):
    """decode_record's inverse for a request, result, event, pick, call or done dict
    (size is computed), so decode_record(encode_record(r)) gives r back. An event of a
    start-state kind (STATE_KINDS), or one that carries the counters (STATE_FIELDS),
    is the 72-byte start-state record with them; a state kind without its counters is
    a ValueError, since the format has no 48-byte form of it."""
    def pack(lay, rtype, cpu, *names, size=None, prefix="", **more):
        values = {prefix + k: v for k, v in _head(lay, rtype, cpu, size).items()}
        values.update({prefix + name: r[name] for name in names})
        values.update(more)
        return lay.pack(**values)

    if r["type"] == "call":
        return pack(POINT_CALL, TYPE_POINT_CALL, r["cpu"], "seq", "time_ns", "tid", "args")
    if r["type"] == "done":
        return pack(POINT_DONE, TYPE_POINT_DONE, r["cpu"], "seq", "time_ns", "result", "outcome")
    if r["type"] == "event":
        state = r["kind"] in STATE_KINDS or "ticks_run" in r
        missing = [name for name in STATE_FIELDS if name not in r]
        if state and missing:
            raise ValueError(f"sched event seq {r['seq']}: a start-state record "
                             f"({EVENTS.get(r['kind'], r['kind'])}) without "
                             f"{', '.join(missing)}")
        names = ("seq", "tick", "time_ns", "tid", "kind", "affinity")
        if not state:
            return pack(SCHED_EVENT, TYPE_SCHED_EVENT, r["cpu"], *names)
        return pack(SCHED_STATE, TYPE_SCHED_EVENT, r["cpu"], *names, prefix="event.",
                    size=SCHED_STATE.size, **{name: r[name] for name in STATE_FIELDS})
    if r["type"] == "pick":
        return pack(SCHED_PICK, TYPE_SCHED_PICK, r.get("head_cpu", r["cpu"]), "seq", "tick",
                    "tid", "prev", "cpu", "queued")
    if r["type"] == "request":
        return pack(REQUEST, TYPE_BCACHE_REQUEST, r["cpu"], "seq", "time_ns", "tid", "pid",
                    "block", "in_flight", flags=r.get("flags", 0))
    prefetch = r["prefetch"]
    head = pack(RESULT, TYPE_BCACHE_RESULT, r["cpu"], "seq", "outcome", "block", "victim",
                "latency_ns", size=RESULT.size + len(prefetch) * PREFETCH.size,
                nprefetch=len(prefetch), flags=r.get("flags", 0),
                disk_reads=r.get("disk_reads", int(r["outcome"] in (3, 4))))
    return head + b"".join(PREFETCH.pack(block=p["block"], victim=p["victim"], fate=p["fate"])
                           for p in prefetch)


def split_records(data):
    """The records of a byte string (a chunk or a file body), raw, in order."""
    out, offset = [], 0
    while offset < len(data):
        if offset + HEAD.size > len(data):
            raise RecError(f"{len(data) - offset} stray bytes at byte {offset}")
        size = HEAD.unpack_from(data, offset)[0]
        if size < HEAD.size + 8 or size % 8 or offset + size > len(data):
            raise RecError(f"a record of {size} bytes at byte {offset} "
                           f"({'truncated' if offset + size > len(data) else 'bad size'})")
        out.append(bytes(data[offset:offset + size]))
        offset += size
    return out


def raw_type(raw):
    return HEAD.unpack_from(raw)[1]


def raw_seq(raw):
    return SEQ.unpack(raw)["seq"]


def read_stream(path, stream=None):
    """(header dict, [decoded records]) of trace.bin or log.bin; RecError when it is
    not whole: a record cut short, or fewer records than the header promises. With
    stream (STREAM_TRACE or STREAM_LOG), also when the header names another stream or
    a record is not that stream's kind (an unknown type, or a known one of the wrong
    size: a sched event's size must agree with its kind, 72 bytes for a start-state
    kind and 48 for any other): a reader that must understand every record asks for
    this."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise RecError(f"{path}: {e.strerror}")
    header = unpack_header(data, path)
    if stream is not None and header["stream"] != stream:
        raise RecError(f"{path}: its header says it is a {STREAM_NAMES[header['stream']]} "
                       f"stream, not a {STREAM_NAMES[stream]}")
    if stream is not None and header["module"] not in STREAM_RECORDS:
        raise RecError(f"{path}: a recording of module '{header['module']}'; this reads "
                       f"{', '.join(STREAM_RECORDS)}")
    records = []
    offset = HEADER.size
    try:
        while offset < len(data):
            r = decode_record(data, offset)
            expect = STREAM_RECORDS.get(header["module"], {}).get(stream)
            if stream is not None and r["type"] != expect:
                known = {t for kinds in STREAM_RECORDS.values() for t in kinds.values()}
                what = (f"a {r['type']} record" if r["type"] in known
                        else f"a record of unknown type {HEAD.unpack_from(data, offset)[1]} "
                             f"and {r['size']} bytes")
                raise RecError(f"{what} at byte {offset}, where a {header['module']} "
                               f"{expect or 'record'} belongs")
            if stream is not None and r["type"] == "event" and \
                    is_state_event(r) != (r["kind"] in STATE_KINDS):
                raise RecError(f"a sched event of kind {EVENTS.get(r['kind'], r['kind'])} in "
                               f"{r['size']} bytes at byte {offset} (a start-state kind is "
                               f"{SCHED_STATE.size} bytes, any other {SCHED_EVENT.size})")
            records.append(r)
            offset += r["size"]
    except RecError as e:
        raise RecError(f"{path}: record {len(records) + 1}: {e}")
    if len(records) != header["records"]:
        raise RecError(f"{path}: {len(records)} records, its header says {header['records']} "
                       f"(truncated?)")
    return header, records


def read_partial(path):
    """(header dict, [raw records], bytes left over) of a NAME.part stream: the
    header must be whole and valid (RecError if not); its counts are ignored; the
    records are taken up to the end, or up to the first one cut short or of a
    bad size (what a host killed mid-write leaves), whose bytes and everything
    after them are left over. Records are in arrival order, not sorted."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise RecError(f"{path}: {e.strerror}")
    header = unpack_header(data, path)
    records, offset = [], HEADER.size
    while offset + HEAD.size + 8 <= len(data):
        size = HEAD.unpack_from(data, offset)[0]
        if size < HEAD.size + 8 or size % 8 or offset + size > len(data):
            break
        records.append(bytes(data[offset:offset + size]))
        offset += size
    return header, records, len(data) - offset


def write_stream(path, header_bytes, raw_records):
    with open(path, "wb") as f:
        f.write(header_bytes)
        for raw in raw_records:
            f.write(raw)


def read_meta(directory):
    path = os.path.join(directory, META_FILE)
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise RecError(f"{path}: {e.strerror}")
    except ValueError as e:
        raise RecError(f"{path}: not JSON ({e})")


def unfinished(directory):
    """RecError when directory holds the .part files of a `scion record` that died
    but no recording (no meta.json): they must be recovered first."""
    parts = [name + PART_SUFFIX for name in (TRACE_FILE, LOG_FILE)
             if os.path.exists(os.path.join(directory, name + PART_SUFFIX))]
    if parts and not os.path.lexists(os.path.join(directory, META_FILE)):
        raise RecError(f"{directory}: a recording that did not end ({', '.join(parts)}); "
                       f"`scion record recover {directory}` makes a recording of what arrived")


def incomplete_reason(meta):
    """Why a recording's meta.json says it is incomplete, or None when it is complete
    (a meta without "complete" is): its "reason", else a word about its drops."""
    if not isinstance(meta, dict) or meta.get("complete", True) is not False:
        return None
    reason = meta.get("reason")
    if isinstance(reason, str) and reason.strip():
        return " ".join(reason.split())
    return "records were dropped"


def block_text(b):
    return "-" if b == NO_BLOCK else str(b)


def prefetch_text(p):
    """One read-ahead entry as `record show` prints it: block:fate/victim."""
    return f"{p['block']}:{FATES.get(p['fate'], '?')}/{block_text(p['victim'])}"


def config_dict(module, config):
    """A header's configuration words by name (meta.json's "config")."""
    names = CONFIG_NAMES.get(module, ())
    return {name: config[k] for k, name in enumerate(names)}


def op_name(flags):
    """A request's BCACHE_REQ_* flags as "read", "write", "write+sync+whole", ..."""
    if not flags & C.BCACHE_REQ_WRITE:
        return "read"
    return ("write" + ("+sync" if flags & C.BCACHE_REQ_SYNC else "")
            + ("+whole" if flags & C.BCACHE_REQ_WHOLE else ""))


def op_text(flags):
    """A write's " op=write+sync+whole" (as the kernel's `record show`); "" for a read."""
    return f" op={op_name(flags)}" if flags & C.BCACHE_REQ_WRITE else ""


def record_text(r):
    """One line, as the kernel's `record show` prints it (kernel/record/cmd_record.c)."""
    if r["type"] == "event":
        state = (f" ticks_run={r['ticks_run']} switches={r['switches_in']} slice={r['slice']}"
                 if is_state_event(r) else "")
        return (f"seq={r['seq']} tick={r['tick']} time_ns={r['time_ns']} cpu={r['cpu']} "
                f"tid={r['tid']} event={EVENTS.get(r['kind'], '?')} affinity={r['affinity']}"
                + state)
    if r["type"] == "pick":
        return (f"seq={r['seq']} tick={r['tick']} cpu={r['cpu']} tid={r['tid']} "
                f"prev={r['prev']} queued={r['queued']}")
    if r["type"] == "request":
        return (f"seq={r['seq']} time_ns={r['time_ns']} cpu={r['cpu']} tid={r['tid']} "
                f"pid={r['pid']} block={r['block']} in_flight={r['in_flight']}"
                + op_text(r.get("flags", 0)))
    if r["type"] == "result":
        prefetch = ",".join(prefetch_text(p) for p in r["prefetch"]) or "-"
        return (f"seq={r['seq']} cpu={r['cpu']} block={r['block']} "
                f"outcome={OUTCOMES.get(r['outcome'], '?')} victim={block_text(r['victim'])} "
                f"latency_ns={r['latency_ns']} prefetch={prefetch}" + op_text(r.get("flags", 0)))
    if r["type"] == "call":
        return (f"seq={r['seq']} time_ns={r['time_ns']} cpu={r['cpu']} tid={r['tid']} args=" +
                ",".join(f"0x{a:x}" for a in r["args"]))
    if r["type"] == "done":
        return (f"seq={r['seq']} time_ns={r['time_ns']} cpu={r['cpu']} result=0x{r['result']:x} "
                f"outcome={POINT_OUTCOMES.get(r['outcome'], '?')}")
    return f"record of {r['type']}, {r['size']} bytes"
