// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of what issue 27 added to kernel/trace/: llquantize's
 * buckets in an aggregation buffer (the edges of each order of
 * magnitude, below and above the range, a weighted value), and the
 * buffer policies of bufpolicy.c driven record by record: a ring of
 * records of two sizes keeps exactly the newest that fit, oldest first,
 * across many wraps; fill admits bufsize less END's records, then marks
 * the CPU filled, moves the session to DRAINING and lets END's record in.
 */
#include <scion/ktest.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <arch/cpu.h>
#include <scion/trace.h>
#include "../../kernel/trace/trace_internal.h"

KTEST(trace_aggregation_llquantize, 1)
{
	struct aggbuf_set *a = aggbuf_create(4096, 0);
	KT_ASSERT(t, a, "no aggregation buffers");
	/* llquantize(x, 10, 0, 2, 10): < 1 | 1..9 | 10..90 by 10 | 100..900 by 100 | >= 1000 */
	uint32_t n = dof_llquantize_buckets(10, 0, 2, 10);
	KT_EXPECT(t, n == 29, "llquantize(10, 0, 2, 10) has %u buckets, not 29", n);
	struct trace_agg g = { .func = DOF_AGG_LLQUANTIZE, .valbytes = n * 8, .nvalues = 1,
			       .lq_low = 0, .lq_high = 2, .lq_step = DOF_LLQ_PACK(10, 10) };
	const int64_t v[] = { -5, 0, 1, 9, 10, 19, 99, 100, 999, 1000, INT64_MAX };
	uint8_t nokey[8] = { 0 };
	irqflags_t f = arch_irq_save();
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		aggbuf_update(a, 0, &g, nokey, 0, (uint64_t)v[i], 1, 0);
	aggbuf_update(a, 0, &g, nokey, 0, 55, 5, 0);			/* weighted: 50's bucket grows by 5 */
	arch_irq_restore(f);
	aggbuf_switch(a);
	uint32_t bytes;
	const struct dof_aggent *e = (const struct dof_aggent *)aggbuf_taken(a, this_cpu_index(),
									    &bytes);
	KT_ASSERT(t, bytes && e->valbytes == n * 8, "%u bytes, an entry of %u value bytes", bytes,
		  bytes ? e->valbytes : 0);
	const uint64_t *b = dof_aggent_values(e);
	/* < 1: -5, 0 | 1: 1 | 9: 9 | 10: 10, 19 | 50: 55 x5 | 90: 99 | 100 | 900: 999 | >= 1000 */
	KT_EXPECT(t, b[0] == 2 && b[1] == 1 && b[9] == 1 && b[10] == 2 && b[14] == 5 &&
		  b[18] == 1 && b[19] == 1 && b[27] == 1 && b[28] == 2,
		  "buckets <1:%llu 1:%llu 9:%llu 10:%llu 50:%llu 90:%llu 100:%llu 900:%llu >=1000:%llu",
		  (unsigned long long)b[0], (unsigned long long)b[1], (unsigned long long)b[9],
		  (unsigned long long)b[10], (unsigned long long)b[14], (unsigned long long)b[18],
		  (unsigned long long)b[19], (unsigned long long)b[27], (unsigned long long)b[28]);
	aggbuf_destroy(a);
}

/* A session of two clauses (records of 24 and 40 bytes) on bufs, policy p; END: clause 1. */
struct rig {
	struct trace_session s;
	struct trace_clause clause[2];
	struct trace_ecb ecb[2];
};

static struct rig *rig_make(uint32_t bufsize, uint64_t policy)
{
	struct rig *r = kzalloc(sizeof(*r));
	if (!r)
		return NULL;
	r->s.bufs = tbuf_create(bufsize);
	r->clause[0].record_size = 24;
	r->clause[1].record_size = 40;
	for (unsigned i = 0; i < 2; i++) {
		r->ecb[i].epid = i + 1;
		r->ecb[i].clause = &r->clause[i];
	}
	r->s.ecbs = r->ecb;
	r->s.necbs = 2;
	r->s.end = &r->ecb[1];
	r->s.state = TRACE_ACTIVE;
	r->s.obj.option[DOF_OPT_BUFPOLICY] = policy;
	if (!r->s.bufs || trace_bufpolicy_start(&r->s)) {
		trace_bufpolicy_free(&r->s);
		tbuf_destroy(r->s.bufs);
		kfree(r);
		return NULL;
	}
	return r;
}

