// SPDX-License-Identifier: BSD-2-Clause
/*
 * ext2 directories: a directory's data is a list of records, each block
 * a whole number of them (inode, record length, name length, file type,
 * name); an inode of 0 marks a record unused. Directories with an htree
 * index (dir_index) keep this linear form too, so a linear scan reads
 * them all. Every record is checked before its name is used (scion/ext2.h
 * lists the refusals); a hole in a directory is refused. A scan reads
 * each block once into a buffer of its own. No locks.
 */
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/string.h>
#include "ext2_internal.h"

#define MIN_REC_LEN 12

/*
 * The record at off of block (block index bi of directory dir) into *d.
 * Return value: its length, or -EIO (refused).
 */
static int parse_record(struct ext2_fs *fs, const struct ext2_inode *dir, uint64_t bi,
			const uint8_t *block, uint32_t off, struct ext2_dirent *d)
{
	const uint8_t *r = block + off;
	uint32_t rec_len = ext2_le16(r + DE_REC_LEN);
	uint32_t name_len = (fs->feature_incompat & EXT2_FEATURE_INCOMPAT_FILETYPE) ?
			    r[DE_NAME_LEN] : ext2_le16(r + DE_NAME_LEN);
	d->ino = ext2_le32(r + DE_INODE);
	d->type = (fs->feature_incompat & EXT2_FEATURE_INCOMPAT_FILETYPE) ? r[DE_FILE_TYPE] : 0;
	if (rec_len < MIN_REC_LEN || (rec_len & 3) || rec_len > fs->block_size - off)
		return ext2_refuse(fs, "directory inode %u block %llu offset %u: record length %u",
				   dir->ino, (unsigned long long)bi, off, rec_len);
	if (DE_NAME + name_len > rec_len || name_len > EXT2_NAME_LEN)
		return ext2_refuse(fs, "directory inode %u block %llu offset %u: name length %u "
				   "in a record of %u", dir->ino, (unsigned long long)bi, off,
				   name_len, rec_len);
	if (d->ino == 0)
		return (int)rec_len;
	if (name_len == 0 || d->ino > fs->inodes)
		return ext2_refuse(fs, "directory inode %u block %llu offset %u: inode %u, name "
				   "length %u", dir->ino, (unsigned long long)bi, off, d->ino,
				   name_len);
	memcpy(d->name, r + DE_NAME, name_len);
	d->name[name_len] = '\0';
	d->name_len = (uint8_t)name_len;
	if (strchr(d->name, '/') || strlen(d->name) != name_len)
		return ext2_refuse(fs, "directory inode %u block %llu offset %u: a name holding "
				   "'/' or NUL", dir->ino, (unsigned long long)bi, off);
	return (int)rec_len;
}

int ext2_dir_iterate(struct ext2_fs *fs, const struct ext2_inode *dir, uint64_t *pos,
		     int (*fn)(void *arg, const struct ext2_dirent *d, uint64_t next), void *arg)
{
	if ((dir->mode & EXT2_S_IFMT) != EXT2_S_IFDIR)
		return -ENOTDIR;
	uint8_t *block = kmalloc(fs->block_size);
	struct ext2_dirent *d = kmalloc(sizeof(*d));
	int result = block && d ? 0 : -ENOMEM;
	while (!result && *pos < dir->size) {
		uint64_t bi = *pos >> fs->block_log;
		uint32_t from = (uint32_t)(*pos & (fs->block_size - 1)), disk_block;
		result = ext2_bmap(fs, dir, bi, &disk_block);
		if (!result && !disk_block)
			result = ext2_refuse(fs, "directory inode %u: a hole at block %llu", dir->ino,
					     (unsigned long long)bi);
		if (!result)
			result = ext2_read_block(fs, disk_block, 0, block, fs->block_size);
		/* Records are checked from the block's start: *pos may fall inside one. */
		for (uint32_t off = 0; !result && off < fs->block_size;) {
			int len = parse_record(fs, dir, bi, block, off, d);
			if (len < 0) {
				result = len;
				break;
			}
			uint64_t next = (bi << fs->block_log) + off + (uint32_t)len;
			if (off >= from && d->ino) {
				result = fn(arg, d, next);
				if (result >= 0)
					*pos = next;
			}
			off += (uint32_t)len;
		}
		if (!result)
			*pos = (bi + 1) << fs->block_log;
	}
	kfree(block);
	kfree(d);
	return result;
}

struct lookup_arg {
	const char *name;
	size_t len;
	uint32_t ino;
};

static int match(void *arg, const struct ext2_dirent *d, uint64_t next)
{
	(void)next;
	struct lookup_arg *a = arg;
	if (d->name_len != a->len || memcmp(d->name, a->name, a->len))
		return 0;
	a->ino = d->ino;
	return 1;
}

int ext2_lookup(struct ext2_fs *fs, const struct ext2_inode *dir, const char *name, size_t len,
		uint32_t *ino)
{
	if (len == 0 || len > EXT2_NAME_LEN)
		return len ? -ENAMETOOLONG : -ENOENT;
	struct lookup_arg a = { .name = name, .len = len };
	uint64_t pos = 0;
	int r = ext2_dir_iterate(fs, dir, &pos, match, &a);
	if (r < 0)
		return r;
	if (r == 0)
		return -ENOENT;
	*ino = a.ino;
	return 0;
}
