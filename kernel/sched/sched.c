// SPDX-License-Identifier: BSD-2-Clause
/*
 * The scheduler's mechanism: switching threads, sleeping and waking,
 * ticks and preemption, idle loops, thread exit and join. What policies
 * see is the live instance of the portable run queue (scion/runq.h,
 * runq.c), sched_rq; the mechanism fires the scheduler's input and
 * output events (sched.event, sched.pick) that recording grafts watch,
 * and describes its state for a recording's start (sched_snapshot).
 *
 * sched_lock guards thread states, the run queue, each CPU's
 * current thread and need_resched, the deadline list and the event
 * sequence number. It is held
 * across a switch: the thread switching out takes it, the thread
 * switched in releases it (for a new thread, thread_first_run does), so
 * no other CPU can pick a thread whose registers are still being saved.
 *
 * Lock order: waitq locks -> sched_lock -> threads_lock, vmap, heap.
 *
 * The sched provider (DTrace's names; gated sites, scion/sdt.h: while
 * disabled each is a test of its gate, its arguments not even loaded, as
 * a switch passes five of them): arg0 the thread's tid, arg1 the CPU.
 *   sched:::on-cpu    in the thread switched in, just after the switch
 *                     (tid and curthread are that thread)
 *   sched:::off-cpu   in the thread switching out, just before it; arg0 is
 *                     the thread that will run next, as in DTrace
 *   sched:::enqueue   a thread was put on the run queue
 *   sched:::dequeue   the policy's pick took a thread off it
 *   sched:::sleep     the running thread blocks (sleeps or joins)
 *   sched:::wakeup    a sleeping thread is made runnable (by the waker,
 *                     or the tick for a deadline; arg0 the sleeper)
 *   sched:::preempt   the running thread is preempted (its slice ended at
 *                     a tick, or a resched interrupt came)
 *   sched:::tick      a clock tick charged to the running thread (not idle)
 * The switch's sites (switch_here's, pick_next's dequeue) share one gate,
 * switch_gate: thread_yield tests it once and, while it is shut, switches
 * through a copy of switch_here without them but for on-cpu (which a
 * probe enabled while the thread was switched out must see), and through
 * switch_to_next, with them all, while any of them is enabled.
 * Every site runs with sched_lock held and interrupts masked, as the
 * older sdt:::thread-switch did: consumers run in probe context (the
 * per-CPU in-probe guard of kernel/probe/dispatch.c: a hit taken inside
 * a consumer is counted missed, never run), and nothing a consumer runs
 * takes sched_lock, so firing here neither recurses nor deadlocks.
 */
#include <scion/sdt.h>
#include <scion/sched.h>
#include <scion/spinlock_body.h>
#include <scion/clock.h>
#include <scion/boot.h>
#include <scion/cpu.h>
#include <scion/printk.h>
#include <scion/mm.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/recfmt.h>
#include <arch/cpu.h>
#include <arch/smp.h>
#include <arch/context.h>
#include "sched_internal.h"

struct spinlock sched_lock = SPINLOCK_INIT("sched");
/* sched_lock: the live run queue, its policies the graft points' slots */
struct sched_runq sched_rq = {
	.queue = LIST_HEAD_INIT(sched_rq.queue),
	.pick_next = &sched_policy.pick_next,
	.tick = &sched_policy.tick,
};
/* The switch path's sites' gate (see the top). */
static SDT_GATE_DEFINE(switch_gate);
/* A site of the switch path; compiled out of thread_yield's quiet copy of it. */
#define SWITCH_SITE4(quiet, name, a0, a1, a2, a3) do {				\
	if (!(quiet))								\
		SDT_SHARED4_P(switch_gate, sched, name, a0, a1, a2, a3);	\
} while (0)
static LIST_HEAD(deadlines);	/* sched_lock: sleepers with a deadline, earliest first */
static uint64_t sched_seq;	/* sched_lock: the last event's or pick's number */

extern char bsp_boot_stack[], bsp_boot_stack_top[];
static struct thread boot_idle_thread;

