/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Graft points and API of the scheduler (kernel/sched/).
 *
 * The run queue is the scheduler's: one FIFO of runnable threads shared
 * by all CPUs, in the order they became runnable. A policy graft chooses
 * from it; the scheduler takes the chosen thread off the queue. Threads
 * are named to grafts by their position in the queue (0 = oldest), so a
 * graft never holds a pointer it could get wrong.
 */
#ifndef GRAFT_SCHED_H
#define GRAFT_SCHED_H

#include <graft/graft.h>

struct thread;
struct cpu;

/*
 * sched.pick_next - Overview: choose the thread the executing CPU runs
 *   next (the scheduler then takes it off the run queue).
 * Arguments: c, the executing CPU (use graft_cpu() for its index).
 * Return value: sched_runq_thread(i) of a queued thread that may run on
 *   this CPU, or NULL to idle — accepted only when no queued thread may
 *   run here; anything else aborts the graft.
 * What it may change: nothing in the kernel (its own data only).
 * Caller's context: sched_lock held, interrupts masked (the graft runs
 *   with only the timer unmasked), in the middle of a thread switch;
 *   may not sleep. Default: the oldest queued thread allowed here
 *   (round robin).
 */
#define GRAFT_POINT_sched_pick_next "sched.pick_next", struct thread *, (struct cpu *c)
GRAFT_POINT_TYPEDEF(sched_pick_next);

/*
 * sched.tick - Overview: the thread running on the executing CPU was
 *   charged one timer tick; decide whether to preempt it.
 * Arguments: t, the running thread (never an idle thread).
 * Return value: true to switch away from it when the interrupt ends.
 * What it may change: the running thread's time slice, through
 *   sched_set_slice (undone on abort).
 * Caller's context: the timer interrupt, sched_lock held, interrupts
 *   masked; may not sleep. Default: count the slice down (2 ticks).
 */
#define GRAFT_POINT_sched_tick "sched.tick", bool, (struct thread *t)
GRAFT_POINT_TYPEDEF(sched_tick);

/* Number of threads on the run queue. */
unsigned sched_runq_length(void);
/* The queued thread at position i (0 = oldest), or NULL past the end. */
struct thread *sched_runq_thread(unsigned i);
/* Its thread id, 0 past the end. */
uint64_t sched_runq_tid(unsigned i);
/* Whether it may run on the executing CPU (its affinity allows it). */
bool sched_runq_may_run_here(unsigned i);
/* Timer ticks it has run so far, and times it was switched in. */
uint64_t sched_runq_ticks_run(unsigned i);
uint64_t sched_runq_switches(unsigned i);
/* The running thread's id and remaining slice (sched.tick). */
uint64_t sched_running_tid(void);
int sched_running_slice(void);
/* Set the running thread's slice (undone on abort). */
void sched_set_slice(int ticks);

#endif
