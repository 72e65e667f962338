// SPDX-License-Identifier: BSD-2-Clause
/*
 * The scheduler trace replay (sched_replay.h): building each thread's
 * phases from the trace, then the discrete-tick simulation over an
 * instance of the scheduler's run queue (kernel/sched/runq.c) with the
 * policy under test. Portable: no kernel services but sim_alloc and
 * sim_free, so the host's sim/ builds this same file.
 *
 * Invariants while simulating: a thread is on the instance's queue
 * exactly while QUEUED; it is some CPU's current exactly while RUNNING,
 * and then has ticks left of its burst; a CPU's leaving thread has
 * ended its burst there and the CPU owes a pick; blocked counts the
 * BLOCKED threads, next_arrival is the earliest of their arrive ticks.
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include "sched_replay.h"

#define NO_PHASE UINT32_MAX

struct sched_sim_phase {
	uint64_t gap;		/* ticks blocked before it (the first: from the trace's start) */
	uint64_t burst;		/* ticks charged in it */
	int32_t affinity;	/* when it began */
	uint32_t next;		/* the thread's next phase, or NO_PHASE */
};

static graft_fn_sched_tick *const default_tick = sched_default_tick;

const char *sched_sim_check_header(const struct rec_file_header *h, enum rec_stream stream,
				   char *why, size_t whylen)
{
	const char *kind = stream == REC_STREAM_TRACE ? "trace" : "log";

	if (sim_check_format(h, stream, why, whylen))
		return why;
	if (strncmp(h->module, "sched", sizeof(h->module)))
		snprintf(why, whylen, "a %s of module '%.*s', not sched", kind,
			 (int)sizeof(h->module), h->module);
	else if (h->config[REC_SCHED_CONFIG_CPUS] < 1 ||
		 h->config[REC_SCHED_CONFIG_CPUS] > SCHED_SIM_MAX_CPUS)
		snprintf(why, whylen, "bad configuration in the %s header: %llu CPUs (1..%u)", kind,
			 (unsigned long long)h->config[REC_SCHED_CONFIG_CPUS], SCHED_SIM_MAX_CPUS);
	else
		return NULL;
	return why;
}

/* --- Building the threads' phases from the trace ---------------------------- */

/* Grow *array (of *cap elements of size bytes) to hold at least need; false when it cannot. */
static bool grow(void **array, uint32_t *cap, size_t size, uint32_t need)
{
	if (need <= *cap)
		return true;
	uint32_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *p = sim_alloc((size_t)n * size);
	if (!p)
		return false;
	if (*array)
		memcpy(p, *array, (size_t)*cap * size);
	sim_free(*array);
	*array = p;
	*cap = n;
	return true;
}

static struct sched_sim_thread *find_thread(const struct sched_sim *sim, uint64_t tid)
{
	for (uint32_t k = sim->index_size ? sched_sim_tid_slot(tid, sim->index_size) : 0;
	     sim->index_size && sim->index[k]; k = (k + 1) & (sim->index_size - 1))
		if (sim->thread[sim->index[k] - 1].se.tid == tid)
			return &sim->thread[sim->index[k] - 1];
	return NULL;
}

static void index_insert(struct sched_sim *sim, unsigned i)
{
	uint32_t k = sched_sim_tid_slot(sim->thread[i].se.tid, sim->index_size);
	while (sim->index[k])
		k = (k + 1) & (sim->index_size - 1);
	sim->index[k] = i + 1;
}

