// SPDX-License-Identifier: BSD-2-Clause
/*
 * ext2's VFS operations that write: each takes the mount's mutex (which
 * every operation on a writable ext2 takes, readers too: the inode
 * copies in the vnodes change under it), works on the vnodes' copies of
 * the inodes through kernel/ext2/, copies back into every cached vnode
 * whose inode changed, and drops its holds after the mutex (a last hold
 * on an inode with no links left deletes it: vfs_ext2.c's inactive,
 * which takes the mutex itself).
 *
 * A write changes its vnode's inode in memory only (ext2_write_data)
 * and puts the vnode on the mount's dirty list, and the pointers to new
 * blocks in indirect blocks stay held in the vnode (pending); the inode
 * goes to the disk's write-back when the file is closed (flush), at
 * fsync and sync, and before any namespace change, which reads inodes
 * from the disk and must find them current; the held pointers go first,
 * and also before anything reads the block map (ext2_vnode_settle). A
 * dirty vnode is always held by an open file, so it never leaves the
 * vnode cache dirty.
 */
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/vfs.h>
#include "ext2_internal.h"
#include "vfs_ext2.h"

static struct ext2_vnode *ext2_vnode_of(struct vnode *v)
{
	return container_of(v, struct ext2_vnode, v);
}

int ext2_vnode_settle(struct ext2_mount *m, struct vnode *v)
{
	struct ext2_vnode *ev = ext2_vnode_of(v);
	if (!ev->pending)
		return 0;
	int err = ext2_ptr_batch_flush(&m->fs, ev->pending);
	if (!err) {
		kfree(ev->pending);
		ev->pending = NULL;
	}
	return err;
}

/* v's held pointers, then its inode, to the disk's write-back if writes changed it. Mutex held. */
static int update_dirty(struct ext2_mount *m, struct ext2_vnode *ev)
{
	if (!ev->inode_dirty)
		return 0;
	int err = ext2_vnode_settle(m, &ev->v);
	if (!err)
		err = ext2_update_inode(&m->fs, &ev->in);
	if (!err) {
		ev->inode_dirty = false;
		list_remove(&ev->dirty_node);
	}
	return err;
}

/* Every dirty inode of the mount to the write-back (the first error). Mutex held. */
static int update_all_dirty(struct ext2_mount *m)
{
	int first = 0;
	list_foreach_safe(&m->dirty, it, tmp) {
		int err = update_dirty(m, list_entry(it, struct ext2_vnode, dirty_node));
		if (err && !first)
			first = err;
	}
	return first;
}

int64_t ext2_vfs_write(struct vnode *v, uint64_t off, const void *buf, size_t len)
{
	struct ext2_mount *m = mount_of(v);
	struct ext2_vnode *ev = ext2_vnode_of(v);
	ext2_lock(m);
	if (!ev->pending && !m->fs.sync_all)
		ev->pending = kzalloc(sizeof(*ev->pending));	/* NULL: each write flushes its own */
	int64_t r = ext2_write_data(&m->fs, &ev->in, off, buf, len, ev->pending);
	if (r > 0 && m->fs.sync_all) {
		int err = ext2_update_inode(&m->fs, &ev->in);	/* synchronous in this mode */
		if (err)
			r = err;
	} else if (r > 0 && !ev->inode_dirty) {
		ev->inode_dirty = true;
		list_add_tail(&m->dirty, &ev->dirty_node);
	}
	ext2_vnode_refresh(v);
	ext2_unlock(m);
	return r < 0 ? ext2_said(v, (int)r) : r;
}

int ext2_vfs_flush(struct vnode *v)
{
	struct ext2_mount *m = mount_of(v);
	ext2_lock(m);
	int err = update_dirty(m, ext2_vnode_of(v));
	ext2_unlock(m);
	return ext2_said(v, err);
}

int ext2_vfs_truncate(struct vnode *v, uint64_t size)
{
	struct ext2_mount *m = mount_of(v);
	ext2_lock(m);
	int err = vnode_is_dir(v) ? -EISDIR : ext2_vnode_settle(m, v);
	if (!err)
		err = ext2_truncate(&m->fs, inode_of(v), size);
	ext2_vnode_refresh(v);
	ext2_unlock(m);
	return ext2_said(v, err);
}

/* A changed inode into its cached vnode, if any; the hold goes to *put (dropped after the mutex). */
static void update_cached(struct ext2_mount *m, const struct ext2_inode *in, struct vnode **put)
{
	struct vnode *v = vnode_peek(&m->vfs, in->ino);
	if (v) {
		*inode_of(v) = *in;
		ext2_vnode_refresh(v);
	}
	*put = v;
}

int ext2_vfs_create(struct vnode *dir, const char *name, size_t len, uint32_t mode,
		    const char *target, uint64_t *ino)
{
	struct ext2_mount *m = mount_of(dir);
	struct ext2_inode in;
	ext2_lock(m);
	int err = update_all_dirty(m);
	if (!err)
		err = ext2_create(&m->fs, inode_of(dir), name, len, mode, 0, 0, target, &in);
	ext2_vnode_refresh(dir);
	ext2_unlock(m);
	if (!err)
		*ino = in.ino;
	return ext2_said(dir, err);
}

