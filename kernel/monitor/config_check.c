// SPDX-License-Identifier: BSD-2-Clause
/*
 * The checks a profile configuration file must pass
 * (scion/profile_config.h lists them; this is that list, in its order):
 * the first that fails is named in one line, "profile config: resource
 * 1 'mm.free': interval_ms 0 below 1". Portable C over the file's bytes
 * as they came (little-endian, as the host wrote them: each header,
 * resource and bucket is copied out and turned to native order; no
 * alignment assumed, nothing read outside size, nothing allocated), built into the kernel and into a libFuzzer target
 * (tests/fuzz/fuzz_profile_config.c). No state, no locks.
 */
#include <stdarg.h>
#include <scion/chan_wire.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/string.h>
#include "../channel/frame.h"
#include "config_check.h"

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

static struct profile_config_resource resource_at(const uint8_t *file, unsigned i)
{
	struct profile_config_resource r;
	memcpy(&r, file + sizeof(struct profile_config_header) + (size_t)i * sizeof(r), sizeof(r));
	chan_wire_from_le(CHAN_WIRE(profile_config_resource), &r, 1);
	return r;
}

/* One resource's checks (names, kinds, times, bands), after those of resources 0..i-1. */
static int check_resource(const uint8_t *file, const struct profile_config_header *h, unsigned i,
			  char *msg, size_t msglen)
{
	struct profile_config_resource res = resource_at(file, i), *r = &res;
	char why[64];

	if (name_problem(r->name, sizeof(r->name), why, sizeof(why)))
		return refuse(msg, msglen, -EINVAL, "resource %u: name %s", i, why);
	for (unsigned j = 0; j < i; j++)
		if (!strcmp(resource_at(file, j).name, r->name))
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
	const uint8_t *buckets = file + sizeof(*h) + (size_t)h->resource_count * sizeof(*r) +
				 (size_t)i * h->bucket_count * sizeof(struct profile_config_bucket);
	for (unsigned k = 0; k < h->bucket_count; k++) {
		struct profile_config_bucket bucket, *b = &bucket;
		memcpy(b, buckets + (size_t)k * sizeof(*b), sizeof(*b));
		chan_wire_from_le(CHAN_WIRE(profile_config_bucket), b, 1);
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

int profile_config_check(const uint8_t *file, size_t size, char *msg, size_t msglen)
{
	struct profile_config_header h;
	char why[64];

	if (size < sizeof(h))
		return refuse(msg, msglen, -EINVAL, "%zu bytes, shorter than the %zu-byte header",
			      size, sizeof(h));
	memcpy(&h, file, sizeof(h));
	chan_wire_from_le(CHAN_WIRE(profile_config_header), &h, 1);
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
	for (unsigned i = 0; i < h.resource_count; i++)
		if ((err = check_resource(file, &h, i, msg, msglen)))
			return err;
	return 0;
}
