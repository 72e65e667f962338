// SPDX-License-Identifier: BSD-2-Clause
/*
 * The return value D sees: arg1 at fbt return probes in a session the
 * kernel starts itself (test_trace_return.d), on every machine. Two
 * compiled functions, one a leaf and one calling the other, are called
 * with arguments whose results differ, and each traced arg1 must equal
 * what a call returned (as a multiset: a test kernel with several CPUs
 * may move the thread, and records come CPU by CPU). On SPARC that value is often not in
 * %o0 at the return instruction (it is computed in the delay slot or by
 * restore), so this checks arch_probe_return_value under the tracer.
 */
#include <scion/ktest.h>
#include <scion/dof.h>
#include <scion/trace.h>
#include "trace_test.h"

extern const unsigned char d_object_test_trace_return[];
extern const size_t d_object_test_trace_return_size;

#define CALLS		8
#define WHY_BYTES	128
#define CLAUSES		2	/* clause 0: d_return_cond, clause 1: d_return_window */

/* The probed functions: noipa keeps each a real call with its own return. */
long d_return_cond(long x, long y);
long d_return_window(long x, long y);

__used __noinline __attribute__((noipa)) long d_return_cond(long x, long y)
{
	return x > y ? x * 3 : y - 1000;
}

__used __noinline __attribute__((noipa)) long d_return_window(long x, long y)
{
	return d_return_cond(y, x) + 1;
}

/* What the session traced, per clause (in firing order on each CPU). */
struct traced {
	const struct trace_session *s;
	uint64_t value[CLAUSES][CALLS];
	unsigned n[CLAUSES];
	uint32_t matched[CLAUSES];	/* bit i: value[clause][i] matched a call */
	unsigned bad;
};

static void take_record(void *arg, unsigned cpu, const struct dof_rechdr *r, uint32_t size)
{
	struct traced *t = arg;
	uint32_t clause = record_clause(t->s, r);
	uint64_t value;
	(void)cpu;
	if (clause >= CLAUSES || !record_one_value(r, size, &value) || t->n[clause] >= CALLS) {
		t->bad++;
		return;
	}
	t->value[clause][t->n[clause]++] = value;
}

/* Whether a clause traced v and not yet matched; marks it matched. */
static bool traced_once(struct traced *t, unsigned clause, long v)
{
	for (unsigned i = 0; i < t->n[clause]; i++) {
		if (!(t->matched[clause] & (1u << i)) && t->value[clause][i] == (uint64_t)v) {
			t->matched[clause] |= 1u << i;
			return true;
		}
	}
	return false;
}

KTEST_NEEDS(trace_fbt_return_values, 1, FEATURE_PROBES)
{
	static const long args[CALLS][2] = { { 5, 3 }, { 3, 5 }, { -7, -9 }, { 0, 0 },
					     { 1000, 1 }, { -1, 1 }, { 0x7fffffff, 2 }, { 12, 12 } };
	long want[CLAUSES][CALLS];
	char why[WHY_BYTES] = "";
	struct trace_session *s = NULL;
	int rc = trace_session_create(d_object_test_trace_return,
				      (uint32_t)d_object_test_trace_return_size, &s, why, sizeof(why));
	KT_ASSERT(t, rc == 0 && s, "create: %d %s", rc, why);
	rc = trace_session_start(s, NULL, why, sizeof(why));
	KT_EXPECT(t, rc == 0, "start: %d %s", rc, why);
	if (rc) {
		trace_session_destroy(s);
		return;
	}
	/* d_return_window calls d_return_cond: its firings come first, with their own values. */
	for (unsigned i = 0; i < CALLS; i++)
		want[0][i] = d_return_cond(args[i][0], args[i][1]);
	struct traced got = { .s = s };
	trace_session_take_records(s, take_record, &got);
	for (unsigned i = 0; i < CALLS; i++)
		want[1][i] = d_return_window(args[i][0], args[i][1]);
	/* The inner calls fire clause 0 again; only clause 1's are checked from here. */
	struct traced window = { .s = s };
	trace_session_take_records(s, take_record, &window);
	trace_session_stop(s);

	KT_EXPECT(t, got.n[0] == CALLS && got.n[1] == 0 && !got.bad,
		  "d_return_cond: %u firings traced (%u stray, %u bad), not %u", got.n[0], got.n[1],
		  got.bad, CALLS);
	KT_EXPECT(t, window.n[1] == CALLS && window.n[0] == CALLS && !window.bad,
		  "d_return_window: %u firings traced (%u inner, %u bad), not %u", window.n[1],
		  window.n[0], window.bad, CALLS);
	for (unsigned i = 0; i < CALLS; i++) {
		KT_EXPECT(t, traced_once(&got, 0, want[0][i]),
			  "d_return_cond(%ld, %ld) returned %ld: no arg1 traced had that value",
			  args[i][0], args[i][1], want[0][i]);
		KT_EXPECT(t, traced_once(&window, 1, want[1][i]),
			  "d_return_window(%ld, %ld) returned %ld: no arg1 traced had that value",
			  args[i][0], args[i][1], want[1][i]);
	}
	struct dof_status st;
	trace_session_status(s, &st);
	KT_EXPECT(t, !st.errors, "%lu errors", (unsigned long)st.errors);
	trace_session_destroy(s);
}