static void arm_deadline(struct thread *t, uint64_t tick)
{
	t->wake_tick = tick;
	t->timed_out = false;
	list_foreach(&deadlines, it) {
		if (list_entry(it, struct thread, timer_node)->wake_tick > tick) {
			list_insert_between(&t->timer_node, it->prev, it);
			return;
		}
	}
	list_add_tail(&deadlines, &t->timer_node);
}

static void disarm_deadline(struct thread *t)
{
	if (list_linked(&t->timer_node))
		list_remove(&t->timer_node);
}

/* Ask an idle CPU that may run t to reschedule. */
static void kick_idle_cpu(const struct thread *t)
{
	struct cpu *me = this_cpu();
	unsigned n = cpu_count();

	for (unsigned i = 0; i < n; i++) {
		struct cpu *c = cpu_by_index(i);
		if (!sched_entity_allowed(&t->se, i))
			continue;
		if (c->current != c->idle || c->need_resched)
			continue;
		c->need_resched = true;
		if (c != me)
			arch_send_ipi(i, IPI_RESCHED);
		return;
	}
}

/* fire_event's describing half, out of line: only a recorder or a graft wants it. */
static __noinline void describe_event(graft_fn_sched_event *handler, unsigned kind,
				      const struct thread *t)
{
	struct sched_event e = {
		.seq = ++sched_seq, .tick = clock_ticks(), .tid = t->tid, .kind = kind,
		.cpu = this_cpu_index(), .affinity = t->se.affinity,
	};
	handler(&e);
}

/* Fire sched.event for what t did on this CPU. sched_lock held. */
static inline void fire_event(unsigned kind, const struct thread *t)
{
	graft_fn_sched_event *handler = READ_ONCE(sched_policy.event);

	if (handler != sched_event_ignored)
		describe_event(handler, kind, t);
}

/* Tell fn that t is in start-state kind (scion/recfmt.h) on CPU cpu, numbered as an event. */
static void describe_thread(uint32_t kind, const struct thread *t, unsigned cpu,
			    sched_snapshot_fn *fn, void *ctx)
{
	struct sched_event e = {
		.seq = ++sched_seq, .tick = clock_ticks(), .tid = t->tid, .kind = kind, .cpu = cpu,
		.affinity = t->se.affinity,
	};
	fn(&e, &t->se, ctx);
}

struct snapshot_walk {
	sched_snapshot_fn *fn;
	void *ctx;
	unsigned cpu;
};

static void describe_sleeper(struct thread *t, void *arg)
{
	struct snapshot_walk *w = arg;
	if (t->state == THREAD_SLEEPING && !t->is_idle)
		describe_thread(SCHED_EVENT_SLEEPING, t, w->cpu, w->fn, w->ctx);
}

void sched_snapshot(sched_snapshot_fn *fn, void *ctx)
{
	struct snapshot_walk w = { fn, ctx, this_cpu_index() };
	unsigned n = cpu_count();

	/* No switch is half done: a switch holds sched_lock from start to end. */
	for (unsigned i = 0; i < n; i++) {
		const struct thread *t = cpu_by_index(i)->current;
		if (t && !t->is_idle)
			describe_thread(SCHED_EVENT_RUNNING, t, i, fn, ctx);
	}
	list_foreach(&sched_rq.queue, it) {
		struct sched_entity *e = list_entry(it, struct sched_entity, run_node);
		describe_thread(SCHED_EVENT_QUEUED, container_of(e, struct thread, se), w.cpu, fn,
				ctx);
	}
	/* A thread being created is neither queued nor sleeping yet: its RUNNABLE event comes. */
	thread_foreach(describe_sleeper, &w);
}

bool sched_runnable_on(const struct cpu *c)
{
	return sched_rq_runnable_on(&sched_rq, c->index);
}

void sched_make_runnable(struct thread *t)
{
	t->state = THREAD_RUNNABLE;
	sched_rq_enqueue(&sched_rq, &t->se);
	SDT_GATED4_P(sched, enqueue, t->tid, this_cpu_index(), t, this_cpu());
	fire_event(SCHED_EVENT_RUNNABLE, t);
	kick_idle_cpu(t);
}

