/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The profile configuration: what the nightly off-line analysis (VINO
 * self-monitoring; `scion analyze nightly`) tells the kernel's online
 * monitor for the next day. For each resource: the sampling interval
 * to use, and for each time-of-day bucket the expected value and the
 * band around it; a resource's mean over window_ms that stays outside
 * its bucket's band for duration_ms raises a red flag.
 *
 * The file is written on the host by host/scionhost/profile/config.py
 * (with this layout as tools/gen_layouts.py generates it from this
 * header; tests/integration/test_layouts.py checks that against the
 * compiler) and given to the kernel by `scion profile config load FILE`
 * or as a boot module. Layout, all integers little-endian, no floating
 * point (the kernel uses none):
 *
 *   struct profile_config_header
 *   struct profile_config_resource   [resource_count]
 *   struct profile_config_bucket     [resource_count * bucket_count]
 *                                    (resource i's buckets at i * bucket_count)
 *
 * Times are the calendar's (scion/monitor_rec.h): bucket_ms, window_ms,
 * duration_ms and interval_ms are milliseconds of the day, which under a
 * time scale pass faster than real ones; the kernel samples a resource
 * every interval_ms / scale real milliseconds (at least 1).
 *
 * Values are fixed point: PROFILE_VALUE_SCALE units per unit of the
 * resource, per second for a counter (its rate), as a level for a gauge.
 * A per-CPU resource's values are for the sum over the CPUs; a
 * per-thread resource has an interval but no bands (flag clear).
 *
 * A reader accepts a file only if every check below holds, and refuses
 * it with one line naming the first that fails (keeping the
 * configuration it had): size at least the header; magic; version;
 * header_size, resource_size and bucket_size equal to the sizes here;
 * value_scale == PROFILE_VALUE_SCALE; 1 <= resource_count <=
 * PROFILE_MAX_RESOURCES; bucket_count * bucket_ms == PROFILE_DAY_MS
 * with 1 <= bucket_count <= PROFILE_MAX_BUCKETS; total_size equal to
 * the file's size and to the size the counts imply; crc32 (zlib's, of
 * the whole file with the crc32 field zero) right; every name non-empty,
 * NUL-terminated within PROFILE_NAME_MAX, printable and unique;
 * kind and scope known, no unknown flag; PROFILE_MIN_INTERVAL_MS <=
 * interval_ms <= PROFILE_MAX_INTERVAL_MS, interval_ms <= window_ms <=
 * duration_ms <= PROFILE_DAY_MS; for a banded resource 0 <= low <=
 * expected <= high in every bucket. Reserved bytes must be zero.
 */
#ifndef SCION_PROFILE_CONFIG_H
#define SCION_PROFILE_CONFIG_H

#include <stdint.h>

#define PROFILE_CONFIG_MAGIC     0x46435053u	/* "SPCF" as stored (little-endian) */
#define PROFILE_CONFIG_VERSION   1
#define PROFILE_NAME_MAX         32		/* bytes, the NUL included */
#define PROFILE_MACHINE_MAX      32
#define PROFILE_VALUE_SCALE      1000
#define PROFILE_MAX_RESOURCES    256
#define PROFILE_MAX_BUCKETS      1440
#define PROFILE_DAY_MS           86400000u
#define PROFILE_MIN_INTERVAL_MS  1
#define PROFILE_MAX_INTERVAL_MS  3600000u

enum profile_kind {
	PROFILE_KIND_GAUGE = 0,		/* a level */
	PROFILE_KIND_COUNTER = 1,	/* compared as a rate per second */
};

enum profile_scope {
	PROFILE_SCOPE_GLOBAL = 0,
	PROFILE_SCOPE_CPU = 1,		/* bands for the sum over CPUs */
	PROFILE_SCOPE_THREAD = 2,	/* an interval only */
};

#define PROFILE_FLAG_BANDED      0x1u	/* the buckets hold expected values and bands */
#define PROFILE_FLAGS_KNOWN      PROFILE_FLAG_BANDED

struct profile_config_header {
	uint32_t magic;			/* PROFILE_CONFIG_MAGIC */
	uint16_t version;		/* PROFILE_CONFIG_VERSION */
	uint16_t header_size;		/* sizeof(struct profile_config_header) */
	uint16_t resource_size;		/* sizeof(struct profile_config_resource) */
	uint16_t bucket_size;		/* sizeof(struct profile_config_bucket) */
	uint32_t resource_count;
	uint32_t bucket_count;		/* time-of-day buckets per resource */
	uint32_t bucket_ms;		/* each bucket's length; bucket_count * bucket_ms = a day */
	uint32_t value_scale;		/* PROFILE_VALUE_SCALE */
	uint32_t total_size;		/* bytes of the whole file */
	int64_t valid_day;		/* the day it is for: seconds since 1970 at its 00:00 */
	int64_t generated;		/* when the analysis wrote it, seconds since 1970 */
	uint32_t burst_every_s;		/* a 1 ms burst at least this often */
	uint32_t burst_ms;		/* of this many 1 ms samples */
	uint32_t crc32;			/* of the whole file with this field zero */
	uint32_t reserved;		/* zero */
	char machine[PROFILE_MACHINE_MAX];	/* the machine analysed, NUL-padded */
};
_Static_assert(sizeof(struct profile_config_header) == 96, "profile header layout changed");

struct profile_config_resource {
	char name[PROFILE_NAME_MAX];	/* "cpu.busy", NUL-padded */
	uint32_t interval_ms;		/* the sampling interval to use */
	uint32_t window_ms;		/* the mean compared with the band */
	uint32_t duration_ms;		/* outside the band this long: a red flag */
	uint8_t kind;			/* enum profile_kind */
	uint8_t scope;			/* enum profile_scope */
	uint16_t flags;			/* PROFILE_FLAG_* */
};
_Static_assert(sizeof(struct profile_config_resource) == 48, "profile resource layout changed");

struct profile_config_bucket {
	int64_t expected;		/* scaled by PROFILE_VALUE_SCALE */
	int64_t low;			/* the band: low <= value <= high is normal */
	int64_t high;
};
_Static_assert(sizeof(struct profile_config_bucket) == 24, "profile bucket layout changed");

#endif