int ext2_vfs_link(struct vnode *dir, const char *name, size_t len, struct vnode *target)
{
	struct ext2_mount *m = mount_of(dir);
	ext2_lock(m);
	int err = update_all_dirty(m);
	if (!err)
		err = ext2_link(&m->fs, inode_of(dir), name, len, inode_of(target));
	ext2_vnode_refresh(dir);
	ext2_vnode_refresh(target);
	ext2_unlock(m);
	return ext2_said(dir, err);
}

/*
 * The victim of an unlink, rmdir or rename lost a link: its cached
 * vnode learns it, and with none left and no one holding it the inode
 * is deleted now (else at its last vnode_put). Mutex held.
 */
static void lost_link(struct ext2_mount *m, struct ext2_inode *victim, struct vnode **put)
{
	update_cached(m, victim, put);
	if (!*put && victim->nlink == 0)
		ext2_delete(&m->fs, victim);	/* refusals were said; the inode leaks */
}

int ext2_vfs_remove(struct vnode *dir, const char *name, size_t len, bool directory)
{
	struct ext2_mount *m = mount_of(dir);
	struct ext2_inode victim;
	struct vnode *put = NULL;
	ext2_lock(m);
	int err = update_all_dirty(m);
	if (!err)
		err = directory ? ext2_rmdir(&m->fs, inode_of(dir), name, len, &victim) :
				  ext2_unlink(&m->fs, inode_of(dir), name, len, &victim);
	if (!err)
		lost_link(m, &victim, &put);
	ext2_vnode_refresh(dir);
	ext2_unlock(m);
	vnode_put(put);
	return ext2_said(dir, err);
}

int ext2_vfs_rename(struct vnode *odir, const char *oname, size_t olen, struct vnode *ndir,
		    const char *nname, size_t nlen)
{
	struct ext2_mount *m = mount_of(odir);
	struct ext2_inode replaced;
	struct vnode *put = NULL, *moved = NULL;
	bool was_replaced = false;
	uint32_t ino = 0;
	ext2_lock(m);
	/* The source's inode changes (links, a directory's ".."): its cached copy must follow. */
	int err = update_all_dirty(m);
	if (!err)
		err = ext2_lookup(&m->fs, inode_of(odir), oname, olen, &ino);
	if (!err)
		err = ext2_rename(&m->fs, inode_of(odir), oname, olen, inode_of(ndir), nname, nlen,
				  &replaced, &was_replaced);
	if (!err && was_replaced)
		lost_link(m, &replaced, &put);
	if (!err && (moved = vnode_peek(&m->vfs, ino))) {
		struct ext2_inode fresh;
		if (!ext2_read_inode(&m->fs, ino, &fresh)) {
			*inode_of(moved) = fresh;
			ext2_vnode_refresh(moved);
		}
	}
	if (odir != ndir && odir->ino == ndir->ino)
		*inode_of(odir) = *inode_of(ndir);
	ext2_vnode_refresh(odir);
	ext2_vnode_refresh(ndir);
	ext2_unlock(m);
	vnode_put(put);
	vnode_put(moved);
	return ext2_said(odir, err);
}

int ext2_vfs_fsync(struct vnode *v, bool data_only)
{
	(void)data_only;	/* the inode's size and map are what fdatasync needs too */
	struct ext2_mount *m = mount_of(v);
	ext2_lock(m);
	int err = update_dirty(m, ext2_vnode_of(v));
	int serr = m->fs.dev.sync(m->fs.dev.ctx);
	ext2_unlock(m);
	return ext2_said(v, err ? err : serr);
}

int ext2_vfs_sync(struct vfs_fs *fs)
{
	struct ext2_mount *m = container_of(fs, struct ext2_mount, vfs);
	ext2_lock(m);
	int err = update_all_dirty(m);
	int serr = ext2_sync_super(&m->fs);
	if (!serr)
		serr = m->fs.dev.sync(m->fs.dev.ctx);
	ext2_unlock(m);
	return err ? err : serr;
}

void ext2_vfs_inactive(struct vnode *v)
{
	struct ext2_mount *m = mount_of(v);
	struct ext2_vnode *ev = ext2_vnode_of(v);
	ext2_lock(m);
	/* The held pointers go out first: the delete frees the blocks they name. */
	ext2_said(v, ext2_vnode_settle(m, v));
	if (ev->inode_dirty) {		/* closed without a flush: it is deleted anyway */
		ev->inode_dirty = false;
		list_remove(&ev->dirty_node);
	}
	if (inode_of(v)->nlink == 0)
		ext2_said(v, ext2_delete(&m->fs, inode_of(v)));
	ext2_unlock(m);
}
