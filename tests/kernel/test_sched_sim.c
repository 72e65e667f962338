// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the scheduler's simulation instances: a small trace
 * whose round-robin replay was worked out by hand (three threads on two
 * CPUs: bursts, gaps, a preemption, an idle CPU) yields exactly those
 * picks, waits and completion ticks; and the replay leaves the live
 * scheduler as it was (its policy slots, and the scheduling state of
 * threads parked meanwhile, which nothing else may change).
 */
#include <scion/ktest.h>
#include <scion/sched.h>
#include <scion/thread.h>
#include <scion/record.h>
#include <scion/chan_reply.h>
#include <scion/string.h>
#include <scion/wait.h>
#include "../../kernel/insitu/insitu_internal.h"
#include "../../kernel/insitu/sched_evaluate.h"

#define EV(tick, tid, kind) { tick, tid, SCHED_EVENT_##kind }

static const struct { uint64_t tick, tid; uint32_t kind; } trace[] = {
	EV(100, 5, RUNNABLE), EV(100, 6, RUNNABLE), EV(101, 7, RUNNABLE), EV(101, 5, TICK),
	EV(101, 6, TICK), EV(101, 6, BLOCK), EV(102, 5, TICK), EV(102, 6, RUNNABLE),
	EV(103, 5, TICK), EV(103, 5, BLOCK), EV(103, 6, TICK), EV(103, 6, BLOCK),
	EV(104, 7, TICK), EV(104, 6, RUNNABLE), EV(105, 5, RUNNABLE), EV(105, 6, TICK),
	EV(105, 6, EXIT), EV(106, 7, TICK), EV(107, 7, TICK), EV(108, 7, TICK),
	EV(109, 7, TICK), EV(110, 7, TICK), EV(106, 5, TICK), EV(107, 5, TICK),
	EV(108, 5, TICK), EV(109, 5, EXIT), EV(111, 7, EXIT),
};

/* Round robin on 2 CPUs, worked out tick by tick: tick, cpu, chosen, previous. */
static const uint64_t picks[][4] = {
	{ 100, 0, 5, 0 }, { 100, 1, 6, 0 }, { 101, 1, 7, 6 }, { 102, 0, 6, 5 }, { 103, 0, 5, 6 },
	{ 103, 1, 7, 7 }, { 104, 0, 6, 5 }, { 105, 0, 0, 6 }, { 105, 1, 7, 7 }, { 106, 0, 5, 0 },
	{ 107, 1, 0, 7 }, { 108, 0, 5, 5 }, { 109, 0, 0, 5 },
};

/* Threads parked on a wait queue for the test: nothing else can change their state. */
#define PARKED 3
static struct waitq park = WAITQ_INIT(park, "test-sched-sim-park");
static bool unpark;

static void parked_thread(void *arg)
{
	(void)arg;
	wait_event(&park, READ_ONCE(unpark));
}

struct live_state {
	struct sched_policy policy;
	struct sched_entity se[PARKED];
	enum thread_state state[PARKED];
};

static void snapshot(struct live_state *ls, struct thread *const *parked)
{
	memset(ls, 0, sizeof(*ls));
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	ls->policy = sched_policy;
	for (unsigned i = 0; i < PARKED; i++) {
		ls->se[i] = parked[i]->se;
		ls->state[i] = parked[i]->state;
	}
	spin_unlock_irqrestore(&sched_lock, f);
}

static bool next_event(void *ctx, struct sched_event *e)
{
	unsigned *i = ctx;
	if (*i == ARRAY_SIZE(trace))
		return false;
	*e = (struct sched_event){ .seq = *i + 1, .tick = trace[*i].tick, .tid = trace[*i].tid,
				   .kind = trace[*i].kind, .affinity = -1 };
	++*i;
	return true;
}

