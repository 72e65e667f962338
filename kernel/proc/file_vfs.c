// SPDX-License-Identifier: BSD-2-Clause
/*
 * Files and directories of the VFS (scion/vfs.h) as open files, path
 * names relative to a process's working directory, and the calls that
 * take a path: open, openat, newfstatat, readlink, chdir, getcwd (the
 * calls that change names are sys_fs.c's). Opening for writing or
 * creating on a read-only mount gives EROFS. An open file holds its vnode and, for a
 * directory, its normalized path (the base of the *at calls).
 */
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/vfs.h>
#include "proc_internal.h"

#define LINUX_AT_EMPTY_PATH 0x1000
#define LINUX_AT_SYMLINK_NOFOLLOW 0x100
#define LINUX_AT_NO_AUTOMOUNT 0x800
#define BOUNCE_BYTES 4096
#define PATH_SMALL 256		/* a user path copied to the stack up to this */
/*
 * A write goes to the file system in pieces of up to this much: each
 * piece is one call (the mount's lock, and one synchronous bitmap write
 * for the new blocks an indirect block points at: ext2's write.c).
 */
#define WRITE_BOUNCE_BYTES (64 * 1024)
#define DIRENT_HEADER 19	/* struct linux_dirent64: d_ino, d_off, d_reclen, d_type, then the name */

struct vfs_file {
	struct vnode *v;
	char path[];		/* normalized absolute path it was opened by */
};

static struct vnode *vnode_of(struct file *f)
{
	return ((struct vfs_file *)f->priv)->v;
}

/* A user path, resolved against dirfd (AT_FDCWD or a directory fd) into out. */
int path_resolve(struct process *p, int dirfd, const char *path, char *out, size_t size)
{
	const char *base = p->cwd;
	struct file *dir = NULL;
	if (path[0] == '\0')
		return -ENOENT;
	if (path[0] != '/' && dirfd != LINUX_AT_FDCWD) {
		dir = fd_get(p, dirfd);
		if (!dir)
			return -EBADF;
		if (dir->ops->getdents == NULL) {
			file_put(dir);
			return -ENOTDIR;
		}
		base = ((struct vfs_file *)dir->priv)->path;
	}
	int err = vfs_normalize(base, path, out, size);
	if (dir)
		file_put(dir);
	return err;
}

static void fill_stat(const struct vnode *v, struct linux_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = v->fs->id;
	st->st_ino = v->ino;
	st->st_nlink = v->nlink;
	st->st_mode = v->mode;
	st->st_uid = v->uid;
	st->st_gid = v->gid;
	st->st_size = (int64_t)v->size;
	st->st_blksize = PAGE_SIZE;
	st->st_blocks = (int64_t)v->blocks512;
	st->st_atime = v->atime;
	st->st_mtime = v->mtime;
	st->st_ctime = v->ctime;
}

static int stat_path(const char *abs_path, bool follow, struct linux_stat *st)
{
	struct vnode *v;
	int err = vfs_walk(abs_path, follow, &v);
	if (err)
		return err;
	fill_stat(v, st);
	vnode_put(v);
	return 0;
}

int path_stat(const char *abs_path, struct linux_stat *st)
{
	return stat_path(abs_path, true, st);
}

int path_lstat(const char *abs_path, struct linux_stat *st)
{
	return stat_path(abs_path, false, st);
}

/* Up to len bytes at off into user memory; the count, or -errno when nothing moved. */
static int64_t read_at(struct vnode *v, uintptr_t ubuf, size_t len, uint64_t off)
{
	uint64_t size = READ_ONCE(v->size);
	if (off >= size)
		return 0;
	if (len > size - off)
		len = (size_t)(size - off);
	const uint8_t *in_memory = v->fs->ops->contents ? v->fs->ops->contents(v) : NULL;
	if (in_memory)
		return copyout(ubuf, in_memory + off, len) ? -EFAULT : (int64_t)len;
	uint8_t *bounce = kmalloc(BOUNCE_BYTES);
	if (!bounce)
		return -ENOMEM;
	size_t done = 0;
	int64_t err = 0;
	while (done < len) {
		size_t n = len - done < BOUNCE_BYTES ? len - done : BOUNCE_BYTES;
		int64_t got = v->fs->ops->read(v, off + done, bounce, n);
		if (got <= 0) {
			err = got;
			break;
		}
		if (copyout(ubuf + done, bounce, (size_t)got)) {
			err = -EFAULT;
			break;
		}
		done += (size_t)got;
	}
	kfree(bounce);
	return done ? (int64_t)done : err;
}

