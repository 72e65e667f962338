// SPDX-License-Identifier: BSD-2-Clause
/*
 * ext2 names: creating files, directories and symbolic links, hard
 * links, unlinking, removing directories, renaming, and deleting an
 * inode nothing names any more. Each is a sequence of synchronous
 * metadata writes ordered so that a crash between two of them leaves
 * only what e2fsck calls a leak or a link count too high, never a name
 * for a free inode:
 *   create:  1. allocate the inode  2. write it  3. add the name  4. (a
 *            directory) the parent's link count
 *   unlink:  1. remove the name  2. the link count  (3. ext2_delete when
 *            it reaches 0 and no one has the file open: the VFS decides)
 *   rename:  1. source's links + 1  2. add or repoint the new name
 *            3. remove the old name  4. source's links - 1  5. (a
 *            directory) its ".." and both parents' link counts
 * The caller serializes all writers and passes its copies of the
 * inodes, which come back changed.
 */
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/string.h>
#include "ext2_internal.h"

static uint8_t file_type(uint32_t mode)
{
	switch (mode & EXT2_S_IFMT) {
	case EXT2_S_IFREG: return EXT2_FT_REG_FILE;
	case EXT2_S_IFDIR: return EXT2_FT_DIR;
	case EXT2_S_IFLNK: return EXT2_FT_SYMLINK;
	default: return EXT2_FT_UNKNOWN;
	}
}

static bool is_dir(const struct ext2_inode *in)
{
	return (in->mode & EXT2_S_IFMT) == EXT2_S_IFDIR;
}

/* A fresh inode's on-disk bytes: zeros, so nothing of its last use survives. */
static int clear_inode(struct ext2_fs *fs, uint32_t ino)
{
	uint8_t zeros[EXT2_GOOD_OLD_INODE_SIZE] = { 0 };
	uint32_t group = (ino - 1) / fs->inodes_per_group;
	uint64_t at = ((uint64_t)fs->group[group].inode_table << fs->block_log) +
		      (uint64_t)((ino - 1) % fs->inodes_per_group) * fs->inode_size;
	return ext2_dev_write(fs, at, zeros, sizeof(zeros), true);
}

int ext2_create(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
		uint32_t mode, uint32_t uid, uint32_t gid, const char *target,
		struct ext2_inode *out)
{
	if (fs->read_only)
		return -EROFS;
	if (!is_dir(dir))
		return -ENOTDIR;
	if (is_dir(dir) && dir->nlink == 0)
		return -ENOENT;	/* removed while someone still had it */
	uint32_t existing;
	int err = ext2_lookup(fs, dir, name, len, &existing);
	if (err != -ENOENT)
		return err ? err : -EEXIST;
	bool directory = (mode & EXT2_S_IFMT) == EXT2_S_IFDIR;
	if (directory && dir->nlink >= 65000)
		return -EMLINK;
	uint32_t ino;
	err = ext2_alloc_inode_number(fs, dir->ino, directory, &ino);
	if (err)
		return err;
	int64_t now = fs->dev.now(fs->dev.ctx);
	memset(out, 0, sizeof(*out));
	*out = (struct ext2_inode){ .ino = ino, .mode = mode, .uid = uid, .gid = gid,
				    .nlink = directory ? 2 : 1, .atime = now, .mtime = now,
				    .ctime = now };
	/* 1-2. The inode, complete, before any name points at it. */
	err = clear_inode(fs, ino);
	if (!err && directory)
		err = ext2_dir_init(fs, out, dir->ino);
	if (!err && target) {
		size_t tlen = strlen(target);
		if (tlen < EXT2_FAST_SYMLINK_MAX) {
			for (size_t i = 0; i < tlen; i++)
				out->block[i / 4] |= (uint32_t)(uint8_t)target[i] << (8 * (i % 4));
			out->size = tlen;
		} else {
			int64_t n = ext2_write(fs, out, 0, target, tlen);
			err = n < 0 ? (int)n : 0;
		}
	}
	if (!err)
		err = ext2_write_inode(fs, out);
	/* 3. The name. */
	if (!err)
		err = ext2_dir_add(fs, dir, name, len, ino, file_type(mode));
	if (err) {
		ext2_truncate(fs, out, 0);
		ext2_free_inode_number(fs, ino, directory);
		return err;
	}
	/* 4. A subdirectory's ".." links its parent. */
	if (directory) {
		dir->nlink++;
		err = ext2_write_inode(fs, dir);
	}
	return err;
}

