// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: profile configuration files through the kernel's
 * checks (kernel/monitor/config_check.c, what the PROFILE_CONFIG op runs
 * on the bytes a host sent). The first input byte picks how the rest is
 * used: even, as the file itself; odd, as a file whose total_size and
 * crc32 are then made right, so that the checks behind them are reached.
 * The file sits in a buffer of exactly its size, so ASan catches any read
 * past it. A refusal must be -EINVAL with one printable line "profile
 * config: ..."; an accepted file must pass every check again, re-stated
 * here on its own.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "channel/frame.h"
#include "monitor/config_check.h"
#include <scion/errno.h>

#define MSG_BYTES 200

static void fix_seal(uint8_t *file, size_t size)
{
	uint32_t total = (uint32_t)size, zero = 0;
	memcpy(file + offsetof(struct profile_config_header, total_size), &total, sizeof(total));
	memcpy(file + offsetof(struct profile_config_header, crc32), &zero, sizeof(zero));
	uint32_t crc = chan_crc32(0, file, size);
	memcpy(file + offsetof(struct profile_config_header, crc32), &crc, sizeof(crc));
}

static void check_accepted(const uint8_t *file, size_t size)
{
	struct profile_config_header h;
	FUZZ_ASSERT(size >= sizeof(h), "accepted %zu bytes", size);
	memcpy(&h, file, sizeof(h));
	FUZZ_ASSERT(h.magic == PROFILE_CONFIG_MAGIC && h.version == PROFILE_CONFIG_VERSION &&
		    h.value_scale == PROFILE_VALUE_SCALE && h.total_size == size &&
		    h.resource_count >= 1 && h.resource_count <= PROFILE_MAX_RESOURCES &&
		    h.bucket_count >= 1 && h.bucket_count <= PROFILE_MAX_BUCKETS &&
		    (uint64_t)h.bucket_count * h.bucket_ms == PROFILE_DAY_MS && !h.reserved &&
		    memchr(h.machine, 0, sizeof(h.machine)) && h.machine[0],
		    "accepted a bad header");
	size_t resources = sizeof(h), buckets = resources + h.resource_count *
		sizeof(struct profile_config_resource);
	FUZZ_ASSERT(size == buckets + (size_t)h.resource_count * h.bucket_count *
		    sizeof(struct profile_config_bucket), "accepted %zu bytes for its counts", size);
	for (unsigned i = 0; i < h.resource_count; i++) {
		struct profile_config_resource r;
		memcpy(&r, file + resources + i * sizeof(r), sizeof(r));
		FUZZ_ASSERT(memchr(r.name, 0, sizeof(r.name)) && r.name[0] &&
			    r.kind <= PROFILE_KIND_COUNTER && r.scope <= PROFILE_SCOPE_THREAD &&
			    !(r.flags & ~PROFILE_FLAGS_KNOWN) &&
			    r.interval_ms >= PROFILE_MIN_INTERVAL_MS &&
			    r.interval_ms <= PROFILE_MAX_INTERVAL_MS && r.interval_ms <= r.window_ms &&
			    r.window_ms <= r.duration_ms && r.duration_ms <= PROFILE_DAY_MS,
			    "accepted resource %u", i);
		if (!(r.flags & PROFILE_FLAG_BANDED))
			continue;
		for (unsigned k = 0; k < h.bucket_count; k++) {
			struct profile_config_bucket b;
			memcpy(&b, file + buckets + ((size_t)i * h.bucket_count + k) * sizeof(b),
			       sizeof(b));
			FUZZ_ASSERT(b.low >= 0 && b.low <= b.expected && b.expected <= b.high,
				    "accepted resource %u bucket %u", i, k);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[MSG_BYTES];

	if (size < 1)
		return 0;
	size_t n = size - 1;
	uint8_t *file = malloc(n ? n : 1);
	memcpy(file, data + 1, n);
	if ((data[0] & 1) && n >= sizeof(struct profile_config_header))
		fix_seal(file, n);
	memset(msg, 0x55, sizeof(msg));
	int err = profile_config_check(file, n, msg, sizeof(msg));
	if (err == 0) {
		check_accepted(file, n);
	} else {
		FUZZ_ASSERT(err == -EINVAL, "refused with %d", err);
		size_t len = strnlen(msg, sizeof(msg));
		FUZZ_ASSERT(len < sizeof(msg) && !strncmp(msg, "profile config: ", 16),
			    "refusal line '%.*s'", (int)len, msg);
		for (size_t i = 0; i < len; i++)
			FUZZ_ASSERT(msg[i] >= ' ' && msg[i] < 0x7f, "byte 0x%02x in the line '%s'",
				    (uint8_t)msg[i], msg);
	}
	free(file);
	return 0;
}
