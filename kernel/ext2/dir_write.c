// SPDX-License-Identifier: BSD-2-Clause
/*
 * Changing ext2 directories: adding a name (into the slack of a record,
 * an unused record, or a new block at the end), removing one (merged
 * into the record before it, or marked unused when first in its block),
 * pointing a name at another inode (a moved directory's ".."), and the
 * first block of a new directory. Each change rewrites its one block
 * synchronously, so a directory on the disk is always a valid list.
 * An htree index (dir_index) is not kept up to date: its flag is
 * cleared at the first change, and the directory is read linearly from
 * then on, as every ext2 reader can. Records are checked as dir.c does
 * before anything is written. The caller serializes all writers.
 */
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/string.h>
#include "ext2_internal.h"

#define MIN_REC_LEN 12

static uint32_t name_len_of(const struct ext2_fs *fs, const uint8_t *r)
{
	return (fs->feature_incompat & EXT2_FEATURE_INCOMPAT_FILETYPE) ? r[DE_NAME_LEN] :
	       ext2_le16(r + DE_NAME_LEN);
}

/* Fill the record at r: inode, record length, name and type. */
static void put_record(const struct ext2_fs *fs, uint8_t *r, uint32_t ino, uint32_t rec_len,
		       const char *name, size_t len, uint8_t type)
{
	ext2_put32(r + DE_INODE, ino);
	ext2_put16(r + DE_REC_LEN, rec_len);
	if (fs->feature_incompat & EXT2_FEATURE_INCOMPAT_FILETYPE) {
		r[DE_NAME_LEN] = (uint8_t)len;
		r[DE_FILE_TYPE] = type;
	} else {
		ext2_put16(r + DE_NAME_LEN, (uint32_t)len);
	}
	memcpy(r + DE_NAME, name, len);
}

/* The record at off checked (as dir.c checks it): its length, or -EIO. */
static int record_len(struct ext2_fs *fs, const struct ext2_inode *dir, const uint8_t *block,
		      uint32_t off)
{
	uint32_t rec_len = ext2_le16(block + off + DE_REC_LEN);
	uint32_t nlen = name_len_of(fs, block + off);
	if (rec_len < MIN_REC_LEN || (rec_len & 3) || rec_len > fs->block_size - off ||
	    DE_NAME + nlen > rec_len)
		return ext2_refuse(fs, "directory inode %u: record at %u of length %u, name %u",
				   dir->ino, off, rec_len, nlen);
	return (int)rec_len;
}

/*
 * Call fn on each block of dir (read into block); fn returns 0 to go
 * on, > 0 when it changed the block (it is written, and the walk ends),
 * or < 0. Return value: 0 when fn never stopped, 1, or -errno.
 */
static int each_block(struct ext2_fs *fs, struct ext2_inode *dir,
		      int (*fn)(struct ext2_fs *fs, struct ext2_inode *dir, uint8_t *block,
				void *arg), void *arg)
{
	uint8_t *block = kmalloc(fs->block_size);
	if (!block)
		return -ENOMEM;
	int r = 0;
	for (uint64_t bi = 0; !r && bi < dir->size >> fs->block_log; bi++) {
		uint32_t disk;
		r = ext2_bmap(fs, dir, bi, &disk);
		if (!r && !disk)
			r = ext2_refuse(fs, "directory inode %u: a hole at block %llu", dir->ino,
					(unsigned long long)bi);
		if (!r)
			r = ext2_read_block(fs, disk, 0, block, fs->block_size);
		if (!r)
			r = fn(fs, dir, block, arg);
		if (r > 0) {
			int err = ext2_write_block(fs, disk, 0, block, fs->block_size, true);
			if (err)
				r = err;
		}
	}
	kfree(block);
	return r;
}

struct add_arg {
	const char *name;
	size_t len;
	uint32_t ino;
	uint8_t type;
};

static int add_in_block(struct ext2_fs *fs, struct ext2_inode *dir, uint8_t *block, void *arg)
{
	struct add_arg *a = arg;
	uint32_t need = EXT2_DIR_REC_LEN(a->len);
	for (uint32_t off = 0; off < fs->block_size;) {
		int rec_len = record_len(fs, dir, block, off);
		if (rec_len < 0)
			return rec_len;
		uint8_t *r = block + off;
		uint32_t used = ext2_le32(r + DE_INODE) ? EXT2_DIR_REC_LEN(name_len_of(fs, r)) : 0;
		if ((uint32_t)rec_len - used >= need) {
			if (used) {
				ext2_put16(r + DE_REC_LEN, used);
				r += used;
			}
			put_record(fs, r, a->ino, (uint32_t)rec_len - used, a->name, a->len, a->type);
			return 1;
		}
		off += (uint32_t)rec_len;
	}
	return 0;
}

/* Clear the htree flag of a directory about to change (its index would go stale). */
static int drop_index(struct ext2_fs *fs, struct ext2_inode *dir)
{
	if (!(dir->flags & EXT2_INDEX_FL))
		return 0;
	dir->flags &= ~(uint32_t)EXT2_INDEX_FL;
	return ext2_write_inode(fs, dir);
}

