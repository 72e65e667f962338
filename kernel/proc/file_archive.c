// SPDX-License-Identifier: BSD-2-Clause
/*
 * Files and directories of the boot archive as open files (read-only:
 * opening for writing or creating gives EROFS), path names relative to
 * a process's working directory, and the calls that take a path: open,
 * openat, newfstatat, chdir, getcwd.
 */
#include <scion/archive.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/string.h>
#include "proc_internal.h"

#define LINUX_AT_EMPTY_PATH 0x1000
#define LINUX_AT_SYMLINK_NOFOLLOW 0x100
#define LINUX_DT_DIR 4
#define LINUX_DT_REG 8

/*
 * Normalize path (relative to base when it does not start with '/')
 * into out: absolute, no ".", "..", empty or trailing components.
 * Return value: 0, -ENAMETOOLONG.
 */
static int normalize(const char *base, const char *path, char *out, size_t size)
{
	char tmp[PATH_MAX_LINUX];
	size_t n = 0;
	if (path[0] != '/') {
		n = strlcpy(tmp, base, sizeof(tmp));
		if (n + 1 >= sizeof(tmp))
			return -ENAMETOOLONG;
		tmp[n++] = '/';
	}
	if (n + strlen(path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	strlcpy(tmp + n, path, sizeof(tmp) - n);

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
			if (o + 1 + len + 1 > size)
				return -ENAMETOOLONG;
			out[o++] = '/';
			memcpy(out + o, s, len);
			o += len;
		}
		s = e;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
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
		base = ((const struct archive_file *)dir->priv)->path;
	}
	int err = normalize(base, path, out, size);
	if (dir)
		file_put(dir);
	return err;
}

static void fill_stat(const struct archive_file *af, struct linux_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = 1;
	st->st_ino = af->ino;
	st->st_nlink = 1;
	st->st_mode = af->mode;
	st->st_size = (int64_t)af->size;
	st->st_blksize = PAGE_SIZE;
	st->st_blocks = (int64_t)((af->size + 511) / 512);
	st->st_atime = st->st_mtime = st->st_ctime = af->mtime;
}

/* Why abs_path is not there: ENOTDIR when a component before its last is a file. */
static int missing(const char *abs_path)
{
	char prefix[PATH_MAX_LINUX];
	for (size_t i = 1; abs_path[i]; i++) {
		if (abs_path[i] != '/')
			continue;
		if (i >= sizeof(prefix))
			break;
		memcpy(prefix, abs_path, i);
		prefix[i] = '\0';
		const struct archive_file *af = archive_lookup(prefix);
		if (!af)
			return -ENOENT;
		if (!archive_is_dir(af))
			return -ENOTDIR;
	}
	return -ENOENT;
}

int path_stat(const char *abs_path, struct linux_stat *st)
{
	const struct archive_file *af = archive_lookup(abs_path);
	if (!af)
		return missing(abs_path);
	fill_stat(af, st);
	return 0;
}

static int64_t archive_read(struct file *f, uintptr_t ubuf, size_t len)
{
	const struct archive_file *af = f->priv;
	uint64_t off = __atomic_load_n(&f->offset, __ATOMIC_RELAXED);
	if (off >= af->size)
		return 0;
	size_t n = af->size - off < len ? af->size - off : len;
	if (copyout(ubuf, (const uint8_t *)af->data + off, n))
		return -EFAULT;
	__atomic_store_n(&f->offset, off + n, __ATOMIC_RELAXED);
	return (int64_t)n;
}

#define SEEK_SET_L 0
#define SEEK_CUR_L 1
#define SEEK_END_L 2

static int64_t archive_lseek(struct file *f, int64_t off, int whence)
{
	const struct archive_file *af = f->priv;
	int64_t base;
	switch (whence) {
	case SEEK_SET_L: base = 0; break;
	case SEEK_CUR_L: base = (int64_t)f->offset; break;
	case SEEK_END_L: base = (int64_t)af->size; break;
	default: return -EINVAL;
	}
	if ((off > 0 && base > INT64_MAX - off) || base + off < 0)
		return -EINVAL;
	f->offset = (uint64_t)(base + off);
	return (int64_t)f->offset;
}

static int archive_stat(struct file *f, struct linux_stat *st)
{
	fill_stat(f->priv, st);
	return 0;
}

/* struct linux_dirent64: d_ino, d_off, d_reclen, d_type, then the name. */
#define DIRENT_HEADER 19

/*
 * A directory's entries, "." and ".." first; the file offset counts
 * entries returned, so a read continues where the last stopped.
 */
