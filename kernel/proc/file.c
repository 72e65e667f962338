// SPDX-License-Identifier: BSD-2-Clause
/*
 * Open files and the fd table: what read, write, lseek, close, dup and
 * fstat do whatever the file is (the console, a file or directory of
 * a mounted file system, a pipe end; their ops are in tty.c, file_vfs.c
 * and pipe.c).
 *
 * A struct file is shared by every fd that refers to it (dup, fork), as
 * in Linux: they share its offset. Its reference count is atomic; fds
 * change under the process's files_lock, which readers from other
 * threads (exit's close, listings) take too.
 */
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/string.h>
#include "proc_internal.h"

struct file *file_new(const struct file_ops *ops, unsigned flags, void *priv)
{
	struct file *f = kzalloc(sizeof(*f));
	if (!f)
		return NULL;
	f->ops = ops;
	f->refs = 1;
	f->flags = flags;
	f->priv = priv;
	return f;
}

void file_get(struct file *f)
{
	__atomic_fetch_add(&f->refs, 1, __ATOMIC_RELAXED);
}

void file_put(struct file *f)
{
	if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (f->ops->release)
		f->ops->release(f);
	kfree(f);
}

/*
 * fd_install - put f at the lowest free fd >= min_fd.
 * Return value: the fd, or -EMFILE (f is then not consumed).
 */
int fd_install(struct process *p, struct file *f, int min_fd, bool cloexec)
{
	int fd = -EMFILE;
	irqflags_t fl = spin_lock_irqsave(&p->files_lock);
	for (int i = min_fd < 0 ? 0 : min_fd; i < FD_MAX; i++) {
		if (!p->fds[i]) {
			p->fds[i] = f;
			fd = i;
			break;
		}
	}
	spin_unlock_irqrestore(&p->files_lock, fl);
	if (fd >= 0)
		fd_set_cloexec(p, fd, cloexec);
	return fd;
}

/* The file at fd, with a reference the caller puts; NULL for a bad fd. */
struct file *fd_get(struct process *p, int fd)
{
	if (fd < 0 || fd >= FD_MAX)
		return NULL;
	irqflags_t fl = spin_lock_irqsave(&p->files_lock);
	struct file *f = p->fds[fd];
	if (f)
		file_get(f);
	spin_unlock_irqrestore(&p->files_lock, fl);
	return f;
}

int fd_close(struct process *p, int fd)
{
	if (fd < 0 || fd >= FD_MAX)
		return -EBADF;
	irqflags_t fl = spin_lock_irqsave(&p->files_lock);
	struct file *f = p->fds[fd];
	p->fds[fd] = NULL;
	spin_unlock_irqrestore(&p->files_lock, fl);
	if (!f)
		return -EBADF;
	fd_set_cloexec(p, fd, false);
	file_put(f);
	return 0;
}

void fd_close_all(struct process *p)
{
	for (int fd = 0; fd < FD_MAX; fd++)
		fd_close(p, fd);
}

void fd_close_on_exec(struct process *p)
{
	for (int fd = 0; fd < FD_MAX; fd++)
		if (fd_cloexec(p, fd))
			fd_close(p, fd);
}

void fd_copy_table(struct process *dst, struct process *src)
{
	irqflags_t fl = spin_lock_irqsave(&src->files_lock);
	for (int fd = 0; fd < FD_MAX; fd++) {
		dst->fds[fd] = src->fds[fd];
		if (dst->fds[fd])
			file_get(dst->fds[fd]);
	}
	spin_unlock_irqrestore(&src->files_lock, fl);
	memcpy(dst->cloexec, src->cloexec, sizeof(dst->cloexec));
}

/*
 * Linux moves at most this much in one call; the whole buffer must lie in
 * user space all the same (checked before anything moves, as Linux's
 * access_ok does), so a huge length is EFAULT, not a short transfer.
 */
#define LEN_MAX 0x7ffff000ull

static int64_t file_read(struct file *f, uintptr_t buf, size_t len)
{
	if ((f->flags & LINUX_O_ACCMODE) == LINUX_O_WRONLY)
		return -EBADF;
	if (!f->ops->read)
		return -EISDIR;
	if (len && !user_range_ok(buf, len))
		return -EFAULT;
	return f->ops->read(f, buf, len > LEN_MAX ? LEN_MAX : len);
}

static int64_t file_write(struct file *f, uintptr_t buf, size_t len)
{
	if ((f->flags & LINUX_O_ACCMODE) == LINUX_O_RDONLY || !f->ops->write)
		return -EBADF;
	if (len && !user_range_ok(buf, len))
		return -EFAULT;
	return f->ops->write(f, buf, len > LEN_MAX ? LEN_MAX : len);
}