static int new_thread(struct sched_sim *sim, uint64_t tid, struct sched_sim_thread **out)
{
	if (sim->nthreads == SCHED_SIM_MAX_THREADS)
		return -E2BIG;
	uint32_t cap = sim->thread_cap;
	if (!grow((void **)&sim->thread, &cap, sizeof(*sim->thread), sim->nthreads + 1))
		return -ENOMEM;
	sim->thread_cap = cap;
	if (sim->index_size < 2 * cap) {
		uint32_t *index = sim_alloc(2 * cap * sizeof(*index));
		if (!index)
			return -ENOMEM;
		sim_free(sim->index);
		sim->index = index;
		sim->index_size = 2 * cap;
		for (unsigned i = 0; i < sim->nthreads; i++)
			index_insert(sim, i);
	}
	struct sched_sim_thread *t = &sim->thread[sim->nthreads];
	memset(t, 0, sizeof(*t));
	sched_entity_init(&t->se, NULL, tid, -1);
	t->first = t->last = NO_PHASE;
	index_insert(sim, sim->nthreads++);
	*out = t;
	return 0;
}

/* A new phase of t, runnable after gap ticks. */
static int open_phase(struct sched_sim *sim, struct sched_sim_thread *t, uint64_t gap,
		      int32_t affinity)
{
	if (sim->nphases == NO_PHASE - 1)
		return -E2BIG;
	if (!grow((void **)&sim->phase, &sim->phase_cap, sizeof(*sim->phase), sim->nphases + 1))
		return -ENOMEM;
	uint32_t i = sim->nphases++;
	sim->phase[i] = (struct sched_sim_phase){ .gap = gap, .affinity = affinity, .next = NO_PHASE };
	if (t->last == NO_PHASE)
		t->first = i;
	else
		sim->phase[t->last].next = i;
	t->last = i;
	t->nphases++;
	t->open = true;
	return 0;
}

static const char *const kind_names[] = {
	[SCHED_EVENT_RUNNABLE] = "became runnable", [SCHED_EVENT_BLOCK] = "blocked",
	[SCHED_EVENT_EXIT] = "ended", [SCHED_EVENT_TICK] = "was charged a tick",
	[SCHED_EVENT_YIELD] = "yielded", [SCHED_EVENT_QUEUED] = "was queued at the start",
	[SCHED_EVENT_RUNNING] = "was running at the start",
	[SCHED_EVENT_SLEEPING] = "was sleeping at the start",
};

const char *sched_sim_kind_text(uint32_t kind)
{
	return kind < sizeof(kind_names) / sizeof(kind_names[0]) && kind_names[kind]
		? kind_names[kind] : "did something unknown";
}

const char *sched_sim_check_event(const struct rec_head *h, uint64_t index, uint64_t last_seq,
				  unsigned ncpus, char *why, size_t whylen)
{
	const struct rec_sched_event *e = (const void *)h;
	unsigned long long n = (unsigned long long)index;
	bool state = h->size == sizeof(struct rec_sched_state);

	if (h->type != REC_SCHED_EVENT || (h->size != sizeof(*e) && !state)) {
		snprintf(why, whylen, "record %llu is not a sched event (type %u, %u bytes)", n,
			 h->type, h->size);
		return why;
	}
	const char *bad = NULL;
	if (e->seq <= last_seq)
		bad = "its sequence number is not after the one before (out of order)";
	else if (e->kind < SCHED_EVENT_RUNNABLE || e->kind > SCHED_EVENT_SLEEPING)
		bad = "unknown event kind";
	else if (state != (bool)rec_sched_kind_is_state(e->kind))
		bad = state ? "a start-state record of an event's kind"
			    : "a start-state kind in an event's record";
	else if (e->tid == 0)
		bad = "thread id 0 (the idle threads have no events)";
	else if (e->affinity < -1 || e->affinity >= (int32_t)ncpus)
		bad = "an affinity to a CPU the trace does not have";
	else if (h->cpu >= ncpus)
		bad = "a CPU the trace does not have";
	if (!bad)
		return NULL;
	snprintf(why, whylen, "record %llu (seq %llu, thread %llu, kind %u, affinity %d): %s", n,
		 (unsigned long long)e->seq, (unsigned long long)e->tid, e->kind, e->affinity, bad);
	return why;
}