static int64_t archive_getdents(struct file *f, uintptr_t ubuf, size_t len)
{
	const struct archive_file *dir = f->priv;
	uint8_t rec[DIRENT_HEADER + 256 + 8];
	size_t done = 0;
	uint64_t index = 0, want = f->offset;
	size_t cursor = 0;
	for (;;) {
		const char *name;
		uint64_t ino;
		uint8_t type;
		if (index == 0 || index == 1) {
			name = index == 0 ? "." : "..";
			ino = dir->ino;
			type = LINUX_DT_DIR;
		} else {
			const struct archive_file *c = archive_child(dir->path, &cursor);
			if (!c)
				break;
			name = path_last_component(c->path);
			ino = c->ino;
			type = archive_is_dir(c) ? LINUX_DT_DIR : LINUX_DT_REG;
		}
		index++;
		if (index <= want)
			continue;
		size_t nlen = strlen(name);
		if (nlen > 255)
			nlen = 255;
		size_t reclen = ALIGN_UP(DIRENT_HEADER + nlen + 1, 8);
		if (done + reclen > len)
			return done ? (int64_t)done : -EINVAL;
		memset(rec, 0, reclen);
		uint64_t off = index;
		uint16_t rl = (uint16_t)reclen;
		memcpy(rec, &ino, 8);
		memcpy(rec + 8, &off, 8);
		memcpy(rec + 16, &rl, 2);
		rec[18] = type;
		memcpy(rec + DIRENT_HEADER, name, nlen);
		if (copyout(ubuf + done, rec, reclen))
			return -EFAULT;
		done += reclen;
		f->offset = index;
	}
	return (int64_t)done;
}

static const struct file_ops archive_file_ops = {
	.kind = "file", .read = archive_read, .lseek = archive_lseek, .stat = archive_stat,
};

static const struct file_ops archive_dir_ops = {
	.kind = "dir", .lseek = archive_lseek, .stat = archive_stat, .getdents = archive_getdents,
};

int archive_open(const char *abs_path, unsigned flags, struct file **out)
{
	const struct archive_file *af = archive_lookup(abs_path);
	if (!af) {
		int why = missing(abs_path);
		return why == -ENOENT && (flags & LINUX_O_CREAT) ? -EROFS : why;
	}
	if ((flags & LINUX_O_CREAT) && (flags & LINUX_O_EXCL))
		return -EEXIST;
	bool dir = archive_is_dir(af);
	if ((flags & LINUX_O_DIRECTORY) && !dir)
		return -ENOTDIR;
	if ((flags & LINUX_O_ACCMODE) != LINUX_O_RDONLY || (flags & LINUX_O_TRUNC))
		return dir ? -EISDIR : -EROFS;
	*out = file_new(dir ? &archive_dir_ops : &archive_file_ops, flags, (void *)af);
	return *out ? 0 : -ENOMEM;
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
	char *abs = kmalloc(2 * PATH_MAX_LINUX), *raw = abs + PATH_MAX_LINUX;
	if (!abs)
		return -ENOMEM;
	int64_t r = copyin_str(raw, upath, PATH_MAX_LINUX);
	if (r == 0 && allow_empty)
		abs[0] = '\0';
	else if (r >= 0)
		r = path_resolve(p, dirfd, raw, abs, PATH_MAX_LINUX);
	if (r < 0) {
		kfree(abs);
		return (int)r;
	}
	*out = abs;
	return 0;
}

static int64_t do_openat(int dirfd, uintptr_t upath, uint64_t flags)
{
	struct process *p = proc_current();
	char *abs;
	int r = path_from_user(p, dirfd, upath, false, &abs);
	if (r)
		return r;
	struct file *f = NULL;
	r = archive_open(abs, (unsigned)flags, &f);
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
	return do_openat(LINUX_AT_FDCWD, a0, a1);
}

SYSCALL(openat)
{
	return do_openat((int)a0, a1, a2);
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

SYSCALL(newfstatat)
{
	struct process *p = proc_current();
	int dirfd = (int)a0;
	uint64_t flags = a3;
	if (flags & ~(uint64_t)(LINUX_AT_EMPTY_PATH | LINUX_AT_SYMLINK_NOFOLLOW | 0x800))
		return -EINVAL;
	char *abs;
	int r = path_from_user(p, dirfd, a1, flags & LINUX_AT_EMPTY_PATH, &abs);
	if (r)
		return r;
	struct linux_stat st;
	r = abs[0] ? path_stat(abs, &st) : stat_dirfd(p, dirfd, &st);
	kfree(abs);
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
	return sys_newfstatat((uint64_t)(int64_t)LINUX_AT_FDCWD, a0, a1, 0, 0, 0);
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
