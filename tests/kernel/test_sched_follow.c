// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of following a scheduler recording (mode=follow,
 * kernel/insitu/sched_follow.h):
 *
 *   - a small recording made by hand, as the live round robin would
 *     record it (a start state of a running, two queued and a sleeping
 *     thread on two CPUs, then a preemption, a wake-up, a block, a
 *     yield, an exit and an idle pick), followed with rr reproduces its
 *     log record for record, and followed with a fewest-ticks and a
 *     newest-first policy gives the answers worked out by hand (the
 *     fewest-ticks answers need the start state's ticks run);
 *   - a log naming a thread the trace never named, and a log out of
 *     sequence order, are refused with a line saying so;
 *   - a live recording begins with the state of every thread (the
 *     parked ones sleeping, with their exact counters), and following it
 *     with the live round robin reproduces its log byte for byte.
 */
#include <scion/ktest.h>
#include <scion/sched.h>
#include <scion/thread.h>
#include <scion/record.h>
#include <scion/string.h>
#include <scion/wait.h>
#include <scion/errno.h>
#include <arch/cpu.h>
#include "../../kernel/insitu/insitu_internal.h"

enum { STATE, EVENT, PICK };

/* One record of a hand-made recording; its sequence number is its position + 1. */
struct hand_step {
	uint8_t what;		/* STATE, EVENT or PICK */
	uint32_t kind;		/* STATE, EVENT: SCHED_EVENT_* */
	unsigned cpu;
	uint64_t tid;		/* PICK: the thread chosen */
	uint64_t extra;		/* STATE: ticks run; PICK: the previous thread */
	unsigned queued;	/* PICK */
};

#define ST(kind, tid, cpu, ticks) { STATE, SCHED_EVENT_##kind, cpu, tid, ticks, 0 }
#define EV(kind, tid, cpu)        { EVENT, SCHED_EVENT_##kind, cpu, tid, 0, 0 }
#define PK(cpu, tid, prev, queued) { PICK, 0, cpu, tid, prev, queued }

/* Round robin on 2 CPUs; the queue after each step in the comment. */
static const struct hand_step hand[] = {
	ST(RUNNING, 5, 0, 10),	/* slice 1: its next tick ends it */
	ST(QUEUED, 6, 0, 1),	/* [6] */
	ST(QUEUED, 7, 0, 0),	/* [6 7] */
	ST(SLEEPING, 8, 0, 50),
	PK(1, 6, 0, 2),		/* CPU 1 was idle: [7] */
	EV(TICK, 5, 0),		/* 5's slice is out */
	PK(0, 7, 5, 2),		/* 5 preempted: [7 5] -> [5] */
	EV(RUNNABLE, 8, 0),	/* [5 8] */
	EV(BLOCK, 6, 1),
	PK(1, 5, 6, 2),		/* [8] */
	EV(YIELD, 7, 0),
	PK(0, 8, 7, 2),		/* 7 yielded: [8 7] -> [7] */
	EV(EXIT, 5, 1),
	PK(1, 7, 5, 1),		/* [] */
	EV(BLOCK, 8, 0),
	PK(0, 0, 8, 0),		/* idle */
};
#define HAND_PICKS 6

/* The answers of a fewest-ticks-first and of a newest-first policy at each pick. */
static const uint64_t fewest_answers[HAND_PICKS] = { 7, 7, 5, 7, 7, 0 };
static const uint64_t newest_answers[HAND_PICKS] = { 7, 5, 8, 7, 7, 0 };

/* The hand-made recording, with pick number bad_pick (1-based; 0: none) changed by bad. */
static struct recording *make_hand(unsigned bad_pick, void (*bad)(struct rec_sched_pick *p))
{
	struct recording *r = rec_store_create("test_sched_follow");
	if (!r)
		return NULL;
	const struct rec_module *m = rec_module_find("sched");
	rec_header_init(&r->header[0], m, REC_STREAM_TRACE);
	rec_header_init(&r->header[1], m, REC_STREAM_LOG);
	r->header[0].config[REC_SCHED_CONFIG_CPUS] = r->header[1].config[REC_SCHED_CONFIG_CPUS] = 2;
	int err = 0;
	unsigned picks = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(hand) && !err; i++) {
		const struct hand_step *s = &hand[i];
		struct rec_sched_event e = {
			.head = { .size = sizeof(e), .type = REC_SCHED_EVENT, .cpu = s->cpu },
			.seq = i + 1, .tick = 100 + i, .tid = s->tid, .kind = s->kind, .affinity = -1,
		};
		if (s->what == STATE) {
			struct rec_sched_state st = { .event = e, .ticks_run = s->extra,
						      .switches_in = 3, .slice = 1 };
			st.event.head.size = sizeof(st);
			err = rec_data_append(&r->stream[0], &st, sizeof(st));
		} else if (s->what == EVENT) {
			err = rec_data_append(&r->stream[0], &e, sizeof(e));
		} else {
			struct rec_sched_pick p = {
				.head = { .size = sizeof(p), .type = REC_SCHED_PICK, .cpu = s->cpu },
				.seq = i + 1, .tick = 100 + i, .tid = s->tid, .prev = s->extra,
				.cpu = s->cpu, .queued = s->queued,
			};
			if (++picks == bad_pick)
				bad(&p);
			err = rec_data_append(&r->stream[1], &p, sizeof(p));
		}
	}
	rec_store_complete(r);
	if (err) {
		rec_store_discard(r);
		return NULL;
	}
	return r;
}