/* Check the index-th record h and add it to its thread's phases. */
static int add_event(struct sched_sim *sim, const struct rec_head *h, uint64_t index, char *why,
		     size_t whylen)
{
	const struct rec_sched_event *e = (const void *)h;
	unsigned long long n = (unsigned long long)index;

	if (sched_sim_check_event(h, index, sim->last_seq, sim->ncpus, why, whylen))
		return -EINVAL;
	bool state = rec_sched_kind_is_state(e->kind);
	if (state && sim->past_start) {
		snprintf(why, whylen, "record %llu: thread %llu %s, after the recording's first "
			 "event (the start state comes first)", n, (unsigned long long)e->tid,
			 kind_names[e->kind]);
		return -EINVAL;
	}
	sim->past_start |= !state;
	if (index == 1)
		sim->start = sim->last_tick = e->tick;
	/* Ticks never go back in a live trace; a record that says so counts as the one before. */
	uint64_t tick = e->tick < sim->last_tick ? sim->last_tick : e->tick;
	if (tick - sim->start > SCHED_SIM_MAX_SPAN) {
		snprintf(why, whylen, "record %llu: tick %llu is more than %llu ticks after the first "
			 "(%llu)", n, (unsigned long long)tick, SCHED_SIM_MAX_SPAN,
			 (unsigned long long)sim->start);
		return -E2BIG;
	}
	sim->last_seq = e->seq;
	sim->last_tick = tick;
	uint64_t rel = tick - sim->start;
	if (e->kind == SCHED_EVENT_SLEEPING)
		return 0;	/* the model takes a sleeper in when it wakes */

	struct sched_sim_thread *t = find_thread(sim, e->tid);
	int err = 0;
	const char *bad = NULL;
	if (t && state) {
		snprintf(why, whylen, "record %llu: thread %llu is in the start state twice", n,
			 (unsigned long long)e->tid);
		return -EINVAL;
	}
	if (!t) {
		err = new_thread(sim, e->tid, &t);
		/* Running or queued when the recording began: runnable from its first tick. */
		if (!err && e->kind != SCHED_EVENT_RUNNABLE)
			err = open_phase(sim, t, 0, e->affinity);
		if (err) {
			snprintf(why, whylen, "record %llu: %s", n, err == -E2BIG ?
				 "more threads or phases than a simulation takes" : "out of memory");
			return err;
		}
	}
	if (t->exits)
		bad = "after it ended";
	else if (e->kind == SCHED_EVENT_RUNNABLE && t->open)
		bad = "while it was runnable";
	else if (e->kind != SCHED_EVENT_RUNNABLE && !t->open)
		bad = "while it was blocked";
	if (bad) {
		snprintf(why, whylen, "record %llu: thread %llu %s %s", n, (unsigned long long)e->tid,
			 kind_names[e->kind], bad);
		return -EINVAL;
	}
	t->last_tick = rel;
	switch (e->kind) {
	case SCHED_EVENT_RUNNABLE:
		err = open_phase(sim, t, rel - t->done, e->affinity);	/* done: its last block */
		break;
	case SCHED_EVENT_TICK:
		sim->phase[t->last].burst++;
		break;
	case SCHED_EVENT_BLOCK:
	case SCHED_EVENT_EXIT:
		t->open = false;
		t->done = rel;
		t->exits = e->kind == SCHED_EVENT_EXIT;
		break;
	}
	if (err)
		snprintf(why, whylen, "record %llu: %s", n, err == -E2BIG ?
			 "more phases than a simulation takes" : "out of memory");
	return err;
}

void sched_sim_free(struct sched_sim *sim)
{
	sim_free(sim->thread);
	sim_free(sim->phase);
	sim_free(sim->index);
	sim->thread = NULL;
	sim->phase = NULL;
	sim->index = NULL;
	sim->nthreads = sim->nphases = 0;
	sim->thread_cap = sim->phase_cap = sim->index_size = 0;
}

static void note_blocked(struct sched_sim *sim, struct sched_sim_thread *t, uint64_t arrive)
{
	t->state = SCHED_SIM_BLOCKED;
	t->arrive = arrive;
	if (!sim->blocked++ || arrive < sim->next_arrival)
		sim->next_arrival = arrive;
}

