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
 * Integers are little-endian; CRC-32 is the zlib / ISO-HDLC one. A
 * big-endian kernel converts the structures below at the points they
 * are sent and read (scion/chan_wire.h, which says what is not yet).
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
	CHAN_REQUEST = 2,	/* host: struct chan_request_header, body */
	CHAN_RESPONSE = 3,	/* kernel: struct chan_response_header, body */
	CHAN_ERROR = 4,		/* kernel: struct chan_response_header (-errno), one line */
	CHAN_EVENT = 5,		/* kernel: one line of text, unasked */
	CHAN_DATA = 6,		/* kernel: struct chan_data_header, bytes (bulk data) */
	CHAN_TYPE_LIMIT,
};

/*
 * Requests. Every request body and answer body of a fixed form is a
 * structure below (or in scion/chan_reply.h, the reports of the
 * kernel's state); the kernel's parsers read those structures and the
 * host's are generated from them. The text some ops answer with
 * (SHELL's output, GRAFT_LOAD's line, error messages) is for people and
 * is printed, never parsed.
 */
enum chan_op {
	CHAN_OP_STATUS = 1,	/* -> struct chan_status */
	CHAN_OP_SHELL = 2,	/* command line -> status, the command's output */
	CHAN_OP_GRAFT_LOAD = 3,	/* file name, NUL, ELF image -> the loader's one line */
	CHAN_OP_ECHO = 4,	/* bytes -> the same bytes */
	CHAN_OP_BULK = 5,	/* struct chan_bulk_request -> DATA frames of that many bytes
				   in all on stream 0, then struct chan_bulk_reply */
	CHAN_OP_STATS = 6,	/* -> struct chan_channel_stats: the channel's counters */
	CHAN_OP_STREAM_OPEN = 7,	/* "SOURCE BUFSIZE SWITCH_MS [ARGS]" -> struct
					   chan_stream_open_reply; then DATA chunks on the stream */
	CHAN_OP_STREAM_CLOSE = 8,	/* struct chan_stream_close_request -> the last chunks,
					   then struct chan_stream_totals */
	CHAN_OP_TRACE_START = 9,	/* struct chan_trace_start_request (a trace object,
					   scion/dof.h, after it) -> struct chan_trace_start_reply;
					   then DATA chunks on the stream; STREAM_CLOSE ends it */
	CHAN_OP_REC_PUT = 10,	/* struct chan_rec_put_request, then bytes of that stream's
				   file -> struct chan_rec_put_reply */
	CHAN_OP_REC_GET = 11,	/* struct chan_rec_get_request -> struct chan_rec_get_reply
				   (the stream file's size), then its bytes from offset */
	CHAN_OP_GRAFT_LOAD_TRUSTED = 12,	/* as GRAFT_LOAD, loaded without the sandbox's
					   verifier (kernel/graft/graft.c: trusted mode) */
	CHAN_OP_SYMBOLIZE = 13,	/* n x struct chan_sym_request -> n x struct
				   chan_sym_record naming each (below) */
	CHAN_OP_PROBE_LIST = 14,	/* struct chan_list_request, then a probe spec (text, may
					   be empty: all) -> a list of struct chan_probe_info */
	CHAN_OP_GRAFT_LIST = 15,	/* struct chan_list_request -> a list of struct
					   chan_graft_info */
	CHAN_OP_METRICS = 16,	/* struct chan_list_request -> a list of struct chan_metric_info */
	CHAN_OP_EVENTS = 17,	/* struct chan_list_request (start: the last event number
				   seen) -> a list of struct chan_event_info */
	CHAN_OP_MONITOR = 18,	/* struct monitor_ctl_request (scion/monitor_rec.h) ->
				   struct monitor_ctl_status */
	CHAN_OP_PROFILE_CONFIG = 19,	/* a profile configuration file (scion/profile_config.h)
					   -> one line saying what was loaded */
	CHAN_OP_EXEC = 20,	/* struct chan_exec_request, then argv -> struct chan_exec_reply;
				   then the program's output and its end on the reply's stream */
	CHAN_OP_EXEC_RESUME = 21,	/* struct chan_exec_resume_request -> status 0: start a
					   process EXEC created suspended */
	CHAN_OP_SIGNAL = 22,	/* struct chan_signal_request -> status 0, or -ESRCH (no live
				   process), -EINVAL: kill(2) of one process (sig 0: is it alive) */
	CHAN_OP_METRIC_ADD = 23,	/* struct chan_metric_add_request (scion/chan_reply.h) ->
					   struct chan_metric_add_reply: a KernInst metric set up */
	CHAN_OP_METRIC_REMOVE = 24,	/* struct chan_metric_remove_request -> status 0, or
					   -ENOENT: one metric (id) or all (id 0) removed */
	CHAN_OP_ADAPT_DECISIONS = 25,	/* struct chan_list_request (start: a decision number;
					   N - 1 for decision N) -> a list of struct
					   chan_adapt_decision (scion/chan_reply.h) */
	CHAN_OP_ADAPT_ROWS = 26,	/* struct chan_list_request (start: N * CHAN_ADAPT_ROW_KEYS
					   for decision N's) -> a list of struct chan_adapt_row */
	CHAN_OP_TRACE_ANON = 27,	/* struct chan_trace_start_request (no object: the
					   anonymous session's) -> struct chan_trace_start_reply,
					   the EPIDs, then the program's dtc JSON; DATA chunks on the
					   stream as TRACE_START's; STREAM_CLOSE ends it (scion trace -a) */
	CHAN_OP_COVERAGE_START = 28,	/* the function globs, text -> struct chan_coverage_summary
					   (scion coverage; scion/coverage.h) */
	CHAN_OP_COVERAGE_STOP = 29,	/* -> struct chan_coverage_summary, the run stopped */
	CHAN_OP_COVERAGE_BLOCKS = 30,	/* struct chan_list_request -> a list of struct
					   chan_coverage_block, the last run's, by address */
	CHAN_OP_CODEADAPT_LOAD = 31,	/* struct chan_codeadapt_load_request, then an ELF object
					   -> status: the adaptation's id or -errno; one line */
	CHAN_OP_CODEADAPT_LIST = 32,	/* struct chan_list_request -> a list of struct
					   chan_codeadapt_info (scion/codeadapt.h) */
	CHAN_OP_CODEADAPT_REMOVE = 33,	/* struct chan_codeadapt_remove_request -> status 0, or
					   -ENOENT */
	CHAN_OP_CODEADAPT_OUTLINE = 34,	/* struct chan_codeadapt_outline_request -> struct
					   chan_codeadapt_outline_reply (scion/outline.h) */
	CHAN_OP_LIMIT,
};

