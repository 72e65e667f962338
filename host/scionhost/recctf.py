# SPDX-License-Identifier: BSD-2-Clause
"""A recording as a Common Trace Format 1.8 trace, the form babeltrace2
(and Trace Compass) read: a directory with a plain-text TSDL `metadata`
file and one packetized data stream file per recording stream, `trace`
(stream 0) and `log` (stream 1). What each module's records become is
in recctf_events.py; every module converts:

  bcache  trace: bcache:request   log: bcache:result (prefetch[nprefetch])
  sched   trace: sched:event, sched:snapshot   log: sched:pick
  point   trace: point:call (args[6])   log: point:done

sched:snapshot is a start-state record (the 72-byte sched event of kind
queued, running or sleeping a recording begins with): an event's fields
and then the thread's ticks_run, switches_in and slice.

Event ids are the record types (recfmt.TYPE_*), and a second class of
one type (sched:snapshot) has recctf_events.VARIANT_ID plus its type;
which class a record takes is recfmt.record_class's answer. Enumerated
fields (bcache outcome and fate, sched event kind, point outcome) are
CTF enums whose labels are recfmt.py's names.

Time: every event carries a 64-bit timestamp of the clock `kernel` (ns).
Stored values count from a base, the recording's earliest event time,
and the clock's offset is that base, so offset + timestamp is the kernel
clock's reading (ns since boot). Where a record's time comes from:

  bcache  a request at its admission (time_ns); a result at its
          request's admission plus its latency_ns (a result whose
          request was dropped: the admission of the request before it in
          sequence). Without a trace (a simulated log) or with an empty
          one, results run back to back from 0 (the base is then 0).
  sched   an event at its time_ns. A pick records only its tick: it is
          timed at the event just before it in the shared sequence (what
          made the scheduler choose) plus the whole ticks between that
          event's and the pick's (at the header's hz; nonzero only where
          the trace lost events). Without events (a simulated log) a
          pick is at its tick times 1/hz.
  point   a call and a done record each at its own time_ns.

CTF wants time to move forward within a stream, so each stream's events
are written in time order, sorted stably (records with equal times keep
their order: a bcache log is in sequence order, and a hit that follows a
miss finishes first).

Packets are PACKET_BYTES long, zero-padded. events_discarded, a running
count in CTF, is the stream's drop count from its file header in every
packet with events: the recording does not say where the drops fell."""

import hashlib
import os
import string
import struct
import uuid

from . import recfmt
from .recctf_events import MODULES

FILES = {"metadata", "trace", "log"}   # everything write() puts in its directory
PACKET_BYTES = 64 * 1024
PACKET_MAGIC = 0xC1FC1FC1
STREAM_IDS = {"trace": 0, "log": 1}
CLOCK_MAX = (1 << 64) - 1

# The integer types fields may use: the TSDL typealiases and their struct
# formats (byte-aligned, little-endian). uint64_hex_t is a uint64_t that
# readers show in hex (a graft point's argument words and results are often
# addresses or -1); uint64_clock_t a uint64_t mapped to the kernel clock.
SCALARS = {"uint8_t": "B", "uint32_t": "I", "int32_t": "i", "uint64_t": "Q", "uint64_hex_t": "Q",
           "uint64_clock_t": "Q"}

# The packet header and context and the event header: one table each, from
# which METADATA declares them and the writer packs them. Every field is
# byte-aligned: nothing is padded.
PACKET_HEADER_FIELDS = (("magic", "uint32_t"), ("uuid", "uint8_t", 16), ("stream_id", "uint32_t"))
PACKET_CONTEXT_FIELDS = (("timestamp_begin", "uint64_clock_t"),
                         ("timestamp_end", "uint64_clock_t"),
                         ("content_size", "uint64_t"),        # bits
                         ("packet_size", "uint64_t"),         # bits
                         ("events_discarded", "uint64_t"))
EVENT_HEADER_FIELDS = (("id", "uint32_t"), ("timestamp", "uint64_clock_t"))


def header_struct(fields):
    """The struct.Struct of a header's fields (a uint8_t array packs as bytes)."""
    return struct.Struct("<" + "".join(f"{f[2]}s" if len(f) > 2 else SCALARS[f[1]]
                                       for f in fields))


PACKET_HEADER = header_struct(PACKET_HEADER_FIELDS)
PACKET_CONTEXT = header_struct(PACKET_CONTEXT_FIELDS)
PACKET_HEAD_BYTES = PACKET_HEADER.size + PACKET_CONTEXT.size
EVENT_HEADER = header_struct(EVENT_HEADER_FIELDS)

METADATA = string.Template("""/* CTF 1.8 */
/* A Scion recording of $module, written by `scion record convert --to ctf`. */

typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 32; align = 8; signed = true; } := int32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 64; align = 8; signed = false; base = 16; } := uint64_hex_t;

trace {
	major = 1;
	minor = 8;
	uuid = "$uuid";
	byte_order = le;
	packet.header := struct {
$packet_header	};
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

$types$streams$events""")