KTEST(sched_sim_round_robin_by_hand, 1)
{
	char why[200];
	struct live_state before, after;
	struct thread *parked[PARKED];

	unpark = false;
	for (unsigned i = 0; i < PARKED; i++) {
		parked[i] = thread_create("parked", parked_thread, NULL, -1);
		KT_ASSERT(t, parked[i], "no thread");
	}
	for (unsigned i = 0; i < PARKED; i++)	/* until each sleeps at the wait queue */
		while (READ_ONCE(parked[i]->state) != THREAD_SLEEPING)
			thread_sleep_ticks(1);
	snapshot(&before, parked);
	unsigned next = 0;
	struct recording *r = sched_trace_make("test_sched_sim", 2, next_event, &next);
	struct recording *out = r ? rec_store_create("test_sched_sim log") : NULL;
	struct sched_instance *inst = out ? sched_instance_create(r, "rr", why, sizeof(why)) : NULL;
	KT_EXPECT(t, inst, "no instance: %s", out ? why : "no recording");
	if (inst) {
		int err = sched_instance_replay(inst, out, why, sizeof(why));
		KT_EXPECT(t, !err, "replay: %s", why);
		struct rec_cursor cur;
		rec_cursor_init(&cur, &out->stream[1]);
		unsigned k = 0;
		for (const struct rec_head *h; (h = rec_cursor_next(&cur)); k++) {
			const struct rec_sched_pick *p = (const void *)h;
			KT_EXPECT(t, k < ARRAY_SIZE(picks) && h->type == REC_SCHED_PICK &&
				  p->seq == k + 1 && p->tick == picks[k][0] && p->cpu == picks[k][1] &&
				  p->tid == picks[k][2] && p->prev == picks[k][3],
				  "pick %u: tick %llu cpu %u tid %llu prev %llu", k + 1,
				  (unsigned long long)p->tick, p->cpu, (unsigned long long)p->tid,
				  (unsigned long long)p->prev);
		}
		KT_EXPECT(t, k == ARRAY_SIZE(picks), "%u picks, %u expected", k,
			  (unsigned)ARRAY_SIZE(picks));
		const struct sched_sim_summary *s = &inst->sim.sum;
		const struct sched_sim_thread *th = inst->sim.thread;
		KT_EXPECT(t, s->switches == 10 && s->wait == 1 && s->wait_max == 1 && s->end == 9 &&
			  s->busy == 15 && inst->sim.nthreads == 3,
			  "switches %llu wait %llu/%llu end %llu busy %llu threads %u",
			  (unsigned long long)s->switches, (unsigned long long)s->wait,
			  (unsigned long long)s->wait_max, (unsigned long long)s->end,
			  (unsigned long long)s->busy, inst->sim.nthreads);
		KT_EXPECT(t, th[0].done == 9 && th[1].done == 5 && th[2].done == 7 && th[0].wait == 1,
			  "done %llu %llu %llu", (unsigned long long)th[0].done,
			  (unsigned long long)th[1].done, (unsigned long long)th[2].done);
		sched_instance_destroy(inst);
	}
	snapshot(&after, parked);
	KT_EXPECT(t, !memcmp(&before.policy, &after.policy, sizeof(before.policy)),
		  "the live policy slots changed");
	KT_EXPECT(t, !memcmp(before.se, after.se, sizeof(before.se)) &&
		  !memcmp(before.state, after.state, sizeof(before.state)),
		  "a parked thread's scheduling state changed");
	WRITE_ONCE(unpark, true);
	waitq_wake_all(&park);
	for (unsigned i = 0; i < PARKED; i++)
		thread_join(parked[i]);
	if (out) {
		rec_store_complete(out);
		rec_store_discard(out);
	}
	if (r)
		rec_store_discard(r);
}

/* The bounded slowdown: a thread that barely ran is divided by the bound, never below 1x. */
KTEST(sched_slowdown_bounded, 1)
{
	static const struct { uint64_t wait, run, permille; } cases[] = {
		{ 0, 1, 1000 },		/* barely ran, never waited */
		{ 16, 1, 1700 },	/* the recorder's tick after 16 queued: not 17x */
		{ 5, 4, 1000 },		/* below the bound: at least 1x */
		{ 90, CHAN_ADAPT_SLOWDOWN_MIN_RUN, 10000 },	/* at the bound: exact */
		{ 600, 150, 5000 },	/* an interactive thread behind compute threads */
		{ 1, 3, 1000 },
		{ 0, 300, 1000 },
		{ 2, 3000, 1000 },	/* truncated, as every figure */
	};
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t s = sched_slowdown_permille(cases[i].wait, cases[i].run);
		KT_EXPECT(t, s == cases[i].permille, "wait %llu run %llu: %llu permille, not %llu",
			  (unsigned long long)cases[i].wait, (unsigned long long)cases[i].run,
			  (unsigned long long)s, (unsigned long long)cases[i].permille);
	}
	/* Above the bound it is the plain ratio. */
	for (uint64_t run = CHAN_ADAPT_SLOWDOWN_MIN_RUN; run < 200; run += 7)
		KT_EXPECT(t, sched_slowdown_permille(3 * run, run) == 4000, "run %llu",
			  (unsigned long long)run);
}
