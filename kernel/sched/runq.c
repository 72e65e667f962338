// SPDX-License-Identifier: BSD-2-Clause
/*
 * The run queue as policies see it, on one instance (scion/runq.h):
 * queueing, the questions the mechanism asks (may anything run here?),
 * and calling the pick-next and tick policies with the instance
 * current. Portable: no locks, no clock, no threads of the kernel's, so
 * the live scheduler (sched.c) and every simulation instance
 * (kernel/insitu/, the host's sim/) run exactly this code.
 *
 * Invariants (instance lock held): an entity is on queue exactly while
 * it is runnable and not running; length counts them; at_node is NULL or
 * the node at position at_index (sched_rq_enqueue and sched_rq_remove,
 * the only changes to queue, forget it).
 */
#include <scion/runq.h>

void sched_entity_init(struct sched_entity *e, struct thread *handle, uint64_t tid, int affinity)
{
	list_init(&e->run_node);
	e->handle = handle;
	e->tid = tid;
	e->affinity = affinity;
	e->slice = 0;
	e->ticks_run = 0;
	e->switches_in = 0;
}

void sched_rq_init(struct sched_runq *rq, graft_fn_sched_pick_next *const *pick_next,
		   graft_fn_sched_tick *const *tick)
{
	list_init(&rq->queue);
	rq->length = 0;
	rq->cpu = 0;
	rq->running = NULL;
	rq->pick_next = pick_next;
	rq->tick = tick;
	rq->at_node = NULL;
}

struct sched_entity *sched_rq_at(struct sched_runq *rq, unsigned i)
{
	if (i >= rq->length)
		return NULL;
	bool onward = rq->at_node && rq->at_index <= i;
	struct list_node *it = onward ? rq->at_node : rq->queue.next;
	for (unsigned k = onward ? rq->at_index : 0; k < i; k++)
		it = it->next;
	rq->at_node = it;
	rq->at_index = i;
	return list_entry(it, struct sched_entity, run_node);
}

bool sched_rq_runnable_on(const struct sched_runq *rq, unsigned cpu)
{
	list_foreach(&rq->queue, it)
		if (sched_entity_allowed(list_entry(it, struct sched_entity, run_node), cpu))
			return true;
	return false;
}

/* The queued entity whose handle is h, or NULL. */
static struct sched_entity *queued_entity(const struct sched_runq *rq, const struct thread *h)
{
	list_foreach(&rq->queue, it) {
		struct sched_entity *e = list_entry(it, struct sched_entity, run_node);
		if (e->handle == h)
			return e;
	}
	return NULL;
}

/* The policy's answer; inlined in both callers, so the live pick costs no extra call. */
static __always_inline struct sched_entity *ask(struct sched_runq *rq, unsigned cpu,
						struct sched_entity *running, struct cpu *c)
{
	rq->cpu = cpu;
	rq->running = running;
	struct sched_runq *outer = sched_env_set_current(rq);
	/* A grafted policy's answer was checked by its graft point (sched_check_pick). */
	struct thread *chosen = (*rq->pick_next)(c);
	struct sched_entity *e = chosen ? queued_entity(rq, chosen) : NULL;
	sched_env_set_current(outer);
	return e;
}

struct sched_entity *sched_rq_ask(struct sched_runq *rq, unsigned cpu,
				  struct sched_entity *running, struct cpu *c)
{
	return ask(rq, cpu, running, c);
}

struct sched_entity *sched_rq_pick_asking(struct sched_runq *rq, unsigned cpu,
					  struct sched_entity *running, struct cpu *c)
{
	struct sched_entity *e = ask(rq, cpu, running, c);
	if (e)
		sched_rq_remove(rq, e);
	return e;
}

bool sched_rq_tick(struct sched_runq *rq, unsigned cpu, struct sched_entity *e)
{
	rq->cpu = cpu;
	rq->running = e;
	struct sched_runq *outer = sched_env_set_current(rq);
	bool preempt = (*rq->tick)(e->handle);
	sched_env_set_current(outer);
	return preempt;
}

const char *sched_check_pick(uint64_t result)
{
	const struct sched_runq *rq = sched_env_current();
	const struct thread *chosen = (const struct thread *)(uintptr_t)result;

	if (!rq)
		return "no run queue is deciding here";
	if (!chosen)
		return sched_rq_runnable_on(rq, rq->cpu) ? "NULL while queued threads may run here"
							  : NULL;
	const struct sched_entity *e = queued_entity(rq, chosen);
	if (!e)
		return "not a thread on the run queue";
	return sched_entity_allowed(e, rq->cpu) ? NULL : "a thread whose affinity forbids this CPU";
}
