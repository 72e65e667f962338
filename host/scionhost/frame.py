# SPDX-License-Identifier: BSD-2-Clause
"""The control channel's wire format in Python, and a reference receiver.

Every number and layout comes from kernel/include/scion/chan_proto.h (and
errno.h), through the description the build generates from them
(layouts.py): nothing is spelled again here. encode* builds frames,
decode_* takes payloads apart, and ReferenceParser is the header's
byte-by-byte receiver followed literally: with the kernel's accepted
types it predicts the kernel's counters for any byte stream (tests feed
it hostile input), and with the host's accepted types it is the client's
streaming decoder, so both ends resynchronise by the same rules.
"""

import zlib
from collections import namedtuple

from .layouts import C, layout

MAGIC0 = C.CHAN_MAGIC0
MAGIC1 = C.CHAN_MAGIC1
VERSION = C.CHAN_VERSION
HEADER_BYTES = C.CHAN_HEADER_BYTES
CRC_BYTES = C.CHAN_CRC_BYTES
MAX_PAYLOAD = C.CHAN_MAX_PAYLOAD
IDLE_RESET_MS = C.CHAN_IDLE_RESET_MS
REQUEST_HEADER_BYTES = C.CHAN_REQUEST_HEADER_BYTES    # u16 op, u16 reserved (0)
STATUS_BYTES = C.CHAN_STATUS_BYTES                    # i32 at the start of RESPONSE and ERROR
STREAM_MAX_BUF = C.CHAN_STREAM_MAX_BUF
STREAM_SWITCH_MIN_MS = C.CHAN_STREAM_SWITCH_MIN_MS
STREAM_SWITCH_MAX_MS = C.CHAN_STREAM_SWITCH_MAX_MS
REC_PUT_FINISH = C.CHAN_REC_PUT_FINISH         # REC_PUT flags: the upload is complete

# Frame types (enum chan_frame_type).
HELLO = C.CHAN_HELLO
REQUEST = C.CHAN_REQUEST
RESPONSE = C.CHAN_RESPONSE
ERROR = C.CHAN_ERROR
EVENT = C.CHAN_EVENT
DATA = C.CHAN_DATA
TYPE_LIMIT = C.CHAN_TYPE_LIMIT
TYPE_NAMES = {HELLO: "HELLO", REQUEST: "REQUEST", RESPONSE: "RESPONSE", ERROR: "ERROR",
              EVENT: "EVENT", DATA: "DATA"}

# What each end may send: the kernel accepts only the first set, the
# host only the second.
HOST_SENT_TYPES = frozenset({HELLO, REQUEST})
KERNEL_SENT_TYPES = frozenset({HELLO, RESPONSE, ERROR, EVENT, DATA})

# Request operations (enum chan_op): OP_STATUS, ... as CHAN_OP_STATUS, ...
OP_NAMES = {value: name[len("CHAN_OP_"):] for name, value in
            C.by_header["chan_proto.h"].items() if name.startswith("CHAN_OP_") and
            name != "CHAN_OP_LIMIT"}
globals().update({"OP_" + name: value for value, name in OP_NAMES.items()})
OP_LIMIT = C.CHAN_OP_LIMIT
# SYMBOLIZE's records (struct chan_sym_record).
SYM_REQUEST = layout("chan_sym_request", "address", "flags")
SYM_RECORD = layout("chan_sym_record")
SYM_RETURN_ADDRESS = C.CHAN_SYM_RETURN_ADDRESS
SYM_MAX_ADDRESSES = C.CHAN_SYM_MAX_ADDRESSES
SYM_NAME_MAX = C.CHAN_SYM_NAME_MAX
SYM_RECORD_BYTES = SYM_RECORD.size
SYM_UNKNOWN, SYM_KERNEL = C.CHAN_SYM_UNKNOWN, C.CHAN_SYM_KERNEL
SYM_PATCH, SYM_GRAFT = C.CHAN_SYM_PATCH, C.CHAN_SYM_GRAFT

