// SPDX-License-Identifier: BSD-2-Clause
/*
 * The live block cache's graft points: its two policies (bcache.evict,
 * bcache.readahead, whose defaults are policy_default.c) and its input
 * and output events (bcache.request, bcache.result), on which recording
 * grafts write the cache's trace and log (kernel/record/).
 */
#include <scion/graft.h>
#include "bcache_internal.h"

static void no_request_handler(uint64_t seq, uint64_t block, uint64_t in_flight, uint64_t flags)
{
	(void)seq;
	(void)block;
	(void)in_flight;
	(void)flags;
}

static void no_result_handler(const struct bcache_result *r)
{
	(void)r;
}

bool bcache_result_observed(void)
{
	return READ_ONCE(bcache_policy.result) != no_result_handler;
}

struct bcache_policy bcache_policy = {
	.evict = bcache_default_evict,
	.readahead = bcache_default_readahead,
	.request = no_request_handler,
	.result = no_result_handler,
};

static const char *check_victim(uint64_t result, const uint64_t args[6])
{
	(void)args;
	return bcache_check_victim(result);
}

GRAFT_POINT_METHOD(bcache_evict, bcache_policy.evict, bcache_default_evict, 10000, check_victim,
		   "every buffer is occupied: return the index of an evictable buffer to "
		   "reuse (cache lock held, interrupts masked, may not sleep); default: LRU");
GRAFT_POINT_METHOD(bcache_readahead, bcache_policy.readahead, bcache_default_readahead, 10000,
		   NULL,
		   "a demand read of block finished: plan prefetches with bcache_prefetch "
		   "(cache lock held, interrupts masked, may not sleep); default: block + 1 "
		   "after a sequential read");
GRAFT_POINT_EVENT(bcache_request, bcache_policy.request, no_request_handler, 1000,
		  "a demand read or write (seq, block, disk reads in flight, BCACHE_REQ_* flags) "
		  "was admitted: the cache's input (cache lock held, interrupts masked, may not "
		  "sleep; look only)");
GRAFT_POINT_EVENT(bcache_result, bcache_policy.result, no_result_handler, 1000,
		  "a demand read or write is done: struct bcache_result says hit or miss, the victim, "
		  "each planned prefetch's fate and the latency: the cache's output (cache lock "
		  "held, interrupts masked, may not sleep; look only)");
