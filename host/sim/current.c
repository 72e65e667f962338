// SPDX-License-Identifier: BSD-2-Clause
/*
 * The current simulation instances on the host (kernel/bcache/cache.h's
 * cache_env_current, scion/runq.h's sched_env_current) and a
 * simulation's memory (kernel/insitu/sched_replay.h's sim_alloc): one
 * thread replays, so one variable serves where the kernel keeps one per
 * CPU. Shared by scion-sim and the replays' fuzz targets.
 */
#include <stdlib.h>
#include "../../kernel/bcache/cache.h"
#include "../../kernel/insitu/sched_replay.h"

/* Not static: each host build of a graft reads them inline too (graft_unit.h). */
struct bcache_cache *sim_current_cache;
struct sched_runq *sim_current_runq;

struct bcache_cache *cache_env_current(void)
{
	return sim_current_cache;
}

struct bcache_cache *cache_env_set_current(struct bcache_cache *c)
{
	struct bcache_cache *outer = sim_current_cache;
	sim_current_cache = c;
	return outer;
}

struct sched_runq *sched_env_current(void)
{
	return sim_current_runq;
}

struct sched_runq *sched_env_set_current(struct sched_runq *rq)
{
	struct sched_runq *outer = sim_current_runq;
	sim_current_runq = rq;
	return outer;
}

void *sim_alloc(size_t n)
{
	return calloc(1, n ? n : 1);
}

void sim_free(void *p)
{
	free(p);
}
