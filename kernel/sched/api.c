// SPDX-License-Identifier: BSD-2-Clause
/*
 * The scheduler's graft API (grafts/include/graft/sched.h), on the
 * instance whose policy is running on this CPU (sched_env_current: the
 * live run queue, or a simulation instance replaying a trace). A policy
 * runs with that instance's lock held; called from anywhere else, a
 * function here aborts the calling graft (or, from code outside a
 * transaction, answers as for an empty queue), because the queue could
 * change under it.
 *
 * Queued threads are named by position, and every position is checked,
 * so a graft's mistakes end in a refused result, never in a bad pointer
 * being followed. Portable: built into the kernel and into the host
 * simulator (sim/), which supplies txn_log_undo, txn_abort_self and
 * graft_nesting.
 */
#include <scion/graft.h>
#include <scion/txn.h>
#include <scion/runq.h>

/* The instance the API may read or change here, or NULL (a graft that may not is aborted). */
static struct sched_runq *api_instance(const char *fn)
{
	struct sched_runq *rq = sched_env_current();
	if (rq)
		return rq;
	if (graft_nesting() > 0)
		txn_abort_self("%s called outside sched.pick_next and sched.tick", fn);
	return NULL;
}

static struct sched_entity *queued(unsigned i, const char *fn)
{
	struct sched_runq *rq = api_instance(fn);
	return rq ? sched_rq_at(rq, i) : NULL;
}

unsigned sched_runq_length(void)
{
	struct sched_runq *rq = api_instance(__func__);
	return rq ? rq->length : 0;
}
GRAFT_EXPORT(sched_runq_length);

struct thread *sched_runq_thread(unsigned i)
{
	struct sched_entity *e = queued(i, __func__);
	return e ? e->handle : NULL;
}
GRAFT_EXPORT(sched_runq_thread);

uint64_t sched_runq_tid(unsigned i)
{
	struct sched_entity *e = queued(i, __func__);
	return e ? e->tid : 0;
}
GRAFT_EXPORT(sched_runq_tid);

bool sched_runq_may_run_here(unsigned i)
{
	struct sched_runq *rq = api_instance(__func__);
	struct sched_entity *e = rq ? sched_rq_at(rq, i) : NULL;
	return e && sched_entity_allowed(e, rq->cpu);
}
GRAFT_EXPORT(sched_runq_may_run_here);

uint64_t sched_runq_ticks_run(unsigned i)
{
	struct sched_entity *e = queued(i, __func__);
	return e ? e->ticks_run : 0;
}
GRAFT_EXPORT(sched_runq_ticks_run);

uint64_t sched_runq_switches(unsigned i)
{
	struct sched_entity *e = queued(i, __func__);
	return e ? e->switches_in : 0;
}
GRAFT_EXPORT(sched_runq_switches);

unsigned sched_cpu(void)
{
	struct sched_runq *rq = api_instance(__func__);
	return rq ? rq->cpu : 0;
}
GRAFT_EXPORT(sched_cpu);

uint64_t sched_running_tid(void)
{
	struct sched_runq *rq = api_instance(__func__);
	return rq && rq->running ? rq->running->tid : 0;
}
GRAFT_EXPORT(sched_running_tid);

int sched_running_slice(void)
{
	struct sched_runq *rq = api_instance(__func__);
	return rq && rq->running ? rq->running->slice : 0;
}
GRAFT_EXPORT(sched_running_slice);

static void undo_slice(uint64_t entity, uint64_t old)
{
	((struct sched_entity *)(uintptr_t)entity)->slice = (int)old;
}

void sched_set_slice(int ticks)
{
	struct sched_runq *rq = api_instance(__func__);
	struct sched_entity *e = rq ? rq->running : NULL;
	if (!e)
		return;
	txn_log_undo(undo_slice, (uintptr_t)e, (uint64_t)(int64_t)e->slice);
	e->slice = ticks;
}
GRAFT_EXPORT(sched_set_slice);
