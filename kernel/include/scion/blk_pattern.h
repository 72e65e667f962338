/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The test pattern of the disk image tools/mkdisk.py writes (and that
 * kernel/dev/blk_pattern.c checks): sector s, 512 bytes, holds
 *
 *   bytes 0..7    "SCIONBLK"
 *   bytes 8..15   s as a little-endian 64-bit number
 *   bytes 16..511 byte i = (s * 31 + i) & 0xff
 *
 * tools/mkdisk.py reads the constants and the header's layout below from
 * the description the build generates of this file (tools/gen_layouts.py);
 * the byte formula after the header it spells again, and a test boot
 * checks every sector the kernel reads against blk_pattern_check.
 */
#ifndef SCION_BLK_PATTERN_H
#define SCION_BLK_PATTERN_H

#include <scion/compiler.h>

#define BLK_PATTERN_MAGIC         "SCIONBLK"
#define BLK_PATTERN_MAGIC_BYTES   8
#define BLK_PATTERN_HEADER_BYTES  16	/* magic + sector number */
#define BLK_PATTERN_MULTIPLIER    31

/* A sector's first BLK_PATTERN_HEADER_BYTES. */
struct blk_pattern_header {
	char magic[BLK_PATTERN_MAGIC_BYTES];	/* BLK_PATTERN_MAGIC, no NUL */
	uint64_t sector;
};
_Static_assert(sizeof(struct blk_pattern_header) == BLK_PATTERN_HEADER_BYTES,
	       "disk pattern header changed");

/* Fill buf (one 512-byte sector) with sector's pattern. Any context. */
void blk_pattern_fill(uint64_t sector, void *buf);

/*
 * blk_pattern_check - whether buf (one sector) holds sector's pattern.
 * Arguments: bad_offset (may be NULL) receives the first byte that differs.
 * Return value: true when every byte matches. Any context.
 */
bool blk_pattern_check(uint64_t sector, const void *buf, unsigned *bad_offset);

#endif
