/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Recordings of a module's boundaries (VINO self-monitoring): the
 * *trace* holds what came in (requests), the *log* what went out
 * (results). This is their format, on the wire (the "record" stream
 * source), in files on the host (trace.bin, log.bin) and in recordings
 * kept in the kernel; shared by the kernel (kernel/record/,
 * kernel/insitu/), the host simulator (sim/) and, spelled in Python,
 * host/scionhost/recfmt.py: change them together.
 *
 * A file is one header followed by records in sequence order. Every
 * record starts with u16 size (bytes, a multiple of 8, including this
 * head) and u16 type, so a reader can step over a type it does not
 * know and can tell a truncated file from a complete one. Integers are
 * little-endian.
 *
 * A log written by a simulation has the same format as one recorded
 * live; its latencies come from the device-latency model instead of
 * the clock (kernel/insitu/bcache_replay.c says how).
 */
#ifndef SCION_RECFMT_H
#define SCION_RECFMT_H

#include <stdint.h>

#define REC_MAGIC          "SCIONREC"	/* 8 bytes, no NUL */
#define REC_VERSION        1
#define REC_MODULE_MAX     16
#define REC_POLICY_MAX     48
#define REC_CONFIG_WORDS   4

enum rec_stream {
	REC_STREAM_TRACE = 1,	/* the module's inputs */
	REC_STREAM_LOG = 2,	/* its outputs */
};

struct rec_file_header {
	char magic[8];			/* REC_MAGIC */
	uint16_t version;		/* REC_VERSION */
	uint16_t stream;		/* enum rec_stream */
	uint32_t header_bytes;		/* sizeof(struct rec_file_header) */
	char module[REC_MODULE_MAX];	/* "bcache", NUL-padded */
	char policy[REC_POLICY_MAX];	/* the policies in force: "evict=lru readahead=sequential" */
	uint64_t config[REC_CONFIG_WORDS];	/* the module's configuration (bcache: below) */
	uint64_t records;		/* records that follow */
	uint64_t drops;			/* records lost while recording (then the file is incomplete) */
};
_Static_assert(sizeof(struct rec_file_header) == 128, "recording header layout changed");

/* bcache's configuration words. */
#define REC_BCACHE_CONFIG_BUFFERS 0	/* buffers in use */
#define REC_BCACHE_CONFIG_BLOCKS  1	/* blocks on the disk */

/* sched's configuration words. */
#define REC_SCHED_CONFIG_CPUS  0	/* CPUs online */
#define REC_SCHED_CONFIG_HZ    1	/* timer ticks per second */
#define REC_SCHED_CONFIG_SLICE 2	/* the default sched.tick's slice, in ticks */

/* Every record's first word; its second is the sequence number the module gave it. */
struct rec_head {
	uint16_t size;			/* bytes, a multiple of 8, this head included */
	uint16_t type;			/* enum rec_type */
	uint32_t cpu;			/* the CPU that wrote it (0 in a simulated log, but
					   a followed sched log's: the decision's CPU) */
};

/* What every record starts with: its head, then the sequence number the module gave it. */
struct rec_common {
	struct rec_head head;
	uint64_t seq;
};

/* A record's sequence number: every record's second word. */
static inline uint64_t rec_seq(const struct rec_head *h)
{
	return ((const struct rec_common *)h)->seq;
}

enum rec_type {
	REC_BCACHE_REQUEST = 1,		/* trace: struct rec_bcache_request */
	REC_BCACHE_RESULT = 2,		/* log: struct rec_bcache_result */
	REC_SCHED_EVENT = 3,		/* trace: struct rec_sched_event */
	REC_SCHED_PICK = 4,		/* log: struct rec_sched_pick */
	REC_POINT_CALL = 16,		/* trace: struct rec_point_call */
	REC_POINT_DONE = 17,		/* log: struct rec_point_done */
};

/* The stream a record type belongs to: its log or its trace. */
static inline enum rec_stream rec_type_stream(unsigned type)
{
	return type == REC_BCACHE_RESULT || type == REC_SCHED_PICK || type == REC_POINT_DONE
		? REC_STREAM_LOG : REC_STREAM_TRACE;
}

/*
 * Any graft point can be recorded on its own (`record start POINT`):
 * module "point", the header's policy "point=NAME graft=NAME|default";
 * the trace holds each invocation's arguments, the log how it ended.
 */
#define REC_POINT_MODULE "point"

struct rec_point_call {
	struct rec_head head;
	uint64_t seq;			/* 1, 2, ... from the start of the recording */
	uint64_t time_ns;		/* kernel clock at the call */
	uint64_t tid;
	uint64_t args[6];		/* the argument words as the dispatcher got them */
};
_Static_assert(sizeof(struct rec_point_call) == 80, "point call record changed");

struct rec_point_done {
	struct rec_head head;
	uint64_t seq;			/* its call's */
	uint64_t time_ns;		/* kernel clock when it ended */
	uint64_t result;		/* masked to the point's result width; 0 for an event */
	uint32_t outcome;		/* enum graft_outcome: 1 default, 2 committed, 3 aborted */
	uint32_t reserved;
};
_Static_assert(sizeof(struct rec_point_done) == 40, "point done record changed");

