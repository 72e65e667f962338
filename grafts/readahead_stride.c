// SPDX-License-Identifier: BSD-2-Clause
/*
 * bcache.readahead: strided read-ahead. When the distance between this
 * read and the previous one repeats the distance before it (forwards or
 * backwards, any size but zero), the next block of the stride is
 * prefetched. The last distance is policy word 4.
 */
#include <graft/bcache.h>

#define LAST_STRIDE 4

static void stride_readahead(uint64_t block, uint64_t previous, bool hit)
{
	(void)hit;
	if (previous == BCACHE_NO_BLOCK)
		return;
	int64_t stride = (int64_t)(block - previous);
	int64_t last = (int64_t)bcache_policy_word(LAST_STRIDE);
	bcache_set_policy_word(LAST_STRIDE, (uint64_t)stride);
	if (stride == 0 || stride != last)
		return;
	uint64_t next = block + (uint64_t)stride;
	if (next < bcache_blocks())	/* also catches running below block 0 */
		bcache_prefetch(next);
}
GRAFT_METHOD(bcache_readahead, "stride", 1, stride_readahead);
