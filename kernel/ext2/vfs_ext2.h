/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What ext2's VFS glue files share (vfs_ext2.c: mounting and reading,
 * vfs_ext2_write.c: writing): a mount, a vnode with its inode, and the
 * rule that on a writable mount every operation holds the mount's
 * mutex, since the inode copies in the vnodes change under it.
 */
#ifndef EXT2_VFS_EXT2_H
#define EXT2_VFS_EXT2_H

#include <scion/ext2.h>
#include <scion/mutex.h>
#include <scion/vfs.h>
#include "ext2_internal.h"

struct ext2_vnode {
	struct vnode v;
	struct ext2_inode in;		/* the mount's lock (when writable) */
	bool inode_dirty;		/* lock: in changed by writes, not yet given to
					   the disk (ext2_update_inode); on m->dirty */
	struct list_node dirty_node;	/* lock: on m->dirty while inode_dirty */
	struct ext2_ptr_batch *pending;	/* lock: indirect pointers its writes hold
					   back (ext2_write_data); NULL: none */
};

struct ext2_mount {
	struct vfs_fs vfs;
	struct ext2_fs fs;		/* geometry: set at open; counts: lock */
	struct mutex lock;		/* every operation of a writable mount */
	struct list_node dirty;		/* lock: the vnodes whose inode_dirty is set */
	int64_t boot_wall;		/* seconds since 1970 at the mount, for inode times */
};

static inline struct ext2_mount *mount_of(const struct vnode *v)
{
	return container_of(v->fs, struct ext2_mount, vfs);
}

static inline struct ext2_inode *inode_of(struct vnode *v)
{
	return &container_of(v, struct ext2_vnode, v)->in;
}

/* Take / drop the mount's lock when it is writable (a read-only mount needs none). */
static inline void ext2_lock(struct ext2_mount *m)
{
	if (!m->fs.read_only)
		mutex_lock(&m->lock);
}

static inline void ext2_unlock(struct ext2_mount *m)
{
	if (!m->fs.read_only)
		mutex_unlock(&m->lock);
}

/*
 * ext2_vnode_settle - the pointers v's writes hold back go to the disk's
 *   write-back, so that its block map there is whole: before anything
 *   reads the map (a read, a truncation, a delete). 0 or -errno.
 *   Caller's context: the mount's lock held.
 */
int ext2_vnode_settle(struct ext2_mount *m, struct vnode *v);

/* The vnode's fields from its inode copy (after a change). */
void ext2_vnode_refresh(struct vnode *v);

/* err, said in one line first when it is a refusal of the disk's contents (-EIO). */
int ext2_said(struct vnode *v, int err);

int64_t ext2_vfs_write(struct vnode *v, uint64_t off, const void *buf, size_t len);
int ext2_vfs_truncate(struct vnode *v, uint64_t size);
int ext2_vfs_create(struct vnode *dir, const char *name, size_t len, uint32_t mode,
		    const char *target, uint64_t *ino);
int ext2_vfs_link(struct vnode *dir, const char *name, size_t len, struct vnode *target);
int ext2_vfs_remove(struct vnode *dir, const char *name, size_t len, bool directory);
int ext2_vfs_rename(struct vnode *odir, const char *oname, size_t olen, struct vnode *ndir,
		    const char *nname, size_t nlen);
int ext2_vfs_fsync(struct vnode *v, bool data_only);
int ext2_vfs_flush(struct vnode *v);
int ext2_vfs_sync(struct vfs_fs *fs);
void ext2_vfs_inactive(struct vnode *v);

#endif
