/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Replaying a block cache trace into a simulation instance (VINO's
 * in-situ simulation): the instance (kernel/bcache/cache.h) runs the
 * cache's own decision code with alternate policies, and every request
 * of the trace yields the log record the live cache would have written
 * with those policies. Portable C: the kernel (`sim run`) and the host
 * (`scion sim replay`, sim/) build the same bcache_replay.c, so for the same
 * trace, policies and model they write the same log, byte for byte.
 *
 * What a replay assumes: the disk reads of one request have completed
 * before the next request arrives (a simulation instance has no I/O in
 * flight), and requests come one at a time in sequence order. A write
 * request dirties its block; the instance writes a dirty block back only
 * when a synchronous write asks or when a demand access finds nothing
 * else to evict (cache_demand), and such a write-back completes at once.
 * The live cache's flush thread also writes blocks back as they age,
 * which a trace does not show, so with writes that are not synchronous
 * a replay can hold dirty blocks the live cache had cleaned, and choose
 * other victims where that mattered. A live
 * recording made with overlapping I/O (`in_flight` > 0 in its trace) or
 * concurrent readers can therefore differ from its replay where timing
 * decided: the summary counts such requests.
 *
 * Latency model: a request that hits costs hit_ns, one that misses
 * miss_ns; the mean latencies of hits and misses measured in the
 * recorded log calibrate it (sim_model_calibrate).
 */
#ifndef KERNEL_SIM_REPLAY_H
#define KERNEL_SIM_REPLAY_H

#include <scion/recfmt.h>
#include "../bcache/cache.h"

struct sim_model {
	uint64_t hit_ns, miss_ns;
};

struct sim_summary {
	uint64_t requests, hits, misses, evictions, prefetches, prefetch_used, disk_reads;
	uint64_t est_ns;		/* the model's total (measured, for a live log) */
	uint64_t overlapped;		/* requests whose trace shows I/O in flight */
	uint64_t agree;			/* log records equal to the reference log's (sim_compare) */
};

/* The records of a stream, in order: next returns NULL at the end. */
struct sim_reader {
	const struct rec_head *(*next)(void *ctx);
	void *ctx;
};

/*
 * Where the log goes: emit gets each log record (valid during the call).
 * Return value: 0, or a negative errno that stops the replay.
 */
typedef int sim_emit_fn(void *ctx, const struct rec_head *rec);

/*
 * sim_check_format - Overview: whether h is a header of this format for
 *   stream (magic, version, stream), of any module.
 * Return value: NULL, or a one-line reason in why.
 */
const char *sim_check_format(const struct rec_file_header *h, enum rec_stream stream,
			     char *why, size_t whylen);

/*
 * sim_check_header - Overview: whether h is a header the replay takes:
 *   magic, version, stream, module "bcache", a sane configuration.
 * Return value: NULL, or a one-line reason.
 */
const char *sim_check_header(const struct rec_file_header *h, enum rec_stream stream,
			     char *why, size_t whylen);

/*
 * sim_replay - Overview: replay trace (whose header th was checked)
 *   into c, which the caller made with cache_init from th's
 *   configuration and whose slots hold the policies to try; emit each
 *   log record and add up the summary.
 * Return value: 0, or a negative errno with why filled: a record that
 *   is not a bcache request or is out of order or beyond the disk
 *   (-EINVAL, naming the record), or emit's error.
 * Caller's context: the instance is the caller's alone; in the kernel,
 *   interrupts masked around each request (sim_replay_one) so that the
 *   thread stays on the CPU whose current instance is c.
 */
int sim_replay(struct bcache_cache *c, const struct rec_file_header *th, struct sim_reader trace,
	       const struct sim_model *model, sim_emit_fn *emit, void *ectx,
	       struct sim_summary *sum, char *why, size_t whylen);

/*
 * sim_replay_one - the step of sim_replay for one request record r
 *   (checked); the kernel calls it with interrupts masked.
 * Return value: as sim_replay.
 */
int sim_replay_one(struct bcache_cache *c, const struct rec_bcache_request *r,
		   const struct sim_model *model, sim_emit_fn *emit, void *ectx,
		   struct sim_summary *sum);

/*
 * sim_check_request - whether record h (the index-th, 1-based) is a
 *   well-formed request of a trace with header th following one
 *   numbered last_seq. Return value: NULL or a one-line reason in why.
 */
const char *sim_check_request(const struct rec_head *h, uint64_t index, uint64_t last_seq,
			      const struct rec_file_header *th, char *why, size_t whylen);