int ext2_link(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
	      struct ext2_inode *target)
{
	if (fs->read_only)
		return -EROFS;
	if (is_dir(target))
		return -EPERM;
	if (target->nlink >= 65000)
		return -EMLINK;
	uint32_t existing;
	int err = ext2_lookup(fs, dir, name, len, &existing);
	if (err != -ENOENT)
		return err ? err : -EEXIST;
	target->nlink++;
	target->ctime = fs->dev.now(fs->dev.ctx);
	err = ext2_write_inode(fs, target);
	if (!err)
		err = ext2_dir_add(fs, dir, name, len, target->ino, file_type(target->mode));
	if (err) {
		target->nlink--;
		ext2_write_inode(fs, target);
	}
	return err;
}

int ext2_unlink(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
		struct ext2_inode *victim)
{
	if (fs->read_only)
		return -EROFS;
	uint32_t ino;
	int err = ext2_lookup(fs, dir, name, len, &ino);
	if (!err)
		err = ext2_read_inode(fs, ino, victim);
	if (err)
		return err;
	if (is_dir(victim))
		return -EISDIR;
	/* 1. The name; 2. the count (a crash between: a count too high, a leak). */
	err = ext2_dir_remove(fs, dir, name, len, &ino);
	if (err)
		return err;
	if (victim->nlink)
		victim->nlink--;
	victim->ctime = fs->dev.now(fs->dev.ctx);
	return ext2_write_inode(fs, victim);
}

int ext2_rmdir(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
	       struct ext2_inode *victim)
{
	if (fs->read_only)
		return -EROFS;
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return len == 1 ? -EINVAL : -ENOTEMPTY;
	uint32_t ino;
	int err = ext2_lookup(fs, dir, name, len, &ino);
	if (!err)
		err = ext2_read_inode(fs, ino, victim);
	if (err)
		return err;
	if (!is_dir(victim))
		return -ENOTDIR;
	err = ext2_dir_empty(fs, victim);
	if (err <= 0)
		return err ? err : -ENOTEMPTY;
	err = ext2_dir_remove(fs, dir, name, len, &ino);
	if (err)
		return err;
	victim->nlink = 0;
	victim->ctime = fs->dev.now(fs->dev.ctx);
	err = ext2_write_inode(fs, victim);
	if (dir->nlink > 2)
		dir->nlink--;
	return err ? err : ext2_write_inode(fs, dir);
}

int ext2_delete(struct ext2_fs *fs, struct ext2_inode *in)
{
	if (fs->read_only)
		return -EROFS;
	bool directory = is_dir(in);
	int err = 0;
	/* A fast link's block[] holds text, not blocks: nothing to free. */
	if ((in->mode & EXT2_S_IFMT) != EXT2_S_IFLNK || in->blocks512)
		err = ext2_truncate(fs, in, 0);
	if (err)
		return err;
	memset(in->block, 0, sizeof(in->block));
	in->nlink = 0;
	in->dtime = fs->dev.now(fs->dev.ctx);
	err = ext2_write_inode(fs, in);
	return err ? err : ext2_free_inode_number(fs, in->ino, directory);
}

