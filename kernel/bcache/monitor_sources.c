// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the block cache publishes to the monitor (scion/monitor.h): its
 * demand reads and their outcomes, waits on blocks still loading,
 * evictions and prefetches, its demand writes and their outcomes,
 * write-backs, synchronous writes and write errors, all counters since
 * boot (across resets); and the dirty buffers now, a gauge.
 */
#include <scion/monitor.h>
#include <scion/bcache.h>

#define BCACHE_SOURCE_KIND(field, unit, kind)					\
	static uint64_t read_##field(void)					\
	{									\
		struct bcache_stats s;						\
		bcache_get_totals(&s);						\
		return s.field;							\
	}									\
	MONITOR_GLOBAL(bcache_##field, "bcache." #field, unit, kind, read_##field)
#define BCACHE_SOURCE(field, unit) BCACHE_SOURCE_KIND(field, unit, MONITOR_COUNTER)

BCACHE_SOURCE(reads, "reads");
BCACHE_SOURCE(hits, "reads");
BCACHE_SOURCE(misses, "reads");
BCACHE_SOURCE(waits, "reads");
BCACHE_SOURCE(evictions, "blocks");
BCACHE_SOURCE(prefetches, "blocks");
BCACHE_SOURCE(writes, "writes");
BCACHE_SOURCE(write_hits, "writes");
BCACHE_SOURCE(write_misses, "writes");
BCACHE_SOURCE(writebacks, "blocks");
BCACHE_SOURCE(sync_writes, "blocks");
BCACHE_SOURCE(write_errors, "blocks");
BCACHE_SOURCE_KIND(dirty, "blocks", MONITOR_GAUGE);
