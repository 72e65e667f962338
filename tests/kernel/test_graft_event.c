// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of an event point's dispatch (kernel/graft/point.c):
 * its common case, one direct graft for every thread called without
 * the handler loop (graft_point_state.lone_direct), and each thing that
 * sends an invocation back to the loop: a second handler, one scoped to
 * a thread, a recorder, an enabled graft probe. In every state each
 * handler runs once per event with its argument, and the direct graft's
 * invocations are counted as before.
 */
#include <scion/graft.h>
#include <scion/ktest.h>
#include <scion/probe.h>
#include <scion/thread.h>
#include <graft/test.h>
#include "graft_test.h"

extern graft_fn_test_event *test_event_slot;

static uint64_t lone_saw, lone_runs, other_runs, recorded_calls, invoke_hits;

__used __noinline void graft_test_lone_direct(uint64_t v)
{
	lone_saw = v;
	lone_runs++;
}

__used __noinline void graft_test_other_handler(uint64_t v)
{
	(void)v;
	other_runs++;
}

static uint64_t count_call(const struct graft_point *p, const uint64_t args[6])
{
	(void)p;
	(void)args;
	recorded_calls++;
	return 0;
}

static void count_done(const struct graft_point *p, uint64_t cookie, uint64_t result,
		       enum graft_outcome outcome)
{
	(void)p;
	(void)cookie;
	(void)result;
	(void)outcome;
}

static void count_invoke(const struct probe_hit *hit, void *arg)
{
	(void)hit;
	(void)arg;
	invoke_hits++;
}

static bool take_probe(struct probe *p, void *arg)
{
	*(struct probe **)arg = p;
	return false;
}

/* Fire test.event with v: the lone graft sees it, the other handler runs other_expect times. */
static void fire_and_check(struct ktest_ctx *t, const char *state, struct graft *lone, uint64_t v,
			   uint64_t other_expect)
{
	struct graft_counts before, after;
	uint64_t runs = lone_runs;
	graft_counts(lone, &before);
	other_runs = 0;
	test_event_slot(v);
	graft_counts(lone, &after);
	KT_EXPECT(t, lone_runs == runs + 1 && lone_saw == v,
		  "%s: the direct graft ran %llu times, saw %llu", state,
		  (unsigned long long)(lone_runs - runs), (unsigned long long)lone_saw);
	KT_EXPECT(t, after.commits == before.commits + 1, "%s: %llu commits counted, not 1", state,
		  (unsigned long long)(after.commits - before.commits));
	KT_EXPECT(t, other_runs == other_expect, "%s: the other handler ran %llu times, not %llu",
		  state, (unsigned long long)other_runs, (unsigned long long)other_expect);
}

KTEST_NEEDS(graft_event_lone_direct, 1, FEATURE_PROBES)
{
	const struct graft_point *p = graft_point_find("test.event");
	KT_ASSERT(t, p, "no test.event point");
	struct graft_point_state *st = p->state;
	char err[128];
	struct graft *lone = graft_create_builtin("lone", "test.event", graft_test_lone_direct);
	KT_ASSERT(t, lone, "cannot create the direct graft");
	lone->direct = true;
	KT_ASSERT(t, graft_install(lone, 0, err, sizeof(err)) == 0, "install: %s", err);

	/* 1. Alone: called without the loop. */
	KT_EXPECT(t, READ_ONCE(st->lone_direct) == lone,
		  "a lone direct graft is not the common case");
	fire_and_check(t, "alone", lone, 11, 0);

	/* 2. A second handler, for every thread, then scoped to this one: the loop runs both. */
	struct graft *other = ktest_graft_install(t, "other", "test.event",
						  graft_test_other_handler, 0);
	KT_EXPECT(t, !READ_ONCE(st->lone_direct), "with a second handler the graft is still alone");
	fire_and_check(t, "with another", lone, 12, 1);
	graft_destroy_builtin(other);
	KT_EXPECT(t, READ_ONCE(st->lone_direct) == lone, "alone again, not the common case");
	other = ktest_graft_install(t, "other", "test.event", graft_test_other_handler,
				    thread_current()->tid);
	KT_EXPECT(t, !READ_ONCE(st->lone_direct), "with a scoped handler the graft is still alone");
	fire_and_check(t, "with a scoped one", lone, 13, 1);
	graft_destroy_builtin(other);

	/* 3. A recorder: every invocation goes to it. */
	static const struct graft_point_recorder recorder = { count_call, count_done };
	recorded_calls = 0;
	KT_ASSERT(t, graft_point_set_recorder(p, &recorder) == 0, "cannot set the recorder");
	KT_EXPECT(t, !READ_ONCE(st->lone_direct), "with a recorder the graft is still alone");
	fire_and_check(t, "recorded", lone, 14, 0);
	KT_EXPECT(t, recorded_calls == 1, "the recorder saw %llu calls, not 1",
		  (unsigned long long)recorded_calls);
	graft_point_set_recorder(p, NULL);
	KT_EXPECT(t, READ_ONCE(st->lone_direct) == lone, "after the recorder, not the common case");

	/* 4. graft:test:event:invoke enabled: it fires, so the loop runs. */
	struct probe *invoke = NULL;
	const char *why = "";
	probe_lookup("graft:test:event:invoke", take_probe, &invoke, &why);
	struct probe_consumer c = { .action = PROBE_HANDLER, .handler = count_invoke };
	KT_ASSERT(t, invoke && probe_enable(invoke, &c) == 0, "cannot enable the invoke probe: %s",
		  why);
	invoke_hits = 0;
	fire_and_check(t, "probed", lone, 15, 0);
	KT_EXPECT(t, invoke_hits == 1, "the invoke probe fired %llu times, not 1",
		  (unsigned long long)invoke_hits);
	probe_disable(&c);
	fire_and_check(t, "unprobed", lone, 16, 0);
	KT_EXPECT(t, invoke_hits == 1, "a disabled invoke probe fired");

	graft_destroy_builtin(lone);
	KT_EXPECT(t, !READ_ONCE(st->lone_direct), "a removed graft is still the common case");
}