# Both streams (trace, log) have the same packet context and event header.
STREAM = string.Template("""stream {
	id = $id;
	event.header := struct {
$event_header	};
	packet.context := struct {
$packet_context	};
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


def tsdl_fields(fields, indent="\t"):
    """A field list's TSDL declarations, one a line; an array or sequence as NAME[LENGTH]."""
    return "".join(f"{indent}{f[1]} {f[0]}" + (f"[{f[2]}]" if len(f) > 2 else "") + ";\n"
                   for f in fields)


def tsdl_string(text):
    """A TSDL string literal's contents: printable ASCII, quotes and backslashes escaped."""
    text = "".join(c if " " <= c <= "~" else "?" for c in str(text))
    return text.replace("\\", "\\\\").replace('"', '\\"')


def enum_entries(names):
    return ", ".join(f'"{tsdl_string(name)}" = {value}' for value, name in sorted(names.items()))


def tsdl_types(module):
    """The enums and structures a module's fields use, declared before its events."""
    enums = "".join(f"enum {e.name} : {e.container} {{ {enum_entries(e.labels)} }};\n"
                    for e in module.enums)
    structs = "".join(f"\nstruct {name} {{\n{tsdl_fields(fields)}}};\n"
                      for name, fields in module.structs)
    return enums + structs + "\n"


def scalar_formats(module):
    """TSDL scalar type -> struct format, the module's enums included (as their container)."""
    formats = dict(SCALARS)
    formats.update({f"enum {e.name}": SCALARS[e.container] for e in module.enums})
    return formats


def element_packer(tsdl, formats, structs):
    """bytes of one array element: a scalar, or a dict for a `struct NAME`."""
    if tsdl.startswith("struct "):
        fields = structs[tsdl[len("struct "):]]
        layout = struct.Struct("<" + "".join(formats[t] for _, t in fields))
        return lambda value: layout.pack(*(value[name] for name, _ in fields))
    return struct.Struct("<" + formats[tsdl]).pack


def payload_packer(fields, formats, structs):
    """fields -> a function from a record (dict) to its payload's bytes. Runs of
    scalars pack as one struct; an array packs its list, a sequence its list after
    its length field (set here from the list, so the two always agree)."""
    parts, run = [], []

    def end_run():
        if run:
            names = tuple(name for name, _ in run)
            layout = struct.Struct("<" + "".join(formats[t] for _, t in run))
            parts.append(lambda r, names=names, layout=layout:
                         layout.pack(*(r[name] for name in names)))
            run.clear()

    lengths = {f[2]: f[0] for f in fields if len(f) > 2 and isinstance(f[2], str)}
    for field in fields:
        if len(field) == 2:
            run.append(field)
            continue
        end_run()
        name, tsdl, length = field
        pack = element_packer(tsdl, formats, structs)
        if isinstance(length, int):
            def array(r, name=name, length=length, pack=pack):
                assert len(r[name]) == length, f"{name}: {len(r[name])} elements, not {length}"
                return b"".join(pack(v) for v in r[name])
            parts.append(array)
        else:
            parts.append(lambda r, name=name, pack=pack: b"".join(pack(v) for v in r[name]))
    end_run()
    if not lengths:
        return lambda r: b"".join(part(r) for part in parts)

    def with_lengths(r):
        r = dict(r, **{count: len(r[listed]) for count, listed in lengths.items()})
        return b"".join(part(r) for part in parts)
    return with_lengths


def event_packers(module):
    """{decoded record class (recfmt.record_class): (event id, payload packer)} for each
    of the module's event classes."""
    formats, structs = scalar_formats(module), dict(module.structs)
    return {cls.name: (cls.id, payload_packer(cls.fields, formats, structs))
            for classes in module.streams.values() for cls in classes}


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


def stream_events(records, times, base, how, packers):
    """[(timestamp from base, event bytes)] in time order (stable: ties keep record order)."""
    order = sorted(range(len(records)), key=lambda i: times[i])
    events = []
    for i in order:
        r, ts = records[i], times[i]
        if ts > CLOCK_MAX:
            raise recfmt.RecError(f"seq {r['seq']}: its time, {ts} ns ({how}), does not fit "
                                  f"the 64-bit clock")
        event_id, pack = packers[recfmt.record_class(r)]
        events.append((ts - base, EVENT_HEADER.pack(event_id, ts - base) + pack(r)))
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


def metadata(env, module, the_uuid, timing):
    """The TSDL text: trace, env, clock (offset: the base), types, streams, events."""
    name = tsdl_string(env["module"])
    events = [EVENT.substitute(name=f"{name}:{cls.name}", id=cls.id, stream=STREAM_IDS[stream],
                               fields=tsdl_fields(cls.fields, "\t\t"))
              for stream, classes in module.streams.items() for cls in classes]
    return METADATA.substitute(
        module=name, uuid=the_uuid, env=env_lines(env),
        packet_header=tsdl_fields(PACKET_HEADER_FIELDS, "\t\t"),
        clock_description=tsdl_string(timing.clock),
        offset_s=timing.base // 10**9, offset=timing.base % 10**9,
        types=tsdl_types(module),
        streams="".join(STREAM.substitute(id=i, event_header=tsdl_fields(EVENT_HEADER_FIELDS, "\t\t"),
                                          packet_context=tsdl_fields(PACKET_CONTEXT_FIELDS, "\t\t"))
                        for i in sorted(STREAM_IDS.values())),
        events="".join(events))


def write(directory, env, streams):
    """Write metadata, trace and log into directory (which exists and is empty).
    env: {identifier: str or int}, env["module"] a key of MODULES; streams:
    {"trace"/"log": (header, records) or None}."""
    module = MODULES[env["module"]]
    headers = {name: s[0] for name, s in streams.items() if s}
    records = {name: s[1] if s else [] for name, s in streams.items()}
    timing = module.timing(records["trace"], records["log"], headers)
    the_uuid = trace_uuid(env, streams)
    with open(os.path.join(directory, "metadata"), "w") as f:
        f.write(metadata(env, module, the_uuid, timing))
    packers = event_packers(module)
    for name in STREAM_IDS:
        if streams[name] is None:
            continue    # a stream the recording does not have: declared, with no file
        write_stream(os.path.join(directory, name), STREAM_IDS[name], the_uuid,
                     stream_events(records[name], timing.times[name], timing.base,
                                   timing.how[name], packers), headers[name]["drops"])
