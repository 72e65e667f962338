// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of trace sessions the kernel starts itself
 * (scion/trace.h), with no host attached: a compiled D program
 * (test_trace_session.d, embedded by the build) in a session with its
 * own buffers, the probe fired, its aggregations and records read back
 * and merged in the kernel, the states between the life steps (nothing
 * counted before start or after stop, END's status), and objects the
 * session refuses with a reason. Its programs run as native code where
 * the machine has a DIF compiler, and the test says they do. Which
 * clauses the lean firing takes (trace_lean_clause), and a lean
 * clause's records dropped at a full buffer while its aggregation
 * counts on.
 */
#include <scion/ktest.h>
#include <scion/sdt.h>
#include <scion/string.h>
#include <scion/dof.h>
#include <scion/trace.h>
#include <scion/dif_jit.h>
#include <arch/cpu.h>
#include "../../kernel/trace/trace_internal.h"
#include "trace_test.h"

extern const unsigned char d_object_test_trace_session[];
extern const size_t d_object_test_trace_session_size;
extern const unsigned char d_object_test_trace_lean[];
extern const size_t d_object_test_trace_lean_size;
extern const unsigned char d_object_test_trace_lean_drops[];
extern const size_t d_object_test_trace_lean_drops_size;
extern const unsigned char d_object_test_trace_lean_drops_ref[];
extern const size_t d_object_test_trace_lean_drops_ref_size;

#define FIRINGS   30	/* arg0 cycles through 0..KEYS-1, arg1 is the firing's number */
#define KEYS      3
#define WHY_BYTES 128

/*
 * The probes the programs enable: sdt:kernel:trace_session_fixture:
 * session-hit, and session-record just after it (test_trace_plan.c's
 * second probe).
 */
SDT_TYPES_DEFINE(sdt, session__hit, uint64_t key, uint64_t value)
SDT_TYPES_DEFINE(sdt, session__record, uint64_t key, uint64_t value)

static __noinline void trace_session_fixture(uint64_t key, uint64_t value)
{
	SDT_PROBE2(session__hit, key, value);
	SDT_PROBE2(session__record, key, value);
}

/* Whether this machine compiles DIF at all (arch/<arch>/dif_jit.c): a lone RET. */
static bool machine_compiles_dif(void)
{
	static const struct dif_insn ret = { .op = DIF_OP_RET };
	const struct dif_prog p = { .insns = &ret, .ninsns = 1 };
	const struct dif_jit_abi abi = { 0 };
	uint32_t at[2];
	return arch_dif_jit_emit(&p, &abi, NULL, 0, at) > 0;
}

void trace_test_fire(unsigned from, unsigned to)
{
	for (unsigned i = from; i < to; i++)
		trace_session_fixture(i % KEYS, i);
}

static void fire(unsigned from, unsigned to)
{
	trace_test_fire(from, to);
}

/* What the test reads back: each aggregation merged over the CPUs. */
struct totals {
	const struct trace_session *s;
	uint64_t hits[KEYS];	/* @hits[arg0] = count() */
	uint64_t total;		/* @total = sum(arg1) */
	uint64_t largest;	/* @largest = max(arg1) */
	bool largest_seen;
	unsigned entries, strays;
	unsigned records, record_sum, bad_records;
};

static void take_entry(void *arg, unsigned cpu, const struct dof_aggent *e)
{
	struct totals *t = arg;
	const uint64_t *v = dof_aggent_values(e);
	int func = trace_session_agg_func(t->s, e->agg);
	uint64_t key = e->keybytes == 8 ? *(const uint64_t *)dof_aggent_key(e) : 0;
	(void)cpu;
	t->entries++;
	if (func == DOF_AGG_COUNT && e->keybytes == 8 && key < KEYS)
		trace_agg_merge(DOF_AGG_COUNT, &t->hits[key], v, 1, false);
	else if (func == DOF_AGG_SUM && !e->keybytes)
		trace_agg_merge(DOF_AGG_SUM, &t->total, v, 1, false);
	else if (func == DOF_AGG_MAX && !e->keybytes) {
		trace_agg_merge(DOF_AGG_MAX, &t->largest, v, 1, !t->largest_seen);
		t->largest_seen = true;
	} else
		t->strays++;
}

/* trace(arg1) when arg0 == 1: the header, then the value at the next multiple of 8. */
static void take_record(void *arg, unsigned cpu, const struct dof_rechdr *r, uint32_t size)
{
	struct totals *t = arg;
	uint64_t value;
	(void)cpu;
	if (record_clause(t->s, r) != 1 || !record_one_value(r, size, &value)) {
		t->bad_records++;
		return;
	}
	t->records++;
	t->record_sum += (unsigned)value;
	if (value % KEYS != 1)
		t->bad_records++;
}

static void read_all(struct trace_session *s, struct totals *t, uint64_t *drops)
{
	*drops += trace_session_take_records(s, take_record, t);
	trace_session_take_aggregations(s, take_entry, t);
}

/* What firings from..to-1 add, computed the plain way. */
static void expect_firings(struct ktest_ctx *t, const struct totals *got, unsigned from, unsigned to)
{
	uint64_t hits[KEYS] = { 0 }, total = 0, largest = 0;
	unsigned records = 0, record_sum = 0;
	for (unsigned i = from; i < to; i++) {
		hits[i % KEYS]++;
		total += i;
		largest = i;
		if (i % KEYS == 1) {
			records++;
			record_sum += i;
		}
	}
	for (unsigned k = 0; k < KEYS; k++)
		KT_EXPECT(t, got->hits[k] == hits[k], "@hits[%u] is %lu, not %lu", k,
			  (unsigned long)got->hits[k], (unsigned long)hits[k]);
	KT_EXPECT(t, got->total == total, "@total is %lu, not %lu", (unsigned long)got->total,
		  (unsigned long)total);
	KT_EXPECT(t, got->largest_seen && got->largest == largest, "@largest is %lu, not %lu",
		  (unsigned long)got->largest, (unsigned long)largest);
	KT_EXPECT(t, got->records == records && got->record_sum == record_sum,
		  "%u trace() records summing to %u, not %u summing to %u", got->records,
		  got->record_sum, records, record_sum);
	KT_EXPECT(t, !got->strays && !got->bad_records, "%u unexpected entries, %u bad records",
		  got->strays, got->bad_records);
}

KTEST_NEEDS(trace_session_in_kernel, 1, FEATURE_PROBES)
{
	char why[WHY_BYTES] = "";
	struct trace_session *s = NULL;
	int rc = trace_session_create(d_object_test_trace_session,
				      (uint32_t)d_object_test_trace_session_size, &s, why, sizeof(why));
	KT_ASSERT(t, rc == 0 && s, "create: %d %s", rc, why);
	KT_EXPECT(t, trace_session_necbs(s) == 2, "%u EPIDs, not one per clause",
		  trace_session_necbs(s));
	uint32_t nprogs, native = trace_session_native_programs(s, &nprogs);
	KT_EXPECT(t, nprogs > 0 && native == (machine_compiles_dif() ? nprogs : 0),
		  "%u of %u programs have native code", native, nprogs);

	/* Step 1 done: created, nothing enabled; firing now counts nothing. */
	fire(0, FIRINGS);
	struct totals before = { .s = s };
	rc = trace_session_start(s, NULL, why, sizeof(why));
	KT_EXPECT(t, rc == 0, "start: %d %s", rc, why);
	uint64_t drops = 0;
	read_all(s, &before, &drops);
	KT_EXPECT(t, rc || (!before.entries && !before.records),
		  "%u entries, %u records from firings before start", before.entries,
		  before.records);

	/* Step 2 done: running with its own buffers. Read twice while it runs. */
	struct totals got = { .s = s };
	if (!rc) {
		fire(0, FIRINGS / 2);
		read_all(s, &got, &drops);
		fire(FIRINGS / 2, FIRINGS);
		read_all(s, &got, &drops);
		expect_firings(t, &got, 0, FIRINGS);
		KT_EXPECT(t, drops == 0, "%lu records dropped", (unsigned long)drops);
	}

	/* Step 4: stopped (twice: idempotent); later firings count nothing. */
	trace_session_stop(s);
	trace_session_stop(s);
	fire(0, FIRINGS);
	struct totals after = { .s = s };
	read_all(s, &after, &drops);
	KT_EXPECT(t, !after.entries && !after.records, "%u entries, %u records after stop",
		  after.entries, after.records);
	struct dof_status st;
	trace_session_status(s, &st);
	KT_EXPECT(t, rc || (st.flags & DOF_STATUS_ENDED), "status after stop lacks ENDED (%#x)",
		  st.flags);
	KT_EXPECT(t, !st.errors && !st.agg_drops, "%lu errors, %lu aggregation drops",
		  (unsigned long)st.errors, (unsigned long)st.agg_drops);
	trace_session_destroy(s);
}

/* Objects a session refuses: each with a reason, nothing left behind. */
KTEST(trace_session_refuses, 1)
{
	static uint8_t object[4096];
	size_t len = d_object_test_trace_session_size;
	KT_ASSERT(t, len <= sizeof(object), "the test object outgrew its copy");
	const struct {
		const char *what;
		uint32_t at;	/* the byte changed, or ~0: the object cut short */
		uint8_t value;
	} cases[] = {
		{ "a bad magic", 0, 0 },
		{ "a bad version", 4, 0xee },
		{ "an object cut short", ~0u, 0 },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(object, d_object_test_trace_session, len);
		uint32_t n = (uint32_t)len;
		if (cases[i].at == ~0u)
			n = (uint32_t)len / 2;
		else
			object[cases[i].at] = cases[i].value;
		char why[WHY_BYTES] = "";
		struct trace_session *s = NULL;
		int rc = trace_session_create(object, n, &s, why, sizeof(why));
		KT_EXPECT(t, rc < 0 && !s && why[0], "%s: accepted (%d) or no reason", cases[i].what,
			  rc);
		if (!rc && s)
			trace_session_destroy(s);
	}
}

/* What the full-buffer test reads back: trace(arg1)'s records and @n. */
struct lean_totals {
	unsigned records, bad_records;
	uint64_t record_sum, count;
};

static void take_lean_record(void *arg, unsigned cpu, const struct dof_rechdr *r, uint32_t size)
{
	struct lean_totals *t = arg;
	uint64_t value;
	(void)cpu;
	if (!record_one_value(r, size, &value)) {
		t->bad_records++;
		return;
	}
	t->records++;
	t->record_sum += value;
}

static void take_lean_entry(void *arg, unsigned cpu, const struct dof_aggent *e)
{
	struct lean_totals *t = arg;
	(void)cpu;
	trace_agg_merge(DOF_AGG_COUNT, &t->count, dof_aggent_values(e), 1, false);
}

/*
 * A lean clause into a buffer with room for two of its records: the rest
 * drop while @n counts every firing. With plannable (the clause has no
 * predicate) and native code it runs from a plan, whose firing falls
 * back to the lean one for a record that does not fit; else on the lean
 * firing itself. general: the handler of an enabling that is not lean.
 */
static void full_buffer(struct ktest_ctx *t, const unsigned char *object, size_t len,
			probe_handler_fn general, bool plannable)
{
	enum { FIRED = 10, KEPT = TBUF_MIN_SIZE / (sizeof(struct dof_rechdr) + 8) };
	char why[WHY_BYTES] = "";
	struct trace_session *s = NULL;
	struct tbuf_set *bufs = tbuf_create(TBUF_MIN_SIZE);
	KT_ASSERT(t, bufs, "no buffers");
	int rc = trace_session_create(object, (uint32_t)len, &s, why, sizeof(why));
	if (rc || !s) {
		tbuf_destroy(bufs);
		KT_ASSERT(t, false, "create: %d %s", rc, why);
	}
	rc = trace_session_start(s, bufs, why, sizeof(why));
	KT_EXPECT(t, rc == 0, "start: %d %s", rc, why);
	uint32_t nprogs, native = trace_session_native_programs(s, &nprogs);
	bool planned = plannable && native == nprogs;
	KT_EXPECT(t, trace_lean_clause(&s->obj.clauses[0]), "the clause is not lean");
	KT_EXPECT(t, s->enablings[0].consumer.handler != general,
		  "a lean enabling got the general handler");
	KT_EXPECT(t, !!s->enablings[0].plan == planned, "the enabling has %s plan",
		  planned ? "no" : "a");
	irqflags_t f = arch_irq_save();		/* one CPU, one buffer */
	fire(0, FIRED);
	arch_irq_restore(f);
	struct lean_totals got = { 0 };
	uint64_t drops = trace_session_take_records(s, take_lean_record, &got);
	trace_session_take_aggregations(s, take_lean_entry, &got);
	KT_EXPECT(t, got.records == KEPT && got.record_sum == 0 + 1 && !got.bad_records,
		  "%s: %u records summing %lu (%u bad), not the first %u",
		  planned ? "planned" : "lean", got.records, (unsigned long)got.record_sum,
		  got.bad_records, (unsigned)KEPT);
	KT_EXPECT(t, drops == FIRED - KEPT, "%s: %lu drops, not %u", planned ? "planned" : "lean",
		  (unsigned long)drops, (unsigned)(FIRED - KEPT));
	KT_EXPECT(t, got.count == FIRED, "%s: @n counted %lu firings, not %u",
		  planned ? "planned" : "lean", (unsigned long)got.count, (unsigned)FIRED);
	trace_session_stop(s);
	trace_session_destroy(s);
	tbuf_destroy(bufs);
}

/*
 * Which clauses the lean firing takes, decided at the start: a bare
 * record; integers, aggregations, a stack and a store behind a
 * predicate. Not a string, exit(), a speculation or a commit. An
 * enabling whose clauses are not all lean gets the general handler, and
 * a lean one another.
 */
KTEST_NEEDS(trace_lean_firing, 1, FEATURE_PROBES)
{
	static const bool want[] = { true, true, false, false, false, false };
	char why[WHY_BYTES] = "";
	struct trace_session *s = NULL;
	int rc = trace_session_create(d_object_test_trace_lean,
				      (uint32_t)d_object_test_trace_lean_size, &s, why, sizeof(why));
	KT_ASSERT(t, rc == 0 && s, "create: %d %s", rc, why);
	KT_ASSERT(t, s->obj.nclauses == sizeof(want) / sizeof(want[0]) && s->nenablings == 1,
		  "%u clauses on %u enablings", s->obj.nclauses, s->nenablings);
	rc = trace_session_start(s, NULL, why, sizeof(why));
	KT_ASSERT(t, rc == 0, "start: %d %s", rc, why);
	for (unsigned i = 0; i < s->obj.nclauses; i++)
		KT_EXPECT(t, trace_lean_clause(&s->obj.clauses[i]) == want[i],
			  "clause %u is%s lean", i, want[i] ? " not" : "");
	probe_handler_fn general = s->enablings[0].consumer.handler;
	trace_session_stop(s);
	trace_session_destroy(s);

	full_buffer(t, d_object_test_trace_lean_drops, d_object_test_trace_lean_drops_size,
		    general, true);
	full_buffer(t, d_object_test_trace_lean_drops_ref, d_object_test_trace_lean_drops_ref_size,
		    general, false);
}
