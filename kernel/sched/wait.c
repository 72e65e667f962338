// SPDX-License-Identifier: BSD-2-Clause
/*
 * Wait queues and mutexes, built on thread_sleep_locked.
 *
 * A sleeper puts a struct waiter (on its own stack) on the queue under
 * the queue's lock; the waker takes waiters off the queue before waking
 * them, and the sleeper takes itself off if it woke for another reason
 * (a deadline), so a waiter is never left on a queue after it returns.
 *
 * Mutexes are the lockstat provider's adaptive locks (DTrace's names;
 * arg0 the mutex's address; sdt sites, one no-op each while disabled):
 *   lockstat:::adaptive-acquire  the mutex was taken (after any blocking)
 *   lockstat:::adaptive-block    it was held, the thread slept and has now
 *                                taken it: arg1 the nanoseconds blocked;
 *                                fires before that adaptive-acquire
 *   lockstat:::adaptive-release  the mutex was released
 * Only a thread that found the mutex held reads the clock.
 * Lock order: a mutex -> its wait queue's lock -> sched_lock.
 */
#include <scion/wait.h>
#include <scion/mutex.h>
#include <scion/sched.h>
#include <scion/printk.h>
#include <scion/clock.h>
#include <scion/sdt.h>

void waitq_init(struct waitq *wq, const char *name)
{
	spin_init(&wq->lock, name);
	list_init(&wq->waiters);
}

bool waitq_sleep(struct waitq *wq, uint64_t timeout_ticks)
{
	struct waiter w = { .thread = this_cpu()->current };

	list_add_tail(&wq->waiters, &w.node);
	bool woken = thread_sleep_locked(&wq->lock,
					 timeout_ticks ? clock_ticks() + timeout_ticks : 0);
	if (list_linked(&w.node))
		list_remove(&w.node);
	return woken;
}

void waitq_wake_all(struct waitq *wq)
{
	irqflags_t f = spin_lock_irqsave(&wq->lock);
	while (!list_empty(&wq->waiters)) {
		struct waiter *w = list_entry(wq->waiters.next, struct waiter, node);
		list_remove(&w->node);
		thread_wake(w->thread);
	}
	spin_unlock_irqrestore(&wq->lock, f);
}

void mutex_lock(struct mutex *m)
{
	struct thread *me = thread_current();

	irqflags_t f = spin_lock_irqsave(&m->wq.lock);
	if (m->owner == me)
		panic("mutex '%s' locked twice by thread '%s'", m->wq.lock.name, me->name);
	if (unlikely(m->owner)) {
		uint64_t start = clock_ns();
		while (m->owner)
			waitq_sleep(&m->wq, 0);
		SDT_PROBE2_P(lockstat, adaptive__block, m, clock_ns() - start);
	}
	m->owner = me;
	SDT_PROBE1_P(lockstat, adaptive__acquire, m);
	spin_unlock_irqrestore(&m->wq.lock, f);
}

void mutex_unlock(struct mutex *m)
{
	irqflags_t f = spin_lock_irqsave(&m->wq.lock);
	if (m->owner != thread_current())
		panic("mutex '%s' unlocked by a thread that does not hold it", m->wq.lock.name);
	m->owner = NULL;
	SDT_PROBE1_P(lockstat, adaptive__release, m);
	spin_unlock_irqrestore(&m->wq.lock, f);
	waitq_wake_all(&m->wq);
}

bool mutex_held_by_me(struct mutex *m)
{
	return READ_ONCE(m->owner) == thread_current();
}
