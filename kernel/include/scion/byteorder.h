/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Little-endian values in memory shared with devices or on disk (virtio
 * rings and request headers, the test disk's pattern header) and the
 * CPU's byte order: no-ops on a little-endian CPU (x86), byte swaps on a
 * big-endian one (sparc64); and big-endian ones, the other way round. The test is the compiler's constant
 * (__BYTE_ORDER__), so each call folds to nothing or one swap.
 */
#ifndef SCION_BYTEORDER_H
#define SCION_BYTEORDER_H

#include <stdint.h>

#define CPU_IS_LITTLE_ENDIAN (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

static inline uint16_t cpu_to_le16(uint16_t v)
{
	return CPU_IS_LITTLE_ENDIAN ? v : __builtin_bswap16(v);
}

static inline uint32_t cpu_to_le32(uint32_t v)
{
	return CPU_IS_LITTLE_ENDIAN ? v : __builtin_bswap32(v);
}

static inline uint64_t cpu_to_le64(uint64_t v)
{
	return CPU_IS_LITTLE_ENDIAN ? v : __builtin_bswap64(v);
}

/* The conversion is its own inverse. */
static inline uint16_t le16_to_cpu(uint16_t v)
{
	return cpu_to_le16(v);
}

static inline uint32_t le32_to_cpu(uint32_t v)
{
	return cpu_to_le32(v);
}

static inline uint64_t le64_to_cpu(uint64_t v)
{
	return cpu_to_le64(v);
}

/*
 * Big-endian values: the network's byte order (D's htons() ... ntohll()).
 * Byte swaps on a little-endian CPU, no-ops on a big-endian one; each is
 * its own inverse.
 */
static inline uint16_t cpu_to_be16(uint16_t v)
{
	return CPU_IS_LITTLE_ENDIAN ? __builtin_bswap16(v) : v;
}

static inline uint32_t cpu_to_be32(uint32_t v)
{
	return CPU_IS_LITTLE_ENDIAN ? __builtin_bswap32(v) : v;
}

static inline uint64_t cpu_to_be64(uint64_t v)
{
	return CPU_IS_LITTLE_ENDIAN ? __builtin_bswap64(v) : v;
}

#endif