int ext2_dir_add(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
		 uint32_t ino, uint8_t type)
{
	if (fs->read_only)
		return -EROFS;
	if (len == 0 || len > EXT2_NAME_LEN)
		return len ? -ENAMETOOLONG : -ENOENT;
	struct add_arg a = { name, len, ino, type };
	int r = drop_index(fs, dir);
	if (!r)
		r = each_block(fs, dir, add_in_block, &a);
	if (r)
		return r < 0 ? r : 0;
	/* 1. A new block at the end holding the one record, written; 2. the size that includes it. */
	uint32_t block;
	bool fresh;
	r = ext2_bmap_alloc(fs, dir, dir->size >> fs->block_log, &block, &fresh, NULL);
	uint8_t *buf = r ? NULL : kzalloc(fs->block_size);
	if (!r && !buf)
		r = -ENOMEM;
	if (!r) {
		put_record(fs, buf, ino, fs->block_size, name, len, type);
		r = ext2_write_block(fs, block, 0, buf, fs->block_size, true);
	}
	kfree(buf);
	if (r)
		return r;
	dir->size += fs->block_size;
	dir->mtime = dir->ctime = fs->dev.now(fs->dev.ctx);
	return ext2_write_inode(fs, dir);
}

struct find_arg {
	const char *name;
	size_t len;
	uint32_t ino;		/* remove: what it named; set: the new inode */
	uint8_t type;
	bool set;		/* point the name at ino instead of removing it */
};

static int change_in_block(struct ext2_fs *fs, struct ext2_inode *dir, uint8_t *block, void *arg)
{
	struct find_arg *a = arg;
	uint32_t prev = UINT32_MAX;
	for (uint32_t off = 0; off < fs->block_size;) {
		int rec_len = record_len(fs, dir, block, off);
		if (rec_len < 0)
			return rec_len;
		uint8_t *r = block + off;
		if (ext2_le32(r + DE_INODE) && name_len_of(fs, r) == a->len &&
		    !memcmp(r + DE_NAME, a->name, a->len)) {
			if (a->set) {
				ext2_put32(r + DE_INODE, a->ino);
				if (fs->feature_incompat & EXT2_FEATURE_INCOMPAT_FILETYPE)
					r[DE_FILE_TYPE] = a->type;
			} else if (prev == UINT32_MAX) {
				a->ino = ext2_le32(r + DE_INODE);
				ext2_put32(r + DE_INODE, 0);
			} else {
				a->ino = ext2_le32(r + DE_INODE);
				uint8_t *p = block + prev;
				ext2_put16(p + DE_REC_LEN, ext2_le16(p + DE_REC_LEN) + (uint32_t)rec_len);
			}
			return 1;
		}
		prev = off;
		off += (uint32_t)rec_len;
	}
	return 0;
}

static int change(struct ext2_fs *fs, struct ext2_inode *dir, struct find_arg *a)
{
	if (fs->read_only)
		return -EROFS;
	int r = drop_index(fs, dir);
	if (!r)
		r = each_block(fs, dir, change_in_block, a);
	if (r == 0)
		return -ENOENT;
	if (r < 0)
		return r;
	dir->mtime = dir->ctime = fs->dev.now(fs->dev.ctx);
	return ext2_write_inode(fs, dir);
}

int ext2_dir_remove(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
		    uint32_t *ino)
{
	struct find_arg a = { .name = name, .len = len };
	int r = change(fs, dir, &a);
	if (!r)
		*ino = a.ino;
	return r;
}

int ext2_dir_set(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
		 uint32_t ino, uint8_t type)
{
	struct find_arg a = { .name = name, .len = len, .ino = ino, .type = type, .set = true };
	return change(fs, dir, &a);
}

static int count_names(void *arg, const struct ext2_dirent *d, uint64_t next)
{
	(void)next;
	bool dot = (d->name_len == 1 && d->name[0] == '.') ||
		   (d->name_len == 2 && d->name[0] == '.' && d->name[1] == '.');
	if (dot)
		return 0;
	*(bool *)arg = false;
	return 1;
}

int ext2_dir_empty(struct ext2_fs *fs, const struct ext2_inode *dir)
{
	bool empty = true;
	uint64_t pos = 0;
	int r = ext2_dir_iterate(fs, dir, &pos, count_names, &empty);
	return r < 0 ? r : empty;
}

int ext2_dir_init(struct ext2_fs *fs, struct ext2_inode *dir, uint32_t parent)
{
	uint32_t block;
	bool fresh;
	int r = ext2_bmap_alloc(fs, dir, 0, &block, &fresh, NULL);
	uint8_t *buf = r ? NULL : kzalloc(fs->block_size);
	if (!r && !buf)
		r = -ENOMEM;
	if (!r) {
		put_record(fs, buf, dir->ino, MIN_REC_LEN, ".", 1, EXT2_FT_DIR);
		put_record(fs, buf + MIN_REC_LEN, parent, fs->block_size - MIN_REC_LEN, "..", 2,
			   EXT2_FT_DIR);
		r = ext2_write_block(fs, block, 0, buf, fs->block_size, true);
	}
	kfree(buf);
	if (!r)
		dir->size = fs->block_size;
	return r;
}