/* pick_next's describing half: only a recorder or a graft wants it. */
static __always_inline void describe_pick(graft_fn_sched_pick *handler, const struct cpu *c,
					  const struct thread *prev, const struct thread *next,
					  unsigned queued)
{
	struct sched_pick p = {
		.seq = ++sched_seq, .tick = clock_ticks(), .tid = next ? next->tid : 0,
		.prev = prev->is_idle ? 0 : prev->tid, .cpu = c->index, .queued = queued,
	};
	handler(&p);
}

/*
 * The policy's choice for c, where prev is running (switching away, or
 * staying when chosen again), taken off the run queue; sched.pick is
 * told. NULL: idle.
 */
static __always_inline struct thread *pick_next(struct cpu *c, struct thread *prev, bool quiet)
{
	unsigned queued = sched_rq.length;
	struct sched_entity *e = sched_rq_pick(&sched_rq, c->index, &prev->se, c);
	struct thread *next = e ? container_of(e, struct thread, se) : NULL;
	if (next)
		SWITCH_SITE4(quiet, dequeue, next->tid, c->index, next, c);
	graft_fn_sched_pick *handler = READ_ONCE(sched_policy.pick);
	if (handler != sched_pick_ignored)
		describe_pick(handler, c, prev, next, queued);
	return next;
}

/* Make a sleeping thread runnable: sched:::wakeup, then enqueue. sched_lock held. */
static void wake_sleeper(struct thread *t)
{
	SDT_GATED4_P(sched, wakeup, t->tid, this_cpu_index(), t, this_cpu());
	sched_make_runnable(t);
}

/* finish_switch's half for a thread that ended: wake its joiner; a detached one is reaped. */
static __noinline struct thread *finish_dead(struct thread *prev)
{
	struct thread *joiner = prev->joiner;
	if (joiner && joiner->state == THREAD_SLEEPING) {
		disarm_deadline(joiner);
		wake_sleeper(joiner);
	}
	return prev->detached ? prev : NULL;
}

/* The switch has happened; prev is the thread switched away from. */
static inline struct thread *finish_switch(struct thread *prev)
{
	prev->on_cpu = false;
	if (likely(prev->state != THREAD_DEAD))
		return NULL;
	return finish_dead(prev);
}

/*
 * Run another thread on this CPU, c, if there is one to run. The caller
 * holds sched_lock and has set its own state (RUNNING means it stays
 * runnable); preempted_pc is where an interrupt stopped it (0 when it
 * gives up the CPU itself). Returns with sched_lock held, in the
 * caller's thread once it runs again, with a dead detached thread to
 * release (after unlocking) or NULL. Inline in thread_yield, the
 * commonest switch, as its quiet copy (quiet: no sites but on-cpu, while
 * switch_gate is shut); every other caller, and thread_yield while the
 * gate is open, calls switch_to_next, which has them all.
 */
static __always_inline struct thread *switch_here(struct cpu *c, uintptr_t preempted_pc,
						  bool quiet)
{
	struct thread *prev = c->current;

	if (unlikely(c->lock_depth != 1))
		panic("thread '%s' switches away holding %u spinlock(s) besides sched_lock",
		      prev->name, c->lock_depth - 1);
	if (prev->state == THREAD_RUNNING && !prev->is_idle) {
		if (!preempted_pc)
			fire_event(SCHED_EVENT_YIELD, prev);
		else
			SWITCH_SITE4(quiet, preempt, prev->tid, c->index, prev, c);
		prev->state = THREAD_RUNNABLE;
		sched_rq_enqueue(&sched_rq, &prev->se);
		SWITCH_SITE4(quiet, enqueue, prev->tid, c->index, prev, c);
	} else if (prev->state == THREAD_SLEEPING) {
		SWITCH_SITE4(quiet, sleep, prev->tid, c->index, prev, c);
		fire_event(SCHED_EVENT_BLOCK, prev);
	} else if (prev->state == THREAD_DEAD) {
		fire_event(SCHED_EVENT_EXIT, prev);
	}
	struct thread *next = pick_next(c, prev, quiet);
	if (!next)
		next = c->idle;
	c->need_resched = false;
	if (next == prev) {
		prev->state = THREAD_RUNNING;
		return NULL;
	}
	WRITE_ONCE(prev->preempted_pc, preempted_pc);
	next->state = THREAD_RUNNING;
	next->cpu = c;
	next->on_cpu = true;
	next->se.switches_in++;
	uint64_t now = arch_cycles();
	prev->run_cycles += now - prev->oncpu_since;
	next->oncpu_since = now;
	SWITCH_SITE4(quiet, off__cpu, next->tid, c->index, next, c);
	c->current = next;
	if (!quiet)
		SDT_SHARED2(switch_gate, thread__switch, prev->tid, next->tid);
	prev = arch_context_switch(prev, next);
	/*
	 * Back in this thread, perhaps on another CPU, which runs it: this CPU's
	 * current (reloaded, not kept across the switch, which clobbers the
	 * registers a value would be kept in).
	 */
	SDT_SHARED4_P(switch_gate, sched, on__cpu, this_cpu()->current->tid, this_cpu_index(),
		      this_cpu()->current, this_cpu());
	return finish_switch(prev);
}

