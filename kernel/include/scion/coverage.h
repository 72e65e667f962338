/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Self-removing code coverage (KernInst's first application besides
 * profiling): a counter splice at the first instruction of every basic
 * block of the chosen functions, each one taken out again soon after its
 * block first runs, so the cost of measuring falls as the workload
 * reaches its code. The structural analysis gives the blocks; the probe
 * registry installs and removes the splices, batched, through its normal
 * protocol. One coverage run at a time.
 */
#ifndef SCION_COVERAGE_H
#define SCION_COVERAGE_H

#include <stdbool.h>
#include <stdint.h>

/* What became of a block (struct coverage_block.state). */
enum coverage_state {
	COVERAGE_ARMED = 1,		/* its splice is in; not run yet */
	COVERAGE_HIT = 2,		/* ran; its splice is out again */
	COVERAGE_MISSED = 3,		/* the run stopped before it ran */
	COVERAGE_UNPROBED = 4,		/* no splice could go there (why: the probe checks) */
};

struct coverage_block {
	uint64_t start, end;		/* [start, end) of the block */
	const char *function;		/* the kernel function holding it */
	uint64_t hits;			/* the counter when the splice came out (>= 1 for HIT);
					   for an ARMED block, its counter now */
	enum coverage_state state;
};

struct coverage_stats {
	bool running;
	uint32_t functions;		/* functions whose blocks were taken */
	uint32_t blocks;
	uint32_t armed, hit, missed, unprobed;
	uint32_t refused;		/* functions the analysis could not split (skipped) */
	uint64_t reaps;			/* batches of hit splices taken out */
	uint64_t started_ns;		/* clock_ns() at coverage_start */
	unsigned reap_ms;		/* the reaper's period (0: none) */
};

/*
 * coverage_start - arm a splice at every block of every kernel function
 *   matching one of the globs in specs (`kernel` alone: every function).
 * Arguments: specs, n: the globs; reap_ms: the reaper thread's period
 *   (0: no reaper, splices come out only by coverage_reap, which tests
 *   use to see exact intermediate states); *why: the reason of a failure.
 * Return value: the number of blocks armed (>= 0), or -EBUSY (a run is
 *   on), -ENOENT (no function matched), -ENOMEM, with *why.
 * Caller's context: thread, may sleep; not in probe context.
 */
int coverage_start(const char *const *specs, unsigned n, unsigned reap_ms, const char **why);

/*
 * coverage_stop - take every splice still in out (those blocks are
 *   MISSED) after a last reap; the results stay until the next start.
 * Return value: 0, or -ENOENT when no run is on.
 * Caller's context: thread, may sleep.
 */
int coverage_stop(void);

/*
 * coverage_reap - take out now the splices whose blocks have run (the
 *   reaper thread does this every reap_ms; COVERAGE_REAP_MS by default).
 * Return value: how many came out.
 * Caller's context: thread, may sleep.
 */
unsigned coverage_reap(void);

#define COVERAGE_REAP_MS 20

void coverage_get_stats(struct coverage_stats *s);

/*
 * coverage_foreach_block - call fn on every block of the last run, in
 *   address order, until it returns false. The block is a copy.
 * Caller's context: thread, may sleep (fn may not start or stop a run).
 */
void coverage_foreach_block(bool (*fn)(const struct coverage_block *b, void *arg), void *arg);

const char *coverage_state_name(enum coverage_state s);

#endif
