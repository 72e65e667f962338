// SPDX-License-Identifier: BSD-2-Clause
/*
 * The profile configuration loader (VINO self-monitoring): the nightly
 * analysis's file for the next day (scion/profile_config.h) is checked
 * exactly as its header lists, in that order, and refused with one line
 * naming the first check that fails; the configuration in force then
 * stays. An accepted file's burst schedule and intervals go to the
 * sampler, and it replaces the configuration the red flags read.
 *
 * Invariants: monitor_config_current is NULL or a whole, checked
 * configuration that nobody changes; it is replaced (and the red flags'
 * state reset) only under monitor_config_lock, and the old one freed
 * after. Lock order: monitor_config_lock -> monitor_lock (the sampler's,
 * taken by monitor_set_interval / monitor_set_burst).
 */
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/compiler.h>
#include <scion/calendar.h>
#include <stdarg.h>
#include "../channel/frame.h"
#include "config_internal.h"

#define MS_PER_MIN 60000u
#define NS_PER_MS  1000000
#define SECONDS_PER_DAY 86400

struct mutex monitor_config_lock = MUTEX_INIT(monitor_config_lock, "monitor_config");
const struct monitor_config *monitor_config_current;

/* One line "profile config: ..." into msg; returns err. */
static int __printf(4, 5) refuse(char *msg, size_t msglen, int err, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(msg, msglen, "profile config: ");

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < msglen)
		vsnprintf(msg + n, msglen - (size_t)n, fmt, ap);
	va_end(ap);
	return err;
}

/* zlib's CRC-32 of the file with its crc32 field taken as zero. */
static uint32_t file_crc(const uint8_t *file, size_t size)
{
	static const uint8_t zero[sizeof(uint32_t)];
	size_t at = offsetof(struct profile_config_header, crc32);

	uint32_t crc = chan_crc32(0, file, at);
	crc = chan_crc32(crc, zero, sizeof(zero));
	return chan_crc32(crc, file + at + sizeof(zero), size - at - sizeof(zero));
}

/*
 * A NUL-padded name field: non-empty, NUL-terminated within size,
 * printable (no space or control byte), zero after the NUL.
 * Return value: NULL, or what is wrong (into why).
 */
static const char *name_problem(const char *field, size_t size, char *why, size_t whylen)
{
	size_t n = strnlen(field, size);

	if (n == size)
		snprintf(why, whylen, "not NUL-terminated within %zu bytes", size);
	else if (n == 0)
		snprintf(why, whylen, "empty");
	else {
		for (size_t i = 0; i < n; i++)
			if ((uint8_t)field[i] <= ' ' || (uint8_t)field[i] >= 0x7f) {
				snprintf(why, whylen, "unprintable byte 0x%02x at %zu",
					 (uint8_t)field[i], i);
				return why;
			}
		for (size_t i = n; i < size; i++)
			if (field[i]) {
				snprintf(why, whylen, "byte %zu after the NUL is not zero", i);
				return why;
			}
		return NULL;
	}
	return why;
}

