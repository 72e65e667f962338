// SPDX-License-Identifier: BSD-2-Clause
/*
 * Following a scheduler recording (sched_follow.h): the trace's events
 * and the log's picks, merged by sequence number, applied to a rebuilt
 * instance of the run queue as kernel/sched/sched.c applies them to the
 * live one; at each pick the policy under test is asked, then the
 * recorded choice is applied. Portable: no kernel services but
 * sim_alloc and sim_free, so the host's sim/ builds this same file.
 *
 * Invariants between records: a thread is on the instance's queue
 * exactly while QUEUED; running[c] is what CPU c runs: a RUNNING thread,
 * or a BLOCKED or DONE one between its block or exit event and the
 * CPU's next pick, or NULL (idle); index holds every thread named so
 * far, each allocated on its own (the queue links them, so they never
 * move).
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include "sched_follow.h"

static graft_fn_sched_tick *const default_tick = sched_default_tick;

static const char *const state_names[] = {
	[SCHED_SIM_BLOCKED] = "sleeping", [SCHED_SIM_QUEUED] = "queued",
	[SCHED_SIM_RUNNING] = "running", [SCHED_SIM_DONE] = "ended",
};

/* Stop the follow: why, one line, in f->why. Returns err. */
static int stop(struct sched_follow *f, int err, const char *fmt, ...) __printf(3, 4);
static int stop(struct sched_follow *f, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
	return err;
}

/* --- The threads, by tid ------------------------------------------------------ */

static struct sched_follow_thread *find(const struct sched_follow *f, uint64_t tid)
{
	for (uint32_t k = f->index_size ? sched_sim_tid_slot(tid, f->index_size) : 0;
	     f->index_size && f->index[k]; k = (k + 1) & (f->index_size - 1))
		if (f->index[k]->se.tid == tid)
			return f->index[k];
	return NULL;
}

static void index_put(struct sched_follow_thread **index, unsigned size,
		      struct sched_follow_thread *t)
{
	uint32_t k = sched_sim_tid_slot(t->se.tid, size);
	while (index[k])
		k = (k + 1) & (size - 1);
	index[k] = t;
}

/* A new thread for event e, not queued, its entity as a new thread's. */
static int add_thread(struct sched_follow *f, const struct rec_sched_event *e,
		      struct sched_follow_thread **out)
{
	if (f->nthreads == SCHED_SIM_MAX_THREADS)
		return stop(f, -E2BIG, "trace record %llu: more than %u threads",
			    (unsigned long long)f->event_index, SCHED_SIM_MAX_THREADS);
	if (2 * (f->nthreads + 1) >= f->index_size) {
		unsigned size = f->index_size ? 2 * f->index_size : 64;
		struct sched_follow_thread **index = sim_alloc(size * sizeof(*index));
		if (!index)
			return stop(f, -ENOMEM, "out of memory for the threads");
		for (unsigned k = 0; k < f->index_size; k++)
			if (f->index[k])
				index_put(index, size, f->index[k]);
		sim_free(f->index);
		f->index = index;
		f->index_size = size;
	}
	struct sched_follow_thread *t = sim_alloc(sizeof(*t));
	if (!t)
		return stop(f, -ENOMEM, "out of memory for the threads");
	sched_entity_init(&t->se, (struct thread *)t, e->tid, e->affinity);
	t->state = SCHED_SIM_BLOCKED;
	index_put(f->index, f->index_size, t);
	f->nthreads++;
	f->sum.threads++;
	*out = t;
	return 0;
}

/* --- Applying the trace's events ---------------------------------------------- */

/* A start-state record: a thread that existed when the recording began (step 1). */
static int apply_state(struct sched_follow *f, const struct rec_sched_state *s)
{
	const struct rec_sched_event *e = &s->event;
	unsigned long long n = (unsigned long long)f->event_index, tid = e->tid;
	struct sched_follow_thread *t;

	if (f->past_start)
		return stop(f, -EINVAL, "trace record %llu (seq %llu): thread %llu %s, after the "
			    "recording's first event (the start state comes first)", n,
			    (unsigned long long)e->seq, tid, sched_sim_kind_text(e->kind));
	if (find(f, e->tid))
		return stop(f, -EINVAL, "trace record %llu: thread %llu is in the start state twice",
			    n, tid);
	if (e->kind == SCHED_EVENT_RUNNING && f->running[e->head.cpu])
		return stop(f, -EINVAL, "trace record %llu: thread %llu was running at the start on "
			    "CPU %u, which ran thread %llu", n, tid, e->head.cpu,
			    (unsigned long long)f->running[e->head.cpu]->se.tid);
	int err = add_thread(f, e, &t);
	if (err)
		return err;
	t->se.ticks_run = s->ticks_run;
	t->se.switches_in = s->switches_in;
	f->sum.at_start++;
	if (e->kind == SCHED_EVENT_QUEUED) {
		sched_rq_enqueue(&f->rq, &t->se);
		t->state = SCHED_SIM_QUEUED;
	} else if (e->kind == SCHED_EVENT_RUNNING) {
		f->running[e->head.cpu] = t;
		t->state = SCHED_SIM_RUNNING;
	}
	t->se.slice = s->slice;		/* after the enqueue, which sets a fresh one */
	return 0;
}