/* len bytes of user memory at off into the file; the count, or -errno when nothing moved. */
static int64_t write_at(struct vnode *v, uintptr_t ubuf, size_t len, uint64_t off)
{
	if (v->fs->read_only || !v->fs->ops->write)
		return -EBADF;
	size_t chunk = len < WRITE_BOUNCE_BYTES ? (len ? len : 1) : WRITE_BOUNCE_BYTES;
	uint8_t *bounce = kmalloc(chunk);
	if (!bounce)
		return -ENOMEM;
	size_t done = 0;
	int64_t err = 0;
	while (done < len) {
		size_t n = len - done < chunk ? len - done : chunk;
		if (copyin(bounce, ubuf + done, n)) {
			err = -EFAULT;
			break;
		}
		int64_t put = v->fs->ops->write(v, off + done, bounce, n);
		if (put <= 0) {
			err = put;
			break;
		}
		done += (size_t)put;
		if ((size_t)put < n)
			break;
	}
	kfree(bounce);
	return done ? (int64_t)done : err;
}

static int64_t vfs_file_read(struct file *f, uintptr_t ubuf, size_t len)
{
	uint64_t off = __atomic_load_n(&f->offset, __ATOMIC_RELAXED);
	int64_t r = read_at(vnode_of(f), ubuf, len, off);
	if (r > 0)
		__atomic_store_n(&f->offset, off + (uint64_t)r, __ATOMIC_RELAXED);
	return r;
}

static int64_t vfs_file_write(struct file *f, uintptr_t ubuf, size_t len)
{
	struct vnode *v = vnode_of(f);
	uint64_t off = (f->flags & LINUX_O_APPEND) ? READ_ONCE(v->size) :
		       __atomic_load_n(&f->offset, __ATOMIC_RELAXED);
	int64_t r = write_at(v, ubuf, len, off);
	if (r > 0)
		__atomic_store_n(&f->offset, off + (uint64_t)r, __ATOMIC_RELAXED);
	return r;
}

static int64_t vfs_file_pread(struct file *f, uintptr_t ubuf, size_t len, uint64_t off)
{
	return read_at(vnode_of(f), ubuf, len, off);
}

static int64_t vfs_file_pwrite(struct file *f, uintptr_t ubuf, size_t len, uint64_t off)
{
	return write_at(vnode_of(f), ubuf, len, off);
}

#define SEEK_SET_L 0
#define SEEK_CUR_L 1
#define SEEK_END_L 2

static int64_t vfs_file_lseek(struct file *f, int64_t off, int whence)
{
	int64_t base;
	switch (whence) {
	case SEEK_SET_L: base = 0; break;
	case SEEK_CUR_L: base = (int64_t)f->offset; break;
	case SEEK_END_L: base = (int64_t)vnode_of(f)->size; break;
	default: return -EINVAL;
	}
	if ((off > 0 && base > INT64_MAX - off) || base + off < 0)
		return -EINVAL;
	f->offset = (uint64_t)(base + off);
	return (int64_t)f->offset;
}

static int vfs_file_stat(struct file *f, struct linux_stat *st)
{
	fill_stat(vnode_of(f), st);
	return 0;
}

/*
 * A directory's entries in the file system's order ("." and ".." among
 * them); the file offset is the file system's position after the last
 * entry returned, so a read continues where the last stopped.
 */
struct getdents_arg {
	uintptr_t ubuf;
	size_t len, done;
	int error;
	bool stopped;		/* put_dirent stopped the walk (buffer full or a fault) */
};

