// SPDX-License-Identifier: BSD-2-Clause
/*
 * The default scheduling policy, round robin, as the defaults of the
 * graft points sched.pick_next and sched.tick, and the scheduler's
 * graft API (grafts/include/graft/sched.h). Every method and API
 * function runs with sched_lock held (the points' contracts say so).
 *
 * The API names queued threads by position and checks every position,
 * so a graft's mistakes end in a refused result, never in a bad pointer
 * being followed.
 */
#include <scion/sched.h>
#include <scion/list.h>
#include <scion/graft.h>
#include <scion/txn.h>
#include "sched_internal.h"

static struct thread *rr_pick_next(struct cpu *c)
{
	list_foreach(&sched_run_queue, it) {
		struct thread *t = list_entry(it, struct thread, run_node);
		if (sched_thread_allowed(t, c))
			return t;
	}
	return NULL;
}

static bool rr_tick(struct thread *t)
{
	return --t->slice <= 0;
}

struct sched_policy sched_policy = {
	.pick_next = rr_pick_next,
	.tick = rr_tick,
};

static const char *check_pick(uint64_t result, const uint64_t args[6])
{
	const struct cpu *c = (const struct cpu *)(uintptr_t)args[0];
	const struct thread *chosen = (const struct thread *)(uintptr_t)result;

	if (!chosen)
		return sched_runnable_on(c) ? "NULL while queued threads may run here" : NULL;
	list_foreach(&sched_run_queue, it) {
		const struct thread *t = list_entry(it, struct thread, run_node);
		if (t == chosen)
			return sched_thread_allowed(t, c) ? NULL : "a thread whose affinity forbids this CPU";
	}
	return "not a thread on the run queue";
}

GRAFT_POINT_METHOD(sched_pick_next, sched_policy.pick_next, rr_pick_next, 10000, check_pick,
		   "choose the next thread for this CPU from the run queue (sched_lock held, "
		   "interrupts masked, mid-switch); default: oldest allowed (round robin)");
GRAFT_POINT_METHOD(sched_tick, sched_policy.tick, rr_tick, 10000, NULL,
		   "the running thread was charged a tick: preempt it? (timer interrupt, "
		   "sched_lock held); default: a 2-tick slice");

static struct thread *queued(unsigned i)
{
	list_foreach(&sched_run_queue, it)
		if (i-- == 0)
			return list_entry(it, struct thread, run_node);
	return NULL;
}

unsigned sched_runq_length(void)
{
	unsigned n = 0;
	list_foreach(&sched_run_queue, it)
		n++;
	return n;
}
GRAFT_EXPORT(sched_runq_length);

struct thread *sched_runq_thread(unsigned i)
{
	return queued(i);
}
GRAFT_EXPORT(sched_runq_thread);

uint64_t sched_runq_tid(unsigned i)
{
	struct thread *t = queued(i);
	return t ? t->tid : 0;
}
GRAFT_EXPORT(sched_runq_tid);

bool sched_runq_may_run_here(unsigned i)
{
	struct thread *t = queued(i);
	return t && sched_thread_allowed(t, this_cpu());
}
GRAFT_EXPORT(sched_runq_may_run_here);

uint64_t sched_runq_ticks_run(unsigned i)
{
	struct thread *t = queued(i);
	return t ? t->ticks_run : 0;
}
GRAFT_EXPORT(sched_runq_ticks_run);

uint64_t sched_runq_switches(unsigned i)
{
	struct thread *t = queued(i);
	return t ? t->switches_in : 0;
}
GRAFT_EXPORT(sched_runq_switches);

uint64_t sched_running_tid(void)
{
	return this_cpu()->current->tid;
}
GRAFT_EXPORT(sched_running_tid);

int sched_running_slice(void)
{
	return this_cpu()->current->slice;
}
GRAFT_EXPORT(sched_running_slice);

static void undo_slice(uint64_t thread, uint64_t old)
{
	((struct thread *)(uintptr_t)thread)->slice = (int)old;
}

void sched_set_slice(int ticks)
{
	struct thread *t = this_cpu()->current;
	txn_log_undo(undo_slice, (uintptr_t)t, (uint64_t)(int64_t)t->slice);
	t->slice = ticks;
}
GRAFT_EXPORT(sched_set_slice);
