// SPDX-License-Identifier: BSD-2-Clause
/*
 * sched.pick_next: last in, first out. The newest runnable thread that
 * may run here goes first: a thread that just woke (an interactive one,
 * say) runs before those that have waited, and a thread that keeps
 * getting preempted keeps going to the back. Starvation is possible by
 * design: compare with the default round robin (`sched order`).
 */
#include <graft/sched.h>

static struct thread *lifo_pick_next(struct cpu *c)
{
	(void)c;
	for (unsigned i = sched_runq_length(); i-- > 0;)
		if (sched_runq_may_run_here(i))
			return sched_runq_thread(i);
	return NULL;
}
GRAFT_METHOD(sched_pick_next, "lifo", 1, lifo_pick_next);
