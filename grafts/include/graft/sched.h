/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Graft points and API of the scheduler (kernel/sched/).
 *
 * The run queue is the scheduler's: one FIFO of runnable threads shared
 * by all CPUs, in the order they became runnable. A policy graft chooses
 * from it; the scheduler takes the chosen thread off the queue. Threads
 * are named to grafts by their position in the queue (0 = oldest), so a
 * graft never holds a pointer it could get wrong; sched_runq_thread's
 * pointer is opaque, only handed back. A policy may be running for the
 * live scheduler or for a simulation instance replaying a recorded
 * trace (kernel/insitu/, sim/): the API answers for the instance it runs
 * for, whose CPUs and threads may be simulated ones (sched_cpu() is the
 * CPU deciding; graft_cpu() the real one executing the graft).
 *
 * Everything below is callable only from a graft running at
 * sched.pick_next or sched.tick; a call from anywhere else aborts the
 * calling graft.
 */
#ifndef GRAFT_SCHED_H
#define GRAFT_SCHED_H

#include <graft/graft.h>

struct thread;
struct cpu;

/*
 * sched.pick_next - Overview: choose the thread the executing CPU runs
 *   next (the scheduler then takes it off the run queue).
 * Arguments: c, the CPU deciding, opaque (sched_cpu() gives its index).
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

/*
 * The scheduler's inputs and outputs, as events (VINO's module
 * boundaries): recording grafts on them write the scheduler's trace
 * (what threads did) and log (what the scheduler decided), which a
 * simulation instance replays (kernel/record/, kernel/insitu/). Both fire
 * with sched_lock held and interrupts masked, on the CPU concerned;
 * handlers may not sleep and should only look. seq numbers events and
 * picks together, in the order they happened (assigned under
 * sched_lock), from 1 at boot.
 */

/* What a thread did (struct sched_event.kind). */
#define SCHED_EVENT_RUNNABLE 1	/* created or woken: queued */
#define SCHED_EVENT_BLOCK    2	/* the running thread went to sleep */
#define SCHED_EVENT_EXIT     3	/* the running thread ended */
#define SCHED_EVENT_TICK     4	/* the running thread was charged a timer tick */
#define SCHED_EVENT_YIELD    5	/* the running thread gave up the CPU, staying runnable */

struct sched_event {
	uint64_t seq;
	uint64_t tick;		/* clock_ticks() when it happened */
	uint64_t tid;		/* the thread (never an idle thread) */
	uint32_t kind;		/* SCHED_EVENT_* */
	uint32_t cpu;		/* the CPU it happened on */
	int32_t affinity;	/* the thread's: a CPU index, or -1 for any */
	uint32_t reserved;
};

/* One decision of sched.pick_next and what the scheduler did with it. */
struct sched_pick {
	uint64_t seq;
	uint64_t tick;		/* clock_ticks() when it was made */
	uint64_t tid;		/* the thread chosen, 0 for the idle thread */
	uint64_t prev;		/* the thread that was running (blocking, ending, yielding or
				   preempted; running on when chosen again), 0 for idle */
	uint32_t cpu;		/* the CPU it was made for */
	uint32_t queued;	/* threads on the run queue when the policy was asked */
};

/*
 * sched.event - Overview: a thread became runnable, blocked, ended,
 *   yielded or was charged a tick: the scheduler's input.
 * Arguments: e (read only, valid during the call).
 * Return value: none. Default: nothing.
 * Caller's context: as above (the tick from the timer interrupt).
 */
#define GRAFT_POINT_sched_event "sched.event", void, (const struct sched_event *e)
GRAFT_POINT_TYPEDEF(sched_event);

/*
 * sched.pick - Overview: the scheduler chose what a CPU runs next: its
 *   output. A switch happens when p->tid differs from p->prev.
 * Arguments: p (read only, valid during the call).
 * Return value: none. Default: nothing.
 * Caller's context: as above, in the middle of a thread switch.
 */
#define GRAFT_POINT_sched_pick "sched.pick", void, (const struct sched_pick *p)
GRAFT_POINT_TYPEDEF(sched_pick);

/* Number of threads on the run queue. */
unsigned sched_runq_length(void);
/* The queued thread at position i (0 = oldest), or NULL past the end. */
struct thread *sched_runq_thread(unsigned i);
/* Its thread id, 0 past the end. */
uint64_t sched_runq_tid(unsigned i);
/* Whether it may run on the CPU deciding (its affinity allows it). */
bool sched_runq_may_run_here(unsigned i);
/* Timer ticks it has run so far, and times it was switched in. */
uint64_t sched_runq_ticks_run(unsigned i);
uint64_t sched_runq_switches(unsigned i);
/* The index of the CPU the decision is for (a simulated CPU in a simulation). */
unsigned sched_cpu(void);
/*
 * The running thread's id (at sched.pick_next the one switching away; 0
 * for an idle CPU of a simulation) and its remaining slice.
 */
uint64_t sched_running_tid(void);
int sched_running_slice(void);
/* Set the running thread's slice (undone on abort). */
void sched_set_slice(int ticks);

#endif