# Streams: DATA on a stream id > 0 carries a chunk header, then records.
CHUNK_HEADER_BYTES = C.CHAN_CHUNK_HEADER_BYTES
CHUNK_AGG = C.CHAN_CHUNK_AGG                # cpu field: aggregation data of CPU (low bits)
CHUNK_STATUS = C.CHAN_CHUNK_STATUS          # cpu field: a source's status, ends a snapshot
CHUNK_HEADER = layout("chan_chunk_header").ordered("cpu", "records", "drops")
# The "probes" source's record (struct chan_probe_record).
PROBE_RECORD = layout("chan_probe_record")
STREAM_TOTALS = layout("chan_stream_totals")
# The "bench" source's records (struct chan_bench_record; host/scionhost/bench.py).
BENCH_NAME_MAX, BENCH_UNIT_MAX = C.CHAN_BENCH_NAME_MAX, C.CHAN_BENCH_UNIT_MAX
BENCH_FIGURE, BENCH_CONFIG, BENCH_SKIPPED = (C.CHAN_BENCH_FIGURE, C.CHAN_BENCH_CONFIG,
                                             C.CHAN_BENCH_SKIPPED)
# EXEC (host/scionhost/execute.py): its flags and limits, how a process ended.
EXEC_SUSPENDED, EXEC_DETACH = C.CHAN_EXEC_SUSPENDED, C.CHAN_EXEC_DETACH
EXEC_MAX_ARGS, EXEC_ARGS_BYTES = C.CHAN_EXEC_MAX_ARGS, C.CHAN_EXEC_ARGS_BYTES
EXEC_EXITED, EXEC_KILLED = C.CHAN_EXEC_EXITED, C.CHAN_EXEC_KILLED

# Why a receiver rejects a frame (enum chan_reject), in the order the header lists them.
BAD_HEADER_CRC = "bad header CRC"
BAD_VERSION = "bad version"
OVERSIZED = "oversized"
BAD_PAYLOAD_CRC = "bad payload CRC"
UNKNOWN_TYPE = "unknown type"
TRUNCATED = "truncated"
REJECT_CODES = {BAD_HEADER_CRC: C.CHAN_REJECT_BAD_HEADER_CRC,
                BAD_VERSION: C.CHAN_REJECT_BAD_VERSION, OVERSIZED: C.CHAN_REJECT_OVERSIZED,
                BAD_PAYLOAD_CRC: C.CHAN_REJECT_BAD_PAYLOAD_CRC,
                UNKNOWN_TYPE: C.CHAN_REJECT_UNKNOWN_TYPE, TRUNCATED: C.CHAN_REJECT_TRUNCATED}
REJECT_REASONS = tuple(sorted(REJECT_CODES, key=REJECT_CODES.get))

# kernel/include/scion/errno.h: statuses are 0 or minus one of these.
ERRNO_NAMES = {value: name for name, value in C.by_header["errno.h"].items()}

_HEADER = layout("chan_frame_header").struct   # magic0, magic1, version, type, seq, length, crc
_TRAILER = layout("chan_frame_trailer").ordered("crc")     # the payload's CRC
_RESPONSE_HEADER = layout("chan_response_header").ordered("status")   # RESPONSE and ERROR
_DATA_HEADER = layout("chan_data_header").ordered("stream")

Frame = namedtuple("Frame", "type seq payload")


class FrameError(ValueError):
    """A payload too short or malformed for its frame type."""


def crc32(data):
    """The zlib / ISO-HDLC CRC-32 both ends use."""
    return zlib.crc32(data) & 0xFFFFFFFF


def errno_name(status):
    """'EINVAL' for -22, 'OK' for 0 or more, 'E?' for an unknown code."""
    return "OK" if status >= 0 else ERRNO_NAMES.get(-status, "E?")


def encode_header(frame_type, seq, length, version=VERSION):
    """The 16 header bytes with a correct header CRC. version and length
    are not checked, so tests can build frames a receiver must refuse."""
    head = _HEADER.pack(MAGIC0, MAGIC1, version, frame_type, seq, length, 0)[:12]
    return head + _TRAILER.pack(crc32(head))


def encode(frame_type, seq, payload, version=VERSION):
    """One whole frame: header, payload, payload CRC."""
    payload = bytes(payload)
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(payload)} bytes; a frame carries at most "
                         f"{MAX_PAYLOAD}")
    return encode_header(frame_type, seq, len(payload), version) + payload + \
        _TRAILER.pack(crc32(payload))


