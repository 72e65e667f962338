// SPDX-License-Identifier: BSD-2-Clause
/*
 * The ext2 walker (ext2_walk.h): the reader's whole API over an image in
 * memory, bounded in depth, entries and bytes so that any image ends.
 * Entries are visited in directory order; the digest folds each entry's
 * name, type and data, so that two walks of one image agree and a walk
 * of a known tree can be compared with the tree.
 */
#include <stdio.h>
#include <string.h>
#include <scion/errno.h>
#include <scion/ext2.h>
#include "ext2_walk.h"

#define PIECE 777
#define FNV_PRIME 0x100000001b3ull

struct image {
	const uint8_t *bytes;
	size_t size;
	struct ext2_walk *w;
};

static int image_read(void *ctx, uint64_t offset, void *buf, size_t len)
{
	struct image *im = ctx;
	if (offset > im->size || len > im->size - offset) {
		im->w->escapes++;
		return -EIO;
	}
	memcpy(buf, im->bytes + offset, len);
	return 0;
}

static void fold(struct ext2_walk *w, const void *data, size_t len)
{
	const uint8_t *p = data;
	for (size_t i = 0; i < len; i++)
		w->digest = (w->digest ^ p[i]) * FNV_PRIME;
}

static void error(struct ext2_walk *w, struct ext2_fs *fs, const char *what, uint32_t ino, int err)
{
	if (!w->errors++)
		snprintf(w->first_error, sizeof(w->first_error), "%s of inode %u: %d (%s)", what, ino,
			 err, fs->last_error);
}

static void walk_inode(struct ext2_fs *fs, uint32_t ino, unsigned depth, struct ext2_walk *w);

struct dir_arg {
	struct ext2_fs *fs;
	struct ext2_walk *w;
	unsigned depth;
};

static int visit(void *arg, const struct ext2_dirent *d, uint64_t next)
{
	(void)next;
	struct dir_arg *a = arg;
	if (++a->w->entries > EXT2_WALK_ENTRIES)
		return 1;
	fold(a->w, d->name, d->name_len);
	fold(a->w, &d->type, 1);
	if (!strcmp(d->name, ".") || !strcmp(d->name, ".."))
		return 0;
	if (a->depth < EXT2_WALK_DEPTH)
		walk_inode(a->fs, d->ino, a->depth + 1, a->w);
	return 0;
}

static void walk_inode(struct ext2_fs *fs, uint32_t ino, unsigned depth, struct ext2_walk *w)
{
	struct ext2_inode in;
	int err = ext2_read_inode(fs, ino, &in);
	if (err) {
		error(w, fs, "read", ino, err);
		return;
	}
	uint32_t type = in.mode & 0170000;
	if (type == 0040000) {
		w->dirs++;
		struct dir_arg a = { fs, w, depth };
		uint64_t pos = 0;
		err = ext2_dir_iterate(fs, &in, &pos, visit, &a);
		if (err < 0)
			error(w, fs, "iterate", ino, err);
		uint32_t found;
		err = ext2_lookup(fs, &in, ".", 1, &found);
		if (err && err != -ENOENT)
			error(w, fs, "lookup", ino, err);
	} else if (type == 0120000) {
		w->links++;
		char target[4096];
		int n = ext2_readlink(fs, &in, target, sizeof(target));
		if (n < 0)
			error(w, fs, "readlink", ino, n);
		else
			fold(w, target, (size_t)n);
	} else if (type == 0100000) {
		w->files++;
		static uint8_t buf[PIECE];
		uint64_t off = 0;
		for (int64_t got; off < EXT2_WALK_FILE_MAX; off += (uint64_t)got) {
			got = ext2_read(fs, &in, off, buf, sizeof(buf));
			if (got < 0)
				error(w, fs, "read data", ino, (int)got);
			if (got <= 0)
				break;
			fold(w, buf, (size_t)got);
		}
		w->bytes += off;
	}
}

void ext2_walk_image(const uint8_t *img, size_t size, struct ext2_walk *w)
{
	memset(w, 0, sizeof(*w));
	w->digest = 0xcbf29ce484222325ull;
	struct image im = { img, size, w };
	struct ext2_dev dev = { .read = image_read, .ctx = &im, .bytes = size };
	struct ext2_fs fs;
	w->open_error = ext2_open(&dev, &fs, w->msg, sizeof(w->msg));
	if (w->open_error)
		return;
	walk_inode(&fs, 2, 0, w);
	ext2_close(&fs);
}
