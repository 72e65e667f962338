// SPDX-License-Identifier: BSD-2-Clause
/*
 * bcache.readahead: recorded-order read-ahead. The graft records, for
 * each block, the block read right after it the last time; when a block
 * is read again, the one that followed it is prefetched. A workload that
 * repeats a sequence it has done before (a random one too) thus finds
 * its blocks already on their way. The recording is the graft's own
 * data (an open-addressed table), not the cache's, so an abort keeps it.
 */
#include <graft/bcache.h>

#define TABLE_SLOTS 4096	/* a power of two */
#define MAX_PROBES  16

struct successor {
	uint64_t block_plus_one;	/* 0: empty */
	uint64_t next;
};

static struct successor table[TABLE_SLOTS];

static struct successor *slot_for(uint64_t block, bool insert)
{
	uint64_t h = (block * 0x9e3779b97f4a7c15ull) >> 52;	/* 12 bits */

	for (unsigned probe = 0; probe < MAX_PROBES; probe++) {
		struct successor *s = &table[(h + probe) & (TABLE_SLOTS - 1)];
		if (s->block_plus_one == block + 1)
			return s;
		if (s->block_plus_one == 0) {
			if (!insert)
				return 0;
			s->block_plus_one = block + 1;
			return s;
		}
	}
	return 0;	/* full around here: forget this one */
}

static void recorded_readahead(uint64_t block, uint64_t previous, bool hit)
{
	(void)hit;
	if (previous != BCACHE_NO_BLOCK) {
		struct successor *s = slot_for(previous, true);
		if (s)
			s->next = block;
	}
	struct successor *s = slot_for(block, false);
	if (s && s->next != block)
		bcache_prefetch(s->next);
}
GRAFT_METHOD(bcache_readahead, "recorded", 1, recorded_readahead);
