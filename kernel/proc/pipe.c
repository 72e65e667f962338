// SPDX-License-Identifier: BSD-2-Clause
/*
 * Pipes: a 64 KiB ring between a read end and a write end. A reader
 * sleeps while the ring is empty and a writer is left, a writer while
 * it is full and a reader is left; with no reader left a write gets
 * EPIPE and the writer SIGPIPE, with no writer left a read gets 0.
 * Data moves between the ring and user memory outside any spinlock
 * (copyin and copyout may take page faults): the pipe's mutex orders
 * readers among themselves and writers among themselves, and the ring
 * indices change under wq.lock.
 */
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/mutex.h>
#include <scion/string.h>
#include "proc_internal.h"

#define PIPE_SIZE (64 * 1024)
#define PIPE_BUF_LINUX 4096

struct pipe {
	struct waitq wq;		/* lock guards head, tail, readers, writers */
	struct mutex read_lock, write_lock;
	uint64_t head, tail;		/* bytes read, bytes written */
	unsigned readers, writers;
	uint8_t *ring;
};

static int64_t pipe_read(struct file *f, uintptr_t ubuf, size_t len)
{
	struct pipe *pp = f->priv;
	if (!len)
		return 0;
	mutex_lock(&pp->read_lock);
	irqflags_t fl = spin_lock_irqsave(&pp->wq.lock);
	while (pp->head == pp->tail && pp->writers) {
		if ((f->flags & LINUX_O_NONBLOCK) || proc_signal_pending())
			break;
		waitq_sleep(&pp->wq, 0);
	}
	uint64_t avail = pp->tail - pp->head, head = pp->head;
	bool writers = pp->writers != 0;
	spin_unlock_irqrestore(&pp->wq.lock, fl);
	int64_t r;
	if (!avail) {
		r = !writers ? 0 : proc_signal_pending() ? -EINTR : -EAGAIN;
	} else {
		size_t n = avail < len ? avail : len, done = 0;
		r = 0;
		while (done < n) {
			size_t at = (head + done) % PIPE_SIZE;
			size_t chunk = PIPE_SIZE - at < n - done ? PIPE_SIZE - at : n - done;
			if (copyout(ubuf + done, pp->ring + at, chunk)) {
				r = -EFAULT;
				break;
			}
			done += chunk;
		}
		if (done) {
			fl = spin_lock_irqsave(&pp->wq.lock);
			pp->head += done;
			spin_unlock_irqrestore(&pp->wq.lock, fl);
			waitq_wake_all(&pp->wq);
			proc_poll_notify();
			r = (int64_t)done;
		}
	}
	mutex_unlock(&pp->read_lock);
	return r;
}

static int64_t pipe_write(struct file *f, uintptr_t ubuf, size_t len)
{
	struct pipe *pp = f->priv;
	size_t done = 0;
	int64_t err = 0;
	mutex_lock(&pp->write_lock);
	while (done < len) {
		irqflags_t fl = spin_lock_irqsave(&pp->wq.lock);
		while (pp->readers && pp->tail - pp->head == PIPE_SIZE) {
			if ((f->flags & LINUX_O_NONBLOCK) || proc_signal_pending())
				break;
			waitq_sleep(&pp->wq, 0);
		}
		bool readers = pp->readers != 0;
		uint64_t space = PIPE_SIZE - (pp->tail - pp->head), tail = pp->tail;
		spin_unlock_irqrestore(&pp->wq.lock, fl);
		if (!readers) {
			signal_send(proc_current(), SIGPIPE);
			err = -EPIPE;
			break;
		}
		if (!space) {
			err = proc_signal_pending() ? -EINTR : -EAGAIN;
			break;
		}
		size_t n = len - done < space ? len - done : space;
		size_t copied = 0;
		while (copied < n) {
			size_t at = (tail + copied) % PIPE_SIZE;
			size_t chunk = PIPE_SIZE - at < n - copied ? PIPE_SIZE - at : n - copied;
			if (copyin(pp->ring + at, ubuf + done + copied, chunk)) {
				err = -EFAULT;
				break;
			}
			copied += chunk;
		}
		if (copied) {
			fl = spin_lock_irqsave(&pp->wq.lock);
			pp->tail += copied;
			spin_unlock_irqrestore(&pp->wq.lock, fl);
			waitq_wake_all(&pp->wq);
			proc_poll_notify();
			done += copied;
		}
		if (err)
			break;
	}
	mutex_unlock(&pp->write_lock);
	return done ? (int64_t)done : err;
}

