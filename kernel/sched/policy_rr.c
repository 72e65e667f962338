// SPDX-License-Identifier: BSD-2-Clause
/*
 * The default scheduling policy: one FIFO run queue shared by all CPUs,
 * round robin with a fixed time slice. A CPU takes the first queued
 * thread its affinity allows. All methods run under sched_lock.
 */
#include <scion/sched.h>
#include <scion/list.h>

#define RR_SLICE_TICKS 2

static LIST_HEAD(run_queue);	/* sched_lock */

static bool allowed(const struct thread *t, const struct cpu *c)
{
	return t->affinity < 0 || t->affinity == (int)c->index;
}

static void rr_enqueue(struct thread *t)
{
	t->slice = RR_SLICE_TICKS;
	list_add_tail(&run_queue, &t->run_node);
}

static struct thread *rr_pick_next(struct cpu *c)
{
	list_foreach(&run_queue, it) {
		struct thread *t = list_entry(it, struct thread, run_node);
		if (allowed(t, c)) {
			list_remove(&t->run_node);
			return t;
		}
	}
	return NULL;
}

static bool rr_tick(struct thread *t)
{
	return --t->slice <= 0;
}

static bool rr_runnable(struct cpu *c)
{
	list_foreach(&run_queue, it)
		if (allowed(list_entry(it, struct thread, run_node), c))
			return true;
	return false;
}

const struct sched_policy sched_policy_round_robin = {
	.name = "round-robin",
	.enqueue = rr_enqueue,
	.pick_next = rr_pick_next,
	.tick = rr_tick,
	.runnable = rr_runnable,
};
