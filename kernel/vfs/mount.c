// SPDX-License-Identifier: BSD-2-Clause
/*
 * The mount table: the root file system and up to VFS_MOUNT_MAX - 1
 * others, each at a name in the root directory. Mounted at boot by
 * vfs_init and never unmounted yet, so the walk reads the table without
 * a lock once it is published (entries are written before the count
 * that makes them visible, with release order). mount_lock orders
 * mounts among themselves.
 */
#include <scion/archive.h>
#include <scion/errno.h>
#include <scion/printk.h>
#include <scion/shell.h>
#include <scion/spinlock.h>
#include <scion/string.h>
#include <scion/vfs.h>
#include "vfs_internal.h"

static struct spinlock mount_lock = SPINLOCK_INIT("mount");
static struct vfs_fs *mounts[VFS_MOUNT_MAX];	/* written under mount_lock before nmounts grows */
static unsigned nmounts;			/* mount_lock; read with acquire */
static uint32_t next_fs_id = 1;			/* mount_lock */

int vfs_mount(struct vfs_fs *fs, const char *where)
{
	bool root = strcmp(where, "/") == 0;
	size_t len = strlen(where);
	if (!root && (where[0] != '/' || len < 2 || len >= sizeof(fs->where) ||
		      strchr(where + 1, '/')))
		return -EINVAL;
	irqflags_t f = spin_lock_irqsave(&mount_lock);
	int err = 0;
	if (nmounts == VFS_MOUNT_MAX)
		err = -ENOSPC;
	else if (root != (nmounts == 0))
		err = root ? -EBUSY : -ENOENT;	/* the root comes first, once */
	for (unsigned i = 0; !err && i < nmounts; i++)
		if (strcmp(mounts[i]->where, where) == 0)
			err = -EBUSY;
	if (!err) {
		strlcpy(fs->where, where, sizeof(fs->where));
		fs->id = next_fs_id++;
		mounts[nmounts] = fs;
		__atomic_store_n(&nmounts, nmounts + 1, __ATOMIC_RELEASE);
	}
	spin_unlock_irqrestore(&mount_lock, f);
	return err;
}

struct vfs_fs *vfs_mount_at(unsigned index)
{
	return index < __atomic_load_n(&nmounts, __ATOMIC_ACQUIRE) ? mounts[index] : NULL;
}

int vfs_root_vnode(struct vnode **out)
{
	struct vfs_fs *root = vfs_mount_at(0);
	return root ? vnode_get(root, root->root_ino, out) : -ENOENT;
}

struct vfs_fs *vfs_mount_find(const struct vnode *dir, const char *name, size_t len)
{
	struct vfs_fs *root = vfs_mount_at(0);
	if (!root || dir->fs != root || dir->ino != root->root_ino)
		return NULL;
	for (unsigned i = 1; i < VFS_MOUNT_MAX; i++) {
		struct vfs_fs *fs = vfs_mount_at(i);
		if (!fs)
			break;
		if (strlen(fs->where + 1) == len && memcmp(fs->where + 1, name, len) == 0)
			return fs;
	}
	return NULL;
}

void vfs_init(void)
{
	struct vfs_fs *disk = ext2_vfs_open("vda");
	struct vfs_fs *archive = archive_modules_loaded() || !disk ? archive_vfs_open() : NULL;
	if (disk && vfs_mount(disk, "/") == 0)
		printk("vfs: / is ext2 on %s%s\n", disk->source, disk->read_only ? " (read only)" : "");
	if (archive && vfs_mount(archive, disk ? "/archive" : "/") == 0)
		printk("vfs: %s is the program archive\n", archive->where);
}

static int cmd_mounts(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		printk("mounts: no arguments\n");
		return -EINVAL;
	}
	for (unsigned i = 0; vfs_mount_at(i); i++) {
		struct vfs_fs *fs = vfs_mount_at(i);
		printk("%-10s %-8s %-14s %s\n", fs->where, fs->ops->name, fs->source,
		       fs->read_only ? "ro" : "rw");
	}
	struct vfs_cache_stats s;
	vfs_cache_stats(&s);
	printk("inode cache: %u cached (%u held) of %u, %llu gets, %llu hits, %llu reads, "
	       "%llu evictions\n", s.cached, s.held, s.capacity, (unsigned long long)s.gets,
	       (unsigned long long)s.hits, (unsigned long long)s.reads,
	       (unsigned long long)s.evictions);
	return 0;
}

SHELL_COMMAND(mounts, "", "the mounted file systems and the inode cache", cmd_mounts);
