/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the ext2 reader's files share: little-endian field access (the
 * format's byte order whatever the machine's) and the refusal helper.
 */
#ifndef EXT2_INTERNAL_H
#define EXT2_INTERNAL_H

#include <scion/ext2.h>
#include "ext2_layout.h"

static inline uint16_t ext2_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t ext2_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

/* Record why something on disk was refused; returns -EIO. */
int ext2_refuse(struct ext2_fs *fs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether a block number may be followed: inside the data area. */
static inline bool ext2_block_ok(const struct ext2_fs *fs, uint32_t block)
{
	return block >= fs->first_data_block && block < fs->blocks;
}

/* Read len bytes at off of block (off + len <= block size). */
static inline int ext2_read_block(struct ext2_fs *fs, uint32_t block, uint32_t off, void *buf,
				  size_t len)
{
	return fs->dev.read(fs->dev.ctx, ((uint64_t)block << fs->block_log) + off, buf, len);
}

#endif