int sched_sim_build(struct sched_sim *sim, const struct rec_file_header *th,
		    struct sim_reader trace, char *why, size_t whylen)
{
	uint64_t index = 0;

	memset(sim, 0, sizeof(*sim));
	sched_rq_init(&sim->rq, NULL, &default_tick);
	sim->ncpus = (unsigned)th->config[REC_SCHED_CONFIG_CPUS];
	for (const struct rec_head *h; (h = trace.next(trace.ctx));) {
		int err = add_event(sim, h, ++index, why, whylen);
		if (err)
			return err;
	}
	for (unsigned i = 0; i < sim->nthreads; i++) {
		struct sched_sim_thread *t = &sim->thread[i];
		const struct sched_sim_phase *first = &sim->phase[t->first];
		t->se.handle = (struct thread *)t;
		t->se.affinity = first->affinity;
		t->phase = t->first;
		t->remaining = first->burst;
		t->open = false;
		t->done = 0;
		for (uint32_t p = t->first; p != NO_PHASE; p = sim->phase[p].next)
			t->run += sim->phase[p].burst;
		note_blocked(sim, t, first->gap);
	}
	sim->active = sim->nthreads;
	sim->sum.threads = sim->nthreads;
	sim->sum.events = index;
	sim->sum.waits_known = true;
	return 0;
}

/* --- Simulating ----------------------------------------------------------------- */

static struct sched_sim_thread *thread_of(struct sched_entity *e)
{
	return container_of(e, struct sched_sim_thread, se);
}

static void queue(struct sched_sim *sim, struct sched_sim_thread *t)
{
	t->state = SCHED_SIM_QUEUED;
	t->se.affinity = sim->phase[t->phase].affinity;
	sched_rq_enqueue(&sim->rq, &t->se);
}

/* Queue the BLOCKED threads whose gap is over, in thread order. */
static void arrivals(struct sched_sim *sim)
{
	if (!sim->blocked || sim->next_arrival > sim->now)
		return;
	sim->blocked = 0;
	for (unsigned i = 0; i < sim->nthreads; i++) {
		struct sched_sim_thread *t = &sim->thread[i];
		if (t->state != SCHED_SIM_BLOCKED)
			continue;
		if (t->arrive <= sim->now)
			queue(sim, t);
		else
			note_blocked(sim, t, t->arrive);
	}
}

/* t's burst ended at tick at: it blocks for its next gap (none: queued at once), or is done. */
static void end_burst(struct sched_sim *sim, struct sched_sim_thread *t, uint64_t at)
{
	uint32_t next = sim->phase[t->phase].next;
	if (next == NO_PHASE) {
		t->state = SCHED_SIM_DONE;
		t->done = at;
		sim->active--;
		if (at > sim->sum.end)
			sim->sum.end = at;
		return;
	}
	t->phase = next;
	t->remaining = sim->phase[next].burst;
	if (sim->phase[next].gap == 0)
		queue(sim, t);
	else
		note_blocked(sim, t, at + sim->phase[next].gap);
}

static bool pick_due(const struct sched_sim *sim, unsigned c)
{
	const struct sched_sim_cpu *cpu = &sim->cpu[c];
	if (cpu->leaving)
		return true;
	if (cpu->current)
		return cpu->need_resched;
	return sched_rq_runnable_on(&sim->rq, c);
}