/* The header's checks, in profile_config.h's order, up to the sizes. */
static int check_header(const struct profile_config_header *h, size_t size, char *msg,
			size_t msglen)
{
	if (h->magic != PROFILE_CONFIG_MAGIC)
		return refuse(msg, msglen, -EINVAL, "magic 0x%08x, not 0x%08x (not a profile "
			      "configuration)", h->magic, PROFILE_CONFIG_MAGIC);
	if (h->version != PROFILE_CONFIG_VERSION)
		return refuse(msg, msglen, -EINVAL, "version %u, this kernel reads %u", h->version,
			      PROFILE_CONFIG_VERSION);
	if (h->header_size != sizeof(struct profile_config_header))
		return refuse(msg, msglen, -EINVAL, "header_size %u, not %zu", h->header_size,
			      sizeof(struct profile_config_header));
	if (h->resource_size != sizeof(struct profile_config_resource))
		return refuse(msg, msglen, -EINVAL, "resource_size %u, not %zu", h->resource_size,
			      sizeof(struct profile_config_resource));
	if (h->bucket_size != sizeof(struct profile_config_bucket))
		return refuse(msg, msglen, -EINVAL, "bucket_size %u, not %zu", h->bucket_size,
			      sizeof(struct profile_config_bucket));
	if (h->value_scale != PROFILE_VALUE_SCALE)
		return refuse(msg, msglen, -EINVAL, "value_scale %u, not %u", h->value_scale,
			      PROFILE_VALUE_SCALE);
	if (h->resource_count < 1 || h->resource_count > PROFILE_MAX_RESOURCES)
		return refuse(msg, msglen, -EINVAL, "resource_count %u out of 1..%u",
			      h->resource_count, PROFILE_MAX_RESOURCES);
	if (h->bucket_count < 1 || h->bucket_count > PROFILE_MAX_BUCKETS)
		return refuse(msg, msglen, -EINVAL, "bucket_count %u out of 1..%u", h->bucket_count,
			      PROFILE_MAX_BUCKETS);
	if ((uint64_t)h->bucket_count * h->bucket_ms != PROFILE_DAY_MS)
		return refuse(msg, msglen, -EINVAL, "bucket_count %u * bucket_ms %u is not a day "
			      "(%u ms)", h->bucket_count, h->bucket_ms, PROFILE_DAY_MS);
	uint64_t implied = sizeof(*h) + (uint64_t)h->resource_count *
			   (sizeof(struct profile_config_resource) +
			    (uint64_t)h->bucket_count * sizeof(struct profile_config_bucket));
	if (h->total_size != size)
		return refuse(msg, msglen, -EINVAL, "total_size %u, but the file has %zu bytes "
			      "(truncated or padded)", h->total_size, size);
	if (implied != size)
		return refuse(msg, msglen, -EINVAL, "total_size %u, but %u resources of %u buckets "
			      "make %llu bytes", h->total_size, h->resource_count, h->bucket_count,
			      (unsigned long long)implied);
	return 0;
}

/* One resource's checks (names, kinds, times, bands); i's name not yet in names before it. */
static int check_resource(const struct monitor_config *cfg, unsigned i, char *msg, size_t msglen)
{
	const struct profile_config_resource *r = &cfg->resource[i];
	char why[64];

	if (name_problem(r->name, sizeof(r->name), why, sizeof(why)))
		return refuse(msg, msglen, -EINVAL, "resource %u: name %s", i, why);
	for (unsigned j = 0; j < i; j++)
		if (!strcmp(cfg->resource[j].name, r->name))
			return refuse(msg, msglen, -EINVAL, "resource %u '%s': name is resource %u's "
				      "too (duplicate)", i, r->name, j);
	if (r->kind != PROFILE_KIND_GAUGE && r->kind != PROFILE_KIND_COUNTER)
		return refuse(msg, msglen, -EINVAL, "resource %u '%s': kind %u unknown", i, r->name,
			      r->kind);
	if (r->scope > PROFILE_SCOPE_THREAD)
		return refuse(msg, msglen, -EINVAL, "resource %u '%s': scope %u unknown", i,
			      r->name, r->scope);
	if (r->flags & ~PROFILE_FLAGS_KNOWN)
		return refuse(msg, msglen, -EINVAL, "resource %u '%s': flags 0x%x has unknown "
			      "flag 0x%x", i, r->name, r->flags, r->flags & ~PROFILE_FLAGS_KNOWN);
	if (r->interval_ms < PROFILE_MIN_INTERVAL_MS)
		return refuse(msg, msglen, -EINVAL, "resource %u '%s': interval_ms %u below %u", i,
			      r->name, r->interval_ms, PROFILE_MIN_INTERVAL_MS);
	if (r->interval_ms > PROFILE_MAX_INTERVAL_MS)
		return refuse(msg, msglen, -EINVAL, "resource %u '%s': interval_ms %u above %u", i,
			      r->name, r->interval_ms, PROFILE_MAX_INTERVAL_MS);
	if (r->window_ms < r->interval_ms)
		return refuse(msg, msglen, -EINVAL, "resource %u '%s': window_ms %u below "
			      "interval_ms %u", i, r->name, r->window_ms, r->interval_ms);
	if (r->duration_ms < r->window_ms)
		return refuse(msg, msglen, -EINVAL, "resource %u '%s': duration_ms %u below "
			      "window_ms %u", i, r->name, r->duration_ms, r->window_ms);
	if (r->duration_ms > PROFILE_DAY_MS)
		return refuse(msg, msglen, -EINVAL, "resource %u '%s': duration_ms %u above a day "
			      "(%u)", i, r->name, r->duration_ms, PROFILE_DAY_MS);
	if (!(r->flags & PROFILE_FLAG_BANDED))
		return 0;
	const struct profile_config_bucket *b = &cfg->bucket[(size_t)i * cfg->head.bucket_count];
	for (unsigned k = 0; k < cfg->head.bucket_count; k++, b++) {
		if (b->low < 0)
			return refuse(msg, msglen, -EINVAL, "resource %u '%s': bucket %u: low %lld "
				      "below 0", i, r->name, k, (long long)b->low);
		if (b->low > b->expected)
			return refuse(msg, msglen, -EINVAL, "resource %u '%s': bucket %u: low %lld "
				      "above expected %lld", i, r->name, k, (long long)b->low,
				      (long long)b->expected);
		if (b->expected > b->high)
			return refuse(msg, msglen, -EINVAL, "resource %u '%s': bucket %u: expected "
				      "%lld above high %lld", i, r->name, k, (long long)b->expected,
				      (long long)b->high);
	}
	return 0;
}

