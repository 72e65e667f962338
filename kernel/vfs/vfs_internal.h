/* SPDX-License-Identifier: BSD-2-Clause */
/* What the VFS's files share: the mount table's lookups for the walk. */
#ifndef VFS_INTERNAL_H
#define VFS_INTERNAL_H

#include <scion/vfs.h>

/* The root file system's root directory, held: 0 or -errno (-ENOENT before vfs_init). */
int vfs_root_vnode(struct vnode **out);

/* The file system mounted at name (len bytes) when dir is the root's root directory, else NULL. */
struct vfs_fs *vfs_mount_find(const struct vnode *dir, const char *name, size_t len);

#endif
