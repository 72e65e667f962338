// SPDX-License-Identifier: BSD-2-Clause
/*
 * Cross-calls (see scion/xcall.h).
 *
 * A request is a slot per target CPU, on the caller's stack, queued on
 * the target's list under its xcall_lock, followed by an IPI. The target
 * runs every queued function in its IPI handler and then decrements the
 * caller's pending count: after that decrement it never touches the slot
 * again, because the caller may already have returned. The caller spins
 * on pending while answering requests aimed at itself.
 */
#include <scion/xcall.h>
#include <scion/cpu.h>
#include <scion/atomic.h>
#include <scion/errno.h>
#include <arch/cpu.h>
#include <arch/smp.h>

static void enqueue(struct cpu *target, struct xcall_slot *s)
{
	s->next = NULL;
	spin_lock_noirq(&target->xcall_lock);
	if (target->xcall_tail)
		target->xcall_tail->next = s;
	else
		target->xcall_head = s;
	target->xcall_tail = s;
	spin_unlock_noirq(&target->xcall_lock);
}

static struct xcall_slot *dequeue(struct cpu *c)
{
	spin_lock_noirq(&c->xcall_lock);
	struct xcall_slot *s = c->xcall_head;
	if (s) {
		c->xcall_head = s->next;
		if (!c->xcall_head)
			c->xcall_tail = NULL;
	}
	spin_unlock_noirq(&c->xcall_lock);
	return s;
}

void xcall_handle_ipi(void)
{
	struct cpu *c = this_cpu();
	struct xcall_slot *s;

	while ((s = dequeue(c)) != NULL) {
		xcall_fn fn = s->fn;
		void *arg = s->arg;
		unsigned *pending = s->pending;
		fn(arg);
		c->xcalls++;
		atomic_sub(pending, 1);
	}
}

static void wait_for(unsigned *pending)
{
	while (atomic_load(pending)) {
		irqflags_t f = arch_irq_save();
		xcall_handle_ipi();
		arch_irq_restore(f);
		cpu_relax();
	}
}

int xcall_one(unsigned cpu, xcall_fn fn, void *arg)
{
	if (cpu >= cpu_count())
		return -EINVAL;
	irqflags_t f = arch_irq_save();
	if (cpu == this_cpu_index()) {
		fn(arg);
		this_cpu()->xcalls++;
		arch_irq_restore(f);
		return 0;
	}
	unsigned pending = 1;
	struct xcall_slot slot = { .fn = fn, .arg = arg, .pending = &pending };
	enqueue(cpu_by_index(cpu), &slot);
	arch_send_ipi(cpu, IPI_XCALL);
	arch_irq_restore(f);
	wait_for(&pending);
	return 0;
}

void xcall_all(xcall_fn fn, void *arg)
{
	struct xcall_slot slots[MAX_CPUS];
	irqflags_t f = arch_irq_save();
	unsigned me = this_cpu_index();
	unsigned n = cpu_count();
	unsigned pending = n - 1;

	for (unsigned i = 0; i < n; i++) {
		if (i == me)
			continue;
		slots[i] = (struct xcall_slot){ .fn = fn, .arg = arg, .pending = &pending };
		enqueue(cpu_by_index(i), &slots[i]);
		arch_send_ipi(i, IPI_XCALL);
	}
	fn(arg);
	this_cpu()->xcalls++;
	arch_irq_restore(f);
	wait_for(&pending);
}