/* Whether rec's log and out's log hold the same records. */
static bool same_log(const struct recording *a, const struct recording *b)
{
	struct rec_cursor ca, cb;
	rec_cursor_init(&ca, &a->stream[1]);
	rec_cursor_init(&cb, &b->stream[1]);
	for (;;) {
		const struct rec_head *x = rec_cursor_next(&ca), *y = rec_cursor_next(&cb);
		if (!x || !y)
			return !x && !y;
		if (x->size != y->size || memcmp(x, y, x->size))
			return false;
	}
}

/* Follow r with the named policy into a new recording; its summary in *sum. */
static int follow_named(struct recording *r, const char *name, struct recording **out,
			struct sched_follow_summary *sum, char *why, size_t whylen)
{
	struct sched_instance *inst = sched_instance_follow(r, name, why, whylen);
	*out = inst ? rec_store_create("test_sched_follow log") : NULL;
	if (!*out) {
		if (inst)
			sched_instance_destroy(inst);
		return -ENOMEM;
	}
	int err = sched_instance_replay(inst, *out, why, whylen);
	*sum = inst->follow.sum;
	sched_instance_destroy(inst);
	rec_store_complete(*out);
	return err;
}

KTEST(sched_follow_round_robin_by_hand, 1)
{
	char why[240];
	struct recording *out, *r = make_hand(0, NULL);
	struct sched_follow_summary s;

	KT_ASSERT(t, r, "no memory for the recording");
	int err = follow_named(r, "rr", &out, &s, why, sizeof(why));
	KT_EXPECT(t, !err, "follow: %s", why);
	KT_EXPECT(t, s.picks == HAND_PICKS && s.agree == HAND_PICKS && s.threads == 4 &&
		  s.at_start == 4 && s.events == ARRAY_SIZE(hand) - HAND_PICKS && s.switches == 6,
		  "picks %llu agree %llu threads %llu at start %llu events %llu switches %llu",
		  (unsigned long long)s.picks, (unsigned long long)s.agree,
		  (unsigned long long)s.threads, (unsigned long long)s.at_start,
		  (unsigned long long)s.events, (unsigned long long)s.switches);
	KT_EXPECT(t, out && same_log(r, out), "the followed log is not the recorded one");
	if (out)
		rec_store_discard(out);
	rec_store_discard(r);
}

/* --- Policies of the test's own, through the graft API ----------------------- */

static struct thread *fewest_ticks(struct cpu *c)
{
	unsigned n = sched_runq_length(), best = n;
	uint64_t least = UINT64_MAX;
	(void)c;
	for (unsigned i = 0; i < n; i++)
		if (sched_runq_may_run_here(i) && sched_runq_ticks_run(i) < least) {
			least = sched_runq_ticks_run(i);
			best = i;
		}
	return best < n ? sched_runq_thread(best) : NULL;
}

static struct thread *newest(struct cpu *c)
{
	(void)c;
	for (unsigned i = sched_runq_length(); i-- > 0;)
		if (sched_runq_may_run_here(i))
			return sched_runq_thread(i);
	return NULL;
}

