// SPDX-License-Identifier: BSD-2-Clause
/*
 * The disk image's test pattern (scion/blk_pattern.h), built and checked
 * one sector at a time. Pure functions; no state.
 */
#include <scion/blk_pattern.h>
#include <scion/blkdev.h>
#include <scion/byteorder.h>
#include <scion/string.h>

#define BYTE_MASK 0xffu

static void pattern_header(uint64_t sector, struct blk_pattern_header *h)
{
	memcpy(h->magic, BLK_PATTERN_MAGIC, sizeof(h->magic));
	h->sector = cpu_to_le64(sector);	/* little-endian on disk (tools/mkdisk.py) */
}

static uint8_t pattern_byte(uint64_t sector, unsigned i, const struct blk_pattern_header *h)
{
	if (i < sizeof(*h))
		return ((const uint8_t *)h)[i];
	return (uint8_t)((sector * BLK_PATTERN_MULTIPLIER + i) & BYTE_MASK);
}

void blk_pattern_fill(uint64_t sector, void *buf)
{
	struct blk_pattern_header h;
	uint8_t *p = buf;
	pattern_header(sector, &h);
	for (unsigned i = 0; i < BLK_SECTOR_SIZE; i++)
		p[i] = pattern_byte(sector, i, &h);
}

bool blk_pattern_check(uint64_t sector, const void *buf, unsigned *bad_offset)
{
	struct blk_pattern_header h;
	const uint8_t *p = buf;
	pattern_header(sector, &h);
	for (unsigned i = 0; i < BLK_SECTOR_SIZE; i++) {
		if (p[i] != pattern_byte(sector, i, &h)) {
			if (bad_offset)
				*bad_offset = i;
			return false;
		}
	}
	return true;
}
