// SPDX-License-Identifier: BSD-2-Clause
/*
 * ext2 inodes: reading one (checked: see scion/ext2.h), the block map
 * (12 direct pointers, then single, double and triple indirect blocks
 * of 4-byte pointers; a 0 pointer is a hole, read as zeros), file data
 * and symbolic links. Every pointer is checked to fall inside the data
 * area before it is followed; the map's depth is fixed, so no chain of
 * pointers can loop. No locks: everything read is the caller's.
 */
#include <scion/errno.h>
#include <scion/string.h>
#include "ext2_internal.h"

static bool is_fast_symlink(const struct ext2_fs *fs, const struct ext2_inode *in)
{
	uint64_t ea_blocks = in->file_acl ? fs->block_size >> 9 : 0;
	return (in->mode & EXT2_S_IFMT) == EXT2_S_IFLNK && in->blocks512 == ea_blocks &&
	       in->size < EXT2_FAST_SYMLINK_MAX;
}

int ext2_read_inode(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *in)
{
	if (ino == 0 || ino > fs->inodes)
		return ext2_refuse(fs, "inode %u of %u", ino, fs->inodes);
	uint32_t group = (ino - 1) / fs->inodes_per_group;
	uint64_t at = ((uint64_t)fs->group[group].inode_table << fs->block_log) +
		      (uint64_t)((ino - 1) % fs->inodes_per_group) * fs->inode_size;
	uint8_t raw[EXT2_GOOD_OLD_INODE_SIZE];
	int err = fs->dev.read(fs->dev.ctx, at, raw, sizeof(raw));
	if (err)
		return err;
	memset(in, 0, sizeof(*in));
	in->ino = ino;
	in->mode = ext2_le16(raw + IN_MODE);
	in->uid = ext2_le16(raw + IN_UID) | ((uint32_t)ext2_le16(raw + IN_UID_HIGH) << 16);
	in->gid = ext2_le16(raw + IN_GID) | ((uint32_t)ext2_le16(raw + IN_GID_HIGH) << 16);
	in->nlink = ext2_le16(raw + IN_LINKS_COUNT);
	in->flags = ext2_le32(raw + IN_FLAGS);
	in->size = ext2_le32(raw + IN_SIZE);
	if ((in->mode & EXT2_S_IFMT) == EXT2_S_IFREG)
		in->size |= (uint64_t)ext2_le32(raw + IN_SIZE_HIGH) << 32;
	in->blocks512 = ext2_le32(raw + IN_BLOCKS);
	in->atime = ext2_le32(raw + IN_ATIME);
	in->mtime = ext2_le32(raw + IN_MTIME);
	in->ctime = ext2_le32(raw + IN_CTIME);
	in->dtime = ext2_le32(raw + IN_DTIME);
	in->file_acl = ext2_le32(raw + IN_FILE_ACL);
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		in->block[i] = ext2_le32(raw + IN_BLOCK + 4 * i);

	uint32_t type = in->mode & EXT2_S_IFMT;
	if (type == EXT2_S_IFDIR && (in->size & (fs->block_size - 1)))
		return ext2_refuse(fs, "directory inode %u: size %llu is not whole blocks", ino,
				   (unsigned long long)in->size);
	/* A directory has no holes: it cannot be larger than the disk (a bound on every scan). */
	if (type == EXT2_S_IFDIR && in->size > (uint64_t)fs->blocks << fs->block_log)
		return ext2_refuse(fs, "directory inode %u: size %llu is larger than the disk", ino,
				   (unsigned long long)in->size);
	if ((in->size + fs->block_size - 1) >> fs->block_log > ext2_map_blocks(fs))
		return ext2_refuse(fs, "inode %u: size %llu is beyond its block map", ino,
				   (unsigned long long)in->size);
	if (!is_fast_symlink(fs, in))
		for (int i = 0; i < EXT2_N_BLOCKS; i++)
			if (in->block[i] && !ext2_block_ok(fs, in->block[i]))
				return ext2_refuse(fs, "inode %u: block pointer %d is %u (of %u)", ino,
						   i, in->block[i], fs->blocks);
	return 0;
}

