/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bodies of a spinlock's uncontended acquisition and of its release
 * (scion/spinlock.h), inline in kernel/core/spinlock.c's entry points
 * and in the one path that takes its lock without calling them: the
 * scheduler's thread_yield, the commonest switch, where the calls, the
 * frame and the argument moves were a tenth of the switch. Each function
 * a body is inlined into has its own lockstat sites (spinlock.c lists
 * the provider's probes; the names are the same D names).
 * Lock order: none (leaf code).
 */
#ifndef SCION_SPINLOCK_BODY_H
#define SCION_SPINLOCK_BODY_H

#include <scion/spinlock.h>
#include <scion/cpu.h>
#include <scion/printk.h>
#include <scion/sdt.h>

/* The lock was held when ticket was drawn: spin, then finish the acquisition (spinlock.c). */
void spin_lock_contended(struct spinlock *l, uint32_t ticket);

/* Take l as its holder on c: the end of every acquisition. */
static __always_inline void spin_became_holder(struct spinlock *l, struct cpu *c)
{
	l->holder_cpu = (int)c->index;
	c->lock_depth++;
	SDT_PROBE1_P(lockstat, spin__acquire, l);
}

/* Take l; interrupts are masked. Returns this CPU, l's holder now (one load for the caller). */
static __always_inline struct cpu *spin_lock_body(struct spinlock *l)
{
	struct cpu *c = this_cpu();

	if (unlikely(READ_ONCE(l->holder_cpu) == (int)c->index) && !panic_in_progress)
		panic("spinlock '%s' taken again by the CPU holding it", l->name);
	uint32_t ticket = __atomic_fetch_add(&l->next_ticket, 1, __ATOMIC_RELAXED);
	if (unlikely(__atomic_load_n(&l->now_serving, __ATOMIC_ACQUIRE) != ticket)) {
		spin_lock_contended(l, ticket);
		return c;
	}
	spin_became_holder(l, c);
	return c;
}

/* Release l, which this CPU holds; interrupts stay as they are. */
static __always_inline void spin_unlock_body(struct spinlock *l)
{
	struct cpu *c = this_cpu();

	if (unlikely(l->holder_cpu != (int)c->index) && !panic_in_progress)
		panic("spinlock '%s' released by CPU %u, which does not hold it", l->name,
		      c->index);
	l->holder_cpu = -1;
	c->lock_depth--;
	__atomic_store_n(&l->now_serving, l->now_serving + 1, __ATOMIC_RELEASE);
	SDT_PROBE1_P(lockstat, spin__release, l);
}

#endif