/* BULK: a transfer test of the guest -> host path (`scion bulk`). */
struct chan_bulk_request {
	uint32_t bytes;			/* DATA bytes to send on stream 0, in all */
};
struct chan_bulk_reply {
	uint64_t cycles;		/* the kernel's cycles from the first DATA frame to the last */
};

/*
 * SYMBOLIZE (kernel/sym/symbolize.c): up to CHAN_SYM_MAX_ADDRESSES
 * requests, answered by one record each, in order.
 */
#define CHAN_SYM_RETURN_ADDRESS 1	/* flags: look the address up by the byte before it */
#define CHAN_SYM_MAX_ADDRESSES  256
#define CHAN_SYM_NAME_MAX       64

struct chan_sym_request {
	uint64_t address;
	uint64_t flags;			/* CHAN_SYM_* */
};
_Static_assert(sizeof(struct chan_sym_request) == 16, "symbolize request changed");

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
 * buffer holds records or counted drops, one DATA frame: struct
 * chan_data_header (the stream id), then this chunk header, then the
 * records (each starts on an 8-byte boundary; their layout is the
 * source's). A HELLO closes the streams of the previous session.
 *
 * STREAM_OPEN's request is text, "SOURCE BUFSIZE SWITCH_MS [ARGS]":
 * BUFSIZE bytes per CPU buffer (at most CHAN_STREAM_MAX_BUF, a multiple
 * of 8), SWITCH_MS between CHAN_STREAM_SWITCH_MIN_MS and _MAX_MS.
 *
 * EVENT frames (seq 0) carry "N MS TEXT": the event's number (1, 2, ...;
 * a gap means events were lost), uptime in ms, one line of text.
 */
#define CHAN_CHUNK_HEADER_BYTES 16
#define CHAN_STREAM_MAX_BUF 131072	/* bytes per CPU buffer a stream may ask for */
#define CHAN_STREAM_SWITCH_MIN_MS 10
#define CHAN_STREAM_SWITCH_MAX_MS 60000

