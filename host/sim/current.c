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

static struct bcache_cache *current;
static struct sched_runq *current_rq;

struct bcache_cache *cache_env_current(void)
{
	return current;
}

struct bcache_cache *cache_env_set_current(struct bcache_cache *c)
{
	struct bcache_cache *outer = current;
	current = c;
	return outer;
}

struct sched_runq *sched_env_current(void)
{
	return current_rq;
}

struct sched_runq *sched_env_set_current(struct sched_runq *rq)
{
	struct sched_runq *outer = current_rq;
	current_rq = rq;
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