static int put_dirent(void *arg, const struct vfs_dirent *d, uint64_t next)
{
	struct getdents_arg *a = arg;
	uint8_t rec[DIRENT_HEADER + VFS_NAME_MAX + 1 + 8];
	size_t nlen = d->len > VFS_NAME_MAX ? VFS_NAME_MAX : d->len;
	size_t reclen = ALIGN_UP(DIRENT_HEADER + nlen + 1, 8);
	if (a->done + reclen > a->len) {
		a->error = a->done ? 0 : -EINVAL;
		a->stopped = true;
		return -1;
	}
	memset(rec, 0, reclen);
	uint16_t rl = (uint16_t)reclen;
	memcpy(rec, &d->ino, 8);
	memcpy(rec + 8, &next, 8);
	memcpy(rec + 16, &rl, 2);
	rec[18] = d->type;
	memcpy(rec + DIRENT_HEADER, d->name, nlen);
	if (copyout(a->ubuf + a->done, rec, reclen)) {
		a->error = -EFAULT;
		a->stopped = true;
		return -1;
	}
	a->done += reclen;
	return 0;
}

static int64_t vfs_file_getdents(struct file *f, uintptr_t ubuf, size_t len)
{
	struct vnode *v = vnode_of(f);
	struct getdents_arg a = { .ubuf = ubuf, .len = len };
	uint64_t pos = f->offset;
	int r = v->fs->ops->iterate(v, &pos, put_dirent, &a);
	f->offset = pos;
	if (r < 0 && !a.stopped)
		return a.done ? (int64_t)a.done : r;
	if (a.error && !a.done)
		return a.error;
	return (int64_t)a.done;
}

static void vfs_file_release(struct file *f)
{
	struct vfs_file *vf = f->priv;
	struct vnode *v = vf->v;
	/* Its error was said in one line; close(2) has returned already. */
	if ((f->flags & LINUX_O_ACCMODE) != LINUX_O_RDONLY && !v->fs->read_only && v->fs->ops->flush)
		v->fs->ops->flush(v);
	vnode_put(v);
	kfree(vf);
}

static const struct file_ops vfs_regular_ops = {
	.kind = "file", .read = vfs_file_read, .write = vfs_file_write, .pread = vfs_file_pread,
	.pwrite = vfs_file_pwrite, .lseek = vfs_file_lseek, .stat = vfs_file_stat,
	.release = vfs_file_release,
};

static const struct file_ops vfs_dir_ops = {
	.kind = "dir", .lseek = vfs_file_lseek, .stat = vfs_file_stat,
	.getdents = vfs_file_getdents, .release = vfs_file_release,
};

/*
 * vfs_open - open the file at abs_path with open(2)'s flags (mode: the
 *   permissions of a file O_CREAT makes).
 * Return value: 0 with *out held; the walk's errors; -EEXIST (O_CREAT |
 *   O_EXCL of an existing file), -ENOTDIR (O_DIRECTORY of a file),
 *   -EISDIR (a directory for writing or O_CREAT), -EROFS (writing,
 *   truncating or creating on a read-only mount), -ELOOP (O_NOFOLLOW of
 *   a link), -ENOSPC, -ENOMEM.
 */
int vfs_open(const char *abs_path, unsigned flags, uint32_t mode, struct file **out)
{
	struct vnode *v;
	bool created = false;
	int err = vfs_walk(abs_path, !(flags & LINUX_O_NOFOLLOW), &v);
	if (err == -ENOENT && (flags & LINUX_O_CREAT)) {
		err = vfs_create(abs_path, VFS_S_IFREG | (mode & 07777), NULL, &v);
		created = !err;
	}
	if (err)
		return err;
	bool dir = vnode_is_dir(v);
	bool writing = (flags & LINUX_O_ACCMODE) != LINUX_O_RDONLY;
	if ((flags & LINUX_O_CREAT) && (flags & LINUX_O_EXCL) && !created)
		err = -EEXIST;
	else if (vnode_is_link(v))
		err = -ELOOP;
	else if ((flags & LINUX_O_DIRECTORY) && !dir)
		err = -ENOTDIR;
	else if (dir && (writing || (flags & LINUX_O_CREAT)))
		err = -EISDIR;
	else if ((writing || (flags & LINUX_O_TRUNC)) && (v->fs->read_only || !v->fs->ops->write))
		err = -EROFS;
	else if ((flags & LINUX_O_TRUNC) && !created && v->size)
		err = vfs_truncate(v, 0);
	size_t plen = strlen(abs_path) + 1;
	struct vfs_file *vf = err ? NULL : kmalloc(sizeof(*vf) + plen);
	if (!err && !vf)
		err = -ENOMEM;
	if (!err) {
		vf->v = v;
		memcpy(vf->path, abs_path, plen);
		*out = file_new(dir ? &vfs_dir_ops : &vfs_regular_ops, flags, vf);
		if (!*out) {
			kfree(vf);
			err = -ENOMEM;
		}
	}
	if (err)
		vnode_put(v);
	return err;
}

