/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A hash for table lookups in hot paths (aggregation keys, dynamic
 * variables): eight bytes per step, so a 256-byte string key costs 32
 * steps rather than 256. Not for anything stored or compared across
 * builds (the text image keeps its own fnv1a64 for that).
 */
#ifndef SCION_HASH_H
#define SCION_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The hash of len bytes at data (any alignment), mixed with seed. */
uint32_t hash_bytes(uint64_t seed, const void *data, size_t len);

#endif
