/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sleeping mutual exclusion for threads: for long critical sections that
 * may sleep or cross-call other CPUs (which a spinlock holder must not).
 */
#ifndef SCION_MUTEX_H
#define SCION_MUTEX_H

#include <scion/wait.h>

struct mutex {
	struct waitq wq;
	struct thread *owner;	/* wq.lock */
};

#define MUTEX_INIT(m, name) { WAITQ_INIT((m).wq, name), NULL }

/* Caller's context: thread, no spinlocks held; may sleep. */
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);
bool mutex_held_by_me(struct mutex *m);

#endif
