// SPDX-License-Identifier: BSD-2-Clause
/*
 * dnlc.evict: FIFO. The entry inserted longest ago leaves, however
 * often it was found since: the access clock value at insertion is the
 * order, so one scan over the entries finds the oldest. Hits do not
 * matter, which is what sets it apart from the default LRU.
 */
#include <graft/dnlc.h>

static int fifo_evict(uint32_t fs, uint64_t dir, uint64_t ino)
{
	unsigned n = dnlc_capacity();
	uint64_t oldest = UINT64_MAX;
	int victim = -1;

	(void)fs;
	(void)dir;
	(void)ino;
	for (unsigned i = 0; i < n; i++) {
		if (!dnlc_entry_used(i))
			continue;
		uint64_t when = dnlc_entry_inserted(i);
		if (when < oldest) {
			oldest = when;
			victim = (int)i;
		}
	}
	return victim;	/* -1 (none in use) is refused by the graft point */
}
GRAFT_METHOD(dnlc_evict, "dnlc-fifo", 1, fifo_evict);
