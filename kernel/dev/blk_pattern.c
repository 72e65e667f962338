// SPDX-License-Identifier: BSD-2-Clause
/*
 * The disk image's test pattern (scion/blk_pattern.h), built and checked
 * one sector at a time. Pure functions; no state.
 */
#include <scion/blk_pattern.h>
#include <scion/blkdev.h>
#include <scion/string.h>

#define BYTE_BITS 8
#define BYTE_MASK 0xffu

static uint8_t pattern_byte(uint64_t sector, unsigned i)
{
	if (i < BLK_PATTERN_MAGIC_BYTES)
		return (uint8_t)BLK_PATTERN_MAGIC[i];
	if (i < BLK_PATTERN_HEADER_BYTES)
		return (uint8_t)(sector >> (BYTE_BITS * (i - BLK_PATTERN_MAGIC_BYTES)));
	return (uint8_t)((sector * BLK_PATTERN_MULTIPLIER + i) & BYTE_MASK);
}

void blk_pattern_fill(uint64_t sector, void *buf)
{
	uint8_t *p = buf;
	for (unsigned i = 0; i < BLK_SECTOR_SIZE; i++)
		p[i] = pattern_byte(sector, i);
}

bool blk_pattern_check(uint64_t sector, const void *buf, unsigned *bad_offset)
{
	const uint8_t *p = buf;
	for (unsigned i = 0; i < BLK_SECTOR_SIZE; i++) {
		if (p[i] != pattern_byte(sector, i)) {
			if (bad_offset)
				*bad_offset = i;
			return false;
		}
	}
	return true;
}
