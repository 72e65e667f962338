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

static inline void ext2_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void ext2_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
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

/*
 * Every write to the device: len bytes at byte offset at; sync for
 * metadata, which first makes the unsynced bitmap (if any) synchronous,
 * so that nothing written synchronously can point at a block whose bit
 * the disk lacks.
 */
int ext2_dev_write(struct ext2_fs *fs, uint64_t at, const void *buf, size_t len, bool sync);

/* Write len bytes at off of block; sync for metadata. */
static inline int ext2_write_block(struct ext2_fs *fs, uint32_t block, uint32_t off,
				   const void *buf, size_t len, bool sync)
{
	return ext2_dev_write(fs, ((uint64_t)block << fs->block_log) + off, buf, len, sync);
}

/* alloc.c */
int ext2_alloc_block(struct ext2_fs *fs, uint32_t goal, uint32_t *block);
/* A block for file data: its bit and counts written back later (ext2_sync_bitmap). */
int ext2_alloc_data_block(struct ext2_fs *fs, uint32_t goal, uint32_t *block);
/* Make the bitmap that data allocations changed synchronous: 0 or -errno. */
int ext2_sync_bitmap(struct ext2_fs *fs);
int ext2_free_block(struct ext2_fs *fs, uint32_t block);
int ext2_alloc_inode_number(struct ext2_fs *fs, uint32_t parent, bool dir, uint32_t *ino);
int ext2_free_inode_number(struct ext2_fs *fs, uint32_t ino, bool dir);
int ext2_zero_block(struct ext2_fs *fs, uint32_t block, bool sync);

/* write.c */

/*
 * Pointers to new file data blocks that a write puts into indirect
 * blocks, held back until the blocks' bits are on the disk
 * (ext2_ptr_batch_flush: one synchronous bitmap write, then the pointers
 * written back like the data), so that writing many blocks costs one
 * synchronous write a batch, not one a block.
 */
#define EXT2_PTR_BATCH 64
struct ext2_ptr_batch {
	unsigned n;
	struct {
		uint32_t table, index, block;
	} ptr[EXT2_PTR_BATCH];
};

int ext2_ptr_batch_flush(struct ext2_fs *fs, struct ext2_ptr_batch *batch);

/*
 * ext2_write_data - ext2_write without writing the inode: in (its size,
 *   block map and times) changes in memory only, and the caller keeps it
 *   until ext2_update_inode (as UFS kept an inode marked for update).
 *   pending: the caller's batch, kept across calls (the pointers stay
 *   held until ext2_ptr_batch_flush, which must come before anything
 *   reads the file's map from the disk: a read, a truncation, a delete,
 *   the inode's update); NULL: this call's own, flushed before it
 *   returns. Until then a crash loses the growth and leaks the blocks.
 */
int64_t ext2_write_data(struct ext2_fs *fs, struct ext2_inode *in, uint64_t off,
			const void *buf, size_t len, struct ext2_ptr_batch *pending);

/*
 * ext2_bmap_alloc - the block at index of in's map, allocated (with the
 *   indirect blocks on its path) when it is a hole; *fresh when it was.
 *   batch: a file data write's (the block by the delayed path, its
 *   pointer in an indirect block held in batch); NULL: every write
 *   synchronous (directories).
 */
int ext2_bmap_alloc(struct ext2_fs *fs, struct ext2_inode *in, uint64_t index, uint32_t *block,
		    bool *fresh, struct ext2_ptr_batch *batch);

/* Blocks the map can address: 12 + p + p^2 + p^3 with p pointers a block. */
static inline uint64_t ext2_map_blocks(const struct ext2_fs *fs)
{
	uint64_t p = fs->block_size / 4;
	return 12 + p + p * p + p * p * p;
}

#endif
