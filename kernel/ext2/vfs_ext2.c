// SPDX-License-Identifier: BSD-2-Clause
/*
 * ext2 as a VFS file system: the reader and writer (kernel/ext2/) over
 * the block cache, which caches the disk vda in 4 KiB blocks, and its
 * inodes as vnodes (struct ext2_vnode: the vnode, then the inode). The
 * disk's metadata writes are synchronous block-cache writes, file data
 * is written back by the cache (bcache_write_bytes); fsync and sync
 * write back everything (bcache_sync). A writable mount serializes its
 * operations on its mutex (vfs_ext2.h); a read-only one (a read-only
 * disk or a feature Scion cannot write) takes no lock. The writing
 * operations are in vfs_ext2_write.c.
 */
#include <arch/rtc.h>
#include <scion/bcache.h>
#include <scion/blkdev.h>
#include <scion/bootopt.h>
#include <scion/clock.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/vfs.h>
#include "ext2_internal.h"
#include "vfs_ext2.h"

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

static int disk_write(void *ctx, uint64_t offset, const void *buf, size_t len, bool sync)
{
	(void)ctx;
	while (len) {
		size_t within = offset % BCACHE_BLOCK_SIZE;
		size_t n = BCACHE_BLOCK_SIZE - within < len ? BCACHE_BLOCK_SIZE - within : len;
		int err = bcache_write_bytes(offset / BCACHE_BLOCK_SIZE, within, buf, n, sync);
		if (err)
			return err;
		offset += n;
		buf = (const uint8_t *)buf + n;
		len -= n;
	}
	return 0;
}

static int disk_sync(void *ctx)
{
	(void)ctx;
	return bcache_sync();
}

static int64_t disk_now(void *ctx)
{
	struct ext2_mount *m = ctx;
	return m->boot_wall + (int64_t)(clock_ns() / 1000000000ull);
}

void ext2_vnode_refresh(struct vnode *v)
{
	struct ext2_inode *in = inode_of(v);
	v->mode = in->mode;
	v->uid = in->uid;
	v->gid = in->gid;
	WRITE_ONCE(v->nlink, in->nlink);
	v->size = in->size;
	v->blocks512 = in->blocks512;
	v->atime = in->atime;
	v->mtime = in->mtime;
	v->ctime = in->ctime;
}

int ext2_said(struct vnode *v, int err)
{
	if (err == -EIO)
		printk("ext2: %s\n", mount_of(v)->fs.last_error);
	return err;
}

static int ext2_vfs_read_inode(struct vnode *v)
{
	struct ext2_mount *m = mount_of(v);
	if (v->ino > UINT32_MAX)
		return -ENOENT;
	ext2_lock(m);
	int err = ext2_read_inode(&m->fs, (uint32_t)v->ino, inode_of(v));
	ext2_unlock(m);
	if (err)
		return ext2_said(v, err);
	ext2_vnode_refresh(v);
	return 0;
}

static int ext2_vfs_lookup(struct vnode *dir, const char *name, size_t len, uint64_t *ino)
{
	struct ext2_mount *m = mount_of(dir);
	uint32_t found;
	ext2_lock(m);
	int err = ext2_lookup(&m->fs, inode_of(dir), name, len, &found);
	ext2_unlock(m);
	if (!err)
		*ino = found;
	return ext2_said(dir, err);
}

static int64_t ext2_vfs_read(struct vnode *v, uint64_t off, void *buf, size_t len)
{
	struct ext2_mount *m = mount_of(v);
	ext2_lock(m);
	int64_t r = ext2_vnode_settle(m, v);
	if (!r)
		r = ext2_read(&m->fs, inode_of(v), off, buf, len);
	ext2_unlock(m);
	return r < 0 ? ext2_said(v, (int)r) : r;
}

/*
 * A directory is read in batches: up to BATCH records are copied out
 * under the mount's lock, then handed to the caller's function without
 * it (the function may sleep, fault on user memory, or open the entries
 * it is given, which takes the lock again).
 */
#define BATCH 16

struct batch {
	unsigned n;
	struct ext2_dirent entry[BATCH];
	uint64_t next[BATCH];	/* the position past each */
};

static int collect(void *arg, const struct ext2_dirent *e, uint64_t next)
{
	struct batch *b = arg;
	if (b->n == BATCH)
		return -1;	/* full: this record waits for the next batch */
	b->entry[b->n] = *e;
	b->next[b->n++] = next;
	return 0;
}

