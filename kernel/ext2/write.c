// SPDX-License-Identifier: BSD-2-Clause
/*
 * Changing an ext2 file: writing its inode, allocating the block map's
 * path to a block (indirect blocks are zeroed on the disk before they
 * are pointed at), writing data, and truncating to any size. Order, so
 * that a crash can only leak: a block is allocated (bitmap) before a
 * pointer to it is written, and pointers are cleared (the inode, then
 * indirect blocks) before the blocks they named are freed. Indirect
 * blocks, and inodes that truncation and the namespace change, are
 * written synchronously. Writing file data takes UFS's delayed path: the
 * data blocks' bits (ext2_alloc_data_block) and the inode with the new
 * size and block map are written back by the device like the data, the
 * bitmap made synchronous just before the inode is written (alloc.c), so
 * a crash may lose a file's unsynced growth and leak its new blocks, and
 * nothing else. The caller serializes all writers (scion/ext2.h).
 */
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/string.h>
#include "ext2_internal.h"

/* Write in's fields into its slot of the inode table (sync: synchronously). */
static int store_inode(struct ext2_fs *fs, const struct ext2_inode *in, bool sync)
{
	if (fs->read_only)
		return -EROFS;
	if (in->ino == 0 || in->ino > fs->inodes)
		return ext2_refuse(fs, "writing inode %u of %u", in->ino, fs->inodes);
	uint32_t group = (in->ino - 1) / fs->inodes_per_group;
	uint64_t at = ((uint64_t)fs->group[group].inode_table << fs->block_log) +
		      (uint64_t)((in->ino - 1) % fs->inodes_per_group) * fs->inode_size;
	uint8_t raw[EXT2_GOOD_OLD_INODE_SIZE];
	int err = fs->dev.read(fs->dev.ctx, at, raw, sizeof(raw));
	if (err)
		return err;
	ext2_put16(raw + IN_MODE, in->mode);
	ext2_put16(raw + IN_UID, in->uid & 0xffff);
	ext2_put16(raw + IN_UID_HIGH, in->uid >> 16);
	ext2_put16(raw + IN_GID, in->gid & 0xffff);
	ext2_put16(raw + IN_GID_HIGH, in->gid >> 16);
	ext2_put32(raw + IN_SIZE, (uint32_t)in->size);
	ext2_put32(raw + IN_SIZE_HIGH, (in->mode & EXT2_S_IFMT) == EXT2_S_IFREG ?
		   (uint32_t)(in->size >> 32) : 0);
	ext2_put32(raw + IN_ATIME, (uint32_t)in->atime);
	ext2_put32(raw + IN_CTIME, (uint32_t)in->ctime);
	ext2_put32(raw + IN_MTIME, (uint32_t)in->mtime);
	ext2_put32(raw + IN_DTIME, (uint32_t)in->dtime);
	ext2_put16(raw + IN_LINKS_COUNT, in->nlink);
	ext2_put32(raw + IN_BLOCKS, (uint32_t)in->blocks512);
	ext2_put32(raw + IN_FLAGS, in->flags);
	for (int i = 0; i < EXT2_N_BLOCKS; i++)
		ext2_put32(raw + IN_BLOCK + 4 * i, in->block[i]);
	return ext2_dev_write(fs, at, raw, sizeof(raw), sync);
}

int ext2_write_inode(struct ext2_fs *fs, const struct ext2_inode *in)
{
	return store_inode(fs, in, true);
}

/*
 * A fresh block for in near goal, counted in its i_blocks; zeroed on the
 * disk when zero; a file data block (data) by the delayed path.
 */
static int new_block(struct ext2_fs *fs, struct ext2_inode *in, uint32_t goal, bool zero,
		     bool data, uint32_t *block)
{
	int err = data ? ext2_alloc_data_block(fs, goal, block) : ext2_alloc_block(fs, goal, block);
	if (!err && zero)
		err = ext2_zero_block(fs, *block, true);
	if (err)
		return err;
	in->blocks512 += fs->block_size >> 9;
	return 0;
}

/*
 * Entry index of indirect block table, allocating a zeroed block for it
 * when it is 0 (and writing the pointer synchronously).
 */