static int64_t do_rw(uint64_t fd, uintptr_t buf, size_t len, bool writing)
{
	struct file *f = fd_get(proc_current(), (int)fd);
	if (!f)
		return -EBADF;
	int64_t r = writing ? file_write(f, buf, len) : file_read(f, buf, len);
	file_put(f);
	return r;
}

SYSCALL(read)
{
	return do_rw(a0, a1, a2, false);
}

SYSCALL(write)
{
	return do_rw(a0, a1, a2, true);
}

static int64_t do_positioned(uint64_t fd, uintptr_t buf, size_t len, int64_t off, bool writing)
{
	struct file *f = fd_get(proc_current(), (int)fd);
	if (!f)
		return -EBADF;
	unsigned mode = f->flags & LINUX_O_ACCMODE;
	int64_t r;
	if (off < 0)
		r = -EINVAL;
	else if (writing ? mode == LINUX_O_RDONLY : mode == LINUX_O_WRONLY)
		r = -EBADF;
	else if (!(writing ? f->ops->pwrite : f->ops->pread))
		r = f->ops->getdents ? -EISDIR : -ESPIPE;
	else if (len && !user_range_ok(buf, len))
		r = -EFAULT;
	else if (writing)
		r = f->ops->pwrite(f, buf, len > LEN_MAX ? LEN_MAX : len, (uint64_t)off);
	else
		r = f->ops->pread(f, buf, len > LEN_MAX ? LEN_MAX : len, (uint64_t)off);
	file_put(f);
	return r;
}

SYSCALL(pread64)
{
	return do_positioned(a0, a1, a2, (int64_t)a3, false);
}

SYSCALL(pwrite64)
{
	return do_positioned(a0, a1, a2, (int64_t)a3, true);
}

struct linux_iovec {
	uint64_t base, len;
};
#define IOV_MAX_LINUX 1024

/*
 * Overview: fetch the next non-empty entry of a walked iovec array and
 * check it as Linux's import_iovec does: its range is user space, and
 * the entries so far cover at most LEN_MAX bytes.
 * Return value: 1 with *base and *len set; 0 at the end of the array;
 * -EFAULT (the array or the entry's range is not user memory) or
 * -EINVAL (the total overflows).
 * Caller's context: a process's own thread; may sleep (copyin faults).
 */
int iov_walk_next(struct iov_walk *w, uintptr_t *base, size_t *len)
{
	while (w->next < w->count) {
		struct linux_iovec v;
		if (copyin(&v, w->uiov + w->next * sizeof(v), sizeof(v)))
			return -EFAULT;
		w->next++;
		if (v.len > LEN_MAX || w->total + v.len > LEN_MAX)
			return -EINVAL;
		if (!v.len)
			continue;
		if (!user_range_ok(v.base, v.len))
			return -EFAULT;
		w->total += v.len;
		*base = v.base;
		*len = v.len;
		return 1;
	}
	return 0;
}

static int64_t do_vector(uint64_t fd, uintptr_t uiov, uint64_t count, bool writing)
{
	if (count > IOV_MAX_LINUX)
		return -EINVAL;
	struct file *f = fd_get(proc_current(), (int)fd);
	if (!f)
		return -EBADF;
	struct iov_walk w = { .uiov = uiov, .count = count };
	int64_t total = 0, r;
	if (writing && f->ops->writev) {
		bool writable = (f->flags & LINUX_O_ACCMODE) != LINUX_O_RDONLY;
		r = writable ? f->ops->writev(f, &w) : -EBADF;
		file_put(f);
		return r;
	}
	uintptr_t base;
	size_t len;
	while ((r = iov_walk_next(&w, &base, &len)) > 0) {
		r = writing ? file_write(f, base, len) : file_read(f, base, len);
		if (r < 0)
			break;
		total += r;
		if ((uint64_t)r < len)
			break;
		r = 0;
	}
	file_put(f);
	return total ? total : r;
}

SYSCALL(readv)
{
	return do_vector(a0, a1, a2, false);
}

SYSCALL(writev)
{
	return do_vector(a0, a1, a2, true);
}

SYSCALL(lseek)
{
	struct file *f = fd_get(proc_current(), (int)a0);
	if (!f)
		return -EBADF;
	int64_t r = f->ops->lseek ? f->ops->lseek(f, (int64_t)a1, (int)a2) : -ESPIPE;
	file_put(f);
	return r;
}

SYSCALL(close)
{
	return fd_close(proc_current(), (int)a0);
}

SYSCALL(dup)
{
	struct process *p = proc_current();
	struct file *f = fd_get(p, (int)a0);
	if (!f)
		return -EBADF;
	int fd = fd_install(p, f, 0, false);
	if (fd < 0)
		file_put(f);
	return fd;
}

