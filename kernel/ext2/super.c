// SPDX-License-Identifier: BSD-2-Clause
/*
 * Opening an ext2 file system: the superblock's fields and the group
 * descriptors are checked against each other and the disk before any
 * other code follows them (scion/ext2.h lists what is accepted), so the
 * rest of the reader may rely on the geometry in struct ext2_fs. Nothing
 * is written. No locks: an ext2_fs is filled here, then only read.
 */
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <stdarg.h>
#include "ext2_internal.h"

int ext2_refuse(struct ext2_fs *fs, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fs->last_error, sizeof(fs->last_error), fmt, ap);
	va_end(ap);
	return -EIO;
}

#define REFUSE(err, ...) do { snprintf(msg, msgsz, __VA_ARGS__); return (err); } while (0)

static int read_geometry(struct ext2_fs *fs, const uint8_t *sb, char *msg, size_t msgsz)
{
	if (ext2_le16(sb + SB_MAGIC) != EXT2_MAGIC)
		REFUSE(-EINVAL, "no ext2 superblock (magic %#x, not %#x)",
		       ext2_le16(sb + SB_MAGIC), EXT2_MAGIC);
	uint32_t rev = ext2_le32(sb + SB_REV_LEVEL);
	if (rev > 1)
		REFUSE(-ENOTSUP, "ext2 revision %u (Scion reads 0 and 1)", rev);
	uint32_t log = ext2_le32(sb + SB_LOG_BLOCK_SIZE);
	if (log > EXT2_MAX_BLOCK_LOG - EXT2_MIN_BLOCK_LOG)
		REFUSE(-ENOTSUP, "block size 1024 << %u (Scion takes 1, 2 and 4 KiB)", log);
	fs->block_log = EXT2_MIN_BLOCK_LOG + log;
	fs->block_size = 1u << fs->block_log;
	fs->blocks = ext2_le32(sb + SB_BLOCKS_COUNT);
	fs->first_data_block = ext2_le32(sb + SB_FIRST_DATA_BLOCK);
	fs->blocks_per_group = ext2_le32(sb + SB_BLOCKS_PER_GROUP);
	fs->inodes = ext2_le32(sb + SB_INODES_COUNT);
	fs->inodes_per_group = ext2_le32(sb + SB_INODES_PER_GROUP);
	fs->free_blocks = ext2_le32(sb + SB_FREE_BLOCKS);
	fs->free_inodes = ext2_le32(sb + SB_FREE_INODES);
	fs->inode_size = rev ? ext2_le16(sb + SB_INODE_SIZE) : EXT2_GOOD_OLD_INODE_SIZE;
	fs->first_ino = rev ? ext2_le32(sb + SB_FIRST_INO) : EXT2_GOOD_OLD_FIRST_INO;
	if (rev) {
		fs->feature_compat = ext2_le32(sb + SB_FEATURE_COMPAT);
		fs->feature_incompat = ext2_le32(sb + SB_FEATURE_INCOMPAT);
		fs->feature_ro_compat = ext2_le32(sb + SB_FEATURE_RO_COMPAT);
	}
	memcpy(fs->volume, sb + SB_VOLUME_NAME, 16);
	fs->volume[16] = '\0';
	for (char *c = fs->volume; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';

	uint32_t unknown = fs->feature_incompat & ~(uint32_t)EXT2_FEATURE_INCOMPAT_KNOWN;
	if (unknown)
		REFUSE(-ENOTSUP, "incompatible features %#x Scion does not know (an ext3/ext4 "
		       "volume? make it with mke2fs -t ext2)", unknown);
	if (fs->first_data_block != (fs->block_size == 1024 ? 1u : 0u))
		REFUSE(-EINVAL, "first data block %u with %u-byte blocks", fs->first_data_block,
		       fs->block_size);
	if (fs->blocks <= fs->first_data_block + 1)
		REFUSE(-EINVAL, "%u blocks", fs->blocks);
	if (fs->blocks_per_group == 0 || fs->blocks_per_group > 8 * fs->block_size)
		REFUSE(-EINVAL, "%u blocks per group (a bitmap block maps %u)", fs->blocks_per_group,
		       8 * fs->block_size);
	if (fs->inodes_per_group == 0 || fs->inodes_per_group > 8 * fs->block_size)
		REFUSE(-EINVAL, "%u inodes per group (a bitmap block maps %u)",
		       fs->inodes_per_group, 8 * fs->block_size);
	if (fs->inode_size < EXT2_GOOD_OLD_INODE_SIZE || fs->inode_size > fs->block_size ||
	    (fs->inode_size & (fs->inode_size - 1)))
		REFUSE(-EINVAL, "inode size %u", fs->inode_size);
	if (fs->first_ino < EXT2_ROOT_INO + 1)
		REFUSE(-EINVAL, "first non-reserved inode %u", fs->first_ino);
	fs->groups = (fs->blocks - fs->first_data_block + fs->blocks_per_group - 1) /
		     fs->blocks_per_group;
	if ((uint64_t)fs->groups * fs->inodes_per_group != fs->inodes)
		REFUSE(-EINVAL, "%u inodes, but %u groups of %u", fs->inodes, fs->groups,
		       fs->inodes_per_group);
	if (fs->first_ino > fs->inodes)
		REFUSE(-EINVAL, "first non-reserved inode %u of %u", fs->first_ino, fs->inodes);
	if (((uint64_t)fs->blocks << fs->block_log) > fs->dev.bytes)
		REFUSE(-EINVAL, "%u blocks of %u bytes, but the disk holds %llu bytes", fs->blocks,
		       fs->block_size, (unsigned long long)fs->dev.bytes);
	if (fs->free_blocks > fs->blocks || fs->free_inodes > fs->inodes)
		REFUSE(-EINVAL, "%u free blocks of %u, %u free inodes of %u", fs->free_blocks,
		       fs->blocks, fs->free_inodes, fs->inodes);
	return 0;
}

/* Each group's inode table, checked to lie inside the file system. */
static int read_groups(struct ext2_fs *fs, char *msg, size_t msgsz)
{
	uint32_t table_blocks = (uint32_t)(((uint64_t)fs->inodes_per_group * fs->inode_size +
					    fs->block_size - 1) >> fs->block_log);
	uint32_t gdt = fs->first_data_block + 1;
	if ((uint64_t)fs->groups * GD_SIZE > (uint64_t)(fs->blocks - gdt) << fs->block_log)
		REFUSE(-EINVAL, "%u group descriptors do not fit", fs->groups);
	fs->group = kmalloc(fs->groups * sizeof(*fs->group));
	if (!fs->group)
		REFUSE(-ENOMEM, "no memory for %u groups", fs->groups);
	for (uint32_t g = 0; g < fs->groups; g++) {
		uint8_t gd[GD_SIZE];
		uint64_t at = ((uint64_t)gdt << fs->block_log) + (uint64_t)g * GD_SIZE;
		int err = fs->dev.read(fs->dev.ctx, at, gd, sizeof(gd));
		if (err)
			REFUSE(err, "group %u's descriptor: read error %d", g, err);
		struct ext2_group *grp = &fs->group[g];
		grp->inode_table = ext2_le32(gd + GD_INODE_TABLE);
		grp->block_bitmap = ext2_le32(gd + GD_BLOCK_BITMAP);
		grp->inode_bitmap = ext2_le32(gd + GD_INODE_BITMAP);
		grp->free_blocks = ext2_le16(gd + GD_FREE_BLOCKS);
		grp->free_inodes = ext2_le16(gd + GD_FREE_INODES);
		grp->used_dirs = ext2_le16(gd + GD_USED_DIRS);
		if (!ext2_block_ok(fs, grp->inode_table) ||
		    grp->inode_table + (uint64_t)table_blocks > fs->blocks)
			REFUSE(-EINVAL, "group %u's inode table at block %u (of %u, %u blocks long)",
			       g, grp->inode_table, fs->blocks, table_blocks);
		if (!ext2_block_ok(fs, grp->block_bitmap) || !ext2_block_ok(fs, grp->inode_bitmap))
			REFUSE(-EINVAL, "group %u's bitmaps at blocks %u and %u (of %u)", g,
			       grp->block_bitmap, grp->inode_bitmap, fs->blocks);
		if (grp->free_blocks > fs->blocks_per_group ||
		    grp->free_inodes > fs->inodes_per_group)
			REFUSE(-EINVAL, "group %u: %u free blocks, %u free inodes", g,
			       grp->free_blocks, grp->free_inodes);
	}
	/* The groups' counts are the ones kept up to date; the superblock's is their sum. */
	fs->free_blocks = fs->free_inodes = 0;
	for (uint32_t g = 0; g < fs->groups; g++) {
		fs->free_blocks += fs->group[g].free_blocks;
		fs->free_inodes += fs->group[g].free_inodes;
	}
	return 0;
}

int ext2_open(const struct ext2_dev *dev, struct ext2_fs *fs, char *msg, size_t msgsz)
{
	memset(fs, 0, sizeof(*fs));
	fs->dev = *dev;
	if (dev->bytes < EXT2_SUPER_OFFSET + EXT2_SUPER_SIZE)
		REFUSE(-EINVAL, "the disk (%llu bytes) is too small for a superblock",
		       (unsigned long long)dev->bytes);
	uint8_t *sb = kmalloc(EXT2_SUPER_SIZE);
	if (!sb)
		REFUSE(-ENOMEM, "no memory for the superblock");
	int err = dev->read(dev->ctx, EXT2_SUPER_OFFSET, sb, EXT2_SUPER_SIZE);
	if (err)
		snprintf(msg, msgsz, "superblock: read error %d", err);
	else
		err = read_geometry(fs, sb, msg, msgsz);
	kfree(sb);
	if (!err)
		err = read_groups(fs, msg, msgsz);
	if (err) {
		ext2_close(fs);
		return err;
	}
	fs->read_only = !dev->write || !dev->sync || !dev->now ||
			(fs->feature_ro_compat & ~(uint32_t)EXT2_FEATURE_RO_COMPAT_KNOWN);
	snprintf(msg, msgsz, "ext2 '%s': %u blocks of %u bytes (%u free), %u inodes (%u free), "
		 "%u groups%s", fs->volume, fs->blocks, fs->block_size, fs->free_blocks, fs->inodes,
		 fs->free_inodes, fs->groups,
		 (fs->feature_ro_compat & ~(uint32_t)EXT2_FEATURE_RO_COMPAT_KNOWN) ?
		 ", unknown read-only features" : "");
	return 0;
}

void ext2_close(struct ext2_fs *fs)
{
	kfree(fs->group);
	fs->group = NULL;
}