static int ext2_vfs_iterate(struct vnode *dir, uint64_t *pos,
			    int (*fn)(void *arg, const struct vfs_dirent *d, uint64_t next),
			    void *arg)
{
	static const uint8_t dt[8] = { 0, 8, 4, 2, 6, 1, 12, 10 };	/* EXT2_FT_* -> DT_* */
	struct ext2_mount *m = mount_of(dir);
	struct batch *b = kmalloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	int r;
	for (;;) {
		b->n = 0;
		uint64_t at = *pos;
		ext2_lock(m);
		r = ext2_dir_iterate(&m->fs, inode_of(dir), &at, collect, b);
		ext2_unlock(m);
		if (r < 0 && r != -1)
			break;
		bool more = r == -1;
		r = 0;
		for (unsigned i = 0; i < b->n && !r; i++) {
			const struct ext2_dirent *e = &b->entry[i];
			struct vfs_dirent d = { .ino = e->ino, .type = e->type < 8 ? dt[e->type] : 0,
						.name = e->name, .len = e->name_len };
			r = fn(arg, &d, b->next[i]);
			if (r >= 0)
				*pos = b->next[i];
		}
		if (r || !more) {
			if (!r && !more)
				*pos = at;	/* past trailing unused records too */
			break;
		}
	}
	kfree(b);
	return ext2_said(dir, r);
}

static int ext2_vfs_readlink(struct vnode *v, char *buf, size_t size)
{
	struct ext2_mount *m = mount_of(v);
	ext2_lock(m);
	int r = ext2_readlink(&m->fs, inode_of(v), buf, size);
	ext2_unlock(m);
	return ext2_said(v, r);
}

static void ext2_vfs_statfs(struct vfs_fs *fs, uint64_t *block_size, uint64_t *blocks,
			    uint64_t *free, uint64_t *inodes, uint64_t *free_inodes)
{
	struct ext2_mount *m = container_of(fs, struct ext2_mount, vfs);
	*block_size = m->fs.block_size;
	*blocks = m->fs.blocks;
	*free = READ_ONCE(m->fs.free_blocks);
	*inodes = m->fs.inodes;
	*free_inodes = READ_ONCE(m->fs.free_inodes);
}

/* ext2sync=all: every metadata write synchronous, file data's too (the default: UFS's mix). */
static bool sync_all_metadata;

static int parse_ext2sync(const char *value)
{
	if (!strcmp(value, "all"))
		sync_all_metadata = true;
	else if (!strcmp(value, "ufs"))
		sync_all_metadata = false;
	else
		return -EINVAL;
	return 0;
}
BOOT_OPTION(ext2sync, "ufs|all", "ext2's synchronous metadata: ufs (namespace, inode allocation "
	    "and truncation; the default) or all (every write's too)", parse_ext2sync);

static const struct vfs_ops ext2_vfs_ops = {
	.name = "ext2",
	.vnode_size = sizeof(struct ext2_vnode),
	.read_inode = ext2_vfs_read_inode,
	.lookup = ext2_vfs_lookup,
	.read = ext2_vfs_read,
	.iterate = ext2_vfs_iterate,
	.readlink = ext2_vfs_readlink,
	.write = ext2_vfs_write,
	.truncate = ext2_vfs_truncate,
	.create = ext2_vfs_create,
	.link = ext2_vfs_link,
	.remove = ext2_vfs_remove,
	.rename = ext2_vfs_rename,
	.fsync = ext2_vfs_fsync,
	.flush = ext2_vfs_flush,
	.sync = ext2_vfs_sync,
	.inactive = ext2_vfs_inactive,
	.statfs = ext2_vfs_statfs,
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
	m->lock = (struct mutex)MUTEX_INIT(m->lock, "ext2");
	list_init(&m->dirty);
	m->boot_wall = (int64_t)arch_rtc_seconds() - (int64_t)(clock_ns() / 1000000000ull);
	struct ext2_dev dev = {
		.read = disk_read, .write = blkdev_read_only(d) ? NULL : disk_write,
		.sync = disk_sync, .now = disk_now, .ctx = m,
		.bytes = bcache_disk_blocks() * BCACHE_BLOCK_SIZE,
	};
	char msg[160];
	int err = ext2_open(&dev, &m->fs, msg, sizeof(msg));
	m->fs.sync_all = sync_all_metadata;
	printk("ext2: %s: %s%s\n", disk, msg, err || !sync_all_metadata ? "" :
	       "; every metadata write synchronous (ext2sync=all)");
	if (err) {
		kfree(m);
		return NULL;
	}
	m->vfs.ops = &ext2_vfs_ops;
	m->vfs.root_ino = EXT2_ROOT_INO;
	m->vfs.read_only = m->fs.read_only;
	m->vfs.priv = m;
	m->vfs.magic = EXT2_MAGIC;
	strlcpy(m->vfs.source, disk, sizeof(m->vfs.source));
	return &m->vfs;
}
