// SPDX-License-Identifier: BSD-2-Clause
/*
 * ext2 allocation: blocks and inodes from the groups' bitmaps. Each
 * allocation sets the bit and writes the bitmap byte, then the group's
 * counts, both synchronously, before the caller points anything at what
 * it got; a free clears the bit after the caller has un-pointed it on the
 * disk (a block's free is written back later, as UFS freed blocks: until
 * then the disk has it marked used). So a crash leaves at worst a block
 * or inode marked used that nothing uses (e2fsck: a leak). A block for
 * file data (ext2_alloc_data_block)
 * writes both later instead, as UFS did, and leaves its bitmap block in
 * unsynced_bitmap: ext2_dev_write makes it synchronous before any
 * synchronous write, and ext2_write before the inode that points at the
 * block is written, so the order on the disk is the same. The
 * superblock's free counts follow in memory and reach the disk with
 * ext2_sync_super. A bitmap that disagrees with
 * its group's count, or a bit that would hand out the group's own
 * metadata, is refused (-EIO), never trusted. The caller serializes all
 * writers (scion/ext2.h).
 */
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/string.h>
#include "ext2_internal.h"

int ext2_dev_write(struct ext2_fs *fs, uint64_t at, const void *buf, size_t len, bool sync)
{
	if (sync && fs->unsynced_bitmap) {
		int err = ext2_sync_bitmap(fs);
		if (err)
			return err;
	}
	return fs->dev.write(fs->dev.ctx, at, buf, len, sync);
}

int ext2_sync_bitmap(struct ext2_fs *fs)
{
	uint32_t bitmap_block = fs->unsynced_bitmap;
	if (!bitmap_block)
		return 0;
	/* A synchronous write of one of its bytes writes the whole block. */
	uint8_t byte;
	int err = ext2_read_block(fs, bitmap_block, 0, &byte, 1);
	if (!err)
		err = fs->dev.write(fs->dev.ctx, (uint64_t)bitmap_block << fs->block_log, &byte, 1,
				    true);
	if (!err)
		fs->unsynced_bitmap = 0;
	return err;
}

/* Write group g's counts (free blocks, free inodes, used directories) to its descriptor. */
static int write_group(struct ext2_fs *fs, uint32_t g, bool sync)
{
	uint8_t counts[6];
	ext2_put16(counts, fs->group[g].free_blocks);
	ext2_put16(counts + 2, fs->group[g].free_inodes);
	ext2_put16(counts + 4, fs->group[g].used_dirs);
	uint64_t at = ((uint64_t)(fs->first_data_block + 1) << fs->block_log) +
		      (uint64_t)g * GD_SIZE + GD_FREE_BLOCKS;
	return ext2_dev_write(fs, at, counts, sizeof(counts), sync);
}

int ext2_sync_super(struct ext2_fs *fs)
{
	if (fs->read_only)
		return 0;
	uint8_t field[4];
	ext2_put32(field, fs->free_blocks);
	int err = ext2_dev_write(fs, EXT2_SUPER_OFFSET + SB_FREE_BLOCKS, field, 4, true);
	ext2_put32(field, fs->free_inodes);
	if (!err)
		err = ext2_dev_write(fs, EXT2_SUPER_OFFSET + SB_FREE_INODES, field, 4, true);
	ext2_put32(field, (uint32_t)fs->dev.now(fs->dev.ctx));
	if (!err)
		err = ext2_dev_write(fs, EXT2_SUPER_OFFSET + SB_WTIME, field, 4, true);
	if (!err)
		fs->super_dirty = false;
	return err;
}

/*
 * The first clear bit of bitmap in [from, to), or to. Whole bytes of set
 * bits are skipped a byte at a time: a group's first thousands of inodes
 * or blocks are usually all in use, and a bit at a time cost a create
 * tens of thousands of instructions.
 */
static uint32_t first_clear(const uint8_t *bitmap, uint32_t from, uint32_t to)
{
	for (uint32_t bit = from; bit < to;) {
		if (bit % 8 == 0 && to - bit >= 8 && bitmap[bit / 8] == 0xff) {
			bit += 8;
			continue;
		}
		if (!(bitmap[bit / 8] & (1u << (bit % 8))))
			return bit;
		bit++;
	}
	return to;
}

