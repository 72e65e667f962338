// SPDX-License-Identifier: BSD-2-Clause
/*
 * The system calls that change names and files on the mounted file
 * systems (scion/vfs.h does the work): mkdir, mkdirat, unlink,
 * unlinkat, rmdir, rename, renameat, renameat2, link, linkat, symlink,
 * symlinkat, truncate, ftruncate, fsync, fdatasync, sync, syncfs,
 * statfs, fstatfs. Paths
 * are resolved as open's are (file_vfs.c: path_from_user).
 */
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/syscall.h>
#include <scion/vfs.h>
#include "proc_internal.h"

#define LINUX_AT_REMOVEDIR 0x200
#define LINUX_AT_SYMLINK_FOLLOW 0x400
#define LINUX_RENAME_NOREPLACE 1
#define MODE_PERMS 07777

static int64_t mkdir_at(int dirfd, uintptr_t upath, uint64_t mode)
{
	char *abs;
	int r = path_from_user(proc_current(), dirfd, upath, false, &abs);
	if (r)
		return r;
	r = vfs_create(abs, VFS_S_IFDIR | ((uint32_t)mode & MODE_PERMS), NULL, NULL);
	kfree(abs);
	return r;
}

SYSCALL(mkdir)
{
	return mkdir_at(LINUX_AT_FDCWD, a0, a1);
}

SYSCALL(mkdirat)
{
	return mkdir_at((int)a0, a1, a2);
}

static int64_t unlink_at(int dirfd, uintptr_t upath, uint64_t flags)
{
	if (flags & ~(uint64_t)LINUX_AT_REMOVEDIR)
		return -EINVAL;
	char *abs;
	int r = path_from_user(proc_current(), dirfd, upath, false, &abs);
	if (r)
		return r;
	r = vfs_remove(abs, flags & LINUX_AT_REMOVEDIR);
	kfree(abs);
	return r;
}

SYSCALL(unlink)
{
	return unlink_at(LINUX_AT_FDCWD, a0, 0);
}

SYSCALL(unlinkat)
{
	return unlink_at((int)a0, a1, a2);
}

SYSCALL(rmdir)
{
	return unlink_at(LINUX_AT_FDCWD, a0, LINUX_AT_REMOVEDIR);
}

/* Two user paths resolved, each against its dirfd. */
static int two_paths(int fd1, uintptr_t p1, int fd2, uintptr_t p2, char **a, char **b)
{
	int r = path_from_user(proc_current(), fd1, p1, false, a);
	if (r)
		return r;
	r = path_from_user(proc_current(), fd2, p2, false, b);
	if (r)
		kfree(*a);
	return r;
}

static int64_t rename_at(int ofd, uintptr_t opath, int nfd, uintptr_t npath, uint64_t flags)
{
	if (flags & ~(uint64_t)LINUX_RENAME_NOREPLACE)
		return -EINVAL;
	char *from, *to;
	int r = two_paths(ofd, opath, nfd, npath, &from, &to);
	if (r)
		return r;
	struct linux_stat st;
	if ((flags & LINUX_RENAME_NOREPLACE) && path_lstat(to, &st) == 0)
		r = -EEXIST;
	else
		r = vfs_rename(from, to);
	kfree(from);
	kfree(to);
	return r;
}

SYSCALL(rename)
{
	return rename_at(LINUX_AT_FDCWD, a0, LINUX_AT_FDCWD, a1, 0);
}

SYSCALL(renameat)
{
	return rename_at((int)a0, a1, (int)a2, a3, 0);
}

SYSCALL(renameat2)
{
	return rename_at((int)a0, a1, (int)a2, a3, a4);
}

static int64_t link_at(int ofd, uintptr_t opath, int nfd, uintptr_t npath, uint64_t flags)
{
	if (flags & ~(uint64_t)LINUX_AT_SYMLINK_FOLLOW)
		return -EINVAL;
	char *from, *to;
	int r = two_paths(ofd, opath, nfd, npath, &from, &to);
	if (r)
		return r;
	r = vfs_link(from, to, flags & LINUX_AT_SYMLINK_FOLLOW);
	kfree(from);
	kfree(to);
	return r;
}