static int step_alloc(struct ext2_fs *fs, struct ext2_inode *in, uint32_t table, uint64_t index,
		      bool leaf, struct ext2_ptr_batch *batch, uint32_t *out, bool *fresh)
{
	uint8_t raw[4];
	int err = ext2_read_block(fs, table, (uint32_t)index * 4, raw, 4);
	if (err)
		return err;
	uint32_t b = ext2_le32(raw);
	if (b) {
		if (!ext2_block_ok(fs, b))
			return ext2_refuse(fs, "inode %u: indirect block %u holds pointer %u", in->ino,
					   table, b);
		*out = b;
		return 0;
	}
	/* A pointer an earlier write left held is the block's, not a hole. */
	for (unsigned i = 0; leaf && batch && i < batch->n; i++) {
		if (batch->ptr[i].table == table && batch->ptr[i].index == (uint32_t)index) {
			*out = batch->ptr[i].block;
			return 0;
		}
	}
	bool held = leaf && batch;
	if (held && batch->n == EXT2_PTR_BATCH && (err = ext2_ptr_batch_flush(fs, batch)))
		return err;
	err = new_block(fs, in, table + 1, !leaf, held, &b);
	if (err)
		return err;
	if (held) {
		batch->ptr[batch->n].table = table;
		batch->ptr[batch->n].index = (uint32_t)index;
		batch->ptr[batch->n++].block = b;
	} else {
		ext2_put32(raw, b);
		err = ext2_write_block(fs, table, (uint32_t)index * 4, raw, 4, true);
		if (err)
			return err;
	}
	*out = b;
	if (leaf)
		*fresh = true;
	return 0;
}

/* A top-level pointer of the inode (in memory: the caller writes the inode). */
static int top_alloc(struct ext2_fs *fs, struct ext2_inode *in, int slot, bool leaf,
		     bool data, uint32_t goal, uint32_t *out, bool *fresh)
{
	if (in->block[slot]) {
		*out = in->block[slot];
		return 0;
	}
	int err = new_block(fs, in, goal, !leaf, leaf && data, &in->block[slot]);
	if (!err) {
		*out = in->block[slot];
		if (leaf)
			*fresh = true;
	}
	return err;
}

int ext2_ptr_batch_flush(struct ext2_fs *fs, struct ext2_ptr_batch *batch)
{
	int err = batch->n ? ext2_sync_bitmap(fs) : 0;
	for (unsigned i = 0; i < batch->n && !err; i++) {
		uint8_t raw[4];
		ext2_put32(raw, batch->ptr[i].block);
		err = ext2_write_block(fs, batch->ptr[i].table, batch->ptr[i].index * 4, raw, 4,
				       false);
	}
	batch->n = 0;
	return err;
}

int ext2_bmap_alloc(struct ext2_fs *fs, struct ext2_inode *in, uint64_t index, uint32_t *block,
		    bool *fresh, struct ext2_ptr_batch *batch)
{
	uint64_t p = fs->block_size / 4;
	uint32_t goal = in->block[0] ? in->block[0] + (uint32_t)index :
			fs->group[(in->ino - 1) / fs->inodes_per_group].inode_table;
	uint32_t t;
	int err;
	*fresh = false;
	if (index < EXT2_NDIR_BLOCKS)
		return top_alloc(fs, in, (int)index, true, batch != NULL, goal, block, fresh);
	index -= EXT2_NDIR_BLOCKS;
	if (index < p) {
		err = top_alloc(fs, in, EXT2_IND_BLOCK, false, false, goal, &t, fresh);
		return err ? err : step_alloc(fs, in, t, index, true, batch, block, fresh);
	}
	index -= p;
	if (index < p * p) {
		err = top_alloc(fs, in, EXT2_DIND_BLOCK, false, false, goal, &t, fresh);
		if (!err)
			err = step_alloc(fs, in, t, index / p, false, NULL, &t, fresh);
		return err ? err : step_alloc(fs, in, t, index % p, true, batch, block, fresh);
	}
	index -= p * p;
	if (index < p * p * p) {
		err = top_alloc(fs, in, EXT2_TIND_BLOCK, false, false, goal, &t, fresh);
		if (!err)
			err = step_alloc(fs, in, t, index / (p * p), false, NULL, &t, fresh);
		if (!err)
			err = step_alloc(fs, in, t, index / p % p, false, NULL, &t, fresh);
		return err ? err : step_alloc(fs, in, t, index % p, true, batch, block, fresh);
	}
	return -EFBIG;
}