_REQUEST_HEADER = layout("chan_request_header")


def encode_request(seq, op, body=b""):
    return encode(REQUEST, seq, _REQUEST_HEADER.pack(op=op) + bytes(body))


def encode_hello(seq, host_version):
    return encode(HELLO, seq, host_version.encode())


def decode_request(payload):
    """REQUEST payload -> (op, body)."""
    if len(payload) < REQUEST_HEADER_BYTES:
        raise FrameError(f"REQUEST payload of {len(payload)} bytes has no op")
    return _REQUEST_HEADER.unpack(payload)["op"], bytes(payload[REQUEST_HEADER_BYTES:])


def encode_status(status, body=b""):
    """A RESPONSE or ERROR payload: status, then body (what a kernel sends; tests)."""
    return _RESPONSE_HEADER.pack(status) + bytes(body)


def encode_data(stream, data):
    """A DATA payload: the stream id, then the bytes (what a kernel sends; tests)."""
    return _DATA_HEADER.pack(stream) + bytes(data)


def decode_status(payload):
    """RESPONSE or ERROR payload -> (status, body)."""
    if len(payload) < _RESPONSE_HEADER.size:
        raise FrameError(f"payload of {len(payload)} bytes has no status")
    return _RESPONSE_HEADER.unpack_from(payload)[0], bytes(payload[_RESPONSE_HEADER.size:])


def decode_data(payload):
    """DATA payload -> (stream, bytes)."""
    if len(payload) < _DATA_HEADER.size:
        raise FrameError(f"DATA payload of {len(payload)} bytes has no stream number")
    return _DATA_HEADER.unpack_from(payload)[0], bytes(payload[_DATA_HEADER.size:])


def decode_struct(lay, body, what, exact=True):
    """An answer body that is (or, exact=False, starts with) struct lay.name -> {member:
    value}; FrameError naming what when it is not."""
    if len(body) < lay.size or (exact and len(body) != lay.size):
        raise FrameError(f"malformed {what} answer of {len(body)} bytes, where a struct "
                         f"{lay.name} is {lay.size}")
    return lay.unpack(body)


def decode_chunk(data):
    """A stream's DATA bytes (after the stream id) -> (cpu, records, drops, body)."""
    if len(data) < CHUNK_HEADER.size:
        raise FrameError(f"stream chunk of {len(data)} bytes has no {CHUNK_HEADER.size}-byte header")
    cpu, records, drops = CHUNK_HEADER.unpack_from(data)
    return cpu, records, drops, bytes(data[CHUNK_HEADER.size:])


def decode_probe_records(body, count):
    """A "probes" chunk body holding count records -> a list of dicts."""
    if len(body) != count * PROBE_RECORD.size:
        raise FrameError(f"probe chunk of {len(body)} bytes cannot hold the {count} records "
                         f"of {PROBE_RECORD.size} bytes its header announces")
    records = []
    for off in range(0, len(body), PROBE_RECORD.size):
        r = PROBE_RECORD.unpack(body, off)
        if r["size"] != PROBE_RECORD.size:
            raise FrameError(f"probe record at byte {off} says it is {r['size']} bytes, not "
                             f"{PROBE_RECORD.size}")
        records.append({"timestamp_ns": r["timestamp_ns"], "tid": r["tid"], "arg0": r["arg0"],
                        "probe": r["probe_id"], "cpu": r["cpu"]})
    return records


def decode_stream_totals(body):
    """STREAM_CLOSE's answer (struct chan_stream_totals) -> {name: count}."""
    if len(body) != STREAM_TOTALS.size:
        raise FrameError(f"stream totals of {len(body)} bytes, not {STREAM_TOTALS.size}")
    return STREAM_TOTALS.unpack(body)


def decode_event(payload):
    """EVENT payload "N MS TEXT" -> (number, uptime_ms, text)."""
    words = bytes(payload).decode("utf-8", "replace").rstrip("\n").split(" ", 2)
    if len(words) < 2 or not words[0].isdigit() or not words[1].isdigit():
        raise FrameError(f"EVENT payload {bytes(payload[:40])!r} is not 'N MS TEXT'")
    return int(words[0]), int(words[1]), words[2] if len(words) > 2 else ""


