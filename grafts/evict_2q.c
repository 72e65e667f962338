// SPDX-License-Identifier: BSD-2-Clause
/*
 * bcache.evict: simplified 2Q (Johnson and Shasha, VLDB 1994). Blocks
 * read once (or only prefetched) form the FIFO queue A1, ordered by
 * insertion; blocks read again form Am, ordered by last access. While A1
 * holds more than a quarter of the buffers its oldest block goes;
 * otherwise Am's least recently used one (or A1's, when Am is empty). A
 * scan of blocks used once thus only cycles A1, and the re-used blocks
 * in Am survive it. Stateless: everything comes from the buffers.
 */
#include <graft/bcache.h>

#define A1_SHARE_DIVISOR 4

static int twoq_evict(void)
{
	unsigned n = bcache_buffers(), a1_size = 0;
	int a1_oldest = -1, am_lru = -1;
	uint64_t a1_best = UINT64_MAX, am_best = UINT64_MAX;

	for (unsigned i = 0; i < n; i++) {
		if (bcache_buffer_block(i) == BCACHE_NO_BLOCK)
			continue;
		bool in_a1 = bcache_buffer_accesses(i) <= 1;
		a1_size += in_a1;
		if (!bcache_buffer_evictable(i))
			continue;
		if (in_a1 && bcache_buffer_inserted(i) < a1_best) {
			a1_best = bcache_buffer_inserted(i);
			a1_oldest = (int)i;
		} else if (!in_a1 && bcache_buffer_last_access(i) < am_best) {
			am_best = bcache_buffer_last_access(i);
			am_lru = (int)i;
		}
	}
	unsigned threshold = n / A1_SHARE_DIVISOR ? n / A1_SHARE_DIVISOR : 1;
	if (a1_oldest >= 0 && (a1_size > threshold || am_lru < 0))
		return a1_oldest;
	return am_lru;
}
GRAFT_METHOD(bcache_evict, "2q", 1, twoq_evict);
