// SPDX-License-Identifier: BSD-2-Clause
/*
 * The scheduler's default policy, round robin: pick the oldest queued
 * thread allowed on the CPU (sched.pick_next), preempt a thread when
 * its slice of SCHED_SLICE_TICKS has run out (sched.tick). Written like
 * a graft, against the instance the scheduler calls it for
 * (scion/runq.h), so the same code decides in the live scheduler, in a
 * simulation instance in the kernel and in the host's simulator (sim/).
 */
#include <scion/runq.h>

struct thread *sched_default_pick_next(struct cpu *c)
{
	const struct sched_runq *rq = sched_env_current();
	const struct sched_entity *e = sched_oldest_allowed(rq, rq->cpu);

	(void)c;
	return e ? e->handle : NULL;
}

bool sched_default_tick(struct thread *t)
{
	(void)t;	/* the instance's running entity is t's */
	return --sched_env_current()->running->slice <= 0;
}
