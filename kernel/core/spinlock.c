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
 * The bodies are inline (scion/spinlock_body.h) in each entry point here
 * and in thread_yield, so each of those functions has its own sites:
 * lockstat:kernel:spin_lock_irqsave:spin-acquire,
 * lockstat:kernel:spin_lock_noirq:spin-acquire and
 * lockstat:kernel:thread_yield:spin-acquire are one D name.
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
#include <scion/spinlock_body.h>
#include <scion/atomic.h>
#include <scion/cpu.h>
#include <scion/printk.h>
#include <scion/clock.h>
#include <scion/sdt.h>

/*
 * The lock was held when ticket was drawn: spin until it is served,
 * timing the wait, and finish the acquisition. Out of line, and the last
 * thing an acquisition does, so that the uncontended path keeps nothing
 * in a callee-saved register across it.
 */
__noinline void spin_lock_contended(struct spinlock *l, uint32_t ticket)
{
	uint64_t start = arch_cycles();
	while (__atomic_load_n(&l->now_serving, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
	SDT_PROBE2_P(lockstat, spin__spin, l, clock_cycles_to_ns(arch_cycles() - start));
	spin_became_holder(l, this_cpu());
}

void spin_lock_noirq(struct spinlock *l)
{
	spin_lock_body(l);
}

void spin_unlock_noirq(struct spinlock *l)
{
	spin_unlock_body(l);
}

irqflags_t spin_lock_irqsave(struct spinlock *l)
{
	irqflags_t flags = arch_irq_save();
	spin_lock_body(l);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, irqflags_t flags)
{
	spin_unlock_body(l);
	arch_irq_restore(flags);
}

bool spin_held_here(const struct spinlock *l)
{
	return READ_ONCE(l->holder_cpu) == (int)this_cpu()->index;
}