/* An event of the trace (steps 2 to 4; a yield waits for its pick, step 5). */
static int apply_event(struct sched_follow *f, const struct rec_sched_event *e)
{
	unsigned long long n = (unsigned long long)f->event_index, tid = e->tid;
	unsigned cpu = e->head.cpu;
	struct sched_follow_thread *t = find(f, e->tid);

	f->past_start = true;
	if (e->kind == SCHED_EVENT_RUNNABLE) {
		int err = t ? 0 : add_thread(f, e, &t);
		if (err)
			return err;
		if (t->state != SCHED_SIM_BLOCKED)
			return stop(f, -EINVAL, "trace record %llu (seq %llu): thread %llu became "
				    "runnable while %s", n, (unsigned long long)e->seq, tid,
				    state_names[t->state]);
		t->se.affinity = e->affinity;
		sched_rq_enqueue(&f->rq, &t->se);
		t->state = SCHED_SIM_QUEUED;
		return 0;
	}
	if (!t)
		return stop(f, -EINVAL, "trace record %llu (seq %llu): thread %llu %s, but the "
			    "trace never named it before (a corrupt trace, or a recording without "
			    "its start state)", n, (unsigned long long)e->seq, tid,
			    sched_sim_kind_text(e->kind));
	if (t->state != SCHED_SIM_RUNNING || f->running[cpu] != t)
		return stop(f, -EINVAL, "trace record %llu (seq %llu): thread %llu %s on CPU %u, "
			    "where it was not running (it was %s)", n, (unsigned long long)e->seq,
			    tid, sched_sim_kind_text(e->kind), cpu, state_names[t->state]);
	switch (e->kind) {
	case SCHED_EVENT_TICK:
		t->se.ticks_run++;
		sched_rq_tick(&f->rq, cpu, &t->se);	/* its slice; live's pick says if it left */
		break;
	case SCHED_EVENT_BLOCK:
		t->state = SCHED_SIM_BLOCKED;
		break;
	case SCHED_EVENT_EXIT:
		t->state = SCHED_SIM_DONE;
		break;
	}
	return 0;
}

/* --- Applying the log's picks --------------------------------------------------- */

/* Step 5: the previous thread, when it still runs, goes back to the queue first. */
static int leave_cpu(struct sched_follow *f, const struct rec_sched_pick *p,
		     struct sched_follow_thread **prev)
{
	unsigned long long n = (unsigned long long)f->pick_index;
	struct sched_follow_thread *was = f->running[p->cpu];

	*prev = NULL;
	if (p->prev && !was && !find(f, p->prev))
		return stop(f, -EINVAL, "log record %llu (seq %llu): the previous thread %llu was "
			    "never named by the trace (a corrupt trace)", n,
			    (unsigned long long)p->seq, (unsigned long long)p->prev);
	if ((was ? was->se.tid : 0) != p->prev)
		return stop(f, -EINVAL, "log record %llu (seq %llu): CPU %u switched from thread "
			    "%llu, but it ran %llu", n, (unsigned long long)p->seq, p->cpu,
			    (unsigned long long)p->prev,
			    (unsigned long long)(was ? was->se.tid : 0));
	if (was && was->state == SCHED_SIM_RUNNING) {
		sched_rq_enqueue(&f->rq, &was->se);
		was->state = SCHED_SIM_QUEUED;
	}
	*prev = was;
	return 0;
}

/* Step 6: ask the policy, emit its answer, apply the recorded choice. */
static int apply_pick(struct sched_follow *f, const struct rec_sched_pick *p, sim_emit_fn *emit,
		      void *ectx)
{
	unsigned long long n = (unsigned long long)f->pick_index;
	struct sched_follow_thread *prev, *chosen = NULL;

	f->past_start = true;
	if (p->head.type != REC_SCHED_PICK || p->head.size != sizeof(*p))
		return stop(f, -EINVAL, "log record %llu is not a sched pick (type %u, %u bytes)",
			    n, p->head.type, p->head.size);
	if (p->cpu >= f->ncpus)
		return stop(f, -EINVAL, "log record %llu (seq %llu): CPU %u, which the trace does "
			    "not have", n, (unsigned long long)p->seq, p->cpu);
	int err = leave_cpu(f, p, &prev);
	if (err)
		return err;
	if (p->tid) {
		chosen = find(f, p->tid);
		if (!chosen)
			return stop(f, -EINVAL, "log record %llu (seq %llu): CPU %u chose thread "
				    "%llu, which the trace never named (a corrupt trace)", n,
				    (unsigned long long)p->seq, p->cpu, (unsigned long long)p->tid);
		if (chosen->state != SCHED_SIM_QUEUED)
			return stop(f, -EINVAL, "log record %llu (seq %llu): CPU %u chose thread "
				    "%llu, which was %s, not queued", n, (unsigned long long)p->seq,
				    p->cpu, (unsigned long long)p->tid, state_names[chosen->state]);
	}
	if (p->queued != f->rq.length)
		return stop(f, -EINVAL, "log record %llu (seq %llu): %u threads queued, the trace "
			    "leaves %u (records lost, or a trace and log that do not belong "
			    "together)", n, (unsigned long long)p->seq, p->queued, f->rq.length);

	struct sched_entity *answer = sched_rq_ask(&f->rq, p->cpu, prev ? &prev->se : NULL,
						   (struct cpu *)&f->running[p->cpu]);
	struct rec_sched_pick rec = *p;		/* as recorded, but for the policy's choice */
	rec.tid = answer ? answer->tid : 0;
	f->sum.picks++;
	f->sum.agree += rec.tid == p->tid;
	f->sum.switches += rec.tid != p->prev;

	/* The recorded choice, as switch_to_next applies it. */
	if (chosen) {
		sched_rq_remove(&f->rq, &chosen->se);
		chosen->state = SCHED_SIM_RUNNING;
		if (chosen != prev)
			chosen->se.switches_in++;
	}
	f->running[p->cpu] = chosen;
	return emit(ectx, &rec.head);
}

