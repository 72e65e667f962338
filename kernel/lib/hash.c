// SPDX-License-Identifier: BSD-2-Clause
/*
 * hash_bytes: multiply-xorshift over 8-byte words, the tail bytes packed
 * into one last word; the length is mixed in so that keys differing only
 * in trailing zero bytes differ.
 */
#include <scion/hash.h>

typedef uint64_t __attribute__((may_alias, aligned(1))) unaligned_word;

#define HASH_MULTIPLIER 0x9e3779b97f4a7c15ull	/* 2^64 / golden ratio, odd */

static uint64_t mix(uint64_t h, uint64_t word)
{
	h = (h ^ word) * HASH_MULTIPLIER;
	return h ^ (h >> 29);
}

uint32_t hash_bytes(uint64_t seed, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = mix(seed, len);

	for (; len >= 8; len -= 8, p += 8)
		h = mix(h, *(const unaligned_word *)p);
	if (len) {
		uint64_t tail = 0;
		for (size_t i = 0; i < len; i++)
			tail |= (uint64_t)p[i] << (8 * i);
		h = mix(h, tail);
	}
	return (uint32_t)(h ^ (h >> 32));
}
