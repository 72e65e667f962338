// SPDX-License-Identifier: BSD-2-Clause
/*
 * poll, ppoll, select and pselect6. A file kind says what it is ready
 * for through its ops' poll (NULL: always ready to read and write, as
 * Linux's regular files are). Waiting is on one queue for all: whoever
 * changes something a poll may wait for (a pipe's contents or ends, the
 * console's input) calls proc_poll_notify, which moves a generation
 * counter and wakes every poller; each looks at its files again. A
 * waiter that finds nothing ready sleeps until the generation moves,
 * its time runs out, or a signal comes (EINTR). Lock: poll_wq.lock
 * guards generation.
 */
#include <scion/clock.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/proc.h>
#include <scion/string.h>
#include <scion/syscall.h>
#include <scion/wait.h>
#include "proc_internal.h"

#define POLL_FDS_MAX 1024		/* Linux's default RLIMIT_NOFILE */
#define LINUX_POLLIN  POLL_IN
#define LINUX_POLLPRI 0x002
#define LINUX_POLLOUT POLL_OUT
#define LINUX_POLLERR POLL_ERR
#define LINUX_POLLHUP POLL_HUP
#define LINUX_POLLNVAL 0x020
#define LINUX_POLLRDNORM 0x040
#define LINUX_POLLWRNORM 0x100
#define ALWAYS_REPORTED (LINUX_POLLERR | LINUX_POLLHUP | LINUX_POLLNVAL)

static struct waitq poll_wq = WAITQ_INIT(poll_wq, "poll");
static uint64_t generation;	/* poll_wq.lock */
static unsigned pollers;	/* atomic: threads inside wait_ready */

/*
 * With nobody polling a pipe's write or the console's byte costs one
 * load: a poller counts itself before it reads the generation and
 * looks at its files, so a change made before a notifier saw no poller
 * is one that poller's look finds.
 */