/*
 * Find a clear bit in bitmap (nbits long) at or after from, wrapping;
 * set it and write its byte (sync: synchronously). Return value: the
 * bit, or -ENOSPC.
 */
static int64_t take_bit(struct ext2_fs *fs, uint32_t bitmap_block, uint8_t *bitmap,
			uint32_t nbits, uint32_t from, bool sync)
{
	int err = ext2_read_block(fs, bitmap_block, 0, bitmap, fs->block_size);
	if (err)
		return err;
	if (from >= nbits)
		from = 0;
	uint32_t bit = first_clear(bitmap, from, nbits);
	if (bit == nbits) {
		bit = first_clear(bitmap, 0, from);
		if (bit == from)
			return -ENOSPC;
	}
	bitmap[bit / 8] |= (uint8_t)(1u << (bit % 8));
	err = ext2_write_block(fs, bitmap_block, bit / 8, &bitmap[bit / 8], 1, sync);
	return err ? err : (int64_t)bit;
}

/* Clear bit in a bitmap block and write its byte (sync: synchronously): -EIO when it was clear already. */
static int drop_bit(struct ext2_fs *fs, uint32_t bitmap_block, uint32_t bit, const char *what,
		    uint32_t number, bool sync)
{
	uint8_t byte;
	int err = ext2_read_block(fs, bitmap_block, bit / 8, &byte, 1);
	if (err)
		return err;
	if (!(byte & (1u << (bit % 8))))
		return ext2_refuse(fs, "freeing %s %u, which is free already", what, number);
	byte &= (uint8_t)~(1u << (bit % 8));
	return ext2_write_block(fs, bitmap_block, bit / 8, &byte, 1, sync);
}

/* Whether block is one of group g's bitmaps or in its inode table (never handed out). */
static bool group_metadata(const struct ext2_fs *fs, uint32_t g, uint32_t block)
{
	const struct ext2_group *grp = &fs->group[g];
	uint32_t table_blocks = (uint32_t)(((uint64_t)fs->inodes_per_group * fs->inode_size +
					    fs->block_size - 1) >> fs->block_log);
	return block == grp->block_bitmap || block == grp->inode_bitmap ||
	       (block >= grp->inode_table && block < grp->inode_table + table_blocks) ||
	       block <= fs->first_data_block + 1;
}

/* A block near goal; data: its bit and counts written back later (see above). */
static int alloc_block(struct ext2_fs *fs, uint32_t goal, uint32_t *block, bool data)
{
	data = data && !fs->sync_all;
	if (fs->read_only)
		return -EROFS;
	if (!ext2_block_ok(fs, goal))
		goal = fs->first_data_block;
	uint32_t first_group = (goal - fs->first_data_block) / fs->blocks_per_group;
	uint8_t *bitmap = kmalloc(fs->block_size);
	if (!bitmap)
		return -ENOMEM;
	int err = -ENOSPC;
	for (uint32_t i = 0; i < fs->groups && err == -ENOSPC; i++) {
		uint32_t g = (first_group + i) % fs->groups;
		struct ext2_group *grp = &fs->group[g];
		if (!grp->free_blocks)
			continue;
		uint32_t base = fs->first_data_block + g * fs->blocks_per_group;
		uint32_t nbits = fs->blocks - base < fs->blocks_per_group ? fs->blocks - base :
				 fs->blocks_per_group;
		uint32_t from = i == 0 ? goal - base : 0;
		/* One bitmap at a time is left unsynced: another one is synced first. */
		if (data && fs->unsynced_bitmap && fs->unsynced_bitmap != grp->block_bitmap) {
			int serr = ext2_sync_bitmap(fs);
			if (serr) {
				err = serr;
				break;
			}
		}
		int64_t bit = take_bit(fs, grp->block_bitmap, bitmap, nbits, from, !data);
		if (bit == -ENOSPC) {
			err = ext2_refuse(fs, "group %u counts %u free blocks, its bitmap none", g,
					  grp->free_blocks);
			break;
		}
		if (bit < 0) {
			err = (int)bit;
			break;
		}
		*block = base + (uint32_t)bit;
		if (group_metadata(fs, g, *block)) {
			err = ext2_refuse(fs, "group %u's bitmap has block %u free: its own metadata",
					  g, *block);
			break;
		}
		if (data)
			fs->unsynced_bitmap = grp->block_bitmap;
		grp->free_blocks--;
		fs->free_blocks--;
		fs->super_dirty = true;
		err = write_group(fs, g, !data);
	}
	kfree(bitmap);
	return err;
}

