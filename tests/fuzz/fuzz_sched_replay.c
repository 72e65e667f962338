// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: a scheduler trace replayed by the simulation code
 * the kernel and the host share (kernel/insitu/sched_replay.c over the run
 * queue of kernel/sched/runq.c), in either mode. The first byte picks
 * the CPUs (1 to 8); the second the policy (its low bits: the default
 * round robin, the graft grafts/sched_lifo.c, or a fewest-ticks-first
 * policy here, both through the graft API, kernel/sched/api.c, and
 * replay_env.c's transaction services), the mode (bit 6: follow, else
 * the open-loop model) and, in its top bit, how the rest is read.
 *
 * Open-loop: as raw trace records (every one walked within bounds or
 * refused), or compactly, four bytes an event (thread, kind, tick step,
 * affinity) with increasing sequence numbers, so that most inputs are
 * traces the replay takes. Whatever it takes runs to the end within a
 * bound on its ticks: every thread done, every burst run, the waits and
 * picks added up, every pick naming a known thread on a real CPU.
 *
 * Follow (sched_follow.c): raw, the rest split into a trace and a log
 * (the third byte says where) and followed as they are: whatever the
 * bytes, the follow ends or refuses a record with a reason, and every
 * answer it emits is a pick of the log with only the choice changed.
 * Compact, four bytes a step of a generator that keeps the scheduler's
 * rules (kernel/sched/sched.c's, in miniature: a start state, runnable,
 * charged ticks, blocking, ending and yielding on the CPU that runs them,
 * picks of a queued thread with the queue's length), occasionally
 * breaking one record on purpose: an unbroken history is followed to the
 * end, and with round robin it agrees at every pick whose recorded
 * choice was round robin's (the oldest queued thread allowed there).
 */
#include <string.h>
#include <graft/manifest.h>
#include "fuzz.h"
#include "replay_env.h"
#include "insitu/sched_follow.h"

/* grafts/sched_lifo.c, built in: newest first, through the graft API. */
extern const struct graft_manifest graft_manifest;

/* Fewest ticks run first, as grafts/sched_fair.c; it also tries the slice setter. */
static struct thread *fewest_pick_next(struct cpu *c)
{
	unsigned n = sched_runq_length(), best = n;
	uint64_t least = UINT64_MAX;

	(void)c;
	sched_set_slice(sched_running_slice());
	for (unsigned i = 0; i < n; i++)
		if (sched_runq_may_run_here(i) && sched_runq_ticks_run(i) < least) {
			least = sched_runq_ticks_run(i);
			best = i;
		}
	FUZZ_ASSERT(sched_cpu() < SCHED_SIM_MAX_CPUS, "decision for CPU %u", sched_cpu());
	return best < n ? sched_runq_thread(best) : NULL;
}

/* Every answer must pass the graft point's check, as a graft's would have to. */
static graft_fn_sched_pick_next *chosen;
static struct thread *checked_pick_next(struct cpu *c)
{
	struct thread *t = chosen(c);
	const char *why = sched_check_pick((uint64_t)(uintptr_t)t);
	FUZZ_ASSERT(!why, "a policy's answer was refused: %s", why);
	return t;
}

static struct sched_sim *sim_under_test;
static uint64_t emitted;

static int emit(void *ctx, const struct rec_head *rec)
{
	const struct rec_sched_pick *p = (const void *)rec;
	const struct sched_sim *sim = sim_under_test;
	bool known = p->tid == 0;

	(void)ctx;
	for (unsigned i = 0; i < sim->nthreads && !known; i++)
		known = sim->thread[i].se.tid == p->tid;
	FUZZ_ASSERT(rec->type == REC_SCHED_PICK && rec->size == sizeof(*p) && p->seq == ++emitted &&
		    p->cpu < sim->ncpus && known, "bad pick %llu: cpu %u tid %llu",
		    (unsigned long long)p->seq, p->cpu, (unsigned long long)p->tid);
	return 0;
}

/*
 * The compact form: four bytes an event, as raw records into out (48 bytes
 * each, 72 for a start-state kind).
 */
static size_t expand(const uint8_t *in, size_t n, unsigned ncpus, uint8_t *out)
{
	uint64_t tick = 1000;
	size_t bytes = 0;
	for (size_t k = 0; k < n / 4; k++, in += 4) {
		uint32_t kind = 1 + in[1] % 8;
		struct rec_sched_state *r = (void *)(out + bytes);
		size_t size = rec_sched_kind_is_state(kind) ? sizeof(*r) : sizeof(r->event);
		tick += in[2] % 4;
		memset(r, 0, size);
		r->event = (struct rec_sched_event){
			.head = { .size = (uint16_t)size, .type = REC_SCHED_EVENT },
			.seq = k + 1, .tick = tick, .tid = 1 + in[0] % 8, .kind = kind,
			.affinity = (int32_t)(in[3] % (ncpus + 1)) - 1,
		};
		bytes += size;
	}
	return bytes;
}

/* --- Follow mode ----------------------------------------------------------------- */

#define GEN_THREADS 8
#define GEN_MAX_RECORDS 1024

enum { GEN_UNKNOWN, GEN_BLOCKED, GEN_QUEUED, GEN_RUNNING, GEN_DONE };

/* The generator's picture of the scheduler: the rules the follow checks, kept. */
struct generator {
	unsigned ncpus;
	uint64_t seq, tick;
	uint8_t state[GEN_THREADS + 1];		/* by tid 1..8: GEN_UNKNOWN .. GEN_DONE */
	int affinity[GEN_THREADS + 1];
	uint64_t queue[GEN_THREADS];		/* queued tids, oldest first */
	unsigned queued;
	uint64_t running[8];			/* each CPU's tid, 0 idle */
	bool started;				/* a record after the start state */
	bool broken;				/* a record was broken on purpose */
	struct rec_sched_event *trace;		/* room for GEN_MAX_RECORDS of either */
	struct rec_sched_pick *log;
	size_t trace_bytes, picks;
	uint64_t rr_picks;			/* picks whose recorded choice was round robin's */
};

static struct rec_sched_event *gen_event(struct generator *g, uint64_t tid, uint32_t kind,
					 unsigned cpu, size_t size)
{
	struct rec_sched_state *r = (void *)((uint8_t *)g->trace + g->trace_bytes);
	memset(r, 0, size);
	r->event = (struct rec_sched_event){
		.head = { .size = (uint16_t)size, .type = REC_SCHED_EVENT, .cpu = cpu },
		.seq = ++g->seq, .tick = g->tick, .tid = tid, .kind = kind,
		.affinity = g->affinity[tid],
	};
	g->trace_bytes += size;
	return &r->event;
}

static void gen_enqueue(struct generator *g, uint64_t tid)
{
	g->queue[g->queued++] = tid;
	g->state[tid] = GEN_QUEUED;
}

static bool allowed(const struct generator *g, uint64_t tid, unsigned cpu)
{
	return g->affinity[tid] < 0 || g->affinity[tid] == (int)cpu;
}

/* A pick on cpu, as switch_to_next makes it; which chooses among the queued (0: oldest allowed). */
static struct rec_sched_pick *gen_pick(struct generator *g, unsigned cpu, unsigned which)
{
	uint64_t prev = g->running[cpu];
	if (prev && g->state[prev] == GEN_RUNNING)
		gen_enqueue(g, prev);		/* preempted or yielding */
	unsigned pos = g->queued;
	for (unsigned i = 0; i < g->queued && pos == g->queued; i++)
		if (allowed(g, g->queue[i], cpu))
			pos = i;
	g->rr_picks += which == 0;
	if (which && g->queued)
		pos = which % g->queued;
	uint64_t tid = pos < g->queued ? g->queue[pos] : 0;
	struct rec_sched_pick *p = &g->log[g->picks++];
	*p = (struct rec_sched_pick){
		.head = { .size = sizeof(*p), .type = REC_SCHED_PICK, .cpu = cpu },
		.seq = ++g->seq, .tick = g->tick, .tid = tid, .prev = prev, .cpu = cpu,
		.queued = g->queued,
	};
	if (tid) {
		memmove(&g->queue[pos], &g->queue[pos + 1], (g->queued - pos - 1) * sizeof(g->queue[0]));
		g->queued--;
		g->state[tid] = GEN_RUNNING;
	}
	g->running[cpu] = tid;
	return p;
}

/* One step from four bytes: op, thread, CPU, a value (affinity, ticks, the choice). */
static void gen_step(struct generator *g, const uint8_t *in)
{
	unsigned op = in[0] % 8, cpu = in[2] % g->ncpus;
	uint64_t tid = 1 + in[1] % GEN_THREADS, running = g->running[cpu];
	struct rec_sched_event *e = NULL;
	struct rec_sched_pick *p = NULL;

	g->tick += in[3] & 1;
	if (op == 0 && !g->started && !g->state[tid]) {		/* the start state */
		static const uint32_t kinds[] = { SCHED_EVENT_QUEUED, SCHED_EVENT_RUNNING,
						  SCHED_EVENT_SLEEPING };
		uint32_t kind = kinds[in[3] % 3];
		if (kind == SCHED_EVENT_RUNNING && running)
			kind = SCHED_EVENT_SLEEPING;
		g->affinity[tid] = kind == SCHED_EVENT_RUNNING ? -1 : (int)(in[3] % (g->ncpus + 1)) - 1;
		e = gen_event(g, tid, kind, cpu, sizeof(struct rec_sched_state));
		((struct rec_sched_state *)e)->ticks_run = in[3];
		((struct rec_sched_state *)e)->slice = in[3] % 4 - 1;
		if (kind == SCHED_EVENT_QUEUED)
			gen_enqueue(g, tid);
		else if (kind == SCHED_EVENT_RUNNING)
			g->state[tid] = GEN_RUNNING, g->running[cpu] = tid;
		else
			g->state[tid] = GEN_BLOCKED;
	} else if (op <= 1 && (!g->state[tid] || g->state[tid] == GEN_BLOCKED)) {
		g->started = true;
		g->affinity[tid] = (int)(in[3] % (g->ncpus + 1)) - 1;
		e = gen_event(g, tid, SCHED_EVENT_RUNNABLE, cpu, sizeof(*e));
		gen_enqueue(g, tid);
	} else if (op == 2 && running && g->state[running] == GEN_RUNNING) {
		g->started = true;
		e = gen_event(g, running, SCHED_EVENT_TICK, cpu, sizeof(*e));
	} else if (op >= 3 && op <= 5 && running && g->state[running] == GEN_RUNNING) {
		static const uint32_t kinds[] = { SCHED_EVENT_BLOCK, SCHED_EVENT_EXIT,
						  SCHED_EVENT_YIELD };
		g->started = true;
		e = gen_event(g, running, kinds[op - 3], cpu, sizeof(*e));
		g->state[running] = op == 3 ? GEN_BLOCKED : op == 4 ? GEN_DONE : GEN_RUNNING;
		p = gen_pick(g, cpu, in[3] >> 6);	/* the pick that follows it at once */
	} else if (op >= 6) {
		g->started = true;
		p = gen_pick(g, cpu, in[3] >> 6);
	}
	if ((in[3] & 0xf0) == 0xf0 && (e || p)) {	/* broken on purpose */
		g->broken = true;
		if (p && (in[1] & 1))
			p->tid++;
		else if (p)
			p->queued++;
		else
			e->tid ^= 1 + (in[1] & 3);
	}
}

static uint64_t follow_emitted;
static struct rec_sched_pick *follow_log;	/* the log being followed, when known */

static int follow_emit(void *ctx, const struct rec_head *rec)
{
	const struct sched_follow *f = ctx;
	const struct rec_sched_pick *p = (const void *)rec;
	FUZZ_ASSERT(rec->type == REC_SCHED_PICK && rec->size == sizeof(*p) && p->cpu < f->ncpus &&
		    ++follow_emitted == f->sum.picks, "bad answer %llu", (unsigned long long)p->seq);
	if (follow_log) {
		struct rec_sched_pick recorded = follow_log[follow_emitted - 1];
		recorded.tid = p->tid;
		FUZZ_ASSERT(!memcmp(&recorded, p, sizeof(*p)), "answer %llu is not the recorded "
			    "pick with another choice", (unsigned long long)follow_emitted);
	}
	return 0;
}

static void follow(const uint8_t *data, size_t size, unsigned ncpus, bool compact)
{
	static struct sched_follow f;
	static graft_fn_sched_pick_next *slot = checked_pick_next;
	struct rec_file_header th = { .magic = REC_MAGIC, .version = REC_VERSION,
				      .stream = REC_STREAM_TRACE, .header_bytes = sizeof(th),
				      .module = "sched" }, lh = th;
	struct generator g = { .ncpus = ncpus, .tick = 1000 };
	char why[200];

	lh.stream = REC_STREAM_LOG;
	th.config[REC_SCHED_CONFIG_CPUS] = lh.config[REC_SCHED_CONFIG_CPUS] = ncpus;
	for (unsigned i = 0; i <= GEN_THREADS; i++)
		g.affinity[i] = -1;
	struct fuzz_walk tw, lw;
	if (compact) {
		g.trace = malloc(GEN_MAX_RECORDS * sizeof(struct rec_sched_state));
		g.log = malloc(GEN_MAX_RECORDS * sizeof(struct rec_sched_pick));
		for (size_t k = 0; k + 4 <= size && g.picks + g.trace_bytes / 48 + 2 < GEN_MAX_RECORDS;
		     k += 4)
			gen_step(&g, data + k);
		tw = (struct fuzz_walk){ (const uint8_t *)g.trace, g.trace_bytes, 0, NULL };
		lw = (struct fuzz_walk){ (const uint8_t *)g.log, g.picks * sizeof(*g.log), 0, NULL };
		follow_log = g.log;
	} else {	/* raw: the first byte says where the trace ends, in eighths */
		size_t split = size ? (size - 1) * (data[0] % 9) / 8 : 0;
		/* Exactly as long (a read past the end is caught), 8-byte aligned as a file read is. */
		g.trace = malloc(split ? split : 1);
		g.log = malloc(size - (size > 0) - split + 1);
		memcpy(g.trace, data + (size > 0), split);
		memcpy(g.log, data + (size > 0) + split, size - (size > 0) - split);
		tw = (struct fuzz_walk){ (const uint8_t *)g.trace, split, 0, NULL };
		lw = (struct fuzz_walk){ (const uint8_t *)g.log, size - (size > 0) - split, 0, NULL };
		follow_log = NULL;
	}
	FUZZ_ASSERT(!sched_follow_init(&f, &th, &lh, (struct sim_reader){ fuzz_walk_next, &tw },
				       (struct sim_reader){ fuzz_walk_next, &lw }, why, sizeof(why)),
		    "init: %s", why);
	f.rq.pick_next = &slot;
	follow_emitted = 0;
	int err = sched_follow_run(&f, follow_emit, &f);
	FUZZ_ASSERT(err == 0 || ((err == -22 || err == -7) && f.why[0] && !strchr(f.why, '\n')),
		    "follow ended with %d: %s", err, f.why);
	FUZZ_ASSERT(f.sum.agree <= f.sum.picks && f.sum.picks == follow_emitted &&
		    f.sum.switches <= f.sum.picks, "summary: %llu agree of %llu picks, %llu emitted",
		    (unsigned long long)f.sum.agree, (unsigned long long)f.sum.picks,
		    (unsigned long long)follow_emitted);
	if (compact && !g.broken) {
		FUZZ_ASSERT(!err && f.sum.picks == g.picks, "an unbroken history refused after %llu "
			    "of %zu picks: %s", (unsigned long long)f.sum.picks, g.picks, f.why);
		FUZZ_ASSERT(chosen != sched_default_pick_next || f.sum.agree >= g.rr_picks,
			    "round robin agrees at %llu picks, %llu were its choice",
			    (unsigned long long)f.sum.agree, (unsigned long long)g.rr_picks);
	}
	sched_follow_free(&f);
	free(g.trace);
	free(g.log);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sched_sim sim;
	static graft_fn_sched_pick_next *slot = checked_pick_next;
	struct rec_file_header h = { .magic = REC_MAGIC, .version = REC_VERSION,
				     .stream = REC_STREAM_TRACE, .header_bytes = sizeof(h),
				     .module = "sched" };
	char why[200];

	if (size < 2)
		return 0;
	unsigned ncpus = 1 + data[0] % 8;
	graft_fn_sched_pick_next *const policies[] = {
		sched_default_pick_next,
		(graft_fn_sched_pick_next *)(uintptr_t)graft_manifest.entry, fewest_pick_next,
	};
	chosen = policies[(data[1] & 0x3f) % 3];
	if (data[1] & 0x40) {
		follow(data + 2, size - 2, ncpus, data[1] & 0x80);
		return 0;
	}
	h.config[REC_SCHED_CONFIG_CPUS] = ncpus;
	FUZZ_ASSERT(!sched_sim_check_header(&h, REC_STREAM_TRACE, why, sizeof(why)), "%s", why);
	/*
	 * Records are read in place: copy the body to 8-byte alignment, as a file read is, into
	 * memory exactly as long when raw (so that a read past the end is caught).
	 */
	uint64_t *body = malloc(data[1] & 0x80 ? (size / 4 + 1) * sizeof(struct rec_sched_state)
						: size - 2 + 1);
	size_t n = data[1] & 0x80 ? expand(data + 2, size - 2, ncpus, (void *)body) : size - 2;
	if (!(data[1] & 0x80))
		memcpy(body, data + 2, n);
	struct fuzz_walk w = { (const uint8_t *)body, n, 0, NULL };
	int err = sched_sim_build(&sim, &h, (struct sim_reader){ fuzz_walk_next, &w }, why, sizeof(why));
	FUZZ_ASSERT(w.offset <= w.size, "walked past the end");
	FUZZ_ASSERT(err == 0 || err == -22 || err == -7, "unexpected error %d: %s", err, why);
	if (!err) {
		sim.rq.pick_next = &slot;
		sim_under_test = &sim;
		emitted = 0;
		uint64_t steps = 0, bound = 2 * sim.nphases + 2;
		for (unsigned i = 0; i < sim.nthreads; i++)
			bound += sim.thread[i].run;
		int r;
		while ((r = sched_sim_step(&sim, emit, NULL)) > 0)
			FUZZ_ASSERT(++steps <= bound, "more than %llu steps", (unsigned long long)bound);
		FUZZ_ASSERT(r == 0 && sim.rq.length == 0 && sim.active == 0 && sim.blocked == 0,
			    "ended with %d, %u queued, %u active, %u blocked", r, sim.rq.length,
			    sim.active, sim.blocked);
		uint64_t busy = 0, wait = 0;
		for (unsigned i = 0; i < sim.nthreads; i++) {
			const struct sched_sim_thread *t = &sim.thread[i];
			FUZZ_ASSERT(t->state == SCHED_SIM_DONE && t->se.ticks_run == t->run &&
				    t->done >= t->run && t->done <= sim.sum.end &&
				    t->wait <= sim.sum.wait_max,
				    "thread %llu: state %u, ran %llu of %llu, done %llu",
				    (unsigned long long)t->se.tid, t->state,
				    (unsigned long long)t->se.ticks_run, (unsigned long long)t->run,
				    (unsigned long long)t->done);
			busy += t->run;
			wait += t->wait;
		}
		FUZZ_ASSERT(sim.sum.busy == busy && sim.sum.wait == wait && emitted == sim.sum.picks &&
			    sim.sum.switches <= sim.sum.picks, "summary: busy %llu of %llu, wait %llu "
			    "of %llu, %llu picks emitted of %llu", (unsigned long long)sim.sum.busy,
			    (unsigned long long)busy, (unsigned long long)sim.sum.wait,
			    (unsigned long long)wait, (unsigned long long)emitted,
			    (unsigned long long)sim.sum.picks);
	}
	sched_sim_free(&sim);
	free(body);
	return 0;
}
