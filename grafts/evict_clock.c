// SPDX-License-Identifier: BSD-2-Clause
/*
 * bcache.evict: CLOCK (second chance). A hand sweeps the buffers in
 * index order; a referenced buffer loses its bit and is passed over, the
 * first unreferenced evictable one is the victim and the hand stops just
 * past it. The hand is policy word 0, so an aborted sweep leaves it (and
 * the referenced bits it cleared) as they were.
 */
#include <graft/bcache.h>

#define CLOCK_HAND 0

static int clock_evict(void)
{
	unsigned n = bcache_buffers();
	unsigned hand = (unsigned)(bcache_policy_word(CLOCK_HAND) % n);

	/* Two sweeps: the first may only clear bits. */
	for (unsigned step = 0; step < 2 * n; step++, hand = (hand + 1) % n) {
		if (!bcache_buffer_evictable(hand))
			continue;
		if (bcache_buffer_referenced(hand)) {
			bcache_clear_referenced(hand);
			continue;
		}
		bcache_set_policy_word(CLOCK_HAND, (hand + 1) % n);
		return (int)hand;
	}
	return -1;	/* nothing evictable: the graft point refuses it */
}
GRAFT_METHOD(bcache_evict, "clock", 1, clock_evict);
