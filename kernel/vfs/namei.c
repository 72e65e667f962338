// SPDX-License-Identifier: BSD-2-Clause
/*
 * Operations on names: create (open's O_CREAT, mkdir, symlink), link,
 * unlink, rmdir and rename, over the file system of the parent
 * directory. Each splits its normalized path into the parent, walked
 * with links followed, and the last name, asks the file system, then
 * keeps the name cache true: a new name is entered, a removed or
 * replaced one dropped. A name in the root directory that a file system
 * is mounted on cannot be created, removed or renamed (EBUSY). Locks:
 * none of the VFS's across a file system's operation; the file system
 * serializes its own writers.
 */
#include <scion/dnlc.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/shell.h>
#include <scion/string.h>
#include <scion/vfs.h>
#include "vfs_internal.h"

struct parent {
	struct vnode *dir;
	const char *name;	/* into the caller's path */
	size_t len;
};

/* Walk to path's parent directory (held) and find its last name. */
static int walk_parent(const char *path, struct parent *p)
{
	size_t n = strlen(path);
	if (n <= 1)
		return -EBUSY;	/* "/" itself */
	const char *last = path + n;
	while (last > path && last[-1] != '/')
		last--;
	p->name = last;
	p->len = (size_t)(path + n - last);
	if (p->len > VFS_NAME_MAX)
		return -ENAMETOOLONG;
	char *parent = kmalloc(VFS_PATH_MAX);
	if (!parent)
		return -ENOMEM;
	size_t plen = (size_t)(last - path) - 1;
	memcpy(parent, path, plen ? plen : 1);
	parent[plen ? plen : 1] = '\0';
	int err = vfs_walk(parent, true, &p->dir);
	kfree(parent);
	if (err)
		return err;
	if (!vnode_is_dir(p->dir)) {
		vnode_put(p->dir);
		return -ENOTDIR;
	}
	if (vfs_mount_find(p->dir, p->name, p->len)) {
		vnode_put(p->dir);
		return -EBUSY;
	}
	return 0;
}

static bool writable(const struct vnode *dir)
{
	return !dir->fs->read_only && dir->fs->ops->create;
}

int vfs_create(const char *path, uint32_t mode, const char *target, struct vnode **out)
{
	struct parent p;
	int err = walk_parent(path, &p);
	if (err)
		return err;
	uint64_t ino = 0;
	err = writable(p.dir) ? p.dir->fs->ops->create(p.dir, p.name, p.len, mode, target, &ino) :
			       -EROFS;
	if (!err)
		dnlc_enter(p.dir->fs->id, p.dir->ino, p.name, p.len, ino);
	if (!err && out)
		err = vnode_get(p.dir->fs, ino, out);
	vnode_put(p.dir);
	return err;
}

int vfs_link(const char *old_path, const char *new_path, bool follow)
{
	struct vnode *target;
	int err = vfs_walk(old_path, follow, &target);
	if (err)
		return err;
	struct parent p;
	err = walk_parent(new_path, &p);
	if (!err) {
		if (p.dir->fs != target->fs)
			err = -EXDEV;
		else if (vnode_is_dir(target))
			err = -EPERM;
		else
			err = writable(p.dir) ? p.dir->fs->ops->link(p.dir, p.name, p.len, target) :
						-EROFS;
		if (!err)
			dnlc_enter(p.dir->fs->id, p.dir->ino, p.name, p.len, target->ino);
		vnode_put(p.dir);
	}
	vnode_put(target);
	return err;
}

int vfs_remove(const char *path, bool directory)
{
	struct parent p;
	int err = walk_parent(path, &p);
	if (err)
		return err;
	err = writable(p.dir) ? p.dir->fs->ops->remove(p.dir, p.name, p.len, directory) : -EROFS;
	/* Whatever happened, the name cache forgets the name: the disk says what is there. */
	dnlc_remove(p.dir->fs->id, p.dir->ino, p.name, p.len);
	vnode_put(p.dir);
	return err;
}

int vfs_rename(const char *old_path, const char *new_path)
{
	size_t olen = strlen(old_path);
	if (!strncmp(new_path, old_path, olen) && new_path[olen] == '/')
		return -EINVAL;	/* into itself (the file system checks through links too) */
	struct parent from, to;
	int err = walk_parent(old_path, &from);
	if (err)
		return err;
	err = walk_parent(new_path, &to);
	if (err) {
		vnode_put(from.dir);
		return err;
	}
	if (from.dir->fs != to.dir->fs)
		err = -EXDEV;
	else if (!writable(from.dir))
		err = -EROFS;
	else
		err = from.dir->fs->ops->rename(from.dir, from.name, from.len, to.dir, to.name,
						to.len);
	dnlc_remove(from.dir->fs->id, from.dir->ino, from.name, from.len);
	dnlc_remove(to.dir->fs->id, to.dir->ino, to.name, to.len);
	vnode_put(from.dir);
	vnode_put(to.dir);
	return err;
}

int vfs_truncate(struct vnode *v, uint64_t size)
{
	if (vnode_is_dir(v))
		return -EISDIR;
	if ((v->mode & VFS_S_IFMT) != VFS_S_IFREG)
		return -EINVAL;
	if (v->fs->read_only || !v->fs->ops->truncate)
		return -EROFS;
	return v->fs->ops->truncate(v, size);
}

int vfs_sync_all(void)
{
	int first = 0;
	for (unsigned i = 0; vfs_mount_at(i); i++) {
		struct vfs_fs *fs = vfs_mount_at(i);
		int err = fs->ops->sync && !fs->read_only ? fs->ops->sync(fs) : 0;
		if (err && !first)
			first = err;
	}
	return first;
}

static int cmd_sync(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		printk("sync: no arguments\n");
		return -EINVAL;
	}
	int err = vfs_sync_all();
	if (err)
		printk("sync: %s\n", errno_name(err));
	return err;
}

SHELL_COMMAND(sync, "", "write every file system's data and metadata to its disk", cmd_sync);