static int pipe_stat(struct file *f, struct linux_stat *st)
{
	return fifo_stat(f, st, PIPE_BUF_LINUX);
}

static void release_end(struct file *f, bool reader)
{
	struct pipe *pp = f->priv;
	irqflags_t fl = spin_lock_irqsave(&pp->wq.lock);
	if (reader)
		pp->readers--;
	else
		pp->writers--;
	/* Decided under the lock: the two ends' releases may run at once on two CPUs. */
	bool last = !pp->readers && !pp->writers;
	spin_unlock_irqrestore(&pp->wq.lock, fl);
	if (last) {
		kfree(pp->ring);	/* no end left: nobody sleeps on it or looks at it */
		kfree(pp);
		return;
	}
	waitq_wake_all(&pp->wq);
	proc_poll_notify();
}

static void pipe_release_read(struct file *f)
{
	release_end(f, true);
}

static void pipe_release_write(struct file *f)
{
	release_end(f, false);
}

/* The read end: data or no writer left (end of file) is POLLIN; no writer is POLLHUP too. */
static unsigned pipe_poll_read(struct file *f)
{
	struct pipe *pp = f->priv;
	irqflags_t fl = spin_lock_irqsave(&pp->wq.lock);
	unsigned m = (pp->tail != pp->head ? POLL_IN : 0) | (!pp->writers ? POLL_IN | POLL_HUP : 0);
	spin_unlock_irqrestore(&pp->wq.lock, fl);
	return m;
}

/* The write end: room is POLLOUT; no reader left is POLLERR (a write would get EPIPE). */
static unsigned pipe_poll_write(struct file *f)
{
	struct pipe *pp = f->priv;
	irqflags_t fl = spin_lock_irqsave(&pp->wq.lock);
	unsigned m = !pp->readers ? POLL_ERR :
		     pp->tail - pp->head < PIPE_SIZE ? POLL_OUT : 0;
	spin_unlock_irqrestore(&pp->wq.lock, fl);
	return m;
}

static const struct file_ops pipe_read_ops = {
	.kind = "pipe", .read = pipe_read, .stat = pipe_stat, .release = pipe_release_read,
	.poll = pipe_poll_read,
};

static const struct file_ops pipe_write_ops = {
	.kind = "pipe", .write = pipe_write, .stat = pipe_stat, .release = pipe_release_write,
	.poll = pipe_poll_write,
};

static int64_t do_pipe2(uintptr_t ufds, uint64_t flags)
{
	struct process *p = proc_current();
	if (flags & ~(uint64_t)(LINUX_O_CLOEXEC | LINUX_O_NONBLOCK))
		return -EINVAL;
	struct pipe *pp = kzalloc(sizeof(*pp));
	uint8_t *ring = kmalloc(PIPE_SIZE);
	struct file *r = NULL, *w = NULL;
	if (pp && ring) {
		waitq_init(&pp->wq, "pipe");
		waitq_init(&pp->read_lock.wq, "pipe-read");
		waitq_init(&pp->write_lock.wq, "pipe-write");
		pp->ring = ring;
		pp->readers = pp->writers = 1;
		unsigned fl = (unsigned)flags & LINUX_O_NONBLOCK;
		r = file_new(&pipe_read_ops, LINUX_O_RDONLY | fl, pp);
		w = file_new(&pipe_write_ops, LINUX_O_WRONLY | fl, pp);
	}
	if (!r || !w) {
		kfree(r);
		kfree(w);
		kfree(ring);
		kfree(pp);
		return -ENOMEM;
	}
	bool cloexec = flags & LINUX_O_CLOEXEC;
	int fds[2] = { fd_install(p, r, 0, cloexec), -1 };
	if (fds[0] >= 0)
		fds[1] = fd_install(p, w, 0, cloexec);
	if (fds[0] < 0 || fds[1] < 0) {
		if (fds[0] >= 0)
			fd_close(p, fds[0]);
		else
			file_put(r);
		file_put(w);
		return -EMFILE;
	}
	if (copyout(ufds, fds, sizeof(fds))) {
		fd_close(p, fds[0]);
		fd_close(p, fds[1]);
		return -EFAULT;
	}
	return 0;
}

SYSCALL(pipe2)
{
	return do_pipe2(a0, a1);
}

SYSCALL(pipe)
{
	return do_pipe2(a0, 0);
}