int ext2_update_inode(struct ext2_fs *fs, const struct ext2_inode *in)
{
	/* The bits of the blocks it points at reach the disk first (alloc.c). */
	int err = ext2_sync_bitmap(fs);
	return err ? err : store_inode(fs, in, fs->sync_all);
}

int64_t ext2_write(struct ext2_fs *fs, struct ext2_inode *in, uint64_t off, const void *buf,
		   size_t len)
{
	int64_t r = ext2_write_data(fs, in, off, buf, len, NULL);
	int err = r > 0 ? ext2_update_inode(fs, in) : 0;
	return err ? err : r;
}

int64_t ext2_write_data(struct ext2_fs *fs, struct ext2_inode *in, uint64_t off,
			const void *buf, size_t len, struct ext2_ptr_batch *pending)
{
	if (fs->read_only)
		return -EROFS;
	if (off + len < off || (off + len + fs->block_size - 1) >> fs->block_log > ext2_map_blocks(fs))
		return -EFBIG;
	uint8_t *whole = NULL;
	size_t done = 0;
	int err = 0;
	struct ext2_ptr_batch own = { .n = 0 };
	/* Fully synchronous: no pointer is held (step_alloc writes each at once). */
	struct ext2_ptr_batch *batch = fs->sync_all ? NULL : pending ? pending : &own;
	while (done < len) {
		uint64_t pos = off + done;
		uint32_t within = (uint32_t)(pos & (fs->block_size - 1));
		size_t n = fs->block_size - within < len - done ? fs->block_size - within : len - done;
		uint32_t block;
		bool fresh;
		err = ext2_bmap_alloc(fs, in, pos >> fs->block_log, &block, &fresh, batch);
		if (err)
			break;
		if (fresh && n < fs->block_size) {
			/* A new block's other bytes are zeros on the disk, not what it held before. */
			if (!whole && !(whole = kmalloc(fs->block_size))) {
				err = -ENOMEM;
				break;
			}
			memset(whole, 0, fs->block_size);
			memcpy(whole + within, (const uint8_t *)buf + done, n);
			err = ext2_write_block(fs, block, 0, whole, fs->block_size, false);
		} else {
			err = ext2_write_block(fs, block, within, (const uint8_t *)buf + done, n, false);
		}
		if (err)
			break;
		done += n;
	}
	/* Blocks allocated before an error are the file's too: their pointers go out. */
	int ferr = !batch || (pending && !err) ? 0 : ext2_ptr_batch_flush(fs, batch);
	kfree(whole);
	if (ferr)
		return ferr;
	if (off + done > in->size)
		in->size = off + done;
	if (done)
		in->mtime = in->ctime = fs->dev.now(fs->dev.ctx);
	return done ? (int64_t)done : err;
}

/*
 * Free what the pointer block (an indirect block at level: 1 holds data
 * pointers) names from entry first on, clearing those entries on the
 * disk first when keep (the block itself stays); the blocks freed are
 * taken off in->blocks512.
 */
static int free_tree(struct ext2_fs *fs, struct ext2_inode *in, uint32_t table, int level,
		     uint64_t first, bool keep)
{
	uint32_t p = fs->block_size / 4;
	uint8_t *ptrs = kmalloc(fs->block_size);
	if (!ptrs)
		return -ENOMEM;
	int err = ext2_read_block(fs, table, 0, ptrs, fs->block_size);
	if (!err && keep && first < p) {
		uint8_t *zeros = kzalloc(fs->block_size);
		err = zeros ? ext2_write_block(fs, table, (uint32_t)first * 4, zeros,
					       (p - first) * 4, true) : -ENOMEM;
		kfree(zeros);
	}
	for (uint64_t i = first; !err && i < p; i++) {
		uint32_t b = ext2_le32(ptrs + 4 * i);
		if (!b)
			continue;
		if (!ext2_block_ok(fs, b)) {
			err = ext2_refuse(fs, "inode %u: indirect block %u holds pointer %u", in->ino,
					  table, b);
			break;
		}
		if (level > 1)
			err = free_tree(fs, in, b, level - 1, 0, false);
		if (!err)
			err = ext2_free_block(fs, b);
		if (!err)
			in->blocks512 -= fs->block_size >> 9;
	}
	kfree(ptrs);
	return err;
}

/*
 * Within the subtree of top-level slot (level 0: a data pointer) whose
 * first file block is base: free every block at or past keep (a file
 * block index). Returns 0 or -errno; clears in->block[slot] (in memory)
 * when nothing of the subtree stays.
 */
