// SPDX-License-Identifier: BSD-2-Clause
/*
 * Creating, listing and releasing threads. Switching, sleeping and ending
 * them is in sched.c.
 *
 * all_threads (threads_lock) holds every thread from creation until its
 * memory is released, dead ones included, so `threads` shows them.
 */
#include <scion/sdt.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/printk.h>
#include <scion/atomic.h>
#include <scion/errno.h>
#include <scion/clock.h>
#include <arch/cpu.h>
#include "sched_internal.h"

static struct spinlock threads_lock = SPINLOCK_INIT("threads");
static LIST_HEAD(all_threads);	/* threads_lock */
static uint64_t next_tid = 1;

static uint64_t allocate_tid(void)
{
	return atomic_fetch_add(&next_tid, 1);
}

void thread_register(struct thread *t)
{
	if (!t->tid)
		t->tid = allocate_tid();
	t->se.tid = t->tid;
	t->se.handle = t;
	irqflags_t f = spin_lock_irqsave(&threads_lock);
	list_add_tail(&all_threads, &t->all_node);
	spin_unlock_irqrestore(&threads_lock, f);
}

struct thread *thread_alloc(void)
{
	struct thread *t = kzalloc(sizeof(*t));
	if (!t)
		return NULL;
	t->stack_base = vmap_stack_alloc(THREAD_STACK_SIZE);
	if (!t->stack_base) {
		kfree(t);
		return NULL;
	}
	t->stack_top = t->stack_base + THREAD_STACK_SIZE;
	list_init(&t->se.run_node);
	list_init(&t->timer_node);
	return t;
}

int thread_set_affinity(struct thread *t, int cpu)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	int was = t->se.affinity;
	t->se.affinity = cpu;
	spin_unlock_irqrestore(&sched_lock, f);
	return was;
}

struct thread *thread_create(const char *name, thread_fn fn, void *arg, int cpu)
{
	if (cpu < -1 || cpu >= MAX_CPUS)
		return NULL;
	struct thread *t = thread_alloc();
	if (!t)
		return NULL;
	strlcpy(t->name, name, sizeof(t->name));
	t->entry = fn;
	t->arg = arg;
	t->se.affinity = cpu;
	arch_context_init(t, t->stack_top);
	thread_register(t);
	SDT_PROBE2(thread__create, t->tid, cpu);

	irqflags_t f = spin_lock_irqsave(&sched_lock);
	sched_make_runnable(t);
	spin_unlock_irqrestore(&sched_lock, f);
	return t;
}

int thread_spawn(const char *name, thread_fn fn, void *arg, int cpu)
{
	struct thread *t = thread_create(name, fn, arg, cpu);
	if (!t)
		return -ENOMEM;
	thread_detach(t);
	return 0;
}

void thread_free(struct thread *t)
{
	irqflags_t f = spin_lock_irqsave(&threads_lock);
	list_remove(&t->all_node);
	spin_unlock_irqrestore(&threads_lock, f);
	if (t->stack_base && !t->is_idle)
		vmap_stack_free(t->stack_base, t->stack_top - t->stack_base);
	kfree(t);
}

void thread_detach(struct thread *t)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	bool free_now = t->state == THREAD_DEAD && !t->on_cpu;
	t->detached = true;
	spin_unlock_irqrestore(&sched_lock, f);
	if (free_now)
		thread_free(t);
}

void thread_foreach(void (*fn)(struct thread *t, void *arg), void *arg)
{
	irqflags_t f = spin_lock_irqsave(&threads_lock);
	list_foreach(&all_threads, it)
		fn(list_entry(it, struct thread, all_node), arg);
	spin_unlock_irqrestore(&threads_lock, f);
}

void sched_foreach_thread(void (*fn)(struct thread *t, void *arg), void *arg)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	thread_foreach(fn, arg);
	spin_unlock_irqrestore(&sched_lock, f);
}

struct thread *thread_current(void)
{
	/* Masked, so the thread cannot move to another CPU between the two loads. */
	irqflags_t f = arch_irq_save();
	struct thread *t = this_cpu()->current;
	arch_irq_restore(f);
	return t;
}

uint64_t thread_cpu_ns_self(void)
{
	/* Masked: no switch can move run_cycles and oncpu_since between the loads. */
	irqflags_t f = arch_irq_save();
	uint64_t ns = thread_on_cpu_ns(this_cpu()->current, arch_cycles());
	arch_irq_restore(f);
	return ns;
}

uint64_t thread_on_cpu_ns(const struct thread *t, uint64_t now)
{
	uint64_t cycles = t->run_cycles;
	if (t->cpu && t->cpu->current == t && now > t->oncpu_since)
		cycles += now - t->oncpu_since;
	return clock_cycles_to_ns(cycles);
}

const char *thread_state_name(enum thread_state s)
{
	switch (s) {
	case THREAD_RUNNABLE: return "runnable";
	case THREAD_RUNNING: return "running";
	case THREAD_SLEEPING: return "sleeping";
	case THREAD_DEAD: return "dead";
	}
	return "?";
}