struct chan_chunk_header {
	uint32_t cpu;			/* a CPU, or CHAN_CHUNK_AGG | cpu, or CHAN_CHUNK_STATUS */
	uint32_t records;		/* records in the chunk */
	uint64_t drops;			/* records dropped in the period */
};
_Static_assert(sizeof(struct chan_chunk_header) == CHAN_CHUNK_HEADER_BYTES, "chunk header changed");

struct chan_stream_open_reply {
	uint32_t stream;		/* the id its DATA frames carry (1, 2, ...) */
	uint32_t cpus;			/* CPUs whose buffers it has */
	uint32_t bufsize;		/* bytes per CPU buffer */
};

struct chan_stream_close_request {
	uint32_t stream;
};

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

/*
 * The "bench" source (kernel/test/bench_stream.c; the benchmarks are the
 * test kernel's, tests/kernel/bench_*.c): ARGS selects benchmarks as the
 * shell's `bench` does (empty: all). Opening it starts a thread that
 * holds the channel (channel_hold: neither of its threads runs while a
 * benchmark measures) and runs them; each figure is one record. When
 * the run is over the stream sends one status chunk (CHAN_CHUNK_STATUS,
 * struct chan_bench_status) and the host closes the stream.
 */
#define CHAN_BENCH_NAME_MAX 64
#define CHAN_BENCH_UNIT_MAX 24

enum chan_bench_kind {
	CHAN_BENCH_FIGURE = 1,	/* a benchmark's figure: name, value, unit */
	CHAN_BENCH_CONFIG = 2,	/* the run's configuration: name (cpus, cycles_per_second), value */
	CHAN_BENCH_SKIPPED = 3,	/* name: a benchmark that did not run; value: the CPUs it needs */
};

struct chan_bench_record {
	uint64_t value;
	uint32_t seq;			/* 1, 2, ...: the order they were reported in */
	uint16_t kind;			/* enum chan_bench_kind */
	uint16_t size;			/* the record's length */
	char name[CHAN_BENCH_NAME_MAX];	/* NUL-padded */
	char unit[CHAN_BENCH_UNIT_MAX];	/* what value counts ("cycles": the cycle counter's) */
};
_Static_assert(sizeof(struct chan_bench_record) == 104, "bench record changed");

struct chan_bench_status {
	uint32_t ran;			/* benchmarks run */
	uint32_t records;		/* records written: the host checks it got them all */
	int32_t status;			/* 0; -ENOENT: none ran; -EINTR: the stream closed first */
	uint32_t reserved;
};

/*
 * TRACE_START (kernel/trace/trace_stream.c): the session's buffers and
 * switch interval, then the trace object; the answer names the stream
 * and, for each EPID (its index + 1), the clause and the probe.
 */
struct chan_trace_start_request {
	uint32_t bufsize;		/* per CPU buffer; 0: the kernel's default */
	uint32_t switch_ms;
	uint8_t object[];		/* the trace object (scion/dof.h), to the end */
};

struct chan_trace_epid {
	uint32_t clause;
	uint32_t probe_id;
};

struct chan_trace_start_reply {
	uint32_t stream;
	uint32_t cpus;
	uint32_t nepids;
	struct chan_trace_epid epids[];	/* nepids of them */
};

/*
 * REC_PUT and REC_GET (kernel/record/transfer.c): a recording's stream
 * files (scion/recfmt.h) to and from the kernel's store.
 */
#define CHAN_REC_PUT_FINISH 1		/* flags: the upload is complete after this data */

struct chan_rec_put_request {
	uint32_t rec;			/* 0: a new upload; else the upload in progress */
	uint16_t stream;		/* enum rec_stream: 1 trace, 2 log */
	uint16_t flags;			/* CHAN_REC_PUT_* */
	uint8_t data[];			/* the next bytes of that stream's file */
};

struct chan_rec_put_reply {
	uint32_t rec;			/* the upload's (and then the recording's) number */
};

struct chan_rec_get_request {
	uint32_t rec;
	uint16_t stream;		/* enum rec_stream */
	uint16_t reserved;		/* 0 */
	uint64_t offset;		/* into the stream file */
	uint32_t max;			/* bytes wanted at most */
	uint32_t reserved2;		/* 0 */
};
_Static_assert(sizeof(struct chan_rec_get_request) == 24, "REC_GET request changed");

struct chan_rec_get_reply {
	uint64_t size;			/* the whole stream file's */
	uint8_t data[];			/* its bytes from offset, as many as fit */
};

