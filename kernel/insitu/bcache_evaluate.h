/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One block cache policy simulated on a recording, quietly: what `sim
 * run` prints a row of (cmd_sim.c) and what the adaptation loop
 * (kernel/adapt/) compares candidates by. Each simulation keeps its log
 * as a new recording, as `sim run` does. Nothing here prints; every
 * failure comes back as one line in why. No locks of its own: the
 * recordings' users keep them alive (scion/record.h).
 */
#ifndef KERNEL_INSITU_BCACHE_EVALUATE_H
#define KERNEL_INSITU_BCACHE_EVALUATE_H

#include <scion/record.h>
#include "bcache_replay.h"
#include "bcache_optimal.h"

/* What one simulated policy did. */
struct sim_outcome {
	char policy[REC_POLICY_MAX];	/* "evict=2q readahead=sequential" */
	struct sim_summary sum;
	uint64_t aborts;		/* its grafts' transactions that aborted */
	uint64_t cpu_ns;		/* the replay's CPU time */
	unsigned log_id;		/* the recording holding its log (0: none) */
};

/* The trace's future, built once for the optimum's policies, shared by the rows. */
struct sim_future {
	struct sim_oracle oracle;
	bool built;
};

/*
 * sim_bcache_simulate - replay trace_rec (a complete bcache recording,
 *   one user held) with policy spec in a simulation instance.
 * Return value: 0 with *out filled; -errno with why filled (out->log_id
 *   set when a log was begun: it holds what the replay wrote).
 * Caller's context: thread, may sleep.
 */
int sim_bcache_simulate(struct recording *trace_rec, const char *spec,
			const struct sim_model *model, struct sim_future *future,
			struct sim_outcome *out, char *why, size_t whylen);

/*
 * sim_bcache_live - the live policy's figures measured in r's log and
 *   the latency model calibrated from it (unless model_given).
 * Return value: 0, or -EINVAL with why filled (a bad or empty trace, a
 *   log with no hit and miss to calibrate). Caller's context: thread.
 */
int sim_bcache_live(struct recording *r, struct sim_summary *live, struct sim_model *model,
		    bool model_given, char *why, size_t whylen);

/* The block cache policy kind graft or default name has (SIM_KINDS: none). Thread. */
enum sim_kind sim_bcache_kind_of(const char *name);

#endif