struct answers {
	uint64_t tid[HAND_PICKS];
	unsigned n;
};

static int keep_answer(void *ctx, const struct rec_head *rec)
{
	struct answers *a = ctx;
	if (a->n < HAND_PICKS)
		a->tid[a->n] = ((const struct rec_sched_pick *)rec)->tid;
	a->n++;
	return 0;
}

static const struct rec_head *next_record(void *ctx)
{
	return rec_cursor_next(ctx);
}

/* Follow r with policy fn directly (the portable follow), interrupts masked as a replay is. */
static int follow_with(struct recording *r, graft_fn_sched_pick_next *fn, struct answers *a,
		       struct sched_follow *f, char *why, size_t whylen)
{
	static graft_fn_sched_pick_next *slot;
	struct rec_cursor trace, log;

	rec_cursor_init(&trace, &r->stream[0]);
	rec_cursor_init(&log, &r->stream[1]);
	int err = sched_follow_init(f, &r->header[0], &r->header[1],
				    (struct sim_reader){ next_record, &trace },
				    (struct sim_reader){ next_record, &log }, why, whylen);
	if (!err) {
		slot = fn;
		f->rq.pick_next = &slot;
		irqflags_t flags = arch_irq_save();
		err = sched_follow_run(f, keep_answer, a);
		arch_irq_restore(flags);
		if (err)
			strlcpy(why, f->why, whylen);
	}
	sched_follow_free(f);
	return err;
}

KTEST(sched_follow_other_policies_by_hand, 1)
{
	static struct sched_follow f;
	char why[240];
	struct recording *r = make_hand(0, NULL);
	struct answers fewest = { 0 }, newer = { 0 };

	KT_ASSERT(t, r, "no memory for the recording");
	int err = follow_with(r, fewest_ticks, &fewest, &f, why, sizeof(why));
	KT_EXPECT(t, !err && fewest.n == HAND_PICKS && f.sum.agree == 4 &&
		  !memcmp(fewest.tid, fewest_answers, sizeof(fewest_answers)),
		  "fewest ticks: %s; %u answers, %llu agree: %llu %llu %llu %llu %llu %llu",
		  err ? why : "", fewest.n, (unsigned long long)f.sum.agree,
		  (unsigned long long)fewest.tid[0], (unsigned long long)fewest.tid[1],
		  (unsigned long long)fewest.tid[2], (unsigned long long)fewest.tid[3],
		  (unsigned long long)fewest.tid[4], (unsigned long long)fewest.tid[5]);
	err = follow_with(r, newest, &newer, &f, why, sizeof(why));
	KT_EXPECT(t, !err && newer.n == HAND_PICKS && f.sum.agree == 2 &&
		  !memcmp(newer.tid, newest_answers, sizeof(newest_answers)),
		  "newest first: %s; %u answers, %llu agree", err ? why : "", newer.n,
		  (unsigned long long)f.sum.agree);
	rec_store_discard(r);
}

static void unknown_thread(struct rec_sched_pick *p)
{
	p->tid = 99;
}

static void early_seq(struct rec_sched_pick *p)
{
	p->seq = 4;
}

KTEST(sched_follow_refuses_what_does_not_fit, 1)
{
	static const struct {
		unsigned pick;
		void (*bad)(struct rec_sched_pick *p);
		const char *expect;
	} cases[] = {
		{ 5, unknown_thread, "chose thread 99, which the trace never named" },
		{ 3, early_seq, "log record 3 (seq 4): its sequence number is not after" },
	};
	char why[240];
	struct sched_follow_summary s;

	for (unsigned k = 0; k < ARRAY_SIZE(cases); k++) {
		struct recording *out, *r = make_hand(cases[k].pick, cases[k].bad);
		KT_ASSERT(t, r, "no memory for the recording");
		why[0] = '\0';
		int err = follow_named(r, "rr", &out, &s, why, sizeof(why));
		KT_EXPECT(t, err == -EINVAL && strstr(why, cases[k].expect) && !strchr(why, '\n'),
			  "case %u: %d, '%s'", k, err, why);
		if (out)
			rec_store_discard(out);
		rec_store_discard(r);
	}
}

/* --- A live recording --------------------------------------------------------- */