/* Check file (size bytes); on success *out is the configuration, its sources mapped. */
static int check(const uint8_t *file, size_t size, struct monitor_config **out, char *msg,
		 size_t msglen)
{
	struct profile_config_header h;
	char why[64];

	if (size < sizeof(h))
		return refuse(msg, msglen, -EINVAL, "%zu bytes, shorter than the %zu-byte header",
			      size, sizeof(h));
	memcpy(&h, file, sizeof(h));
	int err = check_header(&h, size, msg, msglen);
	if (err)
		return err;
	uint32_t crc = file_crc(file, size);
	if (crc != h.crc32)
		return refuse(msg, msglen, -EINVAL, "crc32 0x%08x does not match the contents "
			      "(0x%08x)", h.crc32, crc);
	if (h.reserved)
		return refuse(msg, msglen, -EINVAL, "reserved 0x%x in the header is not zero",
			      h.reserved);
	if (name_problem(h.machine, sizeof(h.machine), why, sizeof(why)))
		return refuse(msg, msglen, -EINVAL, "machine name %s", why);

	struct monitor_config *cfg = kzalloc(sizeof(*cfg));
	uint8_t *copy = kmalloc(size);	/* 16-byte aligned: the records are aligned in it */
	if (!cfg || !copy) {
		kfree(cfg);
		kfree(copy);
		return refuse(msg, msglen, -ENOMEM, "no memory for a copy of %zu bytes", size);
	}
	memcpy(copy, file, size);
	cfg->head = h;
	cfg->file = copy;
	cfg->resource = (const void *)(copy + sizeof(h));
	cfg->bucket = (const void *)(copy + sizeof(h) + h.resource_count * sizeof(*cfg->resource));
	for (unsigned i = 0; i < h.resource_count; i++)
		if ((err = check_resource(cfg, i, msg, msglen))) {
			kfree(copy);
			kfree(cfg);
			return err;
		}
	for (unsigned s = 0; s < MONITOR_SOURCES_MAX; s++)
		cfg->resource_of[s] = -1;
	for (unsigned i = 0; i < h.resource_count; i++) {
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
		if (monitor_interval_of(s) == r->interval_ms)
			continue;
		/* The file's interval passed the sampler's range: this cannot be refused. */
		if (monitor_set_interval(r->name, r->interval_ms, why, sizeof(why)) > 0)
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
		config_free(cfg);
		return refuse(msg, msglen, err, "burst_ms %u every burst_every_s %u refused (%s)",
			      cfg->head.burst_ms, cfg->head.burst_every_s, why);
	}
	unsigned changed = apply_intervals_locked(cfg);
	monitor_config_format_day(cfg->head.valid_day, day, sizeof(day));
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
	uint64_t ms_of_day = wall_ns < 0 ? 0 : (uint64_t)wall_ns / NS_PER_MS % PROFILE_DAY_MS;
	uint64_t k = ms_of_day / cfg->head.bucket_ms;
	return &cfg->bucket[(size_t)r * cfg->head.bucket_count + k];
}

void monitor_config_format_day(int64_t seconds, char *out, size_t size)
{
	int64_t days = seconds >= 0 ? seconds / SECONDS_PER_DAY :
		       -((-seconds + SECONDS_PER_DAY - 1) / SECONDS_PER_DAY);
	struct calendar_date d = calendar_date_from_days(days);
	snprintf(out, size, "%04lld-%02u-%02u", (long long)d.year, d.month, d.day);
}

void monitor_config_format_value(int64_t v, char *out, size_t size)
{
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	snprintf(out, size, "%s%llu.%03llu", v < 0 ? "-" : "",
		 (unsigned long long)(mag / PROFILE_VALUE_SCALE),
		 (unsigned long long)(mag % PROFILE_VALUE_SCALE));
}