/* Whether directory ino is dir or one of its ancestors (a move into itself). */
static int is_ancestor(struct ext2_fs *fs, uint32_t ino, const struct ext2_inode *dir)
{
	struct ext2_inode at = *dir;
	for (unsigned depth = 0; depth < 4096; depth++) {
		if (at.ino == ino)
			return 1;
		if (at.ino == EXT2_ROOT_INO)
			return 0;
		uint32_t parent;
		int err = ext2_lookup(fs, &at, "..", 2, &parent);
		if (!err)
			err = ext2_read_inode(fs, parent, &at);
		if (err)
			return err;
	}
	return ext2_refuse(fs, "directory inode %u: no way up to the root", dir->ino);
}

int ext2_rename(struct ext2_fs *fs, struct ext2_inode *odir, const char *oname, size_t olen,
		struct ext2_inode *ndir, const char *nname, size_t nlen,
		struct ext2_inode *replaced, bool *was_replaced)
{
	*was_replaced = false;
	if (fs->read_only)
		return -EROFS;
	uint32_t sino, dino;
	struct ext2_inode src;
	int err = ext2_lookup(fs, odir, oname, olen, &sino);
	if (!err)
		err = ext2_read_inode(fs, sino, &src);
	if (err)
		return err;
	if (nlen == 0 || nlen > EXT2_NAME_LEN)
		return nlen ? -ENAMETOOLONG : -ENOENT;
	if (is_dir(&src)) {
		int r = is_ancestor(fs, sino, ndir);
		if (r)
			return r < 0 ? r : -EINVAL;
	}
	err = ext2_lookup(fs, ndir, nname, nlen, &dino);
	if (err && err != -ENOENT)
		return err;
	bool exists = !err;
	if (exists) {
		if (dino == sino)
			return 0;
		err = ext2_read_inode(fs, dino, replaced);
		if (err)
			return err;
		if (is_dir(replaced) != is_dir(&src))
			return is_dir(replaced) ? -EISDIR : -ENOTDIR;
		if (is_dir(replaced) && (err = ext2_dir_empty(fs, replaced)) <= 0)
			return err ? err : -ENOTEMPTY;
	}
	int64_t now = fs->dev.now(fs->dev.ctx);
	/* 1. One more link while both names may exist. */
	src.nlink++;
	src.ctime = now;
	err = ext2_write_inode(fs, &src);
	/* 2. The new name. */
	if (!err)
		err = exists ? ext2_dir_set(fs, ndir, nname, nlen, sino, file_type(src.mode)) :
			       ext2_dir_add(fs, ndir, nname, nlen, sino, file_type(src.mode));
	if (err) {
		src.nlink--;
		ext2_write_inode(fs, &src);
		return err;
	}
	if (exists) {
		replaced->nlink = is_dir(replaced) ? 0 : replaced->nlink - 1;
		replaced->ctime = now;
		err = ext2_write_inode(fs, replaced);
		if (!err && is_dir(replaced) && ndir->nlink > 2)
			ndir->nlink--;
		*was_replaced = true;
	}
	/* 3. The old name (ndir may be odir: take its latest copy). */
	uint32_t gone;
	struct ext2_inode *from = odir->ino == ndir->ino ? ndir : odir;
	if (!err)
		err = ext2_dir_remove(fs, from, oname, olen, &gone);
	if (from != odir)
		*odir = *from;
	/* 4. Back to one link. */
	src.nlink--;
	if (!err)
		err = ext2_write_inode(fs, &src);
	/* 5. A moved directory: its "..", and the parents' counts. */
	if (!err && is_dir(&src) && odir->ino != ndir->ino) {
		err = ext2_dir_set(fs, &src, "..", 2, ndir->ino, EXT2_FT_DIR);
		if (!err) {
			odir->nlink--;
			ndir->nlink++;
			err = ext2_write_inode(fs, odir);
		}
	}
	if (!err)
		err = ext2_write_inode(fs, ndir);
	if (odir->ino == ndir->ino)
		*odir = *ndir;
	return err;
}
