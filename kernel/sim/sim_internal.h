/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's simulation instances (instance.c) and the `sim` command
 * (cmd_sim.c). An instance belongs to the thread that made it.
 */
#ifndef KERNEL_SIM_INTERNAL_H
#define KERNEL_SIM_INTERNAL_H

#include <scion/record.h>
#include <scion/spinlock.h>
#include "replay.h"
#include "../bcache/bcache_internal.h"

struct sim_instance {
	struct bcache_cache cache;		/* its own bookkeeping */
	graft_fn_bcache_evict *evict;		/* the slots cache.evict/readahead point at */
	graft_fn_bcache_readahead *readahead;
	struct graft *graft[SIM_KINDS];		/* private copies (NULL: a default) */
	struct spinlock lock;			/* held, interrupts masked, around each request */
	uint64_t aborts;			/* transactions of its grafts that aborted */
};

/*
 * sim_instance_create - an empty instance configured as trace header th
 *   says, running the policies named.
 * Return value: the instance, or NULL with why filled (unknown policy,
 *   memory). Caller's context: thread, may sleep.
 */
struct sim_instance *sim_instance_create(const struct rec_file_header *th,
					 const struct sim_policy_names *names, char *why,
					 size_t whylen);
void sim_instance_destroy(struct sim_instance *inst);

/*
 * sim_instance_replay - replay trace_rec's trace into inst in a kernel
 *   thread, appending the log to out->stream[1] and comparing it with
 *   trace_rec's recorded log (sum->agree).
 * Return value: 0, or -errno with why filled.
 * Caller's context: thread, may sleep (joins the replay thread).
 */
int sim_instance_replay(struct sim_instance *inst, struct recording *trace_rec,
			const struct sim_model *model, struct recording *out,
			struct sim_summary *sum, char *why, size_t whylen);

#endif
