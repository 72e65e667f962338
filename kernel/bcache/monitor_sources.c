// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the block cache publishes to the monitor (scion/monitor.h): its
 * demand reads and their outcomes, waits on blocks still loading,
 * evictions and prefetches, all counters since boot (across resets).
 */
#include <scion/monitor.h>
#include <scion/bcache.h>

#define BCACHE_SOURCE(field, unit)						\
	static uint64_t read_##field(void)					\
	{									\
		struct bcache_stats s;						\
		bcache_get_totals(&s);						\
		return s.field;							\
	}									\
	MONITOR_GLOBAL(bcache_##field, "bcache." #field, unit, MONITOR_COUNTER, read_##field)

BCACHE_SOURCE(reads, "reads");
BCACHE_SOURCE(hits, "reads");
BCACHE_SOURCE(misses, "reads");
BCACHE_SOURCE(waits, "reads");
BCACHE_SOURCE(evictions, "blocks");
BCACHE_SOURCE(prefetches, "blocks");
