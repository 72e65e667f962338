// SPDX-License-Identifier: BSD-2-Clause
/*
 * The block cache's default policies as the defaults of its graft
 * points: least-recently-used eviction (bcache.evict) and one-block
 * sequential read-ahead (bcache.readahead). Both run with the cache lock
 * held (the points' contracts in grafts/include/graft/bcache.h).
 */
#include <scion/graft.h>
#include "bcache_internal.h"

static int lru_evict(void)
{
	return bcache_lru_evictable();
}

static void sequential_readahead(uint64_t block, uint64_t previous, bool hit)
{
	(void)hit;
	if (previous != BCACHE_NO_BLOCK && block == previous + 1 && block + 1 < bcache.blocks)
		bcache_prefetch(block + 1);
}

struct bcache_policy bcache_policy = {
	.evict = lru_evict,
	.readahead = sequential_readahead,
};

static const char *check_victim(uint64_t result, const uint64_t args[6])
{
	int i = (int)(uint32_t)result;

	(void)args;
	if (i < 0 || (unsigned)i >= bcache.nbuffers)
		return "not a buffer index";
	if (!bcache_evictable((unsigned)i))
		return bcache.buffer[i].state == BUFFER_FREE ? "a free buffer"
							      : "a buffer whose read is in flight";
	return NULL;
}

GRAFT_POINT_METHOD(bcache_evict, bcache_policy.evict, lru_evict, 10000, check_victim,
		   "every buffer is occupied: return the index of an evictable buffer to "
		   "reuse (cache lock held, interrupts masked, may not sleep); default: LRU");
GRAFT_POINT_METHOD(bcache_readahead, bcache_policy.readahead, sequential_readahead, 10000, NULL,
		   "a demand read of block finished: plan prefetches with bcache_prefetch "
		   "(cache lock held, interrupts masked, may not sleep); default: block + 1 "
		   "after a sequential read");
