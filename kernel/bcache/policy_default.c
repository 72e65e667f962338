// SPDX-License-Identifier: BSD-2-Clause
/*
 * The block cache's default policies: least-recently-used eviction
 * (bcache.evict) and one-block sequential read-ahead (bcache.readahead).
 * Written like a graft, against the instance the cache calls them for
 * (cache.h) and the graft API, so the same code decides in the live
 * cache, in a simulation instance in the kernel and in the host's
 * simulator (sim/).
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
