/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The scheduler: mechanism here and in kernel/sched/sched.c, policy behind
 * struct sched_policy so that it can be replaced (a graft will).
 *
 * There is one run queue for all CPUs, owned by the policy and guarded by
 * sched_lock. Preemption happens only when an interrupt returns to a
 * thread that holds no spinlock, or when a thread calls schedule().
 */
#ifndef SCION_SCHED_H
#define SCION_SCHED_H

#include <scion/thread.h>
#include <scion/cpu.h>

extern struct spinlock sched_lock;

/*
 * The scheduling policy's method table (the graft point for scheduling
 * policies). Every method is called with sched_lock held and interrupts
 * masked; none may sleep, allocate or take a lock other than those the
 * policy owns (lock order: sched_lock first).
 */
struct sched_policy {
	const char *name;
	/*
	 * enqueue - Overview: t became runnable (created, woken, preempted
	 *   or yielding); add it to the run queue.
	 * Arguments: t, state THREAD_RUNNABLE, not on the queue.
	 * Return value: none.
	 * Caller's context: sched_lock held, interrupts masked; any CPU, in
	 *   thread or interrupt context; may not sleep.
	 */
	void (*enqueue)(struct thread *t);
	/*
	 * pick_next - Overview: choose the thread c runs next and take it
	 *   off the run queue.
	 * Arguments: c, the CPU asking (the executing CPU).
	 * Return value: a queued thread whose affinity allows c, or NULL to
	 *   run c's idle thread.
	 * Caller's context: sched_lock held, interrupts masked, in the
	 *   middle of a switch; may not sleep.
	 */
	struct thread *(*pick_next)(struct cpu *c);
	/*
	 * tick - Overview: t, the thread running on the executing CPU, was
	 *   charged one timer tick.
	 * Arguments: t, never an idle thread.
	 * Return value: true to preempt t at the end of the interrupt.
	 * Caller's context: the timer interrupt, sched_lock held; may not sleep.
	 */
	bool (*tick)(struct thread *t);
	/*
	 * runnable - Overview: whether the queue holds a thread c may run;
	 *   lets an idle CPU decide to switch without taking a thread.
	 * Arguments: c, the executing CPU.
	 * Return value: true when pick_next(c) would return a thread.
	 * Caller's context: sched_lock held, interrupts masked, thread or
	 *   timer interrupt; may not sleep.
	 */
	bool (*runnable)(struct cpu *c);
};

/* The policy in force. Changed only under sched_lock. */
extern const struct sched_policy *sched_policy;
extern const struct sched_policy sched_policy_round_robin;

/* Give up the CPU; the caller stays runnable. Caller's context: thread, no spinlocks. */
void thread_yield(void);

/*
 * thread_sleep_locked - put the calling thread to sleep.
 * The caller holds cond (with interrupts masked) and has arranged for a
 * waker to find it; cond is released only once the thread is marked
 * sleeping, so no wakeup is lost, and taken again before returning.
 * Arguments: deadline, a clock_ticks() value after which the thread
 *   wakes by itself, or 0 for none.
 * Return value: false if the deadline woke it.
 */
bool thread_sleep_locked(struct spinlock *cond, uint64_t deadline);

/* Sleep for at least ticks timer ticks. Caller's context: thread, no spinlocks. */
void thread_sleep_ticks(uint64_t ticks);

/*
 * thread_wake - make a sleeping thread runnable.
 * Return value: true if t was sleeping. Caller's context: any, including
 *   interrupt handlers.
 */
bool thread_wake(struct thread *t);

/* Scheduler bookkeeping for a timer tick on this CPU (interrupt context). */
void sched_tick(void);

/*
 * The interrupt that is returning would like to preempt: switch if
 * allowed. interrupted_pc is where the interrupt stopped the thread
 * (recorded in it: the probe machinery must know where preempted threads
 * will resume).
 */
void sched_irq_exit(uintptr_t interrupted_pc);

/* Handle a reschedule IPI (interrupt context). */
void sched_handle_resched_ipi(void);

/* Create the boot CPU's idle thread from the running boot context. */
void sched_init(void);

/* Make the running context c's idle thread and loop; never returns. */
__noreturn void sched_idle_loop(void);

/* Create the idle thread of a secondary CPU, with the stack it boots on. */
struct thread *sched_create_idle(struct cpu *c);

/* Start the first thread of a secondary CPU: mark online and idle. */
void sched_start_secondary(struct cpu *c);

#endif
