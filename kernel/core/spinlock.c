// SPDX-License-Identifier: BSD-2-Clause
/*
 * Ticket spinlocks (see scion/spinlock.h). Tickets make the lock fair:
 * CPUs get it in the order they asked. The holder's CPU index is kept for
 * reports and for catching a CPU that takes a lock it already holds.
 *
 * The lockstat provider's spin probes (DTrace's names; arg0 the lock's
 * address):
 *   lockstat:::spin-acquire  the lock was taken (after any spinning)
 *   lockstat:::spin-spin     it was contended: arg1 the nanoseconds spun;
 *                            fires before that acquisition's spin-acquire
 *   lockstat:::spin-release  the lock was released
 * Each is an sdt site (scion/sdt.h): one no-op while disabled. The
 * uncontended path pays that no-op and moving the address into the
 * argument register, nothing else; the cycle counter is read only by a
 * CPU that found the lock held, around its spinning (spin_lock_contended).
 *
 * No recursion: these sites fire inside every lock, including the few a
 * consumer takes while it runs (the D engine's dynamic-variable and
 * speculation locks). The rule is the dispatch path's per-CPU in-probe
 * guard (cpu_probe_running, kernel/probe/dispatch.c): a site hit while
 * this CPU already runs consumers counts as missed on that probe and
 * runs nothing. The dispatch path itself takes no spinlock (the
 * probe entry points reach only .text.noprobe, tools/check_noprobe.py),
 * so the guard is reached before any lock could be taken again.
 * Lock order: none (leaf code).
 */
#include <scion/spinlock.h>
#include <scion/atomic.h>
#include <scion/cpu.h>
#include <scion/printk.h>
#include <scion/clock.h>
#include <scion/sdt.h>

/* Take l as its holder on c: the end of every acquisition. */
static __always_inline void became_holder(struct spinlock *l, struct cpu *c)
{
	l->holder_cpu = (int)c->index;
	c->lock_depth++;
	SDT_PROBE1_P(lockstat, spin__acquire, l);
}

/*
 * The lock was held when ticket was drawn: spin until it is served,
 * timing the wait, and finish the acquisition. Out of line, and the last
 * thing spin_lock_noirq does, so that the uncontended path keeps nothing
 * in a callee-saved register across it.
 */
static __noinline void spin_lock_contended(struct spinlock *l, uint32_t ticket)
{
	uint64_t start = arch_cycles();
	while (__atomic_load_n(&l->now_serving, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
	SDT_PROBE2_P(lockstat, spin__spin, l, clock_cycles_to_ns(arch_cycles() - start));
	became_holder(l, this_cpu());
}

/*
 * Both entry points inline the body (as the compiler did before the sites
 * were added; an asm statement counts as large to its inliner), so each
 * has its own sites: lockstat:kernel:spin_lock_irqsave:spin-acquire and
 * lockstat:kernel:spin_lock_noirq:spin-acquire are one D name.
 */
static __always_inline void lock_body(struct spinlock *l)
{
	struct cpu *c = this_cpu();

	if (unlikely(READ_ONCE(l->holder_cpu) == (int)c->index) && !panic_in_progress)
		panic("spinlock '%s' taken again by the CPU holding it", l->name);
	uint32_t ticket = __atomic_fetch_add(&l->next_ticket, 1, __ATOMIC_RELAXED);
	if (unlikely(__atomic_load_n(&l->now_serving, __ATOMIC_ACQUIRE) != ticket)) {
		spin_lock_contended(l, ticket);
		return;
	}
	became_holder(l, c);
}

void spin_lock_noirq(struct spinlock *l)
{
	lock_body(l);
}

static __always_inline void unlock_body(struct spinlock *l)
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

void spin_unlock_noirq(struct spinlock *l)
{
	unlock_body(l);
}

irqflags_t spin_lock_irqsave(struct spinlock *l)
{
	irqflags_t flags = arch_irq_save();
	lock_body(l);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, irqflags_t flags)
{
	unlock_body(l);
	arch_irq_restore(flags);
}

bool spin_held_here(const struct spinlock *l)
{
	return READ_ONCE(l->holder_cpu) == (int)this_cpu()->index;
}
