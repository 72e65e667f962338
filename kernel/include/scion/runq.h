/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The scheduler's policy-facing state as an instance (VINO's
 * per-instance state): the run queue as a policy sees it (the queued
 * threads, in the order they became runnable, each with its id,
 * affinity, ticks run, switches and time slice) and, while a policy
 * runs, the CPU the decision is for and the thread running there. The
 * live scheduler (kernel/sched/sched.c) embeds one instance and keeps a
 * struct sched_entity in every struct thread; a simulation instance
 * (kernel/insitu/, sim/ on the host) is one of these alone over simulated
 * threads, whose entities it keeps in its own memory.
 *
 * runq.c and policy_default.c are portable C with no kernel services,
 * built into the kernel and into the host simulator, so a replay runs
 * exactly the live policy code. The policies (graft points
 * sched.pick_next and sched.tick) are called through the instance's
 * slots; while one runs, the instance is "current" on this CPU
 * (sched_env_current) and the graft API (kernel/sched/api.c) reads and
 * changes that instance only. A policy is given threads as opaque
 * handles (struct thread *): the live scheduler's are its threads, a
 * simulation's are its simulated threads; the entity records its own.
 *
 * Locking is the embedder's: every function here expects the
 * instance's lock held (the live scheduler's is sched_lock; a
 * simulation instance is private to the thread replaying into it).
 */
#ifndef SCION_RUNQ_H
#define SCION_RUNQ_H

#include <scion/compiler.h>
#include <scion/list.h>
#include <graft/sched.h>

/* Time slice a thread gets each time it is queued, in ticks (the default sched.tick's). */
#define SCHED_SLICE_TICKS 2

/* What a policy knows of one thread. */
struct sched_entity {
	struct list_node run_node;	/* instance lock: on its queue while runnable */
	struct thread *handle;		/* set once: what policies are given for it */
	uint64_t tid;			/* set once */
	int affinity;			/* instance lock: CPU index, or -1 for any */
	int slice;			/* instance lock: the policy's time-slice state */
	uint64_t ticks_run;		/* its own CPU while running: ticks charged */
	uint64_t switches_in;		/* instance lock: times it was switched in */
};

struct sched_runq {
	struct list_node queue;		/* runnable entities, in the order they were queued */
	unsigned length;		/* entities on queue */
	/* While a policy runs for this instance (sched_rq_pick, sched_rq_tick): */
	unsigned cpu;			/* the CPU the decision is for */
	struct sched_entity *running;	/* the entity running there (NULL: idle in a simulation) */
	/* The policies, called through these slots (the live scheduler's are the graft points'). */
	graft_fn_sched_pick_next *const *pick_next;
	graft_fn_sched_tick *const *tick;
	/*
	 * sched_rq_at's last answer: the node at position at_index, or NULL when
	 * the queue changed since. A policy asks positions in order (a loop over
	 * the queue, several questions each), so the next is at most a step on
	 * instead of a walk from the head each time.
	 */
	struct list_node *at_node;
	unsigned at_index;
};

/* Make e an entity for the thread with handle and tid, not queued. */
void sched_entity_init(struct sched_entity *e, struct thread *handle, uint64_t tid, int affinity);

/* Whether e's affinity lets it run on CPU cpu. */
static inline bool sched_entity_allowed(const struct sched_entity *e, unsigned cpu)
{
	return e->affinity < 0 || e->affinity == (int)cpu;
}

/* Make rq an empty instance calling its policies through the slots given. */
void sched_rq_init(struct sched_runq *rq, graft_fn_sched_pick_next *const *pick_next,
		   graft_fn_sched_tick *const *tick);

/* Queue e at the tail with a fresh slice (SCHED_SLICE_TICKS). Inline: every switch queues. */
static inline void sched_rq_enqueue(struct sched_runq *rq, struct sched_entity *e)
{
	e->slice = SCHED_SLICE_TICKS;
	list_add_tail(&rq->queue, &e->run_node);
	rq->length++;
	rq->at_node = NULL;
}