/* switch_here out of line: for every caller but thread_yield. */
static __noinline struct thread *switch_to_next(uintptr_t preempted_pc)
{
	return switch_here(this_cpu(), preempted_pc, false);
}

/* Unlock sched_lock (keeping interrupts as they are) and release a reaped thread. */
static void unlock_and_reap(struct thread *reap)
{
	spin_unlock_noirq(&sched_lock);
	if (reap)
		thread_free(reap);
}

/* First C code of every new thread (from thread_trampoline). */
__noreturn void thread_first_run(struct thread *prev)
{
	struct thread *t = thread_current();
	SDT_GATED4_P(sched, on__cpu, t->tid, this_cpu_index(), t, this_cpu());
	unlock_and_reap(finish_switch(prev));
	arch_irq_enable();
	t->entry(t->arg);
	thread_exit(0);
}

/*
 * The commonest switch: interrupts masked here (spin_lock_irqsave would
 * keep the flags in a register of its own) and sched_lock's bodies
 * inline (scion/spinlock_body.h), as switch_here is.
 */
void thread_yield(void)
{
	irqflags_t f = arch_irq_save();
	struct cpu *c = spin_lock_body(&sched_lock);
	struct thread *reap = unlikely(arch_sdt_gate_open(&switch_gate)) ? switch_to_next(0) :
			      switch_here(c, 0, true);
	spin_unlock_body(&sched_lock);
	if (reap)
		thread_free(reap);
	arch_irq_restore(f);
}

bool thread_sleep_locked(struct spinlock *cond, uint64_t deadline)
{
	struct thread *t = this_cpu()->current;

	spin_lock_noirq(&sched_lock);
	spin_unlock_noirq(cond);
	t->state = THREAD_SLEEPING;
	t->timed_out = false;
	if (deadline)
		arm_deadline(t, deadline);
	struct thread *reap = switch_to_next(0);
	disarm_deadline(t);
	bool timed_out = t->timed_out;
	unlock_and_reap(reap);
	spin_lock_noirq(cond);
	return !timed_out;
}

void thread_sleep_ticks(uint64_t ticks)
{
	uint64_t deadline = clock_ticks() + ticks;

	irqflags_t f = spin_lock_irqsave(&sched_lock);
	struct thread *t = this_cpu()->current;
	while (clock_ticks() < deadline) {
		t->state = THREAD_SLEEPING;
		arm_deadline(t, deadline);
		struct thread *reap = switch_to_next(0);
		disarm_deadline(t);
		if (reap) {
			unlock_and_reap(reap);
			spin_lock_noirq(&sched_lock);
		}
	}
	spin_unlock_irqrestore(&sched_lock, f);
}

bool thread_wake(struct thread *t)
{
	bool woke = false;
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	if (t->state == THREAD_SLEEPING) {
		disarm_deadline(t);
		wake_sleeper(t);
		woke = true;
	}
	spin_unlock_irqrestore(&sched_lock, f);
	return woke;
}

void thread_exit(int code)
{
	arch_irq_disable();
	spin_lock_noirq(&sched_lock);
	struct thread *t = this_cpu()->current;
	if (t->is_idle)
		panic("idle thread of cpu %u tried to exit", this_cpu()->index);
	t->exit_code = code;
	t->state = THREAD_DEAD;
	SDT_PROBE2(thread__exit, t->tid, code);
	switch_to_next(0);
	panic("dead thread '%s' was scheduled again", t->name);
}

