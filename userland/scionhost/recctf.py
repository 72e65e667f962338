# SPDX-License-Identifier: BSD-2-Clause
"""A bcache recording as a Common Trace Format 1.8 trace, the form
babeltrace2 (and Trace Compass) read: a directory with a plain-text TSDL
`metadata` file and one packetized data stream file per recording stream,
`trace` (stream 0: bcache:request events) and `log` (stream 1:
bcache:result events).

Time: every event carries a 64-bit timestamp of the clock `kernel` (ns).
Stored values count from the first request's admission, and the clock's
offset is that admission time, so offset + timestamp is the kernel
clock's reading (ns since boot). A result's time is its request's
admission plus its latency_ns; without a trace (a simulated log) or with
an empty one it is the running sum of the latencies from 0. CTF wants
time to move forward within a stream, so each stream's events are
written in time order (a log is in sequence order, and a hit that
follows a miss finishes first).

Packets are PACKET_BYTES long, zero-padded. events_discarded, a running
count in CTF, is the stream's drop count from its file header in every
packet with events: the recording does not say where the drops fell."""

import bisect
import hashlib
import os
import string
import struct
import uuid

from . import recfmt

FILES = {"metadata", "trace", "log"}   # everything write() puts in its directory
PACKET_BYTES = 64 * 1024
PACKET_MAGIC = 0xC1FC1FC1
STREAM_IDS = {"trace": 0, "log": 1}
EVENT_IDS = {"request": recfmt.TYPE_BCACHE_REQUEST, "result": recfmt.TYPE_BCACHE_RESULT}
CLOCK_MAX = (1 << 64) - 1

# The packet header and context and the event header, as METADATA declares
# them (change both together). Every field is byte-aligned: nothing is padded.
PACKET_HEADER = struct.Struct("<I16sI")         # magic, trace uuid, stream_id
# timestamp_begin, timestamp_end, content_size and packet_size (bits), events_discarded
PACKET_CONTEXT = struct.Struct("<QQQQQ")
PACKET_HEAD_BYTES = PACKET_HEADER.size + PACKET_CONTEXT.size
EVENT_HEADER = struct.Struct("<IQ")             # event class id, timestamp

# Event payloads as (name, TSDL type): the TSDL and the byte layout both come
# from these lists, so they cannot disagree.
FORMATS = {"uint8_t": "B", "uint32_t": "I", "uint64_t": "Q", "enum outcome_t": "B",
           "enum fate_t": "I"}
REQUEST_FIELDS = (("seq", "uint64_t"), ("tid", "uint64_t"), ("pid", "uint64_t"),
                  ("cpu", "uint32_t"), ("block", "uint64_t"), ("in_flight", "uint64_t"))
RESULT_FIELDS = (("seq", "uint64_t"), ("cpu", "uint32_t"), ("block", "uint64_t"),
                 ("outcome", "enum outcome_t"), ("victim", "uint64_t"),
                 ("latency_ns", "uint64_t"), ("nprefetch", "uint8_t"))
RESULT_TAIL = "struct prefetch prefetch[nprefetch];"     # nprefetch PREFETCH_FIELDS follow
PREFETCH_FIELDS = (("block", "uint64_t"), ("victim", "uint64_t"), ("fate", "enum fate_t"))


def layout(fields):
    return struct.Struct("<" + "".join(FORMATS[tsdl] for _, tsdl in fields))


REQUEST_LAYOUT, RESULT_LAYOUT, PREFETCH_LAYOUT = map(layout, (REQUEST_FIELDS, RESULT_FIELDS,
                                                              PREFETCH_FIELDS))