/* CPU c picks while a pick is due, as switch_to_next does live. */
static int dispatch(struct sched_sim *sim, unsigned c, sim_emit_fn *emit, void *ectx)
{
	struct sched_sim_cpu *cpu = &sim->cpu[c];

	while (pick_due(sim, c)) {
		struct sched_sim_thread *cur = cpu->current;
		struct sched_sim_thread *prev = cpu->leaving ? cpu->leaving : cur;
		if (cur)		/* preempted: back to the queue first, as live */
			queue(sim, cur);
		unsigned queued = sim->rq.length;
		struct sched_entity *e = sched_rq_pick(&sim->rq, c, prev ? &prev->se : NULL,
						       (struct cpu *)cpu);
		struct sched_sim_thread *next = e ? thread_of(e) : NULL;
		cpu->need_resched = false;
		cpu->leaving = NULL;
		cpu->current = next;
		struct rec_sched_pick rec = {
			.head = { .size = sizeof(rec), .type = REC_SCHED_PICK, .cpu = 0 },
			.seq = ++sim->sum.picks, .tick = sim->start + sim->now,
			.tid = next ? next->se.tid : 0, .prev = prev ? prev->se.tid : 0, .cpu = c,
			.queued = queued,
		};
		if (next != prev) {
			sim->sum.switches++;
			if (next)
				next->se.switches_in++;
		}
		if (next) {
			next->state = SCHED_SIM_RUNNING;
			if (!next->remaining) {		/* a burst shorter than a tick */
				cpu->current = NULL;
				cpu->leaving = next;
				end_burst(sim, next, sim->now);
			}
		}
		int err = emit(ectx, &rec.head);
		if (err)
			return err;
	}
	return 0;
}

/* The tick [now, now + 1): queued threads wait, running ones are charged. */
static void run_tick(struct sched_sim *sim)
{
	list_foreach(&sim->rq.queue, it)
		thread_of(list_entry(it, struct sched_entity, run_node))->wait++;
	sim->sum.wait += sim->rq.length;
	for (unsigned c = 0; c < sim->ncpus; c++) {
		struct sched_sim_cpu *cpu = &sim->cpu[c];
		struct sched_sim_thread *t = cpu->current;
		if (!t)
			continue;
		sim->sum.busy++;
		t->se.ticks_run++;
		if (--t->remaining == 0) {
			cpu->current = NULL;
			cpu->leaving = t;
			end_burst(sim, t, sim->now + 1);
		} else if (sched_rq_tick(&sim->rq, c, &t->se)) {
			cpu->need_resched = true;
		}
	}
}

static bool all_idle(const struct sched_sim *sim)
{
	if (sim->rq.length)
		return false;
	for (unsigned c = 0; c < sim->ncpus; c++)
		if (sim->cpu[c].current || sim->cpu[c].leaving)
			return false;
	return true;
}

int sched_sim_step(struct sched_sim *sim, sim_emit_fn *emit, void *ectx)
{
	if (all_idle(sim)) {
		if (!sim->blocked) {
			for (unsigned i = 0; i < sim->nthreads; i++)
				if (sim->thread[i].wait > sim->sum.wait_max)
					sim->sum.wait_max = sim->thread[i].wait;
			return 0;
		}
		if (sim->next_arrival > sim->now)
			sim->now = sim->next_arrival;	/* nothing to do until then */
	}
	arrivals(sim);
	for (unsigned c = 0; c < sim->ncpus; c++) {
		int err = dispatch(sim, c, emit, ectx);
		if (err)
			return err;
	}
	run_tick(sim);
	sim->now++;
	return 1;
}

int sched_sim_run(struct sched_sim *sim, sim_emit_fn *emit, void *ectx)
{
	int r;
	while ((r = sched_sim_step(sim, emit, ectx)) > 0)
		;
	return r;
}

void sched_sim_live_summary(const struct sched_sim *sim, struct sim_reader log,
			    struct sched_sim_summary *sum)
{
	memset(sum, 0, sizeof(*sum));
	sum->threads = sim->nthreads;
	sum->events = sim->sum.events;
	for (unsigned i = 0; i < sim->nthreads; i++) {
		sum->busy += sim->thread[i].run;
		if (sim->thread[i].last_tick > sum->end)
			sum->end = sim->thread[i].last_tick;
	}
	for (const struct rec_head *h; (h = log.next(log.ctx));) {
		const struct rec_sched_pick *p = (const void *)h;
		if (h->type != REC_SCHED_PICK || h->size != sizeof(*p))
			continue;
		sum->picks++;
		sum->switches += p->tid != p->prev;
	}
}