int thread_join_timeout(struct thread *t, uint64_t ticks, int *code)
{
	uint64_t deadline = ticks ? clock_ticks() + ticks : 0;
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	struct thread *me = this_cpu()->current;

	while (!(t->state == THREAD_DEAD && !t->on_cpu)) {
		if (deadline && clock_ticks() >= deadline) {
			t->joiner = NULL;
			spin_unlock_irqrestore(&sched_lock, f);
			return -ETIMEDOUT;
		}
		t->joiner = me;
		me->state = THREAD_SLEEPING;
		if (deadline)
			arm_deadline(me, deadline);
		struct thread *reap = switch_to_next(0);
		disarm_deadline(me);
		if (reap) {
			unlock_and_reap(reap);
			spin_lock_noirq(&sched_lock);
		}
	}
	t->joiner = NULL;
	if (code)
		*code = t->exit_code;
	spin_unlock_irqrestore(&sched_lock, f);
	thread_free(t);
	return 0;
}

int thread_join(struct thread *t)
{
	int code = 0;
	thread_join_timeout(t, 0, &code);
	return code;
}

/* Wake sleepers whose deadline has passed. sched_lock held. */
static void wake_expired(uint64_t now)
{
	while (!list_empty(&deadlines)) {
		struct thread *t = list_entry(deadlines.next, struct thread, timer_node);
		if (t->wake_tick > now)
			break;
		list_remove(&t->timer_node);
		t->timed_out = true;
		if (t->state == THREAD_SLEEPING)
			wake_sleeper(t);
	}
}

void sched_tick(void)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;

	c->ticks++;
	spin_lock_noirq(&sched_lock);
	if (c->index == 0)
		wake_expired(clock_ticks());
	if (t->is_idle) {
		c->idle_ticks++;
		if (sched_runnable_on(c))
			c->need_resched = true;
	} else {
		t->se.ticks_run++;
		SDT_GATED4_P(sched, tick, t->tid, c->index, t, c);
		fire_event(SCHED_EVENT_TICK, t);
		if (sched_rq_tick(&sched_rq, c->index, &t->se))
			c->need_resched = true;
	}
	spin_unlock_noirq(&sched_lock);
}

void sched_irq_exit(uintptr_t interrupted_pc)
{
	struct cpu *c = this_cpu();

	if (!c->need_resched || c->lock_depth || panic_in_progress)
		return;
	spin_lock_noirq(&sched_lock);
	unlock_and_reap(switch_to_next(interrupted_pc));
}

void sched_handle_resched_ipi(void)
{
	/* need_resched was set by the sender; the interrupt's exit switches. */
}

void sched_idle_loop(void)
{
	struct cpu *c = this_cpu();

	for (;;) {
		irqflags_t f = spin_lock_irqsave(&sched_lock);
		if (c->need_resched || sched_runnable_on(c)) {
			unlock_and_reap(switch_to_next(0));
			arch_irq_restore(f);
			continue;
		}
		spin_unlock_noirq(&sched_lock);
		arch_idle();	/* enables interrupts and waits, atomically */
	}
}

static void init_idle(struct thread *t, struct cpu *c)
{
	t->is_idle = true;
	t->state = THREAD_RUNNING;
	t->oncpu_since = boot_info.entry_cycles;	/* its CPU's time before it came online */
	t->se.affinity = (int)c->index;
	t->cpu = c;
	list_init(&t->se.run_node);
	list_init(&t->timer_node);
	snprintf(t->name, sizeof(t->name), "idle/%u", c->index);
	c->idle = t;
	thread_register(t);
}

void sched_init(void)
{
	struct cpu *c = cpu_by_index(0);
	struct thread *t = &boot_idle_thread;

	t->stack_base = (uintptr_t)bsp_boot_stack;
	t->stack_top = (uintptr_t)bsp_boot_stack_top;
	init_idle(t, c);
	t->on_cpu = true;
	c->current = t;
}

struct thread *sched_create_idle(struct cpu *c)
{
	struct thread *t = thread_alloc();
	if (t)
		init_idle(t, c);
	return t;
}

void sched_start_secondary(struct cpu *c)
{
	c->idle->on_cpu = true;
	c->current = c->idle;
}
