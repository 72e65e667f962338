/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The scheduler: mechanism here and in kernel/sched/sched.c, policy behind
 * struct sched_policy, whose methods are graft points.
 *
 * There is one run queue for all CPUs, guarded by sched_lock. Preemption
 * happens only when an interrupt returns to a thread that holds no
 * spinlock, or when a thread gives up the CPU itself.
 */
#ifndef SCION_SCHED_H
#define SCION_SCHED_H

#include <scion/thread.h>
#include <scion/cpu.h>
#include <scion/runq.h>
#include <graft/sched.h>

extern struct spinlock sched_lock;

/*
 * The scheduling policy's method table and the scheduler's events: each
 * slot is a graft point (sched.pick_next, sched.tick, sched.event,
 * sched.pick; their contracts are in grafts/include/graft/sched.h). The
 * run queue is the mechanism's: one FIFO of runnable threads
 * (sched_lock), the live instance of scion/runq.h; the policy only
 * chooses.
 */
struct sched_policy {
	graft_fn_sched_pick_next *pick_next;	/* slot: default sched_default_pick_next */
	graft_fn_sched_tick *tick;		/* slot: default sched_default_tick */
	graft_fn_sched_event *event;		/* slot: an event, default nothing */
	graft_fn_sched_pick *pick;		/* slot: an event, default nothing */
};

/* The policy in force; the slots change when grafts are installed. */
extern struct sched_policy sched_policy;

/*
 * The event slots' defaults: nothing looks at the scheduler's input and
 * output, so the scheduler need not describe them (sched.c tests the
 * slot first; numbering only the events someone sees keeps a recording's
 * sequence numbers contiguous all the same).
 */
void sched_event_ignored(const struct sched_event *e);
void sched_pick_ignored(const struct sched_pick *p);

/* The live run queue (sched_lock). */
extern struct sched_runq sched_rq;

/*
 * sched_snapshot - Overview: describe the scheduler's state to fn, a
 *   thread a call, each numbered with the events' sequence (so a
 *   recording that starts with it continues with the events after it):
 *   the thread running on each CPU (kind SCHED_EVENT_RUNNING, e->cpu its
 *   CPU, in CPU order), the queued threads (SCHED_EVENT_QUEUED, in queue
 *   order), the sleeping ones (SCHED_EVENT_SLEEPING); the kinds are
 *   scion/recfmt.h's start-state kinds. se: the thread's entity, as
 *   policies read it.
 * Caller's context: sched_lock held (interrupts masked); fn may not sleep
 *   or take sched_lock or threads_lock.
 */
typedef void sched_snapshot_fn(const struct sched_event *e, const struct sched_entity *se,
			       void *ctx);
void sched_snapshot(sched_snapshot_fn *fn, void *ctx);

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