METADATA = string.Template("""/* CTF 1.8 */
/* A Scion recording of $module, written by `scion record convert --to ctf`. */

typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;

trace {
	major = 1;
	minor = 8;
	uuid = "$uuid";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint8_t uuid[16];
		uint32_t stream_id;
	};
};

env {
$env
};

clock {
	name = kernel;
	description = "$clock_description";
	freq = 1000000000;
	precision = 0;
	offset_s = $offset_s;
	offset = $offset;
	absolute = FALSE;
};

typealias integer {
	size = 64; align = 8; signed = false;
	map = clock.kernel.value;
} := uint64_clock_t;

enum outcome_t : uint8_t { $outcomes };
enum fate_t : uint32_t { $fates };

struct prefetch {
$prefetch_fields};

$streams$events""")

# Both streams (trace, log) have the same packet context and event header.
STREAM = string.Template("""stream {
	id = $id;
	event.header := struct { uint32_t id; uint64_clock_t timestamp; };
	packet.context := struct {
		uint64_clock_t timestamp_begin;
		uint64_clock_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
		uint64_t events_discarded;
	};
};

""")

EVENT = string.Template("""event {
	name = "$name";
	id = $id;
	stream_id = $stream;
	fields := struct {
$fields	};
};

""")


def tsdl_fields(fields, tail="", indent="\t"):
    return "".join(f"{indent}{tsdl} {name};\n" for name, tsdl in fields) + (
        f"{indent}{tail}\n" if tail else "")


def tsdl_string(text):
    """A TSDL string literal's contents: printable ASCII, quotes and backslashes escaped."""
    text = "".join(c if " " <= c <= "~" else "?" for c in str(text))
    return text.replace("\\", "\\\\").replace('"', '\\"')


def enum_entries(names):
    return ", ".join(f'"{tsdl_string(name)}" = {value}' for value, name in sorted(names.items()))


def timestamps(trace, log):
    """(base, trace times, log times) in kernel-clock ns; base is the first admission."""
    requests = trace[1] if trace else []
    trace_times = [r["time_ns"] for r in requests]
    base = min(trace_times, default=0)
    log_records = log[1] if log else []
    if not requests:
        # A log without its trace (a simulated one): results back to back from 0.
        log_times, total = [], 0
        for r in log_records:
            total += r["latency_ns"]
            log_times.append(total)
        return 0, trace_times, log_times
    by_seq = sorted((r["seq"], r["time_ns"]) for r in requests)
    seqs = [seq for seq, _ in by_seq]
    log_times = []
    for r in log_records:
        # A result whose request the trace dropped: the request just before it in
        # sequence was admitted no later, the closest bound the recording has.
        i = bisect.bisect_right(seqs, r["seq"])
        admitted = by_seq[i - 1][1] if i else base
        log_times.append(admitted + r["latency_ns"])
    return base, trace_times, log_times


def request_event(r, ts):
    return EVENT_HEADER.pack(EVENT_IDS["request"], ts) + REQUEST_LAYOUT.pack(
        *(r[name] for name, _ in REQUEST_FIELDS))


def result_event(r, ts):
    fields = dict(r, nprefetch=len(r["prefetch"]))
    return (EVENT_HEADER.pack(EVENT_IDS["result"], ts)
            + RESULT_LAYOUT.pack(*(fields[name] for name, _ in RESULT_FIELDS))
            + b"".join(PREFETCH_LAYOUT.pack(*(p[name] for name, _ in PREFETCH_FIELDS))
                       for p in r["prefetch"]))


def packets(events, discarded):
    """Time-ordered [(timestamp, bytes)] -> [(events, events_discarded)], each list
    filling one packet; a stream without events still gets an empty packet."""
    room = PACKET_BYTES - PACKET_HEAD_BYTES
    out, current, used = [], [], 0
    for ts, body in events:
        if current and used + len(body) > room:
            out.append((current, discarded))
            current, used = [], 0
        current.append((ts, body))
        used += len(body)
    out.append((current, discarded))
    if discarded:
        # babeltrace2 counts the drops between two packets' snapshots; a stream's
        # first packet has none before it, and its drops would be reported without
        # a number. An empty packet counting 0 at the first event gives it one.
        start = events[0][0] if events else 0
        out.insert(0, ([(start, b"")], 0))
    return out


