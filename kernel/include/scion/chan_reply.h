/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control channel's structured replies: how the kernel reports its
 * state to the host (the ops of scion/chan_proto.h marked "->
 * struct ..."). The guest shell prints the same facts for people; the
 * host reads these records and never the shell's text.
 *
 * One form for all of them: fixed-size records of the structures
 * below, little-endian, naturally aligned (the sizes are asserted),
 * strings NUL-padded in fixed arrays (cut at the array's size). A
 * single report (STATUS, STATS) is one structure. A list (PROBE_LIST,
 * GRAFT_LIST, METRICS, EVENTS) is asked for with a struct
 * chan_list_request and answered with a struct chan_list_head followed
 * by head.count records of head.record_bytes bytes each, in key order;
 * one answer carries at most CHAN_LIST_PAGE_BYTES of records, and while
 * head.more is 1 the host asks again with start = head.next. A host
 * that finds a record size other than its own refuses the reply (the
 * handshake already refuses a kernel of another build). A malformed
 * request gets an ERROR with one line, like every other op.
 *
 * The host's description of these structures is generated from this
 * file (tools/gen_layouts.py); tests/integration/test_layouts.py checks
 * the generated offsets against the compiler's.
 */
#ifndef SCION_CHAN_REPLY_H
#define SCION_CHAN_REPLY_H

#include <stdint.h>
#include <scion/chan_proto.h>

#define CHAN_LIST_PAGE_BYTES  65536	/* bytes of records in one list answer, at most */
#define CHAN_TEXT_MAX         64	/* version and build strings */
#define CHAN_PROBE_NAME_MAX   192	/* provider:module:function:name */
#define CHAN_GRAFT_NAME_MAX   32
#define CHAN_POINT_NAME_MAX   32
#define CHAN_ABORT_TEXT_MAX   112
#define CHAN_FUNCTION_NAME_MAX 64
#define CHAN_EVENT_TEXT_MAX   160

/* STATUS: the kernel at a glance (`scion status`) and the probe totals (`stats`). */
struct chan_status {
	char version[CHAN_TEXT_MAX];	/* the build's version, as the handshake's */
	char build[CHAN_TEXT_MAX];	/* compiler and architecture */
	uint64_t uptime_ms;
	uint64_t memory_kib, memory_free_kib;
	uint64_t channel_frames_accepted, channel_frames_rejected;
	uint64_t cycles_per_second;	/* the cycle counter's rate (metrics are in cycles) */
	uint32_t cpus;
	uint32_t grafts_loaded, grafts_installed;
	uint32_t probes;		/* probes known */
	uint32_t probe_sites;		/* sites patched */
	uint32_t jump_sites, breakpoint_sites;	/* by mechanism */
	uint32_t reserved;
	uint64_t probe_installs, probe_removals, sync_rounds, jumps_refused;
};
_Static_assert(sizeof(struct chan_status) == 240, "chan_status changed");

/* STATS: the channel's counters (`channel` in the shell). */
struct chan_channel_stats {
	uint64_t frames_accepted, frames_rejected, garbage_bytes;
	uint64_t rejected[CHAN_REJECT_KINDS];	/* by enum chan_reject ([0] stays 0) */
	uint64_t rx_bytes, tx_bytes, frames_sent, errors_sent;
	uint64_t requests, requests_failed;	/* accepted REQUESTs; those answered with an error */
	uint64_t hellos, version_mismatches;
	uint64_t rx_stalls;			/* times the ring filled and input was held back */
	uint32_t rx_ring_used;			/* bytes waiting in the receive ring */
	uint32_t rx_held;			/* 1: the device holds input back */
	uint32_t parser_state;			/* the receiver's state: 0 SYNC .. 3 PAYLOAD */
	uint32_t reserved;
};
_Static_assert(sizeof(struct chan_channel_stats) == 168, "chan_channel_stats changed");

struct chan_list_request {
	uint64_t start;		/* the key of the last record seen: 0 for the first */
};

struct chan_list_head {
	uint32_t count;		/* records in this answer */
	uint32_t total;		/* records that match, this answer's and the others' */
	uint32_t record_bytes;	/* the size of each record */
	uint32_t more;		/* 1: ask again from next */
	uint64_t next;		/* the key of this answer's last record */
};
_Static_assert(sizeof(struct chan_list_head) == 24, "chan_list_head changed");

/* PROBE_LIST: one record per probe the spec matches; key: the probe id. */
struct chan_probe_info {
	uint32_t id;
	uint32_t sites;
	uint32_t consumers;	/* enablings attached (the shell's, metrics', trace sessions') */
	uint32_t reserved;
	int64_t count;		/* hits counted by the shell's `probe enable`; -1: none there */
	char name[CHAN_PROBE_NAME_MAX];
};
_Static_assert(sizeof(struct chan_probe_info) == 216, "chan_probe_info changed");

enum chan_graft_mode {
	CHAN_GRAFT_SANDBOXED = 1,	/* verified, runs in its sandbox */
	CHAN_GRAFT_TRUSTED = 2,		/* loaded without the sandbox */
	CHAN_GRAFT_BUILTIN = 3,		/* kernel code registered as a graft */
};

/* GRAFT_LIST: one record per loaded graft, in load order; key: its place, from 1. */
struct chan_graft_info {
	char name[CHAN_GRAFT_NAME_MAX];
	char point[CHAN_POINT_NAME_MAX];
	uint64_t scope_tid;		/* installed for this thread only; 0: for every thread */
	uint64_t invocations, commits, aborts;
	uint64_t cycles;		/* spent in its invocations */
	uint64_t time_us;		/* the same in microseconds */
	uint32_t installed;		/* 1: installed at its point; 0: loaded only */
	uint32_t mode;			/* enum chan_graft_mode */
	uint64_t text_start;		/* its text (built in: the kernel function's) */
	uint64_t verify_cycles;		/* what the last `graft verify` took; 0: none yet */
	uint32_t text_bytes;		/* its text region (sandboxed: padded to a power of two) */
	uint32_t reserved;
	char last_abort[CHAN_ABORT_TEXT_MAX];	/* why it last aborted; empty: never */
};
_Static_assert(sizeof(struct chan_graft_info) == 256, "chan_graft_info changed");

enum chan_metric_kind {
	CHAN_METRIC_COUNT = 1,		/* calls */
	CHAN_METRIC_LATENCY = 2,	/* area / calls: cycles per call */
	CHAN_METRIC_CONCURRENCY = 3,	/* area / elapsed: threads inside on average */
};

/* METRICS: one record per metric (scion/metrics.h), in id order; key: the id. */
struct chan_metric_info {
	uint32_t id;
	uint32_t kind;			/* enum chan_metric_kind */
	uint64_t tid;			/* 0: every thread */
	uint64_t calls;
	int64_t inside;			/* threads inside now */
	uint64_t area;			/* threads inside summed over time, in cycles */
	uint64_t elapsed;		/* cycles since the metric was set up */
	char function[CHAN_FUNCTION_NAME_MAX];
};
_Static_assert(sizeof(struct chan_metric_info) == 112, "chan_metric_info changed");

/*
 * COVERAGE_START and COVERAGE_STOP answer with the run's counts
 * (struct coverage_stats); COVERAGE_BLOCKS lists its blocks, keyed by
 * their index + 1, state an enum coverage_state (scion/coverage.h).
 */
struct chan_coverage_summary {
	uint32_t running;		/* 1 while the splices are in */
	uint32_t functions;
	uint32_t blocks;
	uint32_t armed;
	uint32_t hit;
	uint32_t missed;
	uint32_t unprobed;
	uint32_t refused;		/* functions the analysis could not split */
	uint64_t reaps;			/* batches of hit splices taken out */
	uint64_t elapsed_ns;		/* since the run started */
};
_Static_assert(sizeof(struct chan_coverage_summary) == 48, "chan_coverage_summary changed");

struct chan_coverage_block {
	uint64_t start;			/* [start, end) */
	uint64_t end;
	uint64_t hits;			/* the count when its splice came out */
	uint32_t state;			/* enum coverage_state */
	uint32_t reserved;
	char function[CHAN_FUNCTION_NAME_MAX];
};
_Static_assert(sizeof(struct chan_coverage_block) == 96, "chan_coverage_block changed");

/*
 * CODEADAPT_LOAD: a version of a kernel function (scion/codeadapt.h),
 * linked from the ELF object that follows the request (a clone the host
 * compiled from the function's own source), installed behind a guard.
 */
struct chan_codeadapt_load_request {
	uint32_t kind;			/* enum codeadapt_kind: SPECIALIZE or VERSION */
	int32_t arg;			/* -1: no argument guard; else the 0-based argument */
	uint64_t value;			/* the argument's value the version is for */
	int32_t pid;			/* 0: every thread; else only this process's */
	uint32_t arg_bytes;		/* 8, or 4: the guard compares the low half */
	char function[CHAN_FUNCTION_NAME_MAX];	/* NUL-terminated */
};
_Static_assert(sizeof(struct chan_codeadapt_load_request) == 88,
	       "chan_codeadapt_load_request changed");

/* CODEADAPT_LIST: one record per adaptation, installed then draining; key: the id. */
struct chan_codeadapt_info {
	uint32_t id;
	uint32_t kind;			/* enum codeadapt_kind */
	uint32_t state;			/* enum codeadapt_state */
	int32_t arg;			/* -1: no argument guard */
	uint32_t arg_bytes;		/* compared by the guard: 8 or 4 */
	int32_t pid;			/* 0: not one process's */
	uint64_t function_addr;
	uint64_t version;		/* the version's entry */
	uint64_t version_size;
	uint64_t value;
	uint64_t tid;			/* 0: every thread, or a process's not started yet */
	uint64_t taken;			/* calls sent to the version */
	char function[CHAN_FUNCTION_NAME_MAX];
	char source[48];		/* what built the version */
};
_Static_assert(sizeof(struct chan_codeadapt_info) == 184, "chan_codeadapt_info changed");

/*
 * CODEADAPT_OUTLINE: count FUNC's blocks for ms while the kernel runs,
 * put those that ran at most cold times out of line, install the copy.
 */
struct chan_codeadapt_outline_request {
	uint32_t ms;			/* 1 to OUTLINE_MAX_MS (scion/outline.h) */
	uint32_t reserved;
	uint64_t cold;			/* the count at or below which a block is cold */
	char function[CHAN_FUNCTION_NAME_MAX];	/* NUL-terminated */
};
_Static_assert(sizeof(struct chan_codeadapt_outline_request) == 80,
	       "chan_codeadapt_outline_request changed");

struct chan_codeadapt_outline_reply {
	uint32_t id;			/* the adaptation */
	uint32_t hot;			/* blocks kept in line */
	uint32_t cold;			/* blocks moved out of line */
	uint32_t bytes;			/* the copy's code */
};
_Static_assert(sizeof(struct chan_codeadapt_outline_reply) == 16,
	       "chan_codeadapt_outline_reply changed");

/* CODEADAPT_REMOVE: one adaptation (id), or every one (id 0). */
struct chan_codeadapt_remove_request {
	uint32_t id;
	uint32_t reserved;
};

/*
 * METRIC_ADD: count, latency or concurrency of a kernel function, for
 * every thread (pid 0) or one process's thread; as the shell's `count`,
 * `latency`, `concurrency` (scion/metrics.h).
 */
struct chan_metric_add_request {
	uint32_t kind;			/* enum chan_metric_kind */
	int32_t pid;			/* 0: every thread */
	char function[CHAN_FUNCTION_NAME_MAX];	/* NUL-terminated */
};
_Static_assert(sizeof(struct chan_metric_add_request) == 72, "chan_metric_add_request changed");

struct chan_metric_add_reply {
	uint32_t id;			/* METRICS' key, METRIC_REMOVE's id */
	uint32_t reserved;
};

/* METRIC_REMOVE: the metric id, or 0: every metric. */
struct chan_metric_remove_request {
	uint32_t id;
	uint32_t reserved;
};

/* EVENTS: the kernel's recent events still kept; key: the event's number. */
struct chan_event_info {
	uint64_t number;		/* 1, 2, ...: a gap means events were lost */
	uint64_t uptime_ms;		/* when it was posted */
	char text[CHAN_EVENT_TEXT_MAX];	/* one line */
};
_Static_assert(sizeof(struct chan_event_info) == 176, "chan_event_info changed");

/*
 * ADAPT_DECISIONS and ADAPT_ROWS: the adaptation loop's last
 * CHAN_ADAPT_DECISIONS decisions (kernel/adapt/decisions.c), one record
 * each keyed by its number, and the simulated figures each saw, one
 * record a row (the live policy, each candidate, each optimum) keyed by
 * decision * CHAN_ADAPT_ROW_KEYS + index + 1. `scion adapt explain N`
 * replays a decision's rows on the host from its recording (rec).
 */
#define CHAN_ADAPT_DECISIONS	16	/* decisions kept */
#define CHAN_ADAPT_ROWS_MAX	24	/* rows of one decision kept */
#define CHAN_ADAPT_ROW_KEYS	32	/* > CHAN_ADAPT_ROWS_MAX */
#define CHAN_ADAPT_POLICY_MAX	48	/* a policy spec, NUL included (REC_POLICY_MAX) */
/*
 * A sched row's slowdown is bounded: (waited + ran) / max(ran, this many
 * ticks), at least 1. A thread that ran a tick or two (the recorder
 * itself, a kernel thread waking once) would otherwise have a figure
 * made of one wait, and could be the worst thread of any policy.
 */
#define CHAN_ADAPT_SLOWDOWN_MIN_RUN	10

/* The module a decision is about. */
enum chan_adapt_module {
	CHAN_ADAPT_MODULE_BCACHE = 0,	/* rows: hits, misses, requests of each policy pair */
	CHAN_ADAPT_MODULE_SCHED = 1,	/* rows: worst and mean slowdown of each pick-next policy */
};

/* A row's role. */
enum chan_adapt_role {
	CHAN_ADAPT_ROLE_LIVE = 1,
	CHAN_ADAPT_ROLE_CANDIDATE = 2,
	CHAN_ADAPT_ROLE_OPTIMUM = 3,
};

/* What the decision did. */
enum chan_adapt_outcome {
	CHAN_ADAPT_PENDING = 0,		/* flagged; recording or simulating */
	CHAN_ADAPT_INSTALLED = 1,
	CHAN_ADAPT_WOULD_INSTALL = 2,	/* dry-run */
	CHAN_ADAPT_NONE = 3,		/* nothing installed: reason says why */
	CHAN_ADAPT_INSTALL_FAILED = 4,
};

/* Why: the outcome's reason. */
enum chan_adapt_reason {
	CHAN_ADAPT_REASON_NONE = 0,
	CHAN_ADAPT_REASON_BEATS_MARGIN = 1,	/* chosen beats the live policy by the margin */
	CHAN_ADAPT_REASON_WITHIN_OPTIMUM = 2,	/* the live policy is within the margin of the optimum */
	CHAN_ADAPT_REASON_NO_CANDIDATE = 3,	/* no candidate beats the live policy by the margin */
	CHAN_ADAPT_REASON_INSTALL_LIMIT = 4,	/* the installs-an-hour limit is reached */
	CHAN_ADAPT_REASON_RECORD_LIMIT = 5,	/* the recordings-an-hour limit is reached */
	CHAN_ADAPT_REASON_NO_RECORDING = 6,	/* the recording could not start or stop */
	CHAN_ADAPT_REASON_NOT_SIMULATED = 7,	/* the recording, the live policy or the optimum
						   could not be simulated */
	CHAN_ADAPT_REASON_INSTALL_ERROR = 8,	/* graft_install refused */
};

/* The watch after an install. */
enum chan_adapt_verdict {
	CHAN_ADAPT_UNWATCHED = 0,
	CHAN_ADAPT_WATCHING = 1,
	CHAN_ADAPT_KEPT = 2,
	CHAN_ADAPT_REVERTED = 3,
	CHAN_ADAPT_REVERT_FAILED = 4,
};

struct chan_adapt_decision {
	uint64_t number;		/* 1, 2, ... (`adapt log`'s #N) */
	uint64_t uptime_ms;		/* when it was flagged */
	uint64_t flag_reads;		/* reads in the window at the flag */
	uint64_t requests;		/* the trace's requests */
	uint64_t margin;		/* hits a candidate had to win by */
	uint64_t watch_reads;		/* reads the watch judged */
	uint32_t ratio_permille;	/* the window's hit ratio at the flag */
	uint32_t threshold_permille;	/* the rule's */
	uint32_t rec;			/* the trace's recording, recN (0: none) */
	uint32_t rows;			/* its ADAPT_ROWS records */
	uint32_t outcome;		/* enum chan_adapt_outcome */
	uint32_t reason;		/* enum chan_adapt_reason */
	uint32_t verdict;		/* enum chan_adapt_verdict */
	uint32_t before_permille;	/* the watch: live hit ratio before and after */
	uint32_t after_permille;
	uint32_t module;		/* enum chan_adapt_module */
	uint64_t model_hit_ns, model_miss_ns;	/* the latency model the rows were priced by */
	char chosen[CHAN_ADAPT_POLICY_MAX];	/* the policy installed or that would win ("") */
};
_Static_assert(sizeof(struct chan_adapt_decision) == 152, "chan_adapt_decision changed");

struct chan_adapt_row {
	uint64_t decision;		/* its number */
	uint64_t hits, misses, requests;	/* simulated */
	uint64_t aborts;		/* its grafts' transactions that aborted */
	uint64_t worst_permille;	/* sched: the worst thread's (bounded) slowdown */
	uint64_t mean_permille;		/* sched: the threads' mean slowdown */
	uint32_t index;			/* 0, 1, ... in the order simulated */
	uint32_t role;			/* enum chan_adapt_role */
	uint32_t log_rec;		/* the recording holding its simulated log (0: none) */
	uint32_t reserved;
	char policy[CHAN_ADAPT_POLICY_MAX];	/* the spec, e.g. "evict=2q readahead=recorded" */
};
_Static_assert(sizeof(struct chan_adapt_row) == 120, "chan_adapt_row changed");

#endif