/* ftruncate: a regular file open for writing (else EINVAL, as Linux). */
int file_truncate(struct file *f, uint64_t size)
{
	if (f->ops != &vfs_regular_ops || (f->flags & LINUX_O_ACCMODE) == LINUX_O_RDONLY)
		return -EINVAL;
	return vfs_truncate(vnode_of(f), size);
}

/* fsync, fdatasync, syncfs: a file of a mounted file system (else EINVAL). */
int file_fsync(struct file *f, bool data_only)
{
	if (f->ops != &vfs_regular_ops && f->ops != &vfs_dir_ops)
		return -EINVAL;
	struct vnode *v = vnode_of(f);
	if (v->fs->read_only || !v->fs->ops->fsync)
		return 0;
	return v->fs->ops->fsync(v, data_only);
}

/* The file system of an open file, or NULL (a pipe, the console). */
struct vfs_fs *file_fs(struct file *f)
{
	return f->ops == &vfs_regular_ops || f->ops == &vfs_dir_ops ? vnode_of(f)->fs : NULL;
}

/* truncate(2): the path's file (links followed). */
int path_truncate(const char *abs_path, uint64_t size)
{
	struct vnode *v;
	int err = vfs_walk(abs_path, true, &v);
	if (err)
		return err;
	err = vfs_truncate(v, size);
	vnode_put(v);
	return err;
}

/*
 * path_from_user - the user path at upath, resolved against dirfd
 *   (AT_FDCWD or a directory fd), in a buffer the caller kfrees.
 * Arguments: allow_empty: "" is returned as it is (AT_EMPTY_PATH);
 *   otherwise it is ENOENT.
 * Return value: 0 with *out set, or -EFAULT, -ENAMETOOLONG, -ENOENT,
 *   -EBADF, -ENOTDIR, -ENOMEM.
 */
int path_from_user(struct process *p, int dirfd, uintptr_t upath, bool allow_empty, char **out)
{
	/*
	 * Most paths are short: the user's string is copied to the stack and
	 * resolved into a small block first, and only one that does not fit
	 * takes PATH_MAX (whole pages from the allocator).
	 */
	char small[PATH_SMALL], *raw = small, *big = NULL, *abs = NULL;
	int64_t r = copyin_str(small, upath, sizeof(small));
	if (r == -ENAMETOOLONG) {
		raw = big = kmalloc(PATH_MAX_LINUX);
		r = big ? copyin_str(raw, upath, PATH_MAX_LINUX) : -ENOMEM;
	}
	if (r == 0 && allow_empty) {
		if ((abs = kmalloc(1)))
			abs[0] = '\0';
		else
			r = -ENOMEM;
	} else if (r >= 0) {
		size_t size = 2 * PATH_SMALL;
		abs = kmalloc(size);
		r = abs ? path_resolve(p, dirfd, raw, abs, size) : -ENOMEM;
		if (r == -ENAMETOOLONG) {
			kfree(abs);
			abs = kmalloc(PATH_MAX_LINUX);
			r = abs ? path_resolve(p, dirfd, raw, abs, PATH_MAX_LINUX) : -ENOMEM;
		}
	}
	kfree(big);
	if (r < 0) {
		kfree(abs);
		return (int)r;
	}
	*out = abs;
	return 0;
}

