/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Cross-calls: run a function on another CPU, or on every CPU, and wait
 * until it has run everywhere.
 *
 * The function runs in interrupt context on the target CPU (interrupts
 * masked), and on the calling CPU with interrupts masked too. It must not
 * sleep or take a lock the caller holds.
 */
#ifndef SCION_XCALL_H
#define SCION_XCALL_H

#include <scion/compiler.h>

typedef void (*xcall_fn)(void *arg);

/*
 * A queued request for one target CPU. Lives on the caller's stack until
 * the target has run it.
 */
struct xcall_slot {
	xcall_fn fn;
	void *arg;
	unsigned *pending;		/* decremented once fn has returned */
	struct xcall_slot *next;	/* target cpu's xcall_lock */
};

/*
 * xcall_one - run fn(arg) on CPU cpu and wait for it.
 * Return value: 0, or -EINVAL if cpu is not online.
 * Caller's context: thread or boot, no spinlocks held (a target spinning
 *   on one with interrupts masked would never answer). While waiting the
 *   caller answers cross-calls aimed at it, so two CPUs calling each
 *   other do not deadlock.
 */
int xcall_one(unsigned cpu, xcall_fn fn, void *arg);

/* xcall_all - run fn(arg) on every online CPU, this one included, and wait. */
void xcall_all(xcall_fn fn, void *arg);

/* Run the cross-calls queued for this CPU (IPI handler; interrupt context). */
void xcall_handle_ipi(void);

#endif
