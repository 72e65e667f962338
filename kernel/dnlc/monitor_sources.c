// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the DNLC publishes to the monitor (scion/monitor.h): its lookups
 * and their outcomes, enters and evictions, counters since boot (across
 * `dnlc reset`), and the entries in use.
 */
#include <scion/monitor.h>
#include <scion/dnlc.h>

#define DNLC_SOURCE(field, unit, kind)						\
	static uint64_t read_##field(void)					\
	{									\
		struct dnlc_stats s;						\
		dnlc_get_totals(&s);						\
		return s.field;							\
	}									\
	MONITOR_GLOBAL(dnlc_##field, "dnlc." #field, unit, kind, read_##field)

DNLC_SOURCE(lookups, "lookups", MONITOR_COUNTER);
DNLC_SOURCE(hits, "lookups", MONITOR_COUNTER);
DNLC_SOURCE(negative_hits, "lookups", MONITOR_COUNTER);
DNLC_SOURCE(misses, "lookups", MONITOR_COUNTER);
DNLC_SOURCE(too_long, "lookups", MONITOR_COUNTER);
DNLC_SOURCE(enters, "entries", MONITOR_COUNTER);
DNLC_SOURCE(evictions, "entries", MONITOR_COUNTER);
DNLC_SOURCE(entries, "entries", MONITOR_GAUGE);
