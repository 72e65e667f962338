/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Ticket spinlocks that mask interrupts while held.
 *
 * Every spinlock in Scion is taken with interrupts masked on the holding
 * CPU, so a thread is never preempted or interrupted while holding one
 * and an interrupt handler can never deadlock against the code it
 * interrupted. Each CPU counts the spinlocks it holds (cpu->lock_depth);
 * the scheduler and the fault handler use the count to know whether it
 * is safe to switch threads or to kill the faulting one.
 */
#ifndef SCION_SPINLOCK_H
#define SCION_SPINLOCK_H

#include <scion/compiler.h>
#include <arch/cpu.h>

struct spinlock {
	uint32_t next_ticket;
	uint32_t now_serving;
	int holder_cpu;		/* CPU index while held, -1 when free */
	const char *name;
};

#define SPINLOCK_INIT(lockname) { 0, 0, -1, lockname }

static inline void spin_init(struct spinlock *l, const char *name)
{
	*l = (struct spinlock)SPINLOCK_INIT(name);
}

/* Mask interrupts, take l, return the previous interrupt state. */
irqflags_t spin_lock_irqsave(struct spinlock *l);
/* Release l and restore the interrupt state spin_lock_irqsave returned. */
void spin_unlock_irqrestore(struct spinlock *l, irqflags_t flags);

/* Take and release l when the caller has already masked interrupts. */
void spin_lock_noirq(struct spinlock *l);
void spin_unlock_noirq(struct spinlock *l);

/* True when the executing CPU holds l. */
bool spin_held_here(const struct spinlock *l);

#endif
