// SPDX-License-Identifier: BSD-2-Clause
/*
 * The profile configuration loader (VINO self-monitoring): the nightly
 * analysis's file for the next day (scion/profile_config.h) is checked
 * (config_check.c) and refused with one line naming the first check
 * that fails; the configuration in force then stays. An accepted file's
 * burst schedule and intervals go to the sampler, and a copy of it
 * replaces the configuration the red flags read.
 *
 * Invariants: monitor_config_current is NULL or a whole, checked
 * configuration that nobody changes; it is replaced (and the red flags'
 * state reset) only under monitor_config_lock, and the old one freed
 * after. Lock order: monitor_config_lock -> monitor_lock (the sampler's,
 * taken by monitor_set_interval / monitor_set_burst).
 */
#include <scion/chan_wire.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/compiler.h>
#include <scion/calendar.h>
#include "config_check.h"
#include "config_internal.h"

#define MS_PER_MIN 60000u

struct mutex monitor_config_lock = MUTEX_INIT(monitor_config_lock, "monitor_config");
const struct monitor_config *monitor_config_current;

/*
 * A checked file's copy to native order, in place: the file is
 * little-endian (the host wrote it), the red flags read the copy's
 * buckets as native structures. Nothing to do on a little-endian machine.
 */
static void to_native(uint8_t *copy)
{
	struct profile_config_header *h = (struct profile_config_header *)copy;
	chan_wire_from_le(CHAN_WIRE(profile_config_header), h, 1);
	uint8_t *resources = copy + sizeof(*h);
	chan_wire_from_le(CHAN_WIRE(profile_config_resource), resources, h->resource_count);
	chan_wire_from_le(CHAN_WIRE(profile_config_bucket),
			  resources + h->resource_count * sizeof(struct profile_config_resource),
			  (size_t)h->resource_count * h->bucket_count);
}

/* Check file (size bytes); on success *out is a native copy of it, its sources mapped. */
static int check(const uint8_t *file, size_t size, struct monitor_config **out, char *msg,
		 size_t msglen)
{
	int err = profile_config_check(file, size, msg, msglen);
	if (err)
		return err;
	struct monitor_config *cfg = kzalloc(sizeof(*cfg));
	uint8_t *copy = kmalloc(size);	/* 16-byte aligned: the records are aligned in it */
	if (!cfg || !copy) {
		kfree(cfg);
		kfree(copy);
		snprintf(msg, msglen, "profile config: no memory for a copy of %zu bytes", size);
		return -ENOMEM;
	}
	memcpy(copy, file, size);
	to_native(copy);
	memcpy(&cfg->head, copy, sizeof(cfg->head));
	cfg->file = copy;
	cfg->resource = (const void *)(copy + sizeof(cfg->head));
	cfg->bucket = (const void *)(copy + sizeof(cfg->head) +
				     cfg->head.resource_count * sizeof(*cfg->resource));
	for (unsigned s = 0; s < MONITOR_SOURCES_MAX; s++)
		cfg->resource_of[s] = -1;
	for (unsigned i = 0; i < cfg->head.resource_count; i++) {
		const struct monitor_source *src = monitor_source_find(cfg->resource[i].name);
		int s = src ? monitor_source_index(src) : -1;
		if (s >= 0 && s < MONITOR_SOURCES_MAX)
			cfg->resource_of[s] = (int16_t)i;
		else
			cfg->unknown++;
	}
	*out = cfg;
	return 0;
}

static void config_free(const struct monitor_config *cfg)
{
	if (cfg) {
		kfree(cfg->file);
		kfree((void *)cfg);
	}
}

/* Set each known resource's interval; the number of sources whose interval changed. */
static unsigned apply_intervals_locked(const struct monitor_config *cfg)
{
	unsigned changed = 0;
	char why[96];

	for (unsigned s = 0; s < MONITOR_SOURCES_MAX; s++) {
		if (cfg->resource_of[s] < 0)
			continue;
		const struct profile_config_resource *r = &cfg->resource[cfg->resource_of[s]];
		/* The analysis measures intervals on the calendar; the sampler on its clock. */
		uint32_t real_ms = monitor_real_ms_of(r->interval_ms);
		if (monitor_interval_of(s) == real_ms)
			continue;
		/* Within the sampler's range by construction: this cannot be refused. */
		if (monitor_set_interval(r->name, real_ms, why, sizeof(why)) > 0)
			changed++;
	}
	return changed;
}

int monitor_config_load(const void *file, size_t size, char *msg, size_t msglen)
{
	struct monitor_config *cfg = NULL;
	char why[96], day[16];

	int err = check(file, size, &cfg, msg, msglen);
	if (err)
		return err;
	mutex_lock(&monitor_config_lock);
	/* The burst schedule first: the sampler may refuse it, and then nothing has changed. */
	err = monitor_set_burst(cfg->head.burst_ms, cfg->head.burst_every_s, why, sizeof(why));
	if (err) {
		mutex_unlock(&monitor_config_lock);
		snprintf(msg, msglen, "profile config: burst_ms %u every burst_every_s %u refused "
			 "(%s)", cfg->head.burst_ms, cfg->head.burst_every_s, why);
		config_free(cfg);
		return err;
	}
	unsigned changed = apply_intervals_locked(cfg);
	calendar_format_date(cfg->head.valid_day, day, sizeof(day));
	uint32_t bucket_ms = cfg->head.bucket_ms;
	snprintf(msg, msglen, "profile config: loaded for %s (machine %s): %u resources, %u buckets "
		 "of %u %s, %u intervals changed, %u unknown", day, cfg->head.machine,
		 cfg->head.resource_count, cfg->head.bucket_count,
		 bucket_ms % MS_PER_MIN ? bucket_ms : bucket_ms / MS_PER_MIN,
		 bucket_ms % MS_PER_MIN ? "ms" : "min", changed, cfg->unknown);
	const struct monitor_config *old = monitor_config_current;
	monitor_config_current = cfg;	/* a later load may free cfg once the lock is dropped */
	monitor_redflag_reset_locked();
	mutex_unlock(&monitor_config_lock);
	config_free(old);
	return 0;
}

bool monitor_config_in_force(int64_t *valid_day)
{
	mutex_lock(&monitor_config_lock);
	const struct monitor_config *cfg = monitor_config_current;
	if (cfg && valid_day)
		*valid_day = cfg->head.valid_day;
	mutex_unlock(&monitor_config_lock);
	return cfg != NULL;
}

const struct profile_config_bucket *monitor_config_bucket(const struct monitor_config *cfg,
							   unsigned r, int64_t wall_ns)
{
	uint64_t k = calendar_ms_of_day(wall_ns) / cfg->head.bucket_ms;
	return &cfg->bucket[(size_t)r * cfg->head.bucket_count + k];
}

void monitor_config_format_value(int64_t v, char *out, size_t size)
{
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	snprintf(out, size, "%s%llu.%03llu", v < 0 ? "-" : "",
		 (unsigned long long)(mag / PROFILE_VALUE_SCALE),
		 (unsigned long long)(mag % PROFILE_VALUE_SCALE));
}
