/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Put first (gcc -include) in each host build of a graft, which is one
 * compilation unit with the graft API it calls (kernel/bcache/api.c or
 * kernel/sched/api.c, included after this; host/sim/sim.mk): the API's
 * accessors then inline into the policy's loops instead of costing two
 * calls each (a 2Q eviction asks about every buffer five times).
 *
 * The current instances are current.c's variables, read here directly;
 * declared static inline before the kernel headers declare these
 * functions, so each unit has its own copy and current.c keeps the ones
 * the rest of the program calls. The unit's copies of the API functions
 * are made local to it after compiling (objcopy --keep-global-symbol),
 * as is everything but the graft's manifest.
 */
#ifndef SIM_GRAFT_UNIT_H
#define SIM_GRAFT_UNIT_H

struct bcache_cache;
struct sched_runq;

/* current.c's: the one thread's current simulation instances (NULL: none). */
extern struct bcache_cache *sim_current_cache;
extern struct sched_runq *sim_current_runq;

static inline struct bcache_cache *cache_env_current(void)
{
	return sim_current_cache;
}

static inline struct sched_runq *sched_env_current(void)
{
	return sim_current_runq;
}

#endif