/* --- The merge of the two streams ---------------------------------------------------- */

int sched_follow_init(struct sched_follow *f, const struct rec_file_header *th,
		      const struct rec_file_header *lh, struct sim_reader trace,
		      struct sim_reader log, char *why, size_t whylen)
{
	memset(f, 0, sizeof(*f));
	sched_rq_init(&f->rq, NULL, &default_tick);
	f->ncpus = (unsigned)th->config[REC_SCHED_CONFIG_CPUS];
	if (lh->config[REC_SCHED_CONFIG_CPUS] != th->config[REC_SCHED_CONFIG_CPUS]) {
		snprintf(why, whylen, "the log's header says %llu CPUs, the trace's %u: not the "
			 "streams of one recording",
			 (unsigned long long)lh->config[REC_SCHED_CONFIG_CPUS], f->ncpus);
		return -EINVAL;
	}
	f->trace = trace;
	f->log = log;
	f->event = trace.next(trace.ctx);
	f->pick = log.next(log.ctx);
	f->event_index = f->pick_index = 1;
	return 0;
}

void sched_follow_free(struct sched_follow *f)
{
	for (unsigned k = 0; k < f->index_size; k++)
		sim_free(f->index[k]);
	sim_free(f->index);
	f->index = NULL;
	f->index_size = f->nthreads = 0;
}

/* Check the next event and apply it. */
static int next_event(struct sched_follow *f)
{
	const struct rec_head *h = f->event;
	int err;

	if (sched_sim_check_event(h, f->event_index, f->last_seq, f->ncpus, f->why,
				  sizeof(f->why))) {
		char event_why[sizeof(f->why)];
		memcpy(event_why, f->why, sizeof(event_why));
		return stop(f, -EINVAL, "trace %s", event_why);
	}
	const struct rec_sched_event *e = (const void *)h;
	f->last_seq = e->seq;
	if (rec_sched_kind_is_state(e->kind))
		err = apply_state(f, (const void *)h);
	else
		err = apply_event(f, e);
	f->sum.events++;
	f->event = f->trace.next(f->trace.ctx);
	f->event_index++;
	return err;
}

int sched_follow_step(struct sched_follow *f, sim_emit_fn *emit, void *ectx)
{
	/* Events first while they come before the next pick (equal: a fault, below). */
	for (unsigned n = 0; f->event && (!f->pick || rec_seq(f->event) < rec_seq(f->pick)); n++) {
		if (n == SCHED_FOLLOW_STEP_EVENTS)
			return 1;	/* a step stays short: the kernel masks interrupts around it */
		int err = next_event(f);
		if (err)
			return err;
	}
	if (!f->pick)
		return 0;
	uint64_t seq = rec_seq(f->pick);
	if (seq <= f->last_seq || (f->event && rec_seq(f->event) == seq))
		return stop(f, -EINVAL, "log record %llu (seq %llu): %s", (unsigned long long)
			    f->pick_index, (unsigned long long)seq, seq <= f->last_seq ?
			    "its sequence number is not after the record before (out of order)" :
			    "the trace has a record of the same sequence number");
	f->last_seq = seq;
	int err = apply_pick(f, (const void *)f->pick, emit, ectx);
	if (err)
		return err;
	f->pick = f->log.next(f->log.ctx);
	f->pick_index++;
	return 1;
}

int sched_follow_run(struct sched_follow *f, sim_emit_fn *emit, void *ectx)
{
	int r;
	while ((r = sched_follow_step(f, emit, ectx)) > 0)
		;
	return r;
}

void sched_follow_live_summary(struct sim_reader log, struct sched_follow_summary *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (const struct rec_head *h; (h = log.next(log.ctx));) {
		const struct rec_sched_pick *p = (const void *)h;
		if (h->type != REC_SCHED_PICK || h->size != sizeof(*p))
			continue;
		sum->picks++;
		sum->switches += p->tid != p->prev;
	}
}
