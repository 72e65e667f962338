// SPDX-License-Identifier: BSD-2-Clause
/*
 * Path names: normalizing them, and walking one from the root to its
 * vnode a component at a time. Each step asks the name cache first
 * (scion/dnlc.h, keyed by file system, directory inode and name) and on
 * a miss the directory's file system, entering what it answers, "does
 * not exist" included. A mount point is a name in the root directory
 * (vfs_mount) and is found before the name cache. A symbolic link is
 * expanded into the path and the walk starts again from the root.
 * Locks: none held across a step; the mount table is read through
 * vfs_mount_find.
 */
#include <scion/dnlc.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/vfs.h>
#include "vfs_internal.h"

#define WALK_SMALL_PATH 256	/* a walk's path on the stack up to this (the heap past it) */

int vfs_normalize(const char *base, const char *path, char *out, size_t size)
{
	size_t n = 0, blen = strlen(base), plen = strlen(path);
	size_t need = (path[0] != '/' ? blen + 1 : 0) + plen + 1;
	if (need > VFS_PATH_MAX * 2)
		return -ENAMETOOLONG;
	/* As long as the two joined: a short path takes a small block, not pages. */
	char *tmp = kmalloc(need);
	if (!tmp)
		return -ENOMEM;
	if (path[0] != '/') {
		memcpy(tmp, base, blen);
		n = blen;
		tmp[n++] = '/';
	}
	memcpy(tmp + n, path, plen + 1);

	size_t o = 0;
	const char *s = tmp;
	while (*s) {
		while (*s == '/')
			s++;
		const char *e = s;
		while (*e && *e != '/')
			e++;
		size_t len = (size_t)(e - s);
		if (len == 0 || (len == 1 && s[0] == '.')) {
			/* nothing */
		} else if (len == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			if (o + 1 + len + 1 > size) {
				kfree(tmp);
				return -ENAMETOOLONG;
			}
			out[o++] = '/';
			memcpy(out + o, s, len);
			o += len;
		}
		s = e;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	kfree(tmp);
	return 0;
}

/* One step: the inode named name in dir (name cache, then the file system). */
static int step(struct vnode *dir, const char *name, size_t len, uint64_t *ino)
{
	struct vfs_fs *fs = dir->fs;
	if (dnlc_lookup(fs->id, dir->ino, name, len, ino) == 0)
		return *ino ? 0 : -ENOENT;
	int err = fs->ops->lookup(dir, name, len, ino);
	if (err == 0)
		dnlc_enter(fs->id, dir->ino, name, len, *ino);
	else if (err == -ENOENT)
		dnlc_enter(fs->id, dir->ino, name, len, 0);
	return err;
}

/*
 * The path with the link at [start, end) replaced by its target: an
 * absolute target replaces everything up to the link, a relative one
 * only the link's own name. Normalized into path.
 */
static int expand_link(struct vnode *link, char *path, size_t start, size_t end)
{
	char *target = kmalloc(VFS_PATH_MAX * 2), *joined = target + VFS_PATH_MAX;
	if (!target)
		return -ENOMEM;
	int n = link->fs->ops->readlink(link, target, VFS_PATH_MAX);
	int err = n < 0 ? n : 0;
	if (!err) {
		size_t rest = strlen(path + end);
		size_t keep = target[0] == '/' ? 0 : start;
		if (keep + 1 + (size_t)n + rest + 1 > VFS_PATH_MAX) {
			err = -ENAMETOOLONG;
		} else {
			memcpy(joined, path, keep);
			joined[keep] = '/';
			memcpy(joined + keep + 1, target, (size_t)n);
			memcpy(joined + keep + 1 + n, path + end, rest + 1);
			err = vfs_normalize("/", joined, path, VFS_PATH_MAX);
		}
	}
	kfree(target);
	return err;
}

int vfs_walk(const char *abs_path, bool follow_last, struct vnode **out)
{
	/*
	 * The path is walked in a buffer on the stack while it fits; a link's
	 * expansion may make it as long as VFS_PATH_MAX, so the first link
	 * moves it to the heap (most walks follow none).
	 */
	char small[WALK_SMALL_PATH], *path = small, *heap = NULL;
	size_t len_abs = strlen(abs_path);
	if (len_abs >= VFS_PATH_MAX)
		return -ENAMETOOLONG;
	if (len_abs >= sizeof(small)) {
		if (!(path = heap = kmalloc(VFS_PATH_MAX)))
			return -ENOMEM;
	}
	memcpy(path, abs_path, len_abs + 1);
	unsigned links = 0;
	struct vnode *v = NULL;
	int err;
restart:
	err = vfs_root_vnode(&v);
	for (size_t at = 0; !err && path[at];) {
		while (path[at] == '/')
			at++;
		if (!path[at])
			break;
		size_t start = at;
		while (path[at] && path[at] != '/')
			at++;
		size_t len = at - start;
		if (len > VFS_NAME_MAX) {
			err = -ENAMETOOLONG;
			break;
		}
		if (!vnode_is_dir(v)) {
			err = -ENOTDIR;
			break;
		}
		struct vnode *next = NULL;
		struct vfs_fs *mounted = vfs_mount_find(v, path + start, len);
		if (mounted) {
			err = vnode_get(mounted, mounted->root_ino, &next);
		} else {
			uint64_t ino;
			err = step(v, path + start, len, &ino);
			if (!err)
				err = vnode_get(v->fs, ino, &next);
		}
		if (err)
			break;
		if (vnode_is_link(next) && (path[at] || follow_last)) {
			if (!heap && (heap = kmalloc(VFS_PATH_MAX)))
				path = memcpy(heap, small, strlen(small) + 1);
			err = !heap ? -ENOMEM : ++links > VFS_LINK_MAX ? -ELOOP :
			      expand_link(next, path, start, at);
			vnode_put(next);
			vnode_put(v);
			v = NULL;
			if (err)
				break;
			goto restart;
		}
		vnode_put(v);
		v = next;
	}
	kfree(heap);
	if (err) {
		vnode_put(v);
		return err;
	}
	*out = v;
	return 0;
}