static void rig_free(struct rig *r)
{
	trace_bufpolicy_free(&r->s);
	tbuf_destroy(r->s.bufs);
	kfree(r);
}

/* One record of clause epid numbered seq (in its timestamp); false when refused. */
static bool put(struct rig *r, uint32_t epid, uint64_t seq)
{
	irqflags_t f = arch_irq_save();
	struct dof_rechdr *h = trace_reserve(&r->s, r->clause[epid - 1].record_size);
	if (h) {
		memset(h, 0, r->clause[epid - 1].record_size);
		h->epid = epid;
		h->timestamp = seq;
	}
	arch_irq_restore(f);
	return h != NULL;
}

struct seen {
	uint64_t first, last, count, bytes;
	bool ordered;
};

static void collect(void *arg, unsigned cpu, uint32_t count, uint8_t *records, uint32_t bytes)
{
	struct seen *s = arg;
	(void)cpu;
	for (uint32_t at = 0, i = 0; i < count && at < bytes; i++) {
		const struct dof_rechdr *h = (const struct dof_rechdr *)(records + at);
		if (s->count == 0)
			s->first = h->timestamp;
		else if (h->timestamp != s->last + 1)
			s->ordered = false;
		s->last = h->timestamp;
		s->count++;
		at += h->epid == 1 ? 24 : 40;
	}
	s->bytes += bytes;
}

KTEST(trace_bufpolicy_ring, 1)
{
	struct rig *r = rig_make(512, DOF_BUFPOLICY_RING);
	KT_ASSERT(t, r, "no memory for the rig");
	/* 1000 records, clause 1 or 2 by a pattern: the ring wraps many times. */
	uint32_t sizes[1000];
	for (uint64_t i = 0; i < 1000; i++) {
		uint32_t epid = (i % 3 == 2) ? 2 : 1;
		sizes[i] = epid == 1 ? 24 : 40;
		KT_EXPECT(t, put(r, epid, i), "record %llu refused", (unsigned long long)i);
	}
	/*
	 * The newest that fit are kept: the ring wastes less than a record at
	 * its end and less than one before its oldest, so at least the newest
	 * records whose sizes sum to 512 - 2 * 40.
	 */
	uint64_t fit = 0, used = 0;
	while (fit < 1000 && used + sizes[999 - fit] <= 512 - 80)
		used += sizes[999 - fit++];
	r->s.state = TRACE_STOPPED;
	struct seen s = { .ordered = true };
	trace_session_send_rings(&r->s, collect, &s, 100);
	KT_EXPECT(t, s.ordered && s.last == 999 && s.count >= fit && s.bytes <= 512,
		  "ring gave %llu records %llu..%llu (%s), %llu bytes; at least %llu expected",
		  (unsigned long long)s.count, (unsigned long long)s.first,
		  (unsigned long long)s.last, s.ordered ? "in order" : "out of order",
		  (unsigned long long)s.bytes, (unsigned long long)fit);
	struct seen again = { .ordered = true };
	trace_session_send_rings(&r->s, collect, &again, 100);
	KT_EXPECT(t, again.count == 0, "the ring was sent twice (%llu records)",
		  (unsigned long long)again.count);
	rig_free(r);
}

KTEST(trace_bufpolicy_fill, 1)
{
	struct rig *r = rig_make(256, DOF_BUFPOLICY_FILL);
	KT_ASSERT(t, r, "no memory for the rig");
	/* 256 bytes less END's 40: 9 records of 24 (216) fit, the 10th does not. */
	unsigned kept = 0;
	while (kept < 20 && put(r, 1, kept))
		kept++;
	KT_EXPECT(t, kept == 9, "fill kept %u records of 24 bytes in 256 less 40, not 9", kept);
	KT_EXPECT(t, r->s.state == TRACE_DRAINING && (r->s.filled_cpus & (1ull << this_cpu_index())),
		  "state %d, filled 0x%llx after filling", r->s.state,
		  (unsigned long long)r->s.filled_cpus);
	/* DRAINING: only END's clauses run now, and their record has the room kept for it. */
	KT_EXPECT(t, put(r, 2, 100), "END's record did not fit after the fill");
	KT_EXPECT(t, !put(r, 2, 101), "a second END record fit past bufsize");
	rig_free(r);
}
