/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host simulator's own interfaces (sim/): its environment (env.c),
 * its policies (policies.c), the command (main.c) and its scheduler
 * replays (sched.c, follow.c). The replays themselves are the kernel's,
 * kernel/insitu/bcache_replay.c, sched_replay.c and sched_follow.c, built here
 * unchanged.
 */
#ifndef SIM_HOST_H
#define SIM_HOST_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "../../kernel/insitu/bcache_replay.h"
#include "../../kernel/insitu/bcache_optimal.h"
#include "../../kernel/insitu/sched_follow.h"

extern bool sim_verbose;

/* A stream file read whole (main.c). */
struct stream_file {
	char path[4096];
	const uint8_t *data;		/* mapped or read whole; never written */
	size_t size;
	struct rec_file_header header;
	size_t offset;			/* the reader's position */
	uint64_t index;			/* records the reader has given */
};

/* Print "scion-sim: " and the message on stderr; returns 1 (the exit status). */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * load - read and check a whole stream file: its header's format (any
 *   module), every record's size, the count. Return value: 0, or 1 (said why).
 */
int load(struct stream_file *f, enum rec_stream stream);

/* f's records from the first, and the reader's next (NULL at the end). */
struct sim_reader reader(struct stream_file *f);
const struct rec_head *next_record(void *ctx);

/* A log being written: PATH.part until whole, then renamed to PATH (main.c). */
struct log_file {
	char path[4300], part[4310];
	const struct stream_file *trace;
	struct rec_file_header header;	/* the trace's, as a log written with the policy */
	FILE *fp;
	uint8_t *buffer;		/* records not yet written (LOG_BUFFER_BYTES), or NULL */
	size_t used;			/* bytes of buffer in use */
	bool failed;			/* a write failed */
};

/* Write out lf's buffered records. Return value: 0, or -EIO. */
int log_flush(struct log_file *lf);

/*
 * log_put - append a record of n bytes to lf: a copy into its buffer,
 *   written out when full, where an fwrite of each record, with its
 *   stream lock and calls, cost the host replay a seventh of its time.
 * Return value: 0, or -EIO.
 */
#define LOG_BUFFER_BYTES (1u << 20)
static inline int log_put(struct log_file *lf, const void *rec, size_t n)
{
	if (!lf->buffer || n > LOG_BUFFER_BYTES)
		return fwrite(rec, n, 1, lf->fp) == 1 ? 0 : -EIO;
	if (lf->used + n > LOG_BUFFER_BYTES && log_flush(lf))
		return -EIO;
	memcpy(lf->buffer + lf->used, rec, n);
	lf->used += n;
	return 0;
}

/*
 * log_open - open lf->part for a log of trace written with policy, its
 *   header (no records yet) first. Return value: the file, or NULL (said why).
 */
FILE *log_open(struct log_file *lf, const struct stream_file *trace, const char *policy,
	       const char *path);

/*
 * log_close - finish lf: the header with records, closed, renamed to its
 *   path; when err (a replay's error, why saying it, or NULL) or a write
 *   failed, the part is removed instead. Return value: 0, or 1 (said why).
 */
int log_close(struct log_file *lf, uint64_t records, int err, const char *why);

/* Close lf and remove its part, saying nothing (the caller says why). */
void log_discard(struct log_file *lf);

/*
 * sim_sched_replay - replay sched trace (loaded) with each of the
 *   pick-next policies named, writing OUT_DIR/NAME.log.bin each and
 *   printing the comparison (sched.c). log: the recorded log, or NULL.
 *   follow: follow the recorded history instead of the open-loop model
 *   (the log needed; OUT_DIR/NAME.follow.log.bin each; follow.c).
 * Return value: the exit status.
 */
int sim_sched_replay(struct stream_file *trace, struct stream_file *log,
		     const char *const *policies, int npolicies, const char *out_dir, bool progress,
		     bool follow);

/*
 * sim_sched_follow - the follow of sim_sched_replay, names checked
 *   (follow.c). Return value: the exit status.
 */
int sim_sched_follow(struct stream_file *trace, struct stream_file *log, char names[][32],
		     int npolicies, const char *out_dir, bool progress);

/* Whether name is a pick-next policy here: "rr" or a sched.pick_next graft built in. */
bool sim_host_sched_known(const char *name);

/* Make rq's pick-next slot run the policy named (known). */
void sim_host_sched_use(struct sched_runq *rq, const char *name);

/* Catch faults and the budget alarm inside grafts. Once, at start. */
void sim_env_init(void);

/*
 * sim_txn_run - run call(args) as a graft invocation in a transaction;
 *   check (may be NULL) refuses a result by returning why.
 * Return value: true with *result when it committed; false when it
 *   aborted (its changes undone, sim_note_abort told) or transactions
 *   nest too deep: the caller then runs the default, as the kernel does.
 */
bool sim_txn_run(const char *policy, uint64_t (*call)(const uint64_t args[6]),
		 const uint64_t args[6], const char *(*check)(uint64_t result), uint64_t *result);

/* An invocation of policy aborted, for why (counted and, verbose, printed). */
void sim_note_abort(const char *policy, const char *why);

/* The kind of policy name is (SIM_KINDS: none): for sim_policy_parse. */
enum sim_kind sim_host_kind_of(const char *name);

/*
 * sim_host_use - make c's slots run the policies named (defaults or
 *   grafts built into this program). Return value: false with why.
 */
bool sim_host_use(struct bcache_cache *c, const struct sim_policy_names *names, char *why,
		  size_t whylen);

/* The trace's future that min and oracle read (NULL: they answer as the defaults). */
void sim_host_use_oracle(struct sim_oracle *o);

/*
 * sim_host_oracle - trace's next-request table (optimum.c), built at the
 *   first call for trace, rewound at the next. Return value: it, or NULL
 *   with why (a trace too large for it, or one the replay would refuse).
 */
struct sim_oracle *sim_host_oracle(struct stream_file *trace, char *why, size_t whylen);

/* A row of the comparison table (the live one first), and the gap to the optimum after it. */
void sim_host_table_add(const char *label, const struct sim_summary *s);
void sim_host_print_gap(void);

/* Aborted invocations since the last sim_host_use. */
uint64_t sim_host_aborts(void);

/* Print the policies this program knows, one per line. */
void sim_host_list(void);

#endif