static int64_t do_openat(int dirfd, uintptr_t upath, uint64_t flags, uint64_t mode)
{
	struct process *p = proc_current();
	char *abs;
	int r = path_from_user(p, dirfd, upath, false, &abs);
	if (r)
		return r;
	struct file *f = NULL;
	r = vfs_open(abs, (unsigned)flags, (uint32_t)mode, &f);
	kfree(abs);
	if (r < 0)
		return r;
	int fd = fd_install(p, f, 0, flags & LINUX_O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

SYSCALL(open)
{
	return do_openat(LINUX_AT_FDCWD, a0, a1, a2);
}

SYSCALL(openat)
{
	return do_openat((int)a0, a1, a2, a3);
}

/* fstat of dirfd itself (AT_EMPTY_PATH with an empty path). */
static int stat_dirfd(struct process *p, int dirfd, struct linux_stat *st)
{
	if (dirfd == LINUX_AT_FDCWD)
		return path_stat(p->cwd, st);
	struct file *f = fd_get(p, dirfd);
	if (!f)
		return -EBADF;
	memset(st, 0, sizeof(*st));
	int r = f->ops->stat(f, st);
	file_put(f);
	return r;
}

int stat_at(struct process *p, int dirfd, uintptr_t upath, uint64_t flags,
	    struct linux_stat *st)
{
	if (flags & ~(uint64_t)(LINUX_AT_EMPTY_PATH | LINUX_AT_SYMLINK_NOFOLLOW |
				LINUX_AT_NO_AUTOMOUNT))
		return -EINVAL;
	char *abs;
	int r = path_from_user(p, dirfd, upath, flags & LINUX_AT_EMPTY_PATH, &abs);
	if (r)
		return r;
	r = abs[0] ? stat_path(abs, !(flags & LINUX_AT_SYMLINK_NOFOLLOW), st) :
		     stat_dirfd(p, dirfd, st);
	kfree(abs);
	return r;
}

SYSCALL(newfstatat)
{
	struct linux_stat st;
	int r = stat_at(proc_current(), (int)a0, a1, a3, &st);
	if (!r && copyout(a2, &st, sizeof(st)))
		r = -EFAULT;
	return r;
}

SYSCALL(stat)
{
	return sys_newfstatat((uint64_t)(int64_t)LINUX_AT_FDCWD, a0, a1, 0, 0, 0);
}

SYSCALL(lstat)
{
	return sys_newfstatat((uint64_t)(int64_t)LINUX_AT_FDCWD, a0, a1,
			      LINUX_AT_SYMLINK_NOFOLLOW, 0, 0);
}

static int64_t do_readlinkat(int dirfd, uintptr_t upath, uintptr_t ubuf, int64_t size)
{
	if (size <= 0)
		return -EINVAL;
	char *abs;
	int r = path_from_user(proc_current(), dirfd, upath, false, &abs);
	if (r)
		return r;
	struct vnode *v;
	r = vfs_walk(abs, false, &v);
	kfree(abs);
	if (r)
		return r;
	char *target = vnode_is_link(v) ? kmalloc(VFS_PATH_MAX) : NULL;
	int64_t n = !vnode_is_link(v) ? -EINVAL : !target ? -ENOMEM :
		    v->fs->ops->readlink(v, target, VFS_PATH_MAX);
	vnode_put(v);
	if (n >= 0) {
		if (n > size)
			n = size;	/* truncated, without a NUL, as Linux does */
		if (copyout(ubuf, target, (size_t)n))
			n = -EFAULT;
	}
	kfree(target);
	return n;
}

SYSCALL(readlink)
{
	return do_readlinkat(LINUX_AT_FDCWD, a0, a1, (int64_t)a2);
}

SYSCALL(readlinkat)
{
	return do_readlinkat((int)a0, a1, a2, (int64_t)a3);
}

#define LINUX_W_OK 2

SYSCALL(access)
{
	char *abs;
	int r = path_from_user(proc_current(), LINUX_AT_FDCWD, a0, false, &abs);
	if (r)
		return r;
	struct linux_stat st;
	r = path_stat(abs, &st);
	kfree(abs);
	return r ? r : (a1 & LINUX_W_OK) ? -EROFS : 0;
}

SYSCALL(chdir)
{
	struct process *p = proc_current();
	char *abs;
	struct linux_stat st;
	int r = path_from_user(p, LINUX_AT_FDCWD, a0, false, &abs);
	if (r)
		return r;
	r = path_stat(abs, &st);
	if (!r && (st.st_mode & LINUX_S_IFMT) != LINUX_S_IFDIR)
		r = -ENOTDIR;
	else if (!r && strlen(abs) >= sizeof(p->cwd))
		r = -ENAMETOOLONG;
	if (!r)
		strlcpy(p->cwd, abs, sizeof(p->cwd));
	kfree(abs);
	return r;
}

SYSCALL(getcwd)
{
	struct process *p = proc_current();
	size_t n = strlen(p->cwd) + 1;
	if (a1 < n)
		return -ERANGE;
	return copyout(a0, p->cwd, n) ? -EFAULT : (int64_t)n;
}
