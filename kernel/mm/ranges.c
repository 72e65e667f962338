// SPDX-License-Identifier: BSD-2-Clause
/* Subtracting reserved physical ranges from free memory (used at boot; host tested). */
#include "mm_internal.h"

void phys_range_subtract(uint64_t start, uint64_t end, const struct phys_range *reserved,
			 size_t n, void (*add)(uint64_t start, uint64_t end))
{
	while (start < end) {
		/* The reserved range that starts first among those ending after start. */
		const struct phys_range *first = NULL;
		for (size_t i = 0; i < n; i++) {
			const struct phys_range *r = &reserved[i];
			if (r->end <= start || r->start >= end || r->start >= r->end)
				continue;
			if (!first || r->start < first->start)
				first = r;
		}
		if (!first) {
			add(start, end);
			return;
		}
		if (first->start > start)
			add(start, first->start);
		/* Skip past every reserved range overlapping from here. */
		uint64_t next = first->end;
		for (bool moved = true; moved;) {
			moved = false;
			for (size_t i = 0; i < n; i++) {
				const struct phys_range *r = &reserved[i];
				if (r->start <= next && r->end > next) {
					next = r->end;
					moved = true;
				}
			}
		}
		start = next;
	}
}
