// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel test of the planned firing (kernel/trace/plan.c), against
 * the lean firing as its reference: two sessions on the same two probes,
 * the same clauses in each (test_trace_plan.d, and test_trace_plan_ref.d
 * behind a predicate that always holds, which keeps them from plans),
 * fired together; one clause aggregates, the other only records. Their
 * records and aggregations must agree, but for the clock each session
 * reads for itself, and each session's timestamps must agree with one
 * another (a firing reads the clock once).
 */
#include <scion/ktest.h>
#include <scion/string.h>
#include <scion/dof.h>
#include <scion/trace.h>
#include <arch/cpu.h>
#include "../../kernel/trace/trace_internal.h"
#include "trace_test.h"

extern const unsigned char d_object_test_trace_plan[];
extern const size_t d_object_test_trace_plan_size;
extern const unsigned char d_object_test_trace_plan_ref[];
extern const size_t d_object_test_trace_plan_ref_size;

#define FIRED      40
#define WHY_BYTES  128
#define FNV_PRIME  0x100000001b3ull
#define FNV_OFFSET 0xcbf29ce484222325ull

/* What one session's buffers held. */
struct seen {
	const struct trace_session *s;
	unsigned records[2], bad_records, entries;	/* records: by clause */
	uint64_t arg_sum[2], min_time;	/* trace(arg1)'s sum; the earliest trace(timestamp) */
	uint64_t count, min_agg;	/* @n; @t = min(timestamp) */
	uint64_t digest;		/* every other entry's bytes, in order */
};

/*
 * Clause 0's records: trace(arg1), trace(timestamp); clause 1's:
 * trace(arg0), trace(timestamp), trace(arg1). Each after 16 bytes of
 * header, whose timestamp the trace(timestamp) must equal.
 */
static void take_record(void *arg, unsigned cpu, const struct dof_rechdr *r, uint32_t size)
{
	struct seen *t = arg;
	const uint64_t *data = (const uint64_t *)(r + 1);
	uint32_t clause = record_clause(t->s, r);
	(void)cpu;
	if (clause > 1 || size != sizeof(*r) + 16 + 8 * clause || data[1] != r->timestamp ||
	    (clause == 1 && data[2] % 3 != data[0])) {
		t->bad_records++;
		return;
	}
	t->records[clause]++;
	t->arg_sum[clause] += data[clause ? 2 : 0];
	if (!t->min_time || data[1] < t->min_time)
		t->min_time = data[1];
}

static void take_entry(void *arg, unsigned cpu, const struct dof_aggent *e)
{
	struct seen *t = arg;
	const uint8_t *bytes = (const uint8_t *)e;
	int func = trace_session_agg_func(t->s, e->agg);
	(void)cpu;
	t->entries++;
	if (func == DOF_AGG_MIN) {
		t->min_agg = dof_aggent_values(e)[0];
		return;
	}
	if (func == DOF_AGG_COUNT)
		t->count += dof_aggent_values(e)[0];
	for (size_t i = 0; i < sizeof(*e) + e->keybytes + e->valbytes; i++)
		t->digest = (t->digest ^ bytes[i]) * FNV_PRIME;
}

static struct trace_session *started(struct ktest_ctx *t, const unsigned char *object,
				     size_t len)
{
	char why[WHY_BYTES] = "";
	struct trace_session *s = NULL;
	int rc = trace_session_create(object, (uint32_t)len, &s, why, sizeof(why));
	if (rc || !s) {
		ktest_fail(t, __FILE__, __LINE__, "create: %d %s", rc, why);
		return NULL;
	}
	rc = trace_session_start(s, NULL, why, sizeof(why));
	if (rc) {
		ktest_fail(t, __FILE__, __LINE__, "start: %d %s", rc, why);
		trace_session_destroy(s);
		return NULL;
	}
	return s;
}

static void read_back(struct trace_session *s, struct seen *got)
{
	*got = (struct seen){ .s = s, .digest = FNV_OFFSET };
	trace_session_take_records(s, take_record, got);
	trace_session_take_aggregations(s, take_entry, got);
}

KTEST_NEEDS(trace_planned_firing, 1, FEATURE_PROBES)
{
	struct trace_session *planned = started(t, d_object_test_trace_plan,
						d_object_test_trace_plan_size);
	struct trace_session *lean = started(t, d_object_test_trace_plan_ref,
					     d_object_test_trace_plan_ref_size);
	if (!planned || !lean)
		goto out;
	uint32_t nprogs, native = trace_session_native_programs(planned, &nprogs);
	/* Only native code has lone built-ins: the interpreter is never planned. */
	KT_ASSERT(t, planned->nenablings == 2 && lean->nenablings == 2, "%u and %u enablings",
		  planned->nenablings, lean->nenablings);
	for (unsigned i = 0; i < 2; i++) {
		KT_EXPECT(t, !!planned->enablings[i].plan == (native == nprogs),
			  "enabling %u: %s plan with %u of %u programs native", i,
			  planned->enablings[i].plan ? "a" : "no", native, nprogs);
		KT_EXPECT(t, !lean->enablings[i].plan, "a clause with a predicate got a plan");
		const struct trace_plan *p = planned->enablings[i].plan;
		probe_handler_fn want = !p ? NULL : p->aggregates ? trace_planned_probe_handler :
					trace_planned_record_handler;
		KT_EXPECT(t, !p || planned->enablings[i].consumer.handler == want,
			  "enabling %u: a plan %s aggregations has the other handler", i,
			  p && p->aggregates ? "with" : "without");
	}
	const struct trace_plan *p0 = planned->enablings[0].plan, *p1 = planned->enablings[1].plan;
	bool one_of_each = native != nprogs || (p0 && p1 && p0->aggregates != p1->aggregates);
	KT_EXPECT(t, one_of_each, "the two plans do not cover both handlers");

	irqflags_t f = arch_irq_save();		/* one CPU: entries in one order */
	trace_test_fire(0, FIRED);
	arch_irq_restore(f);
	struct seen a, b;
	read_back(planned, &a);
	read_back(lean, &b);
	uint64_t arg_sum = FIRED * (FIRED - 1) / 2;
	const struct seen *both[2] = { &a, &b };
	for (unsigned k = 0; k < 2; k++) {
		const struct seen *g = both[k];
		const char *who = k ? "lean" : "planned";
		for (unsigned c = 0; c < 2; c++)
			KT_EXPECT(t, g->records[c] == FIRED && g->arg_sum[c] == arg_sum,
				  "%s: clause %u: %u records summing %llu, not %u summing %llu",
				  who, c, g->records[c], (unsigned long long)g->arg_sum[c], FIRED,
				  (unsigned long long)arg_sum);
		KT_EXPECT(t, !g->bad_records, "%s: %u bad records", who, g->bad_records);
		KT_EXPECT(t, g->count == FIRED, "%s: @n is %llu", who, (unsigned long long)g->count);
		KT_EXPECT(t, g->min_agg && g->min_agg == g->min_time,
			  "%s: @t is %llu, the earliest record %llu", who,
			  (unsigned long long)g->min_agg, (unsigned long long)g->min_time);
	}
	KT_EXPECT(t, a.entries == b.entries && a.digest == b.digest,
		  "the aggregations differ: %u entries (digest %llx) planned, %u (%llx) lean",
		  a.entries, (unsigned long long)a.digest, b.entries, (unsigned long long)b.digest);
out:
	if (planned) {
		trace_session_stop(planned);
		trace_session_destroy(planned);
	}
	if (lean) {
		trace_session_stop(lean);
		trace_session_destroy(lean);
	}
}