/*
 * EXEC and EXEC_RESUME (kernel/proc/exec_op.c): run a program of the
 * boot archive as a process of the kernel's (`scion exec`). argv[0]
 * names the program ("hello" or "/hello"); its stdin reads end of file,
 * its stdout and stderr go to the host: the reply names a stream whose
 * DATA chunks (cpu field 0) hold struct chan_exec_output records, each
 * followed by the bytes of one write (or a piece of one) and padding to
 * 8 bytes, in the order they were written; writers wait while the
 * kernel's buffer is full, so nothing is dropped. Once the process has
 * ended and its output has been sent, one status chunk
 * (CHAN_CHUNK_STATUS) holds struct chan_exec_status; the host then
 * closes the stream. Closing it earlier (or a new session) leaves the
 * process running with its output discarded (a suspended one is
 * killed). CHAN_EXEC_DETACH: no stream (stream 0), output discarded,
 * nobody waits. CHAN_EXEC_SUSPENDED: the process is made but does not
 * run until EXEC_RESUME names it (`scion trace -c` enables its probes
 * in between).
 */
#define CHAN_EXEC_SUSPENDED  1		/* flags: made stopped; EXEC_RESUME starts it */
#define CHAN_EXEC_DETACH     2		/* flags: no stream; output discarded, not waited for */
#define CHAN_EXEC_MAX_ARGS   32		/* argv strings, argv[0] included */
#define CHAN_EXEC_ARGS_BYTES 4096	/* argv strings in all, NULs included */

struct chan_exec_request {
	uint32_t flags;			/* CHAN_EXEC_* */
	uint32_t argc;			/* 1 .. CHAN_EXEC_MAX_ARGS */
	uint32_t switch_ms;		/* how often output goes out; 0: the kernel's default */
	uint32_t reserved;		/* 0 */
	uint8_t argv[];			/* argc NUL-terminated strings, nothing after them */
};
_Static_assert(sizeof(struct chan_exec_request) == 16, "EXEC request changed");

struct chan_exec_reply {
	int32_t pid;
	uint32_t stream;		/* the output's stream; 0 with CHAN_EXEC_DETACH */
};

struct chan_exec_output {		/* one record of the output stream */
	uint32_t bytes;			/* of output after this header */
	uint16_t fd;			/* 1 (stdout) or 2 (stderr) */
	uint16_t size;			/* the record's length: header, bytes, padding to 8 */
};
_Static_assert(sizeof(struct chan_exec_output) == 8, "EXEC output record changed");

enum chan_exec_end {
	CHAN_EXEC_EXITED = 1,		/* code: its exit status */
	CHAN_EXEC_KILLED = 2,		/* code: the signal that ended it */
};

struct chan_exec_status {		/* the status chunk: how the process ended */
	int32_t pid;
	int32_t wait_status;		/* as Linux's wait4 reports it */
	uint32_t how;			/* enum chan_exec_end */
	uint32_t code;			/* the exit status or the signal */
	uint64_t output_bytes;		/* output bytes sent before it, in all */
};

struct chan_exec_resume_request {
	int32_t pid;
	uint32_t reserved;		/* 0 */
};

/* SIGNAL: a signal to a process, as the shell's `kill` sends it (`scion exec`'s Ctrl-C). */
struct chan_signal_request {
	int32_t pid;
	int32_t sig;			/* 1 .. 64, or 0: only check that the process lives */
};

/* The frame's payload starts, by type, with one of these. */
#define CHAN_REQUEST_HEADER_BYTES 4	/* u16 op, u16 reserved (0) */
#define CHAN_STATUS_BYTES         4	/* i32 at the start of RESPONSE and ERROR */

struct chan_request_header {
	uint16_t op;			/* enum chan_op */
	uint16_t reserved;		/* 0 */
};
_Static_assert(sizeof(struct chan_request_header) == CHAN_REQUEST_HEADER_BYTES, "request changed");

struct chan_response_header {		/* RESPONSE and ERROR */
	int32_t status;			/* 0 (or more), or -errno */
};
_Static_assert(sizeof(struct chan_response_header) == CHAN_STATUS_BYTES, "response changed");

struct chan_data_header {		/* DATA */
	uint32_t stream;		/* 0: BULK's; else a stream's id (a chunk header follows) */
};

/* What follows every payload (or the header, when the payload is empty). */
struct chan_frame_trailer {
	uint32_t crc;			/* CRC-32 of the payload */
};
_Static_assert(sizeof(struct chan_frame_trailer) == CHAN_CRC_BYTES, "frame trailer changed");

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
