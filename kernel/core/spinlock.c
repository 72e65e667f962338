// SPDX-License-Identifier: BSD-2-Clause
/*
 * Ticket spinlocks (see scion/spinlock.h). Tickets make the lock fair:
 * CPUs get it in the order they asked. The holder's CPU index is kept for
 * reports and for catching a CPU that takes a lock it already holds.
 */
#include <scion/spinlock.h>
#include <scion/atomic.h>
#include <scion/cpu.h>
#include <scion/printk.h>

void spin_lock_noirq(struct spinlock *l)
{
	struct cpu *c = this_cpu();

	if (unlikely(READ_ONCE(l->holder_cpu) == (int)c->index) && !panic_in_progress)
		panic("spinlock '%s' taken again by the CPU holding it", l->name);
	uint32_t ticket = __atomic_fetch_add(&l->next_ticket, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->now_serving, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
	l->holder_cpu = (int)c->index;
	c->lock_depth++;
}

void spin_unlock_noirq(struct spinlock *l)
{
	struct cpu *c = this_cpu();

	if (unlikely(l->holder_cpu != (int)c->index) && !panic_in_progress)
		panic("spinlock '%s' released by CPU %u, which does not hold it", l->name,
		      c->index);
	l->holder_cpu = -1;
	c->lock_depth--;
	__atomic_store_n(&l->now_serving, l->now_serving + 1, __ATOMIC_RELEASE);
}

irqflags_t spin_lock_irqsave(struct spinlock *l)
{
	irqflags_t flags = arch_irq_save();
	spin_lock_noirq(l);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, irqflags_t flags)
{
	spin_unlock_noirq(l);
	arch_irq_restore(flags);
}

bool spin_held_here(const struct spinlock *l)
{
	return READ_ONCE(l->holder_cpu) == (int)this_cpu()->index;
}
