// SPDX-License-Identifier: BSD-2-Clause
/*
 * The block cache's default policies: least-recently-used eviction
 * (bcache.evict) and one-block sequential read-ahead (bcache.readahead).
 * Written like a graft, against the instance the cache calls them for
 * (cache.h) and the graft API, so the same code decides in the live
 * cache, in a simulation instance in the kernel and in the host's
 * simulator (sim/); and the check every eviction policy's answer passes.
 */
#include "cache.h"

int bcache_default_evict(void)
{
	return cache_lru_evictable(cache_env_current());
}

void bcache_default_readahead(uint64_t block, uint64_t previous, bool hit)
{
	(void)hit;
	if (previous != BCACHE_NO_BLOCK && block == previous + 1 && block + 1 < bcache_blocks())
		bcache_prefetch(block + 1);
}

const char *bcache_check_victim(uint64_t result)
{
	const struct bcache_cache *c = cache_env_current();
	int i = (int)(uint32_t)result;

	if (!c || i < 0 || (unsigned)i >= c->nbuffers)
		return "not a buffer index";
	if (!cache_evictable(c, (unsigned)i))
		return c->buffer[i].state == BUFFER_FREE ? "a free buffer"
							 : "a buffer whose read is in flight";
	return NULL;
}