/*
 * sim_walk - the record at *offset of a stream's bytes data[0..size)
 *   (after its header), advancing *offset past it.
 * Return value: the record; NULL at the end (*why NULL) or, with *why
 *   set, when the record is cut short or its size is impossible.
 */
const struct rec_head *sim_walk(const uint8_t *data, size_t size, size_t *offset,
				const char **why);

/* A simulation instance's start_io (cache.h): the read completes at once. */
int sim_start_io(struct bcache_cache *c, int i);

/* Encode a cache result as a log record into out (REC_BCACHE_RESULT_BYTES(8) bytes). */
void sim_encode_result(const struct bcache_result *res, uint32_t cpu,
		       struct rec_bcache_result *out);

/*
 * sim_model_calibrate - the mean latency of hits and of misses in a
 *   log. Return value: false when the log has no hit or no miss (then
 *   the missing mean is 0).
 */
bool sim_model_calibrate(struct sim_reader log, struct sim_model *model);

/* Add a log record to a summary (for a recorded log: measured latency). */
void sim_summary_add(struct sim_summary *sum, const struct rec_bcache_result *r);

/*
 * sim_same_decision - whether two log records of the same request agree
 *   on everything the policy decided (hit or miss, victim, the plan and
 *   each prefetch's fate and victim); latency, CPU and whether a hit
 *   waited for I/O in flight are timing, not decisions.
 */
bool sim_same_decision(const struct rec_bcache_result *a, const struct rec_bcache_result *b);

/*
 * sim_format_header / sim_format_row - the comparison table `sim run` and
 *   `scion sim replay` print: a header line, and one row per policy (the
 *   live one's from its recorded log, agree_known false) with the log it
 *   wrote. Each writes one line, without the newline, into buf.
 */
void sim_format_header(char *buf, size_t n);
void sim_format_row(char *buf, size_t n, const char *label, const struct sim_summary *s,
		    uint64_t requests, bool agree_known, const char *log);

/*
 * The gap to the optimum (VINO: "if the actual behaviour is within an
 * acceptable margin of the optimal, the module cannot improve alone"),
 * printed after the table when the optimum was among the policies: each
 * row's hit ratio and its distance, in percentage points, from the
 * optimum's rows (bcache_optimal.h). sim_gap_refs picks those among the
 * table's labels (policy fields, "live ..." for the live row): ref[0]
 * the row of "optimal" (evict=min readahead=oracle), ref[1] the first
 * other evict=min row ("optimal-evict"); -1 where there is none.
 * Return value: whether there is either.
 */
bool sim_gap_refs(const char *const labels[], unsigned nrows, int ref[2]);
void sim_format_gap_header(char *buf, size_t n, const char *const labels[], const int ref[2]);
void sim_format_gap_row(char *buf, size_t n, const char *label, const struct sim_summary *s,
			const struct sim_summary *const rows, const int ref[2]);

/* --- Naming the policies a simulation runs ------------------------------ */

enum sim_kind {
	SIM_EVICT,		/* bcache.evict */
	SIM_READAHEAD,		/* bcache.readahead */
	SIM_KINDS
};

/* The defaults' names: "lru", "sequential". */
extern const char *const sim_default_names[SIM_KINDS];

/* The optimum's (bcache_optimal.h): Belady's MIN, and the oracle read-ahead. */
#define SIM_OPTIMAL_EVICT_NAME     "min"
#define SIM_OPTIMAL_READAHEAD_NAME "oracle"
extern const char *const sim_optimal_names[SIM_KINDS];

struct sim_policy_names {
	char name[SIM_KINDS][32];
};

/*
 * sim_policy_parse - Overview: the policies a simulation runs, from
 *   spec: "NAME" or "NAME+NAME" (an eviction and/or a read-ahead
 *   policy, in either order) or "evict=NAME readahead=NAME"; "optimal"
 *   is "min+oracle", "optimal-evict" is "min"; a kind
 *   spec leaves out comes from recorded (a header's policy field, e.g.
 *   "evict=lru readahead=sequential"), else the default.
 * Arguments: kind_of(name) says which kind name is (SIM_KINDS: none).
 * Return value: 0, or -EINVAL with why filled (unknown name, two of a kind).
 */
int sim_policy_parse(const char *spec, const char *recorded, enum sim_kind (*kind_of)(const char *),
		     struct sim_policy_names *out, char *why, size_t whylen);

/* Whether p names a policy of the optimum, which needs the trace's future. */
bool sim_policy_needs_oracle(const struct sim_policy_names *p);

/* "evict=NAME readahead=NAME" (a header's policy field). */
void sim_policy_format(const struct sim_policy_names *p, char *buf, size_t n);

#endif