/* Take queued e off the queue. */
static inline void sched_rq_remove(struct sched_runq *rq, struct sched_entity *e)
{
	list_remove(&e->run_node);
	rq->length--;
	rq->at_node = NULL;
}

/* The queued entity at position i (0 = oldest), or NULL past the end (remembered: at_node). */
struct sched_entity *sched_rq_at(struct sched_runq *rq, unsigned i);

/* Whether a queued entity may run on CPU cpu. */
bool sched_rq_runnable_on(const struct sched_runq *rq, unsigned cpu);

/*
 * The default pick-next policy's choice: the oldest queued entity allowed
 * on CPU cpu, or NULL. Inline so that sched_rq_pick, when no graft fills
 * the slot, takes it without calling the policy.
 */
static inline struct sched_entity *sched_oldest_allowed(const struct sched_runq *rq,
							unsigned cpu)
{
	list_foreach(&rq->queue, it) {
		struct sched_entity *e = list_entry(it, struct sched_entity, run_node);
		if (sched_entity_allowed(e, cpu))
			return e;
	}
	return NULL;
}

/* The default policies (policy_default.c): round robin with a 2-tick slice. */
struct thread *sched_default_pick_next(struct cpu *c);
bool sched_default_tick(struct thread *t);

/*
 * sched_rq_pick - Overview: the pick-next policy's choice for CPU cpu
 *   (through rq->pick_next, with rq current), taken off the queue.
 * Arguments: running, the entity running on cpu (the one switching
 *   away; NULL for an idle CPU of a simulation); c, the policy's
 *   argument (the live struct cpu, or a simulation's opaque token).
 * Return value: the chosen entity, or NULL: run idle.
 * While the slot holds the default (no graft), the default's choice is
 *   taken without calling it: no instance is made current. Otherwise
 *   sched_rq_pick_asking asks the slot's policy.
 */
struct sched_entity *sched_rq_pick_asking(struct sched_runq *rq, unsigned cpu,
					  struct sched_entity *running, struct cpu *c);
static inline struct sched_entity *sched_rq_pick(struct sched_runq *rq, unsigned cpu,
						 struct sched_entity *running, struct cpu *c)
{
	/*
	 * No graft in the slot: the default's answer without the round trip
	 * (instance made current, a call through the slot, the handle looked
	 * up again), which was a fifth of a live context switch. The same
	 * code as the default runs, so the answer is the same.
	 */
	if (*rq->pick_next != sched_default_pick_next)
		return sched_rq_pick_asking(rq, cpu, running, c);
	struct sched_entity *e = sched_oldest_allowed(rq, cpu);
	if (e)
		sched_rq_remove(rq, e);
	return e;
}

/*
 * sched_rq_ask - Overview: as sched_rq_pick, but the chosen entity stays
 *   queued: the policy's answer alone (a replay that follows a recording
 *   asks, then applies what live chose).
 */
struct sched_entity *sched_rq_ask(struct sched_runq *rq, unsigned cpu,
				  struct sched_entity *running, struct cpu *c);

/*
 * sched_rq_tick - Overview: the running entity e on CPU cpu was charged
 *   a tick (the caller counted it): the tick policy's answer (through
 *   rq->tick, with rq current) to whether to preempt it.
 */
bool sched_rq_tick(struct sched_runq *rq, unsigned cpu, struct sched_entity *e);

/*
 * sched_check_pick - whether result, a pick-next policy's answer for
 *   the current instance, may be used: NULL, or why not. Every policy's
 *   answer passes it (the graft point's check_result).
 */
const char *sched_check_pick(uint64_t result);

/* --- Supplied by the embedding environment (kernel: points.c; host: sim/) --- */

/* The instance whose policy runs on this CPU, or NULL. */
struct sched_runq *sched_env_current(void);
/* Make rq current on this CPU (NULL: none); returns the previous one. */
struct sched_runq *sched_env_set_current(struct sched_runq *rq);

#endif