/* Entry index of indirect block table (0: a hole). */
static int follow(struct ext2_fs *fs, uint32_t ino, uint32_t table, uint64_t index, uint32_t *out)
{
	if (!table) {
		*out = 0;
		return 0;
	}
	uint8_t raw[4];
	int err = ext2_read_block(fs, table, (uint32_t)index * 4, raw, sizeof(raw));
	if (err)
		return err;
	uint32_t b = ext2_le32(raw);
	if (b && !ext2_block_ok(fs, b))
		return ext2_refuse(fs, "inode %u: indirect block %u holds pointer %u (of %u)", ino,
				   table, b, fs->blocks);
	*out = b;
	return 0;
}

int ext2_bmap(struct ext2_fs *fs, const struct ext2_inode *in, uint64_t index, uint32_t *block)
{
	uint64_t p = fs->block_size / 4;
	if (index < EXT2_NDIR_BLOCKS) {
		*block = in->block[index];
		return 0;
	}
	index -= EXT2_NDIR_BLOCKS;
	uint32_t b;
	int err;
	if (index < p)
		return follow(fs, in->ino, in->block[EXT2_IND_BLOCK], index, block);
	index -= p;
	if (index < p * p) {
		err = follow(fs, in->ino, in->block[EXT2_DIND_BLOCK], index / p, &b);
		return err ? err : follow(fs, in->ino, b, index % p, block);
	}
	index -= p * p;
	if (index < p * p * p) {
		err = follow(fs, in->ino, in->block[EXT2_TIND_BLOCK], index / (p * p), &b);
		if (!err)
			err = follow(fs, in->ino, b, index / p % p, &b);
		return err ? err : follow(fs, in->ino, b, index % p, block);
	}
	return -EFBIG;
}

int64_t ext2_read(struct ext2_fs *fs, const struct ext2_inode *in, uint64_t off, void *buf,
		  size_t len)
{
	if (off >= in->size)
		return 0;
	if (len > in->size - off)
		len = (size_t)(in->size - off);
	size_t done = 0;
	while (done < len) {
		uint64_t pos = off + done;
		uint32_t within = (uint32_t)(pos & (fs->block_size - 1));
		size_t n = fs->block_size - within < len - done ? fs->block_size - within : len - done;
		uint32_t block;
		int err = ext2_bmap(fs, in, pos >> fs->block_log, &block);
		if (!err && block)
			err = ext2_read_block(fs, block, within, (uint8_t *)buf + done, n);
		else if (!err)
			memset((uint8_t *)buf + done, 0, n);
		if (err)
			return done ? (int64_t)done : err;
		done += n;
	}
	return (int64_t)done;
}

int ext2_readlink(struct ext2_fs *fs, const struct ext2_inode *in, char *buf, size_t size)
{
	if ((in->mode & EXT2_S_IFMT) != EXT2_S_IFLNK)
		return -EINVAL;
	if (in->size == 0)
		return ext2_refuse(fs, "symbolic link inode %u is empty", in->ino);
	if (in->size >= size)
		return -ENAMETOOLONG;
	if (is_fast_symlink(fs, in)) {
		for (size_t i = 0; i < in->size; i++)
			buf[i] = (char)(in->block[i / 4] >> (8 * (i % 4)));
	} else {
		int64_t got = ext2_read(fs, in, 0, buf, (size_t)in->size);
		if (got < 0)
			return (int)got;
		if ((uint64_t)got != in->size)
			return ext2_refuse(fs, "symbolic link inode %u: short read", in->ino);
	}
	buf[in->size] = '\0';
	if (strlen(buf) != in->size)
		return ext2_refuse(fs, "symbolic link inode %u holds a NUL", in->ino);
	return (int)in->size;
}
