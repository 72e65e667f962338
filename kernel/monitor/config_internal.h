/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The profile configuration in force, as config.c keeps it for the red
 * flags (redflag.c) and `monitor config show` (cmd_config.c). A loaded
 * configuration is never changed: a new one replaces the pointer under
 * monitor_config_lock and the old one is freed after, so whoever holds
 * the lock sees one whole configuration or none.
 *
 * Lock order: monitor_config_lock first (monitor_internal.h).
 */
#ifndef MONITOR_CONFIG_INTERNAL_H
#define MONITOR_CONFIG_INTERNAL_H

#include <scion/mutex.h>
#include <scion/profile_config.h>
#include "monitor_internal.h"

struct monitor_config {
	struct profile_config_header head;		/* checked */
	const struct profile_config_resource *resource;	/* [head.resource_count], in file */
	const struct profile_config_bucket *bucket;	/* resource i's at i * bucket_count */
	int16_t resource_of[MONITOR_SOURCES_MAX];	/* source index -> resource, -1: none */
	unsigned unknown;				/* resources that name no source */
	uint8_t *file;					/* the file's bytes (a copy) */
};

extern struct mutex monitor_config_lock;

/* The configuration in force, or NULL. Read and replaced under monitor_config_lock. */
extern const struct monitor_config *monitor_config_current;

/* The bucket of resource r that covers calendar time wall_ns (before 1970: bucket 0). */
const struct profile_config_bucket *monitor_config_bucket(const struct monitor_config *cfg,
							   unsigned r, int64_t wall_ns);

/*
 * monitor_redflag_reset_locked - forget every source's window and
 *   outside-the-band time, and the flags counted under the old
 *   configuration (a new one is in force).
 * Caller's context: monitor_config_lock held.
 */
void monitor_redflag_reset_locked(void);

/* Red flags raised for source index under the configuration in force. monitor_config_lock held. */
uint32_t monitor_redflag_raised_locked(unsigned index);

#endif
