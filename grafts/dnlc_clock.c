// SPDX-License-Identifier: BSD-2-Clause
/*
 * dnlc.evict: CLOCK (second chance), as Solaris approximates LRU. A hand
 * sweeps the entries in index order; one found since the hand last
 * passed (referenced) loses its bit and is passed over, the first
 * unreferenced entry in use is the victim and the hand stops just past
 * it (where the new entry goes, in the victim's place). The hand is
 * policy word 0, so an aborted sweep leaves it, and the bits it
 * cleared, as they were.
 */
#include <graft/dnlc.h>

#define CLOCK_HAND 0

static int clock_evict(uint32_t fs, uint64_t dir, uint64_t ino)
{
	unsigned n = dnlc_capacity();
	unsigned hand = n ? (unsigned)(dnlc_policy_word(CLOCK_HAND) % n) : 0;

	(void)fs;
	(void)dir;
	(void)ino;
	/* Two sweeps: the first may only clear bits. */
	for (unsigned step = 0; step < 2 * n; step++, hand = (hand + 1) % n) {
		if (!dnlc_entry_used(hand))
			continue;
		if (dnlc_entry_referenced(hand)) {
			dnlc_clear_referenced(hand);
			continue;
		}
		dnlc_set_policy_word(CLOCK_HAND, (hand + 1) % n);
		return (int)hand;
	}
	return -1;	/* nothing in use: the graft point refuses it */
}
GRAFT_METHOD(dnlc_evict, "dnlc-clock", 1, clock_evict);
