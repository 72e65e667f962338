/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The virtual file system (kernel/vfs/): mounted file systems, their
 * in-memory inodes (vnodes, kept in an inode cache after their last
 * user), and the path walk, which asks the directory name lookup cache
 * (scion/dnlc.h) before a file system's own lookup. Two file systems
 * implement it: ext2 (kernel/ext2/, the root when vda holds one) and the
 * boot program archive (kernel/fs/, the root otherwise, or /archive).
 *
 * Paths given to the VFS are normalized absolute paths (vfs_normalize):
 * no ".", ".." or empty components. A symbolic link met in a walk is
 * expanded into the rest of the path, which is normalized again
 * (lexically: "link/.." is the link's directory), at most VFS_LINK_MAX
 * times (then ELOOP).
 *
 * Lock order: mount_lock -> vnode cache lock -> dnlc lock; none is held
 * while a file system reads its disk.
 */
#ifndef SCION_VFS_H
#define SCION_VFS_H

#include <scion/compiler.h>
#include <scion/list.h>

#define VFS_NAME_MAX 255
#define VFS_PATH_MAX 4096
#define VFS_LINK_MAX 40
#define VFS_MOUNT_MAX 4

#define VFS_S_IFMT  0170000
#define VFS_S_IFLNK 0120000
#define VFS_S_IFREG 0100000
#define VFS_S_IFDIR 0040000

struct vfs_fs;

/*
 * A file system's inode in memory. Every field but refs and the links
 * is set by the file system's read_inode before anyone else sees the
 * vnode and not changed afterwards (the file systems are read only).
 */
struct vnode {
	struct vfs_fs *fs;
	uint64_t ino;
	uint32_t mode, uid, gid, nlink;
	uint64_t size;
	uint64_t blocks512;		/* 512-byte units held */
	int64_t atime, mtime, ctime;
	unsigned refs;			/* vnode cache lock */
	struct vnode *hash_next;	/* vnode cache lock */
	struct list_node unused;	/* vnode cache lock: on the unused list when refs == 0 */
};

static inline bool vnode_is_dir(const struct vnode *v)
{
	return (v->mode & VFS_S_IFMT) == VFS_S_IFDIR;
}

static inline bool vnode_is_link(const struct vnode *v)
{
	return (v->mode & VFS_S_IFMT) == VFS_S_IFLNK;
}

struct vfs_dirent {
	uint64_t ino;
	uint8_t type;			/* Linux DT_* */
	const char *name;		/* not NUL-terminated past len */
	size_t len;
};

/*
 * What a file system does. Every op: Caller's context: thread, no
 * spinlocks held, may sleep; several may run at once on one file system.
 */
struct vfs_ops {
	const char *name;		/* "ext2", "archive" */
	size_t vnode_size;		/* bytes to allocate: struct vnode first */
	/* Fill v (v->fs and v->ino set) from the file system: 0 or -errno. */
	int (*read_inode)(struct vnode *v);
	/* The inode named name (len bytes, no '/') in directory dir: 0, -ENOENT, -errno. */
	int (*lookup)(struct vnode *dir, const char *name, size_t len, uint64_t *ino);
	/* Up to len bytes at off into buf (kernel memory): the count, 0 at the end, -errno. */
	int64_t (*read)(struct vnode *v, uint64_t off, void *buf, size_t len);
	/*
	 * Call fn for each entry at or after position *pos ("." and ".."
	 * included) until fn returns non-zero (> 0: it took the entry; < 0:
	 * it did not); *pos moves past the entries taken. Return value: 0 at
	 * the end, fn's non-zero value or -errno.
	 */
	int (*iterate)(struct vnode *dir, uint64_t *pos,
		       int (*fn)(void *arg, const struct vfs_dirent *d, uint64_t next), void *arg);
	/* A link's target, NUL-terminated: its length or -errno. */
	int (*readlink)(struct vnode *v, char *buf, size_t size);
	/* The file's bytes when they are in memory already (may be NULL: read them). */
	const void *(*contents)(struct vnode *v);
	/* Sizes for statfs: blocks of block_size bytes, total and free; inodes, total and free. May be NULL. */
	void (*statfs)(struct vfs_fs *fs, uint64_t *block_size, uint64_t *blocks, uint64_t *free,
		       uint64_t *inodes, uint64_t *free_inodes);
	/* Undo read_inode (free what it allocated); may be NULL. */
	void (*release)(struct vnode *v);

	/*
	 * Writing: NULL on a file system that never writes; each is called
	 * only when the mount is not read only (else the VFS says EROFS).
	 * Each returns 0 or -errno (write: the count).
	 */
	int64_t (*write)(struct vnode *v, uint64_t off, const void *buf, size_t len);
	int (*truncate)(struct vnode *v, uint64_t size);
	/* A new inode of mode (a file, a directory, a link to target) named name in dir. */
	int (*create)(struct vnode *dir, const char *name, size_t len, uint32_t mode,
		      const char *target, uint64_t *ino);
	int (*link)(struct vnode *dir, const char *name, size_t len, struct vnode *target);
	/* unlink (directory false) or rmdir (true) of name in dir. */
	int (*remove)(struct vnode *dir, const char *name, size_t len, bool directory);
	int (*rename)(struct vnode *odir, const char *oname, size_t olen, struct vnode *ndir,
		      const char *nname, size_t nlen);
	/* v's data (and, unless data_only, its metadata) on the disk. */
	int (*fsync)(struct vnode *v, bool data_only);
	/*
	 * A file opened for writing on v was closed: what the file system
	 * keeps in memory for v alone (ext2: the inode its writes changed)
	 * goes to the disk's write-back. May be NULL. Caller: the file's
	 * release, v still held; may sleep.
	 */
	int (*flush)(struct vnode *v);
	/* Everything of the file system on the disk. */
	int (*sync)(struct vfs_fs *fs);
	/* The last hold of a vnode without links was dropped: free the inode on the disk. */
	void (*inactive)(struct vnode *v);
};

struct vfs_fs {
	const struct vfs_ops *ops;
	uint32_t id;			/* unique while mounted; the name cache's key */
	uint64_t root_ino;
	char source[16];		/* "vda", "boot modules" */
	char where[32];			/* mount point: "/", "/archive" */
	bool read_only;
	uint32_t magic;			/* statfs's f_type: Linux's number for the kind (ext2 0xEF53) */
	void *priv;
};

/*
 * vfs_normalize - base (absolute, normalized) and path joined and
 *   normalized into out (size bytes): absolute, no ".", ".." or empty
 *   components ("/.." is "/").
 * Return value: 0, -ENAMETOOLONG. Any context.
 */
int vfs_normalize(const char *base, const char *path, char *out, size_t size);

/*
 * vfs_walk - the vnode at normalized absolute path, held (vnode_put it).
 * Arguments: follow_last: a symbolic link in the last component is
 *   followed (stat, open) or returned itself (lstat, readlink).
 * Return value: 0 with *out set; -ENOENT, -ENOTDIR (a component before
 *   the last is not a directory), -ENAMETOOLONG, -ELOOP, -ENOMEM, -EIO
 *   (a refused on-disk structure) or a read's error.
 * Caller's context: thread, no spinlocks held; may sleep.
 */
int vfs_walk(const char *path, bool follow_last, struct vnode **out);

/* A held vnode of fs (inode cache first): 0 or -errno. Same context. */
int vnode_get(struct vfs_fs *fs, uint64_t ino, struct vnode **out);
/* The cached vnode of (fs, ino), held, or NULL when it is not cached (nothing is read). */
struct vnode *vnode_peek(struct vfs_fs *fs, uint64_t ino);
void vnode_hold(struct vnode *v);
/* Drop a hold; the vnode stays cached until the cache needs room. Any thread context. */
void vnode_put(struct vnode *v);

/*
 * Name operations (kernel/vfs/namei.c) on normalized absolute paths.
 * Each: 0 or -errno: the walk's errors for the parent directory, EROFS
 * (a read-only mount), EBUSY (a mount point), EXDEV (across mounts), and
 * the file system's (EEXIST, ENOENT, ENOTDIR, EISDIR, ENOTEMPTY, EINVAL,
 * ENOSPC, EMLINK, ENAMETOOLONG, EIO). Caller's context: thread, no
 * spinlocks held; may sleep.
 */
/* A new file, directory or symbolic link (to target) at path; *out held when out. */
int vfs_create(const char *path, uint32_t mode, const char *target, struct vnode **out);
/* new_path names what old_path names (the link itself unless follow). */
int vfs_link(const char *old_path, const char *new_path, bool follow);
/* unlink (directory false) or rmdir (true). */
int vfs_remove(const char *path, bool directory);
int vfs_rename(const char *old_path, const char *new_path);
/* v's size set (a regular file): 0, -EISDIR, -EROFS, ... */
int vfs_truncate(struct vnode *v, uint64_t size);
/* Every writable mount's data and metadata on its disk: 0 or the first error. */
int vfs_sync_all(void);

/*
 * vfs_mount - make fs (ops, source, read_only, priv and root_ino filled
 *   in) visible at where: "/" (the root, once) or "/NAME", a name in the
 *   root directory that hides any entry of that name there.
 * Return value: 0, -EBUSY (taken), -ENOSPC (VFS_MOUNT_MAX), -EINVAL.
 * Caller's context: thread; the init thread at boot.
 */
int vfs_mount(struct vfs_fs *fs, const char *where);

/* The mounts in order, for listings: NULL past the last. Any thread context. */
struct vfs_fs *vfs_mount_at(unsigned index);

/*
 * The file systems mounted at boot, opened (not yet mounted): ext2 on the
 * disk cached by the block cache (kernel/ext2/vfs_ext2.c; NULL with one
 * line saying why when it holds none) and the program archive
 * (kernel/fs/archive_vfs.c). Init thread.
 */
struct vfs_fs *ext2_vfs_open(const char *disk);
struct vfs_fs *archive_vfs_open(void);

/* Mount the root (ext2 on vda, else the archive) and the archive. Init thread, after archive_init. */
void vfs_init(void);

struct vfs_cache_stats {
	uint64_t gets, hits, reads, evictions;
	unsigned cached, held, capacity;
};
void vfs_cache_stats(struct vfs_cache_stats *s);

#endif
