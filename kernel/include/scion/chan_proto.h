/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control channel's wire format, shared by the kernel
 * (kernel/channel/) and the host command (host/scion). This header
 * and scion/chan_reply.h (the structured replies) are the only
 * statement of it: the build generates the host's description of every
 * constant and structure here (tools/gen_layouts.py), and
 * tests/integration/test_layouts.py checks the two agree.
 *
 * A frame is a 16-byte header, the payload, and the payload's CRC:
 *
 *   0  u8   magic 0xac          8  u32  payload length (<= CHAN_MAX_PAYLOAD)
 *   1  u8   magic 0x5c         12  u32  CRC-32 of bytes 0..11
 *   2  u8   version (1)        16  ...  payload
 *   3  u8   type                    u32  CRC-32 of the payload (present, 0 bytes or not)
 *   4  u32  sequence number
 *
 * Integers are little-endian; CRC-32 is the zlib / ISO-HDLC one.
 *
 * The host sends HELLO, then REQUESTs; the kernel answers each with a
 * RESPONSE (or ERROR) carrying the same sequence number, and sends
 * EVENT and DATA frames of its own. A frame the kernel cannot accept is
 * answered with an ERROR naming why (its sequence number when the header
 * was sound, else 0) and counted as rejected; the receiver then hunts for
 * the next magic, so the stream resynchronises.
 *
 * The receiver, byte by byte (the host's reference parser follows the
 * same rules, so a test can predict the kernel's counts exactly):
 *   SYNC     0xac -> MAGIC; any other byte is a garbage byte.
 *   MAGIC    0x5c -> HEADER; 0xac: the previous byte was garbage, stay;
 *            else both bytes were garbage -> SYNC.
 *   HEADER   collect 16 bytes, then in this order: CRC wrong -> reject
 *            "bad header CRC"; version not 1 -> reject "bad version";
 *            length > CHAN_MAX_PAYLOAD -> reject "oversized"; each of
 *            these drops the 16 bytes and returns to SYNC (seq 0 in the
 *            error unless the CRC was right). Else -> PAYLOAD.
 *   PAYLOAD  collect length bytes, then the 4 CRC bytes; CRC wrong ->
 *            reject "bad payload CRC"; type not HELLO or REQUEST (what
 *            a host may send) -> reject "unknown type"; else the frame
 *            is accepted. -> SYNC.
 *   HEADER or PAYLOAD: no byte for CHAN_IDLE_RESET_MS -> reject
 *            "truncated", -> SYNC (a lone magic byte is garbage).
 * Accepted frames with a bad body (unknown op, a REQUEST before a
 * matching HELLO, ...) get an ERROR or an error RESPONSE too, but are
 * not counted as rejected frames.
 */
#ifndef SCION_CHAN_PROTO_H
#define SCION_CHAN_PROTO_H

#include <stdint.h>

#define CHAN_MAGIC0        0xac
#define CHAN_MAGIC1        0x5c
#define CHAN_VERSION       1
#define CHAN_HEADER_BYTES  16
#define CHAN_CRC_BYTES     4
#define CHAN_MAX_PAYLOAD   262144
#define CHAN_IDLE_RESET_MS 200

/* The 16-byte header (integers little-endian, as everywhere). */
struct chan_frame_header {
	uint8_t magic0, magic1;		/* CHAN_MAGIC0, CHAN_MAGIC1 */
	uint8_t version;		/* CHAN_VERSION */
	uint8_t type;			/* enum chan_frame_type */
	uint32_t seq;
	uint32_t length;		/* payload bytes */
	uint32_t crc;			/* CRC-32 of the 12 bytes before it */
};
_Static_assert(sizeof(struct chan_frame_header) == CHAN_HEADER_BYTES, "frame header changed");

/* Why a receiver rejects a frame, in the order the rules above check. */
enum chan_reject {
	CHAN_REJECT_NONE,
	CHAN_REJECT_BAD_HEADER_CRC,
	CHAN_REJECT_BAD_VERSION,
	CHAN_REJECT_OVERSIZED,
	CHAN_REJECT_BAD_PAYLOAD_CRC,
	CHAN_REJECT_UNKNOWN_TYPE,
	CHAN_REJECT_TRUNCATED,
	CHAN_REJECT_KINDS,
};

enum chan_frame_type {
	CHAN_HELLO = 1,		/* host: its build version; kernel: "VERSION\nBUILD-INFO" */
	CHAN_REQUEST = 2,	/* host: u16 op, u16 0, body */
	CHAN_RESPONSE = 3,	/* kernel: i32 status (0 or -errno), body */
	CHAN_ERROR = 4,		/* kernel: i32 -errno, one line of text */
	CHAN_EVENT = 5,		/* kernel: one line of text, unasked */
	CHAN_DATA = 6,		/* kernel: u32 stream, bytes (bulk data) */
	CHAN_TYPE_LIMIT,
};

/*
 * Requests. Ops that report the kernel's state answer in structured
 * records (scion/chan_reply.h says each one's form); the text some
 * other ops answer with (SHELL's output, GRAFT_LOAD's line, error
 * messages) is for people and is printed, never parsed.
 */
enum chan_op {
	CHAN_OP_STATUS = 1,	/* -> struct chan_status */
	CHAN_OP_SHELL = 2,	/* command line -> status, the command's output */
	CHAN_OP_GRAFT_LOAD = 3,	/* file name, NUL, ELF image -> the loader's one line */
	CHAN_OP_ECHO = 4,	/* bytes -> the same bytes */
	CHAN_OP_BULK = 5,	/* u32 n -> DATA frames of n bytes in all on stream 0, then u64 cycles */
	CHAN_OP_STATS = 6,	/* -> struct chan_channel_stats: the channel's counters */
	CHAN_OP_STREAM_OPEN = 7,	/* "SOURCE BUFSIZE SWITCH_MS [ARGS]" -> u32 id, u32 cpus,
					   u32 bufsize; then DATA chunks on stream id */
	CHAN_OP_STREAM_CLOSE = 8,	/* u32 id -> the last chunks, then struct
					   chan_stream_totals */
	CHAN_OP_TRACE_START = 9,	/* u32 bufsize, u32 switch_ms, a trace object (scion/dof.h)
					   -> u32 stream, u32 cpus, u32 nepids, nepids x
					   { u32 clause, u32 probe id } (EPID = index + 1);
					   then DATA chunks on the stream; STREAM_CLOSE ends it */
	CHAN_OP_REC_PUT = 10,	/* u32 rec (0: new), u16 stream (1 trace, 2 log), u16 flags
				   (1: finished), bytes of that stream's file -> u32 rec */
	CHAN_OP_REC_GET = 11,	/* u32 rec, u16 stream, u16 0, u64 offset, u32 max -> u64
				   the stream file's size, then its bytes from offset */
	CHAN_OP_GRAFT_LOAD_TRUSTED = 12,	/* as GRAFT_LOAD, loaded without the sandbox's
					   verifier (kernel/graft/graft.c: trusted mode) */
	CHAN_OP_SYMBOLIZE = 13,	/* n x { u64 address, u64 flags (CHAN_SYM_*) } -> n x struct
				   chan_sym_record naming each (below) */
	CHAN_OP_PROBE_LIST = 14,	/* struct chan_list_request, then a probe spec (text, may
					   be empty: all) -> a list of struct chan_probe_info */
	CHAN_OP_GRAFT_LIST = 15,	/* struct chan_list_request -> a list of struct
					   chan_graft_info */
	CHAN_OP_METRICS = 16,	/* struct chan_list_request -> a list of struct chan_metric_info */
	CHAN_OP_EVENTS = 17,	/* struct chan_list_request (start: the last event number
				   seen) -> a list of struct chan_event_info */
	CHAN_OP_LIMIT,
};

/*
 * SYMBOLIZE records (kernel/sym/symbolize.c), one per address asked:
 *
 * struct chan_sym_record.
 */
#define CHAN_SYM_RETURN_ADDRESS 1	/* flags: look the address up by the byte before it */
#define CHAN_SYM_MAX_ADDRESSES  256
#define CHAN_SYM_NAME_MAX       64

struct chan_sym_record {
	uint64_t start;			/* start of what holds the address (0: nothing known) */
	uint64_t offset;		/* the offset to print after the name (into the function;
					   for a probe patch, of the kernel instruction the patch
					   stands for) */
	uint16_t kind;			/* enum chan_sym_kind */
	uint16_t name_len;
	uint32_t reserved;
	char name[CHAN_SYM_NAME_MAX];	/* NUL-padded */
};
_Static_assert(sizeof(struct chan_sym_record) == 88, "symbolize record changed");

enum chan_sym_kind {
	CHAN_SYM_UNKNOWN = 0,
	CHAN_SYM_KERNEL = 1,	/* a kernel function */
	CHAN_SYM_PATCH = 2,	/* a probe patch: the function of the instruction it stands for */
	CHAN_SYM_GRAFT = 3,	/* a loaded graft's text: the graft's name */
};

/*
 * Streams. Every switch interval the kernel sends, for each CPU whose
 * buffer holds records or counted drops, one DATA frame: u32 stream id,
 * then this chunk header, then the records (each starts on an 8-byte
 * boundary; their layout is the source's). A HELLO closes the streams
 * of the previous session.
 *
 * struct chan_chunk_header.
 *
 * EVENT frames (seq 0) carry "N MS TEXT": the event's number (1, 2, ...;
 * a gap means events were lost), uptime in ms, one line of text.
 */
#define CHAN_CHUNK_HEADER_BYTES 16
#define CHAN_STREAM_MAX_BUF 131072	/* bytes per CPU buffer a stream may ask for */

struct chan_chunk_header {
	uint32_t cpu;			/* a CPU, or CHAN_CHUNK_AGG | cpu, or CHAN_CHUNK_STATUS */
	uint32_t records;		/* records in the chunk */
	uint64_t drops;			/* records dropped in the period */
};
_Static_assert(sizeof(struct chan_chunk_header) == CHAN_CHUNK_HEADER_BYTES, "chunk header changed");

/* What a stream sent over its life: STREAM_CLOSE's answer. */
struct chan_stream_totals {
	uint64_t bytes, records, drops, frames, switches;
};
#define CHAN_CHUNK_AGG    0x80000000u	/* cpu field: aggregation data of CPU (low bits) */
#define CHAN_CHUNK_STATUS 0xffffffffu	/* cpu field: a source's status, ends a snapshot */

/*
 * The "probes" source: ARGS is a probe spec (as `probe list` takes); one
 * record per firing of a matching probe, 32 bytes, little-endian.
 */
struct chan_probe_record {
	uint64_t timestamp_ns;	/* clock_ns() at the firing */
	uint64_t tid;		/* the thread that hit the probe */
	uint64_t arg0;		/* first argument register (a function's first argument at entry) */
	uint32_t probe_id;	/* as `probe list` numbers them */
	uint16_t cpu;
	uint16_t size;		/* 32: the record's length */
};

#define CHAN_REQUEST_HEADER_BYTES 4	/* u16 op, u16 reserved (0) */
#define CHAN_STATUS_BYTES         4	/* i32 at the start of RESPONSE and ERROR */

struct chan_request_header {
	uint16_t op;			/* enum chan_op */
	uint16_t reserved;		/* 0 */
};
_Static_assert(sizeof(struct chan_request_header) == CHAN_REQUEST_HEADER_BYTES, "request changed");

/* Little-endian integers of the wire format, bytes long (1 to 8). */
static inline void chan_put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t chan_get_le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

#endif