def decode_hello(payload):
    """The kernel's HELLO payload "VERSION\\nBUILD-INFO" -> (version, build_info)."""
    version, _, build_info = bytes(payload).decode("utf-8", "replace").partition("\n")
    return version, build_info


SYNC, MAGIC, HEADER, PAYLOAD = "SYNC", "MAGIC", "HEADER", "PAYLOAD"


class ReferenceParser:
    """The receiver of chan_proto.h, fed bytes in any chunks.

    accepted, rejected (all reasons), rejects[reason] and garbage_bytes
    count as the kernel does; rejections lists (reason, seq) in order,
    which is what the kernel's ERROR frames carry (seq 0 when the header
    CRC was wrong or never checked). feed() returns the frames accepted
    by that call. The kernel resets a receiver left mid-frame after
    IDLE_RESET_MS without a byte; idle() is that moment.
    """

    def __init__(self, accept_types=HOST_SENT_TYPES):
        self.accept_types = frozenset(accept_types)
        self.accepted = 0
        self.rejected = 0
        self.rejects = {reason: 0 for reason in REJECT_REASONS}
        self.garbage_bytes = 0
        self.rejections = []
        self.state = SYNC
        self._header = bytearray()
        self._body = bytearray()    # payload and its CRC
        self._type = self._seq = self._length = 0

    @property
    def mid_frame(self):
        return self.state != SYNC

    def feed(self, data):
        data = bytes(data)
        frames = []
        i, n = 0, len(data)
        while i < n:
            if self.state == SYNC:
                # Whole runs of garbage at once: only MAGIC0 leaves SYNC.
                j = data.find(MAGIC0, i)
                if j < 0:
                    self.garbage_bytes += n - i
                    break
                self.garbage_bytes += j - i
                i = j + 1
                self.state = MAGIC
            elif self.state == MAGIC:
                byte = data[i]
                i += 1
                if byte == MAGIC1:
                    self._header = bytearray((MAGIC0, MAGIC1))
                    self.state = HEADER
                elif byte == MAGIC0:
                    self.garbage_bytes += 1     # the earlier MAGIC0; this one may start a frame
                else:
                    self.garbage_bytes += 2
                    self.state = SYNC
            elif self.state == HEADER:
                take = min(HEADER_BYTES - len(self._header), n - i)
                self._header += data[i:i + take]
                i += take
                if len(self._header) == HEADER_BYTES:
                    self._header_complete()
            else:
                take = min(self._length + CRC_BYTES - len(self._body), n - i)
                self._body += data[i:i + take]
                i += take
                if len(self._body) == self._length + CRC_BYTES:
                    frame = self._payload_complete()
                    if frame:
                        frames.append(frame)
        return frames

    def idle(self):
        """No byte for IDLE_RESET_MS: a partial frame is dropped as truncated
        (a lone magic byte is no frame yet: garbage)."""
        if self.state == MAGIC:
            self.garbage_bytes += 1
            self.state = SYNC
        elif self.state != SYNC:
            self._reject(TRUNCATED, self._seq if self.state == PAYLOAD else 0)

    def _header_complete(self):
        _m0, _m1, version, frame_type, seq, length, header_crc = _HEADER.unpack(self._header)
        if crc32(self._header[:12]) != header_crc:
            self._reject(BAD_HEADER_CRC, 0)
        elif version != VERSION:
            self._reject(BAD_VERSION, seq)
        elif length > MAX_PAYLOAD:
            self._reject(OVERSIZED, seq)
        else:
            self._type, self._seq, self._length = frame_type, seq, length
            self._body = bytearray()
            self.state = PAYLOAD

    def _payload_complete(self):
        payload = bytes(self._body[:self._length])
        (payload_crc,) = _TRAILER.unpack_from(self._body, self._length)
        if crc32(payload) != payload_crc:
            self._reject(BAD_PAYLOAD_CRC, self._seq)
        elif self._type not in self.accept_types:
            self._reject(UNKNOWN_TYPE, self._seq)
        else:
            self.accepted += 1
            self.state = SYNC
            return Frame(self._type, self._seq, payload)
        return None

    def _reject(self, reason, seq):
        self.rejected += 1
        self.rejects[reason] += 1
        self.rejections.append((reason, seq))
        self.state = SYNC