SYSCALL(link)
{
	return link_at(LINUX_AT_FDCWD, a0, LINUX_AT_FDCWD, a1, 0);
}

SYSCALL(linkat)
{
	return link_at((int)a0, a1, (int)a2, a3, a4);
}

static int64_t symlink_at(uintptr_t utarget, int dirfd, uintptr_t upath)
{
	char *target = kmalloc(VFS_PATH_MAX);
	if (!target)
		return -ENOMEM;
	int64_t r = copyin_str(target, utarget, VFS_PATH_MAX);
	if (r == 0)
		r = -ENOENT;	/* an empty target */
	char *abs = NULL;
	if (r > 0)
		r = path_from_user(proc_current(), dirfd, upath, false, &abs);
	if (!r)
		r = vfs_create(abs, VFS_S_IFLNK | 0777, target, NULL);
	kfree(abs);
	kfree(target);
	return r;
}

SYSCALL(symlink)
{
	return symlink_at(a0, LINUX_AT_FDCWD, a1);
}

SYSCALL(symlinkat)
{
	return symlink_at(a0, (int)a1, a2);
}

SYSCALL(truncate)
{
	if ((int64_t)a1 < 0)
		return -EINVAL;
	char *abs;
	int r = path_from_user(proc_current(), LINUX_AT_FDCWD, a0, false, &abs);
	if (r)
		return r;
	r = path_truncate(abs, a1);
	kfree(abs);
	return r;
}

SYSCALL(ftruncate)
{
	if ((int64_t)a1 < 0)
		return -EINVAL;
	struct file *f = fd_get(proc_current(), (int)a0);
	if (!f)
		return -EBADF;
	int r = file_truncate(f, a1);
	file_put(f);
	return r;
}

static int64_t sync_fd(uint64_t fd, bool data_only)
{
	struct file *f = fd_get(proc_current(), (int)fd);
	if (!f)
		return -EBADF;
	int r = file_fsync(f, data_only);
	file_put(f);
	return r;
}

SYSCALL(fsync)
{
	return sync_fd(a0, false);
}

SYSCALL(fdatasync)
{
	return sync_fd(a0, true);
}

SYSCALL(sync)
{
	vfs_sync_all();
	return 0;
}

SYSCALL(syncfs)
{
	return sync_fd(a0, false);
}

/* Linux's struct statfs on x86-64 (and its generic 64-bit layout). */
struct linux_statfs {
	int64_t f_type, f_bsize;
	uint64_t f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int32_t f_fsid[2];
	int64_t f_namelen, f_frsize, f_flags;
	int64_t f_spare[4];
};
#define LINUX_ST_RDONLY 1

static int64_t put_statfs(struct vfs_fs *fs, uintptr_t ubuf)
{
	struct linux_statfs st = { .f_type = fs->magic, .f_bsize = 4096, .f_namelen = VFS_NAME_MAX,
				   .f_fsid = { (int32_t)fs->id, 0 } };
	uint64_t bsize = 4096, blocks = 0, bfree = 0, files = 0, ffree = 0;
	if (fs->ops->statfs)
		fs->ops->statfs(fs, &bsize, &blocks, &bfree, &files, &ffree);
	st.f_bsize = st.f_frsize = (int64_t)bsize;
	st.f_blocks = blocks;
	st.f_bfree = st.f_bavail = bfree;
	st.f_files = files;
	st.f_ffree = ffree;
	st.f_flags = fs->read_only ? LINUX_ST_RDONLY : 0;
	return copyout(ubuf, &st, sizeof(st)) ? -EFAULT : 0;
}

SYSCALL(statfs)
{
	char *abs;
	int r = path_from_user(proc_current(), LINUX_AT_FDCWD, a0, false, &abs);
	if (r)
		return r;
	struct vnode *v;
	r = vfs_walk(abs, true, &v);
	kfree(abs);
	if (r)
		return r;
	int64_t out = put_statfs(v->fs, a1);
	vnode_put(v);
	return out;
}

SYSCALL(fstatfs)
{
	struct file *f = fd_get(proc_current(), (int)a0);
	if (!f)
		return -EBADF;
	struct vfs_fs *fs = file_fs(f);
	int64_t r = fs ? put_statfs(fs, a1) : -ENOSYS;
	file_put(f);
	return r;
}
