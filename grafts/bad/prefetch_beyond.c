// SPDX-License-Identifier: BSD-2-Clause
/*
 * Misbehaving read-ahead: plans the next block, changes a policy word,
 * then asks for a block beyond the end of the disk: the API aborts it,
 * the plan and the word are undone, and the default plans instead.
 */
#include <graft/bcache.h>

static void prefetch_beyond(uint64_t block, uint64_t previous, bool hit)
{
	(void)previous;
	(void)hit;
	bcache_prefetch(block + 1);
	bcache_set_policy_word(5, block);
	bcache_prefetch(bcache_blocks() + block);
}
GRAFT_METHOD(bcache_readahead, "prefetch-beyond", 1, prefetch_beyond);
