/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the scheduler's in-kernel tests share: pinning a thread to a CPU
 * for the length of a test (the affinity is sched_lock's).
 */
#ifndef TESTS_KERNEL_SCHED_TEST_H
#define TESTS_KERNEL_SCHED_TEST_H

#include <scion/thread.h>
#include <scion/sched.h>

/* Set th's affinity to cpu (-1: any); returns the one it had. Takes effect at its next switch. */
static inline int sched_test_pin(struct thread *th, int cpu)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	int was = th->se.affinity;
	th->se.affinity = cpu;
	spin_unlock_irqrestore(&sched_lock, f);
	return was;
}

#endif
