// SPDX-License-Identifier: BSD-2-Clause
/*
 * ext2 as a VFS file system: the reader (inode.c, dir.c) over the block
 * cache, which caches the disk vda in 4 KiB blocks, and its inodes as
 * vnodes (struct ext2_vnode: the vnode, then the inode as read). The
 * struct ext2_fs is only read after ext2_vfs_open, so any number of
 * threads may use the file system at once. Read only for now.
 */
#include <scion/bcache.h>
#include <scion/blkdev.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/vfs.h>
#include "ext2_internal.h"

struct ext2_vnode {
	struct vnode v;
	struct ext2_inode in;
};

struct ext2_mount {
	struct vfs_fs vfs;
	struct ext2_fs fs;
};

static struct ext2_fs *fs_of(const struct vnode *v)
{
	return &container_of(v->fs, struct ext2_mount, vfs)->fs;
}

static struct ext2_inode *inode_of(struct vnode *v)
{
	return &container_of(v, struct ext2_vnode, v)->in;
}

static int disk_read(void *ctx, uint64_t offset, void *buf, size_t len)
{
	(void)ctx;
	while (len) {
		size_t within = offset % BCACHE_BLOCK_SIZE;
		size_t n = BCACHE_BLOCK_SIZE - within < len ? BCACHE_BLOCK_SIZE - within : len;
		int err = bcache_read_bytes(offset / BCACHE_BLOCK_SIZE, within, buf, n);
		if (err)
			return err;
		offset += n;
		buf = (uint8_t *)buf + n;
		len -= n;
	}
	return 0;
}

static int ext2_vfs_read_inode(struct vnode *v)
{
	struct ext2_inode *in = inode_of(v);
	if (v->ino > UINT32_MAX)
		return -ENOENT;
	int err = ext2_read_inode(fs_of(v), (uint32_t)v->ino, in);
	if (err == -EIO)
		printk("ext2: %s\n", fs_of(v)->last_error);
	if (err)
		return err;
	v->mode = in->mode;
	v->uid = in->uid;
	v->gid = in->gid;
	v->nlink = in->nlink;
	v->size = in->size;
	v->blocks512 = in->blocks512;
	v->atime = in->atime;
	v->mtime = in->mtime;
	v->ctime = in->ctime;
	return 0;
}

/* A refusal of the disk's contents is said once per occurrence, in one line. */
static int said(struct vnode *v, int err)
{
	if (err == -EIO)
		printk("ext2: %s\n", fs_of(v)->last_error);
	return err;
}

static int ext2_vfs_lookup(struct vnode *dir, const char *name, size_t len, uint64_t *ino)
{
	uint32_t found;
	int err = ext2_lookup(fs_of(dir), inode_of(dir), name, len, &found);
	if (!err)
		*ino = found;
	return said(dir, err);
}

static int64_t ext2_vfs_read(struct vnode *v, uint64_t off, void *buf, size_t len)
{
	int64_t r = ext2_read(fs_of(v), inode_of(v), off, buf, len);
	return r < 0 ? said(v, (int)r) : r;
}

/* ext2's file types are Linux's DT_* values. */
struct iterate_arg {
	int (*fn)(void *arg, const struct vfs_dirent *d, uint64_t next);
	void *arg;
};

static int pass_entry(void *arg, const struct ext2_dirent *e, uint64_t next)
{
	struct iterate_arg *a = arg;
	static const uint8_t dt[8] = { 0, 8, 4, 2, 6, 1, 12, 10 };	/* EXT2_FT_* -> DT_* */
	struct vfs_dirent d = { .ino = e->ino, .type = e->type < 8 ? dt[e->type] : 0,
				.name = e->name, .len = e->name_len };
	return a->fn(a->arg, &d, next);
}

static int ext2_vfs_iterate(struct vnode *dir, uint64_t *pos,
			    int (*fn)(void *arg, const struct vfs_dirent *d, uint64_t next),
			    void *arg)
{
	struct iterate_arg a = { fn, arg };
	return said(dir, ext2_dir_iterate(fs_of(dir), inode_of(dir), pos, pass_entry, &a));
}

static int ext2_vfs_readlink(struct vnode *v, char *buf, size_t size)
{
	return said(v, ext2_readlink(fs_of(v), inode_of(v), buf, size));
}

static const struct vfs_ops ext2_vfs_ops = {
	.name = "ext2",
	.vnode_size = sizeof(struct ext2_vnode),
	.read_inode = ext2_vfs_read_inode,
	.lookup = ext2_vfs_lookup,
	.read = ext2_vfs_read,
	.iterate = ext2_vfs_iterate,
	.readlink = ext2_vfs_readlink,
};

/*
 * Whether disk holds an ext2 superblock, read around the block cache so
 * that a disk that is not ext2 (the block cache's pattern disk) finds the
 * cache as empty as it was.
 */
static bool has_superblock(struct blkdev *d, const char *disk)
{
	uint8_t *sb = kmalloc(EXT2_SUPER_SIZE);
	bool found = false;
	if (sb && blkdev_sectors(d) >= (EXT2_SUPER_OFFSET + EXT2_SUPER_SIZE) / BLK_SECTOR_SIZE &&
	    blkdev_read(d, EXT2_SUPER_OFFSET / BLK_SECTOR_SIZE, EXT2_SUPER_SIZE / BLK_SECTOR_SIZE,
			sb) == 0) {
		found = ext2_le16(sb + SB_MAGIC) == EXT2_MAGIC;
		if (!found)
			printk("ext2: %s: no ext2 superblock (magic %#x, not %#x)\n", disk,
			       ext2_le16(sb + SB_MAGIC), EXT2_MAGIC);
	}
	kfree(sb);
	return found;
}

struct vfs_fs *ext2_vfs_open(const char *disk)
{
	struct blkdev *d = blkdev_find(disk);
	if (strcmp(disk, "vda") != 0 || !bcache_available() || !d || !has_superblock(d, disk))
		return NULL;	/* the block cache caches vda only */
	struct ext2_mount *m = kzalloc(sizeof(*m));
	if (!m)
		return NULL;
	struct ext2_dev dev = { .read = disk_read, .bytes = bcache_disk_blocks() * BCACHE_BLOCK_SIZE };
	char msg[160];
	int err = ext2_open(&dev, &m->fs, msg, sizeof(msg));
	printk("ext2: %s: %s\n", disk, msg);
	if (err) {
		kfree(m);
		return NULL;
	}
	m->vfs.ops = &ext2_vfs_ops;
	m->vfs.root_ino = EXT2_ROOT_INO;
	m->vfs.read_only = m->fs.read_only;
	strlcpy(m->vfs.source, disk, sizeof(m->vfs.source));
	return &m->vfs;
}