static int trim_slot(struct ext2_fs *fs, struct ext2_inode *in, int slot, int level,
		     uint64_t base, uint64_t keep, uint32_t *drop, unsigned *ndrop)
{
	uint64_t p = fs->block_size / 4, span = 1;
	for (int l = 0; l < level; l++)
		span *= p;
	uint32_t b = in->block[slot];
	if (!b || base + span <= keep)
		return 0;
	if (base >= keep) {
		/* Wholly past the end: un-point it now, free it after the inode is written. */
		in->block[slot] = 0;
		drop[(*ndrop)++] = (uint32_t)((unsigned)slot | ((unsigned)level << 8));
		drop[(*ndrop)++] = b;
		return 0;
	}
	/* Partly kept: walk down the path of keep, freeing what follows it at each level. */
	uint64_t rel = keep - base;
	uint32_t table = b;
	for (int l = level; l >= 1; l--) {
		uint64_t below = span / p;
		uint64_t entry = rel / below;
		uint64_t within = rel % below;
		/* Entries after this one go whole; this one is trimmed one level down. */
		int err = free_tree(fs, in, table, l, entry + (within ? 1 : 0), true);
		if (err || !within || l == 1)
			return err;
		uint8_t raw[4];
		err = ext2_read_block(fs, table, (uint32_t)entry * 4, raw, 4);
		if (err)
			return err;
		table = ext2_le32(raw);
		if (!table)
			return 0;
		if (!ext2_block_ok(fs, table))
			return ext2_refuse(fs, "inode %u: pointer %u", in->ino, table);
		span = below;
		rel = within;
	}
	return 0;
}

int ext2_truncate(struct ext2_fs *fs, struct ext2_inode *in, uint64_t size)
{
	if (fs->read_only)
		return -EROFS;
	if ((size + fs->block_size - 1) >> fs->block_log > ext2_map_blocks(fs))
		return -EFBIG;
	if (size == in->size)
		return 0;	/* no change, no new times (as Linux) and no synchronous write */
	uint64_t keep = (size + fs->block_size - 1) >> fs->block_log;
	uint64_t p = fs->block_size / 4;
	uint32_t drop[2 * EXT2_N_BLOCKS];
	unsigned ndrop = 0;
	bool subtrees = false;
	int err = 0;
	if (size < in->size) {
		/* 1. Zero the kept tail of the last block: a later growth must read zeros there. */
		uint32_t within = (uint32_t)(size & (fs->block_size - 1)), last;
		if (within && !(err = ext2_bmap(fs, in, size >> fs->block_log, &last)) && last) {
			uint8_t *zeros = kzalloc(fs->block_size - within);
			err = zeros ? ext2_write_block(fs, last, within, zeros,
						       fs->block_size - within, false) : -ENOMEM;
			kfree(zeros);
		}
		/* 2. Trim partly kept subtrees (their entries cleared on the disk first). */
		for (int s = 0; !err && s < EXT2_NDIR_BLOCKS; s++)
			err = trim_slot(fs, in, s, 0, (uint64_t)s, keep, drop, &ndrop);
		uint64_t base = EXT2_NDIR_BLOCKS, span = p;
		for (int s = EXT2_IND_BLOCK; !err && s <= EXT2_TIND_BLOCK; s++, base += span, span *= p)
			err = trim_slot(fs, in, s, s - EXT2_IND_BLOCK + 1, base, keep, drop, &ndrop);
	}
	if (err)
		return err;
	/* 3. The inode, with its new size and without the dropped pointers. */
	in->size = size;
	in->mtime = in->ctime = fs->dev.now(fs->dev.ctx);
	for (unsigned i = 0; i < ndrop; i += 2)
		in->blocks512 -= fs->block_size >> 9;
	err = ext2_write_inode(fs, in);
	/* 4. Free the subtrees nothing points at any more; then count what they held. */
	for (unsigned i = 0; !err && i < ndrop; i += 2) {
		int level = (int)(drop[i] >> 8);
		if (level) {
			err = free_tree(fs, in, drop[i + 1], level, 0, false);
			subtrees = true;
		}
		if (!err)
			err = ext2_free_block(fs, drop[i + 1]);
	}
	return err || !subtrees ? err : ext2_write_inode(fs, in);
}