int ext2_alloc_block(struct ext2_fs *fs, uint32_t goal, uint32_t *block)
{
	return alloc_block(fs, goal, block, false);
}

int ext2_alloc_data_block(struct ext2_fs *fs, uint32_t goal, uint32_t *block)
{
	return alloc_block(fs, goal, block, true);
}

int ext2_free_block(struct ext2_fs *fs, uint32_t block)
{
	if (!ext2_block_ok(fs, block))
		return ext2_refuse(fs, "freeing block %u (of %u)", block, fs->blocks);
	uint32_t g = (block - fs->first_data_block) / fs->blocks_per_group;
	uint32_t bit = (block - fs->first_data_block) % fs->blocks_per_group;
	int err = drop_bit(fs, fs->group[g].block_bitmap, bit, "block", block, fs->sync_all);
	if (err)
		return err;
	fs->group[g].free_blocks++;
	fs->free_blocks++;
	fs->super_dirty = true;
	return write_group(fs, g, fs->sync_all);
}

/* The group for a new inode: a directory goes where most inodes are free, a file near its parent. */
static uint32_t inode_group(const struct ext2_fs *fs, uint32_t parent, bool dir)
{
	uint32_t best = parent ? (parent - 1) / fs->inodes_per_group : 0;
	if (dir)
		for (uint32_t g = 0; g < fs->groups; g++)
			if (fs->group[g].free_inodes > fs->group[best].free_inodes)
				best = g;
	return best;
}

int ext2_alloc_inode_number(struct ext2_fs *fs, uint32_t parent, bool dir, uint32_t *ino)
{
	if (fs->read_only)
		return -EROFS;
	uint8_t *bitmap = kmalloc(fs->block_size);
	if (!bitmap)
		return -ENOMEM;
	uint32_t first_group = inode_group(fs, parent, dir);
	int err = -ENOSPC;
	for (uint32_t i = 0; i < fs->groups && err == -ENOSPC; i++) {
		uint32_t g = (first_group + i) % fs->groups;
		struct ext2_group *grp = &fs->group[g];
		if (!grp->free_inodes)
			continue;
		/* Group 0's first inodes are reserved (root, lost+found's neighbours, ...). */
		uint32_t from = g == 0 ? fs->first_ino - 1 : 0;
		int64_t bit = take_bit(fs, grp->inode_bitmap, bitmap, fs->inodes_per_group, from,
				       true);
		if (bit >= 0 && g == 0 && bit < fs->first_ino - 1)
			bit = ext2_refuse(fs, "group 0's bitmap has reserved inode %lld free",
					  (long long)bit + 1);
		if (bit == -ENOSPC)
			bit = ext2_refuse(fs, "group %u counts %u free inodes, its bitmap none", g,
					  grp->free_inodes);
		if (bit < 0) {
			err = (int)bit;
			break;
		}
		*ino = g * fs->inodes_per_group + (uint32_t)bit + 1;
		grp->free_inodes--;
		grp->used_dirs += dir;
		fs->free_inodes--;
		fs->super_dirty = true;
		err = write_group(fs, g, true);
	}
	kfree(bitmap);
	return err;
}

int ext2_free_inode_number(struct ext2_fs *fs, uint32_t ino, bool dir)
{
	if (ino < fs->first_ino || ino > fs->inodes)
		return ext2_refuse(fs, "freeing inode %u", ino);
	uint32_t g = (ino - 1) / fs->inodes_per_group;
	int err = drop_bit(fs, fs->group[g].inode_bitmap, (ino - 1) % fs->inodes_per_group, "inode",
			   ino, true);
	if (err)
		return err;
	fs->group[g].free_inodes++;
	if (dir && fs->group[g].used_dirs)
		fs->group[g].used_dirs--;
	fs->free_inodes++;
	fs->super_dirty = true;
	return write_group(fs, g, true);
}

int ext2_zero_block(struct ext2_fs *fs, uint32_t block, bool sync)
{
	uint8_t *zeros = kzalloc(fs->block_size);
	if (!zeros)
		return -ENOMEM;
	int err = ext2_write_block(fs, block, 0, zeros, fs->block_size, sync);
	kfree(zeros);
	return err;
}
