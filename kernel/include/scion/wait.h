/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Wait queues: threads sleep until a condition, guarded by the queue's
 * lock, becomes true; whoever makes it true calls waitq_wake_all.
 */
#ifndef SCION_WAIT_H
#define SCION_WAIT_H

#include <scion/spinlock.h>
#include <scion/list.h>
#include <scion/clock.h>

struct thread;

struct waiter {
	struct list_node node;	/* waitq->lock */
	struct thread *thread;
};

struct waitq {
	struct spinlock lock;
	struct list_node waiters;	/* lock: struct waiter */
};

#define WAITQ_INIT(wq, name) { SPINLOCK_INIT(name), LIST_HEAD_INIT((wq).waiters) }

void waitq_init(struct waitq *wq, const char *name);

/*
 * waitq_sleep - with wq->lock held (taken by spin_lock_irqsave), sleep
 * until woken or until timeout_ticks pass (0: no timeout). wq->lock is
 * held again on return. Return value: false on timeout.
 */
bool waitq_sleep(struct waitq *wq, uint64_t timeout_ticks);

/* Wake every thread sleeping on wq. Any context. */
void waitq_wake_all(struct waitq *wq);

/*
 * wait_event - sleep until cond (evaluated under wq->lock) holds.
 * Caller's context: thread, no spinlocks held.
 */
#define wait_event(wq, cond) do { \
	irqflags_t wait_flags_ = spin_lock_irqsave(&(wq)->lock); \
	while (!(cond)) \
		waitq_sleep((wq), 0); \
	spin_unlock_irqrestore(&(wq)->lock, wait_flags_); \
} while (0)

/* As wait_event, giving up after ticks timer ticks; evaluates to whether cond holds. */
#define wait_event_timeout(wq, cond, ticks) ({ \
	irqflags_t wait_flags_ = spin_lock_irqsave(&(wq)->lock); \
	uint64_t wait_deadline_ = clock_ticks() + (ticks); \
	bool wait_ok_; \
	while (!(wait_ok_ = (cond)) && clock_ticks() < wait_deadline_) \
		waitq_sleep((wq), wait_deadline_ - clock_ticks()); \
	spin_unlock_irqrestore(&(wq)->lock, wait_flags_); \
	wait_ok_; \
})

#endif