def write_stream(path, stream_id, trace_uuid, events, discarded):
    with open(path, "wb") as f:
        for packet, snapshot in packets(events, discarded):
            content = b"".join(body for _, body in packet)
            begin, end = (packet[0][0], packet[-1][0]) if packet else (0, 0)
            f.write(PACKET_HEADER.pack(PACKET_MAGIC, trace_uuid.bytes, stream_id))
            f.write(PACKET_CONTEXT.pack(begin, end, (PACKET_HEAD_BYTES + len(content)) * 8,
                                        PACKET_BYTES * 8, snapshot))
            f.write(content)
            f.write(bytes(PACKET_BYTES - PACKET_HEAD_BYTES - len(content)))


def stream_events(records, times, base, make):
    """[(timestamp from base, event bytes)] in time order (stable: ties keep record order)."""
    order = sorted(range(len(records)), key=lambda i: times[i])
    events = []
    for i in order:
        if times[i] > CLOCK_MAX:
            raise recfmt.RecError(f"seq {records[i]['seq']}: its time, {times[i]} ns (admission "
                                  f"plus latency_ns), does not fit the 64-bit clock")
        events.append((times[i] - base, make(records[i], times[i] - base)))
    return events


def trace_uuid(env, streams):
    """The same recording always converts to the same trace UUID."""
    digest = hashlib.sha256(repr(sorted(env.items(), key=str)).encode())
    for name in sorted(STREAM_IDS):
        for r in (streams[name][1] if streams[name] else []):
            digest.update(recfmt.encode_record(r))
    return uuid.uuid5(uuid.NAMESPACE_URL, "scion-recording:" + digest.hexdigest())


def env_lines(env):
    lines = []
    for key, value in env.items():
        shown = value if isinstance(value, int) else f'"{tsdl_string(value)}"'
        lines.append(f"\t{key} = {shown};")
    return "\n".join(lines)


def metadata(env, the_uuid, base, simulated):
    """The TSDL text: trace, env, clock (offset base ns), types, streams, events."""
    module = tsdl_string(env["module"])
    events = [EVENT.substitute(name=f"{module}:{kind}", id=EVENT_IDS[kind],
                               stream=STREAM_IDS[stream],
                               fields=tsdl_fields(fields, tail, "\t\t"))
              for kind, stream, fields, tail in (("request", "trace", REQUEST_FIELDS, ""),
                                                 ("result", "log", RESULT_FIELDS, RESULT_TAIL))]
    return METADATA.substitute(
        module=module, uuid=the_uuid, env=env_lines(env),
        clock_description=("a simulated log's clock: each result ends its latency after the "
                           "last, from 0" if simulated else "Scion kernel clock, ns since boot"),
        offset_s=base // 10**9, offset=base % 10**9,
        outcomes=enum_entries(recfmt.OUTCOMES), fates=enum_entries(recfmt.FATES),
        prefetch_fields=tsdl_fields(PREFETCH_FIELDS),
        streams="".join(STREAM.substitute(id=i) for i in sorted(STREAM_IDS.values())),
        events="".join(events))


def write(directory, env, streams):
    """Write metadata, trace and log into directory (which exists and is empty).
    env: {identifier: str or int}; streams: {"trace"/"log": (header, records) or None}."""
    base, trace_times, log_times = timestamps(streams["trace"], streams["log"])
    the_uuid = trace_uuid(env, streams)
    with open(os.path.join(directory, "metadata"), "w") as f:
        f.write(metadata(env, the_uuid, base, simulated=not trace_times))
    for name, make, times in (("trace", request_event, trace_times),
                              ("log", result_event, log_times)):
        if streams[name] is None:
            continue    # a stream the recording does not have: declared, with no file
        header, records = streams[name]
        write_stream(os.path.join(directory, name), STREAM_IDS[name], the_uuid,
                     stream_events(records, times, base, make), header["drops"])