/*
 * bcache's input: one demand read or write (graft point bcache.request).
 * flags took the high half of what was a 64-bit in_flight (never above
 * BCACHE_MAX_BUFFERS), so a trace recorded before writes reads as reads.
 */
struct rec_bcache_request {
	struct rec_head head;
	uint64_t seq;			/* 1, 2, ... after each `bcache reset` */
	uint64_t time_ns;		/* kernel clock at admission */
	uint64_t tid;			/* the reading or writing thread */
	uint64_t pid;			/* the requesting thread's process, 0 a kernel thread */
	uint64_t block;
	uint32_t in_flight;		/* disk reads in flight at admission */
	uint32_t flags;			/* BCACHE_REQ_*: 0 a read; _WRITE, with _SYNC, _WHOLE */
};
_Static_assert(sizeof(struct rec_bcache_request) == 56, "bcache request record changed");

struct rec_bcache_prefetch {
	uint64_t block;
	uint64_t victim;		/* evicted to make room, or BCACHE_NO_BLOCK */
	uint32_t fate;			/* BCACHE_PREFETCH_* */
	uint32_t reserved;
};

/* bcache's output: what became of one demand read or write (graft point bcache.result). */
struct rec_bcache_result {
	struct rec_head head;
	uint64_t seq;			/* the request's */
	uint8_t outcome;		/* BCACHE_OUTCOME_* */
	uint8_t nprefetch;		/* entries of prefetch[] that follow */
	uint16_t flags;			/* the request's BCACHE_REQ_* (0 in a log made before writes) */
	uint32_t disk_reads;		/* demand reads it sent to the disk (struct bcache_result) */
	uint64_t block;
	uint64_t victim;		/* evicted for a miss, or BCACHE_NO_BLOCK */
	uint64_t latency_ns;		/* measured live; modelled in a simulated log */
	struct rec_bcache_prefetch prefetch[];	/* the read-ahead plan, in order */
};
_Static_assert(sizeof(struct rec_bcache_result) == 48, "bcache result record changed");

#define REC_BCACHE_RESULT_BYTES(n) (sizeof(struct rec_bcache_result) + \
				    (n) * sizeof(struct rec_bcache_prefetch))

/*
 * sched's input: what a thread did (graft point sched.event). The CPU it
 * happened on is the head's.
 */
struct rec_sched_event {
	struct rec_head head;
	uint64_t seq;			/* events and picks together, from 1 at boot */
	uint64_t tick;			/* clock_ticks() */
	uint64_t time_ns;		/* kernel clock */
	uint64_t tid;
	uint32_t kind;			/* SCHED_EVENT_* */
	int32_t affinity;		/* the thread's: a CPU index, or -1 for any */
};
_Static_assert(sizeof(struct rec_sched_event) == 48, "sched event record changed");

/*
 * A recording of the scheduler begins with the scheduler's state
 * (kernel/sched/record_sched.c writes it under sched_lock, before any
 * other record, numbered like the events that follow): a record per
 * thread that exists, of the kinds below, each a struct rec_sched_state
 * (type REC_SCHED_EVENT, 72 bytes: an event with the counters policies
 * read after it). First the thread running on each CPU (head.cpu), in
 * CPU order, then the queued threads in queue order, then the sleeping
 * ones. These kinds are never fired at sched.event, whose kinds are
 * graft/sched.h's SCHED_EVENT_RUNNABLE .. SCHED_EVENT_YIELD (1 .. 5).
 */
#define SCHED_EVENT_QUEUED   6	/* on the run queue when the recording began */
#define SCHED_EVENT_RUNNING  7	/* running on head.cpu when the recording began */
#define SCHED_EVENT_SLEEPING 8	/* blocked when the recording began */

struct rec_sched_state {
	struct rec_sched_event event;	/* kind SCHED_EVENT_QUEUED, _RUNNING or _SLEEPING */
	uint64_t ticks_run;		/* its entity's (scion/runq.h), as policies read them */
	uint64_t switches_in;
	int32_t slice;
	uint32_t reserved;
};
_Static_assert(sizeof(struct rec_sched_state) == 72, "sched state record changed");

/* Whether kind is one of a recording's start-state kinds (a rec_sched_state). */
static inline int rec_sched_kind_is_state(uint32_t kind)
{
	return kind >= SCHED_EVENT_QUEUED && kind <= SCHED_EVENT_SLEEPING;
}

/* sched's output: one decision of the pick-next policy (graft point sched.pick). */
struct rec_sched_pick {
	struct rec_head head;
	uint64_t seq;			/* as the events' (an open-loop simulated log: 1, 2,
					   ... of its own; a followed one: the recorded pick's) */
	uint64_t tick;			/* clock_ticks(); in an open-loop simulated log the
					   model's tick, in a followed one the recorded pick's */
	uint64_t tid;			/* chosen, 0 for the idle thread */
	uint64_t prev;			/* the thread that was running there, 0 for idle */
	uint32_t cpu;			/* the CPU it was made for */
	uint32_t queued;		/* threads queued when the policy was asked */
};
_Static_assert(sizeof(struct rec_sched_pick) == 48, "sched pick record changed");

#endif