#define PARKED 2
static struct waitq park = WAITQ_INIT(park, "test-sched-follow-park");
static bool unpark;

static void parked_thread(void *arg)
{
	(void)arg;
	wait_event(&park, READ_ONCE(unpark));
}

static void busy_thread(void *arg)
{
	(void)arg;
	for (unsigned round = 0; round < 3; round++) {
		uint64_t until = READ_ONCE(thread_current()->se.ticks_run) + 2;
		while (READ_ONCE(thread_current()->se.ticks_run) < until)
			cpu_relax();
		thread_yield();
		thread_sleep_ticks(1);
	}
}

/* The start state's record of thread tid, or NULL. */
static const struct rec_sched_state *state_of(const struct recording *r, uint64_t tid)
{
	struct rec_cursor cur;
	rec_cursor_init(&cur, &r->stream[0]);
	for (const struct rec_head *h; (h = rec_cursor_next(&cur));) {
		const struct rec_sched_state *s = (const void *)h;
		if (h->size != sizeof(*s))
			return NULL;		/* past the start state */
		if (s->event.tid == tid)
			return s;
	}
	return NULL;
}

KTEST(sched_follow_live_recording, 1)
{
	char why[240];
	struct thread *parked[PARKED], *busy[3];
	struct recording *rec, *out = NULL;
	struct sched_follow_summary s;

	unpark = false;
	for (unsigned i = 0; i < PARKED; i++) {
		parked[i] = thread_create("parked", parked_thread, NULL, -1);
		KT_ASSERT(t, parked[i], "no thread");
	}
	for (unsigned i = 0; i < PARKED; i++)
		while (READ_ONCE(parked[i]->state) != THREAD_SLEEPING)
			thread_sleep_ticks(1);
	uint64_t parked_ticks = parked[0]->se.ticks_run, parked_tid = parked[0]->tid;
	int err = record_kernel_start("sched", why, sizeof(why));
	KT_ASSERT(t, !err, "record start: %s", why);
	for (unsigned i = 0; i < ARRAY_SIZE(busy); i++)
		busy[i] = thread_create("busy", busy_thread, NULL, -1);
	for (unsigned i = 0; i < ARRAY_SIZE(busy); i++)
		if (busy[i])
			thread_join(busy[i]);
	err = record_kernel_stop(&rec, why, sizeof(why));
	WRITE_ONCE(unpark, true);
	waitq_wake_all(&park);
	for (unsigned i = 0; i < PARKED; i++)
		thread_join(parked[i]);
	KT_ASSERT(t, !err, "record stop: %s", why);

	const struct rec_sched_state *me = state_of(rec, thread_current()->tid);
	const struct rec_sched_state *p = state_of(rec, parked_tid);	/* parked[] are freed */
	KT_EXPECT(t, me && me->event.kind == SCHED_EVENT_RUNNING &&
		  p && p->event.kind == SCHED_EVENT_SLEEPING && p->ticks_run == parked_ticks,
		  "start state: this thread %s, a parked one %s (ticks %llu of %llu)",
		  me ? "recorded" : "missing", p ? "recorded" : "missing",
		  p ? (unsigned long long)p->ticks_run : 0ull, (unsigned long long)parked_ticks);
	if (strcmp(rec->header[1].policy, "pick_next=rr tick=rr") || rec->header[0].drops) {
		char policy[REC_POLICY_MAX];
		unsigned long long drops = rec->header[0].drops;
		strlcpy(policy, rec->header[1].policy, sizeof(policy));
		rec_store_discard(rec);
		KT_SKIP(t, "the live policy is '%s' (%llu records dropped): not the round robin's "
			"whole history", policy, drops);
	}
	err = follow_named(rec, "rr", &out, &s, why, sizeof(why));
	KT_EXPECT(t, !err, "follow: %s", why);
	KT_EXPECT(t, s.picks == rec->stream[1].records && s.agree == s.picks && s.picks > 6,
		  "%llu of %llu picks agree (%llu recorded)", (unsigned long long)s.agree,
		  (unsigned long long)s.picks, (unsigned long long)rec->stream[1].records);
	KT_EXPECT(t, out && same_log(rec, out), "the followed log is not the recorded one");
	if (out)
		rec_store_discard(out);
	rec_store_discard(rec);
}