void proc_poll_notify(void)
{
	/* The change (a store) before the load of pollers: a fence, else x86 may reorder them. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&pollers, __ATOMIC_SEQ_CST))
		return;
	irqflags_t f = spin_lock_irqsave(&poll_wq.lock);
	generation++;
	spin_unlock_irqrestore(&poll_wq.lock, f);
	waitq_wake_all(&poll_wq);
}

static uint64_t generation_now(void)
{
	irqflags_t f = spin_lock_irqsave(&poll_wq.lock);
	uint64_t g = generation;
	spin_unlock_irqrestore(&poll_wq.lock, f);
	return g;
}

/* What fd is ready for, or POLLNVAL. */
static unsigned ready(struct process *p, int fd)
{
	struct file *f = fd_get(p, fd);
	if (!f)
		return LINUX_POLLNVAL;
	unsigned m = f->ops->poll ? f->ops->poll(f) : LINUX_POLLIN | LINUX_POLLOUT;
	file_put(f);
	if (m & LINUX_POLLIN)
		m |= LINUX_POLLRDNORM;
	if (m & LINUX_POLLOUT)
		m |= LINUX_POLLWRNORM;
	return m;
}

struct linux_pollfd {
	int32_t fd;
	int16_t events, revents;
};

static int64_t wait_ready_counted(int64_t (*check)(void *arg), void *arg, uint64_t deadline)
{
	for (;;) {
		uint64_t g = generation_now();
		int64_t n = check(arg);
		if (n)
			return n;
		uint64_t now = clock_ns();
		if (deadline != UINT64_MAX && now >= deadline)
			return 0;
		if (proc_signal_pending())
			return -EINTR;
		uint64_t ticks = deadline == UINT64_MAX ? 0 : ms_to_ticks((deadline - now) / 1000000 + 1);
		irqflags_t f = spin_lock_irqsave(&poll_wq.lock);
		if (generation == g && !proc_signal_pending())
			waitq_sleep(&poll_wq, ticks);
		spin_unlock_irqrestore(&poll_wq.lock, f);
	}
}

/*
 * Wait until check(arg) finds something ready (it returns how many), the
 * deadline (clock_ns; UINT64_MAX: none) passes, or a signal is pending.
 * Return value: check's count, 0 at the deadline, -EINTR, or check's error.
 */
static int64_t wait_ready(int64_t (*check)(void *arg), void *arg, uint64_t deadline)
{
	__atomic_fetch_add(&pollers, 1, __ATOMIC_SEQ_CST);
	int64_t n = wait_ready_counted(check, arg, deadline);
	__atomic_fetch_sub(&pollers, 1, __ATOMIC_SEQ_CST);
	return n;
}

struct poll_set {
	struct linux_pollfd *fds;
	uint64_t n;
};

static int64_t check_pollfds(void *arg)
{
	struct poll_set *s = arg;
	struct process *p = proc_current();
	int64_t count = 0;
	for (uint64_t i = 0; i < s->n; i++) {
		struct linux_pollfd *pf = &s->fds[i];
		pf->revents = 0;
		if (pf->fd < 0)
			continue;
		unsigned m = ready(p, pf->fd) & ((unsigned)(uint16_t)pf->events | ALWAYS_REPORTED);
		pf->revents = (int16_t)m;
		count += m != 0;
	}
	return count;
}

static int64_t do_poll(uintptr_t ufds, uint64_t n, uint64_t deadline)
{
	if (n > POLL_FDS_MAX)
		return -EINVAL;
	struct poll_set s = { .fds = kmalloc(n ? n * sizeof(*s.fds) : 1), .n = n };
	if (!s.fds)
		return -ENOMEM;
	int64_t r = copyin(s.fds, ufds, n * sizeof(*s.fds)) ? -EFAULT : 0;
	if (!r)
		r = wait_ready(check_pollfds, &s, deadline);
	if (r >= 0 && copyout(ufds, s.fds, n * sizeof(*s.fds)))
		r = -EFAULT;
	kfree(s.fds);
	return r;
}

/* A relative timeout (ns, < 0: none) as a deadline on clock_ns. */
static uint64_t deadline_after(int64_t ns)
{
	return ns < 0 ? UINT64_MAX : clock_ns() + (uint64_t)ns;
}

SYSCALL(poll)
{
	int64_t ms = (int32_t)a2;
	return do_poll(a0, a1, deadline_after(ms < 0 ? -1 : ms * 1000000));
}

struct linux_timespec64 {
	int64_t sec, nsec;
};

/* A user timespec (NULL: none) as ns: -1 for none, -EINVAL/-EFAULT (< -1) for a bad one. */
static int64_t timespec_ns(uintptr_t uts)
{
	if (!uts)
		return -1;
	struct linux_timespec64 ts;
	if (copyin(&ts, uts, sizeof(ts)))
		return -EFAULT;
	if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
		return -EINVAL;
	return ts.sec > INT64_MAX / 1000000000 - 1 ? INT64_MAX : ts.sec * 1000000000 + ts.nsec;
}

/*
 * ppoll and pselect6's signal mask: in force while waiting, the old one
 * back afterwards (a signal that ended the wait is delivered under the
 * mask given, then the old returns, as sigsuspend does).
 */
static int with_mask(uintptr_t umask, uint64_t size, uint64_t *old, bool *swapped)
{
	*swapped = false;
	if (!umask)
		return 0;
	if (size != sizeof(uint64_t))
		return -EINVAL;
	uint64_t mask;
	if (copyin(&mask, umask, sizeof(mask)))
		return -EFAULT;
	struct process *p = proc_current();
	*old = p->blocked;
	proc_signal_set_mask(mask);	/* SIGKILL and SIGSTOP stay unblocked */
	*swapped = true;
	return 0;
}

static void restore_mask(uint64_t old, bool swapped)
{
	if (!swapped)
		return;
	struct process *p = proc_current();
	if (__atomic_load_n(&p->pending, __ATOMIC_RELAXED) & ~p->blocked) {
		p->suspend_mask = old;	/* the handler's frame restores it, as after sigsuspend */
		p->in_suspend = true;
	} else {
		proc_signal_set_mask(old);
	}
}

SYSCALL(ppoll)
{
	int64_t ns = timespec_ns(a2);
	if (ns < -1)
		return ns;
	uint64_t old = 0;
	bool swapped;
	int r = with_mask(a3, a4, &old, &swapped);
	if (r)
		return r;
	int64_t out = do_poll(a0, a1, deadline_after(ns));
	restore_mask(old, swapped);
	return out;
}

/* select's three sets, as bits of up to FD_MAX descriptors. */
#define SET_WORDS ((FD_MAX + 63) / 64)

struct select_sets {
	int nfds;
	uint64_t in[3][SET_WORDS];	/* asked: read, write, except */
	uint64_t out[3][SET_WORDS];	/* found */
};

static int64_t check_sets(void *arg)
{
	struct select_sets *s = arg;
	struct process *p = proc_current();
	static const unsigned wants[3] = { LINUX_POLLIN | LINUX_POLLHUP | LINUX_POLLERR,
					   LINUX_POLLOUT | LINUX_POLLERR, LINUX_POLLPRI };
	int64_t count = 0;
	memset(s->out, 0, sizeof(s->out));
	for (int fd = 0; fd < s->nfds; fd++) {
		uint64_t bit = 1ull << (fd % 64);
		int w = fd / 64;
		if (!((s->in[0][w] | s->in[1][w] | s->in[2][w]) & bit))
			continue;
		unsigned m = ready(p, fd);
		if (m & LINUX_POLLNVAL)
			return -EBADF;
		for (int k = 0; k < 3; k++)
			if ((s->in[k][w] & bit) && (m & wants[k])) {
				s->out[k][w] |= bit;
				count++;
			}
	}
	return count;
}

static int64_t do_select(int nfds, const uintptr_t usets[3], uint64_t deadline)
{
	if (nfds < 0)
		return -EINVAL;
	if (nfds > FD_MAX)
		nfds = FD_MAX;
	struct select_sets *s = kzalloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->nfds = nfds;
	size_t bytes = (size_t)(nfds + 63) / 64 * 8;
	int64_t r = 0;
	for (int k = 0; k < 3 && !r; k++)
		if (usets[k] && copyin(s->in[k], usets[k], bytes))
			r = -EFAULT;
	if (!r)
		r = wait_ready(check_sets, s, deadline);
	for (int k = 0; k < 3 && r >= 0; k++)
		if (usets[k] && copyout(usets[k], s->out[k], bytes))
			r = -EFAULT;
	kfree(s);
	return r;
}

struct linux_timeval {
	int64_t sec, usec;
};

SYSCALL(select)
{
	int64_t ns = -1;
	if (a4) {
		struct linux_timeval tv;
		if (copyin(&tv, a4, sizeof(tv)))
			return -EFAULT;
		if (tv.sec < 0 || tv.usec < 0 || tv.usec >= 1000000)
			return -EINVAL;
		ns = tv.sec * 1000000000 + tv.usec * 1000;
	}
	const uintptr_t sets[3] = { a1, a2, a3 };
	return do_select((int)a0, sets, deadline_after(ns));
}

SYSCALL(pselect6)
{
	int64_t ns = timespec_ns(a4);
	if (ns < -1)
		return ns;
	/* The sixth argument points at { const sigset_t *ss; size_t ss_len; }. */
	uint64_t sig[2] = { 0, 0 };
	if (a5 && copyin(sig, a5, sizeof(sig)))
		return -EFAULT;
	uint64_t old = 0;
	bool swapped;
	int r = with_mask(sig[0], sig[1], &old, &swapped);
	if (r)
		return r;
	const uintptr_t sets[3] = { a1, a2, a3 };
	int64_t out = do_select((int)a0, sets, deadline_after(ns));
	restore_mask(old, swapped);
	return out;
}