static int64_t do_dup3(int oldfd, int newfd, uint64_t flags)
{
	struct process *p = proc_current();
	if (flags & ~(uint64_t)LINUX_O_CLOEXEC)
		return -EINVAL;
	if (newfd < 0 || newfd >= FD_MAX)
		return -EBADF;
	struct file *f = fd_get(p, oldfd);
	if (!f)
		return -EBADF;
	irqflags_t fl = spin_lock_irqsave(&p->files_lock);
	struct file *old = p->fds[newfd];
	p->fds[newfd] = f;
	spin_unlock_irqrestore(&p->files_lock, fl);
	fd_set_cloexec(p, newfd, flags & LINUX_O_CLOEXEC);
	if (old)
		file_put(old);
	return newfd;
}

SYSCALL(dup3)
{
	if ((int)a0 == (int)a1)
		return -EINVAL;
	return do_dup3((int)a0, (int)a1, a2);
}

SYSCALL(dup2)
{
	if ((int)a0 == (int)a1) {
		struct file *f = fd_get(proc_current(), (int)a0);
		if (!f)
			return -EBADF;
		file_put(f);
		return (int)a1;
	}
	return do_dup3((int)a0, (int)a1, 0);
}

SYSCALL(fstat)
{
	struct file *f = fd_get(proc_current(), (int)a0);
	if (!f)
		return -EBADF;
	struct linux_stat st;
	memset(&st, 0, sizeof(st));
	int r = f->ops->stat(f, &st);
	file_put(f);
	if (!r && copyout(a1, &st, sizeof(st)))
		r = -EFAULT;
	return r;
}

SYSCALL(getdents64)
{
	struct file *f = fd_get(proc_current(), (int)a0);
	if (!f)
		return -EBADF;
	int64_t r = f->ops->getdents ? f->ops->getdents(f, a1, a2 > LEN_MAX ? LEN_MAX : a2) : -ENOTDIR;
	file_put(f);
	return r;
}

#define LINUX_TCGETS     0x5401
#define LINUX_TIOCGWINSZ 0x5413
#define LINUX_TIOCGPGRP  0x540f
#define LINUX_FIONREAD   0x541b

SYSCALL(ioctl)
{
	struct file *f = fd_get(proc_current(), (int)a0);
	if (!f)
		return -EBADF;
	bool tty = f->ops->is_tty;
	file_put(f);
	if (!tty)
		return -ENOTTY;
	switch (a1) {
	case LINUX_TIOCGWINSZ: {
		const uint16_t winsize[4] = { 24, 80, 0, 0 };
		return copyout(a2, winsize, sizeof(winsize)) ? -EFAULT : 0;
	}
	case LINUX_TCGETS: {
		/* A cooked terminal: enough for isatty(); changing it is not offered. */
		uint8_t termios[60];
		memset(termios, 0, sizeof(termios));
		return copyout(a2, termios, sizeof(termios)) ? -EFAULT : 0;
	}
	default:
		return -EINVAL;
	}
}

#define LINUX_F_DUPFD 0
#define LINUX_F_GETFD 1
#define LINUX_F_SETFD 2
#define LINUX_F_GETFL 3
#define LINUX_F_SETFL 4
#define LINUX_F_DUPFD_CLOEXEC 1030
#define LINUX_FD_CLOEXEC 1

SYSCALL(fcntl)
{
	struct process *p = proc_current();
	int fd = (int)a0;
	struct file *f = fd_get(p, fd);
	if (!f)
		return -EBADF;
	int64_t r;
	switch (a1) {
	case LINUX_F_DUPFD:
	case LINUX_F_DUPFD_CLOEXEC:
		r = (int64_t)a2 >= FD_MAX ? -EINVAL : fd_install(p, f, (int)a2, a1 == LINUX_F_DUPFD_CLOEXEC);
		if (r >= 0)
			return r;	/* the reference is the new fd's */
		break;
	case LINUX_F_GETFD:
		r = fd_cloexec(p, fd) ? LINUX_FD_CLOEXEC : 0;
		break;
	case LINUX_F_SETFD:
		fd_set_cloexec(p, fd, a2 & LINUX_FD_CLOEXEC);
		r = 0;
		break;
	case LINUX_F_GETFL:
		r = f->flags;
		break;
	case LINUX_F_SETFL:
		f->flags = (f->flags & ~(unsigned)(LINUX_O_APPEND | LINUX_O_NONBLOCK)) |
			   ((unsigned)a2 & (LINUX_O_APPEND | LINUX_O_NONBLOCK));
		r = 0;
		break;
	default:
		r = -EINVAL;
	}
	file_put(f);
	return r;
}
