// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the tracing state a session keeps beside its
 * buffers (kernel/trace/): aggregation buffers (each function's values,
 * quantize and lquantize bucket edges, weighted buckets, per-key entries, a full buffer
 * refusing exactly what does not fit, what a switch hands over and
 * leaves behind, keys known by a tag), dynamic variable space (exhaustion, deletion giving
 * the memory back, keys kept apart by scope and variable), and
 * speculations (ids until none is free, a full buffer, commit in order
 * into the principal buffer, discard); and the borders of copyin's
 * user reads.
 */
#include <scion/errno.h>
#include <scion/ktest.h>
#include <scion/string.h>
#include <scion/thread.h>
#include <arch/cpu.h>
#include <arch/mmu.h>
#include "../../kernel/trace/trace_internal.h"
#include "../../kernel/proc/proc_internal.h"

#define AGG_BYTES 4096

static const struct dof_aggent *entry_at(const uint8_t *data, uint32_t at)
{
	return (const struct dof_aggent *)(data + at);
}

static const uint64_t *values_of(const struct dof_aggent *e)
{
	return (const uint64_t *)((const uint8_t *)(e + 1) + e->keybytes);
}

static bool update_by(struct aggbuf_set *a, uint32_t id, const struct trace_agg *g,
		      uint64_t key, uint64_t value, uint64_t incr)
{
	irqflags_t f = arch_irq_save();
	bool ok = aggbuf_update(a, id, g, (const uint8_t *)&key, g->keybytes, value, incr, 0);
	arch_irq_restore(f);
	return ok;
}

static bool update(struct aggbuf_set *a, uint32_t id, const struct trace_agg *g, uint64_t key,
		   uint64_t value)
{
	return update_by(a, id, g, key, value, 1);
}

/* This CPU's snapshot after a switch. */
static const uint8_t *snapshot(struct aggbuf_set *a, uint32_t *bytes)
{
	aggbuf_switch(a);
	irqflags_t f = arch_irq_save();
	const uint8_t *data = aggbuf_taken(a, this_cpu_index(), bytes);
	arch_irq_restore(f);
	return data;
}

KTEST(trace_aggregation_functions, 1)
{
	struct aggbuf_set *a = aggbuf_create(AGG_BYTES, 0);
	KT_ASSERT(t, a, "no aggregation buffers");
	struct trace_agg fns[] = {
		{ .func = DOF_AGG_COUNT, .nkeys = 1, .keybytes = 8, .valbytes = 8 },
		{ .func = DOF_AGG_SUM, .nkeys = 1, .keybytes = 8, .valbytes = 8, .nvalues = 1 },
		{ .func = DOF_AGG_MIN, .nkeys = 1, .keybytes = 8, .valbytes = 8, .nvalues = 1 },
		{ .func = DOF_AGG_MAX, .nkeys = 1, .keybytes = 8, .valbytes = 8, .nvalues = 1 },
		{ .func = DOF_AGG_AVG, .nkeys = 1, .keybytes = 8, .valbytes = 16, .nvalues = 1 },
		{ .func = DOF_AGG_STDDEV, .nkeys = 1, .keybytes = 8, .valbytes = 32, .nvalues = 1 },
	};
	const int64_t values[] = { 5, -3, 1ll << 40, 7 };
	for (uint32_t id = 0; id < 6; id++)
		for (unsigned i = 0; i < 4; i++)
			KT_ASSERT(t, update(a, id, &fns[id], 42, (uint64_t)values[i]),
				  "update %u of function %u refused", i, fns[id].func);
	uint32_t bytes;
	const uint8_t *data = snapshot(a, &bytes);
	uint32_t at = 0, seen = 0;
	while (at < bytes) {
		const struct dof_aggent *e = entry_at(data, at);
		const uint64_t *v = values_of(e);
		KT_EXPECT(t, e->keybytes == 8 && *(const uint64_t *)(e + 1) == 42,
			  "entry of aggregation %u has the wrong key", e->agg);
		int64_t sum = 5 - 3 + (1ll << 40) + 7;
		switch (fns[e->agg].func) {
		case DOF_AGG_COUNT: KT_EXPECT(t, v[0] == 4, "count %llu, not 4",
					      (unsigned long long)v[0]); break;
		case DOF_AGG_SUM: KT_EXPECT(t, (int64_t)v[0] == sum, "sum wrong"); break;
		case DOF_AGG_MIN: KT_EXPECT(t, (int64_t)v[0] == -3, "min %lld, not -3",
					    (long long)v[0]); break;
		case DOF_AGG_MAX: KT_EXPECT(t, (int64_t)v[0] == 1ll << 40, "max wrong"); break;
		case DOF_AGG_AVG: KT_EXPECT(t, v[0] == 4 && (int64_t)v[1] == sum, "avg's count "
					    "or sum wrong"); break;
		case DOF_AGG_STDDEV:
			/* sum of squares: 25 + 9 + 2^80 + 49 = 2^80 + 83: high word 2^16. */
			KT_EXPECT(t, v[0] == 4 && (int64_t)v[1] == sum && v[2] == 83 &&
				  v[3] == 1ull << 16, "stddev's sums wrong: %llu %llu %llu",
				  (unsigned long long)v[0], (unsigned long long)v[2],
				  (unsigned long long)v[3]);
			break;
		}
		at += (uint32_t)sizeof(*e) + e->keybytes + e->valbytes;
		seen++;
	}
	KT_EXPECT(t, seen == 6 && at == bytes, "%u entries in %u bytes, not 6", seen, bytes);
	/* The switch left an empty active buffer behind. */
	data = snapshot(a, &bytes);
	KT_EXPECT(t, bytes == 0, "the next snapshot holds %u bytes, not 0", bytes);
	aggbuf_destroy(a);
}

KTEST(trace_aggregation_buckets, 1)
{
	struct aggbuf_set *a = aggbuf_create(AGG_BYTES, 0);
	KT_ASSERT(t, a, "no aggregation buffers");
	struct trace_agg q = { .func = DOF_AGG_QUANTIZE, .nkeys = 0, .keybytes = 0,
			       .valbytes = DOF_QUANTIZE_BUCKETS * 8, .nvalues = 1 };
	struct trace_agg lq = { .func = DOF_AGG_LQUANTIZE, .keybytes = 0, .valbytes = 7 * 8,
				.nvalues = 1, .lq_low = 0, .lq_high = 10, .lq_step = 2 };
	const int64_t qv[] = { 0, 1, 2, 3, 4, 7, 8, -1, -2, -3, INT64_MAX, INT64_MIN };
	for (unsigned i = 0; i < sizeof(qv) / sizeof(qv[0]); i++)
		update(a, 0, &q, 0, (uint64_t)qv[i]);
	const int64_t lv[] = { -1, 0, 1, 9, 10, 100 };
	for (unsigned i = 0; i < sizeof(lv) / sizeof(lv[0]); i++)
		update(a, 1, &lq, 0, (uint64_t)lv[i]);
	uint32_t bytes;
	const uint8_t *data = snapshot(a, &bytes);
	const struct dof_aggent *e = entry_at(data, 0);
	const uint64_t *b = values_of(e);
	const unsigned z = DOF_QUANTIZE_ZERO;
	KT_EXPECT(t, e->agg == 0 && b[z] == 1 && b[z + 1] == 1 && b[z + 2] == 2 && b[z + 3] == 2 &&
		  b[z + 4] == 1 && b[z - 1] == 1 && b[z - 2] == 2 && b[z + 63] == 1 && b[z - 63] == 1, "quantize buckets wrong: 0:%llu 1:%llu [2,4):%llu [4,8):%llu "
		  "8:%llu -1:%llu (-4,-2]:%llu max:%llu", (unsigned long long)b[z],
		  (unsigned long long)b[z + 1], (unsigned long long)b[z + 2],
		  (unsigned long long)b[z + 3], (unsigned long long)b[z + 4],
		  (unsigned long long)b[z - 1], (unsigned long long)b[z - 2],
		  (unsigned long long)b[z + 63]);
	uint64_t total = 0;
	for (unsigned i = 0; i < DOF_QUANTIZE_BUCKETS; i++)
		total += b[i];
	KT_EXPECT(t, total == 12, "quantize counted %llu values, not 12", (unsigned long long)total);
	e = entry_at(data, (uint32_t)sizeof(*e) + e->valbytes);
	b = values_of(e);
	KT_EXPECT(t, e->agg == 1 && b[0] == 1 && b[1] == 2 && b[5] == 1 && b[6] == 2,
		  "lquantize buckets wrong: <0:%llu [0,2):%llu [8,10):%llu >=10:%llu",
		  (unsigned long long)b[0], (unsigned long long)b[1], (unsigned long long)b[5],
		  (unsigned long long)b[6]);
	aggbuf_destroy(a);
}

KTEST(trace_aggregation_weighted_buckets, 1)
{
	struct aggbuf_set *a = aggbuf_create(AGG_BYTES, 0);
	KT_ASSERT(t, a, "no aggregation buffers");
	struct trace_agg q = { .func = DOF_AGG_QUANTIZE, .valbytes = DOF_QUANTIZE_BUCKETS * 8,
			       .nvalues = 1 };
	struct trace_agg lq = { .func = DOF_AGG_LQUANTIZE, .valbytes = 7 * 8, .nvalues = 1,
				.lq_low = 0, .lq_high = 10, .lq_step = 2 };
	struct trace_agg sum = { .func = DOF_AGG_SUM, .valbytes = 8, .nvalues = 1 };
	update_by(a, 0, &q, 0, 3, 5);
	update_by(a, 0, &q, 0, 2, 10);
	update_by(a, 0, &q, 0, 100, (uint64_t)-2);	/* a negative weight subtracts */
	update_by(a, 0, &q, 0, 100, 7);
	update_by(a, 1, &lq, 0, 4, 1000);
	update_by(a, 1, &lq, 0, 5, 1);
	update_by(a, 1, &lq, 0, 50, 0);			/* weight 0: the bucket stays 0 */
	update_by(a, 2, &sum, 0, 40, 9);		/* sum ignores the increment */
	uint32_t bytes;
	const uint8_t *data = snapshot(a, &bytes);
	const struct dof_aggent *e = entry_at(data, 0);
	const uint64_t *b = values_of(e);
	const unsigned z = DOF_QUANTIZE_ZERO;
	KT_EXPECT(t, e->agg == 0 && b[z + 2] == 15 && b[z + 7] == 5 && b[z] == 0 && b[z + 1] == 0,
		  "weighted quantize: [2,4):%llu [64,128):%llu", (unsigned long long)b[z + 2],
		  (unsigned long long)b[z + 7]);
	e = entry_at(data, (uint32_t)sizeof(*e) + e->valbytes);
	b = values_of(e);
	KT_EXPECT(t, e->agg == 1 && b[3] == 1001 && b[6] == 0 && b[0] == 0,
		  "weighted lquantize: [4,6):%llu >=10:%llu", (unsigned long long)b[3],
		  (unsigned long long)b[6]);
	e = entry_at(data, (uint32_t)((const uint8_t *)(b + 7) - data));
	KT_EXPECT(t, e->agg == 2 && values_of(e)[0] == 40, "sum with an increment: %llu",
		  (unsigned long long)values_of(e)[0]);
	aggbuf_destroy(a);
}

KTEST(trace_aggregation_full, 1)
{
	struct aggbuf_set *a = aggbuf_create(AGG_BYTES, 0);
	KT_ASSERT(t, a, "no aggregation buffers");
	struct trace_agg c = { .func = DOF_AGG_COUNT, .nkeys = 1, .keybytes = 8, .valbytes = 8 };
	const unsigned fit = AGG_BYTES / 24;	/* entry header 8, key 8, count 8 */
	unsigned took = 0;
	for (unsigned k = 0; k < fit + 10; k++)
		took += update(a, 0, &c, k, 0);
	KT_EXPECT(t, took == fit, "%u keys taken, %u fit", took, fit);
	KT_EXPECT(t, update(a, 0, &c, 3, 0), "an existing key was refused in a full buffer");
	uint32_t bytes;
	snapshot(a, &bytes);
	KT_EXPECT(t, bytes == fit * 24, "snapshot of %u bytes, not %u", bytes, fit * 24);
	KT_EXPECT(t, update(a, 0, &c, fit + 5, 0), "the emptied buffer refused a new key");
	aggbuf_destroy(a);
}

static bool fold_known(struct aggbuf_set *a, uint32_t id, const struct trace_agg *g,
		       uint64_t tag, uint64_t value)
{
	irqflags_t f = arch_irq_save();
	bool known = aggbuf_fold_known(a, id, g, tag, value, 1);
	arch_irq_restore(f);
	return known;
}

static bool update_tagged(struct aggbuf_set *a, uint32_t id, const struct trace_agg *g,
			  uint64_t key, uint64_t value, uint64_t tag)
{
	irqflags_t f = arch_irq_save();
	bool ok = aggbuf_update(a, id, g, (const uint8_t *)&key, g->keybytes, value, 1, tag);
	arch_irq_restore(f);
	return ok;
}

/* The sum of key's entry of aggregation id in a snapshot, and how many entries it has. */
static uint64_t sum_of(const uint8_t *data, uint32_t bytes, uint32_t id, uint64_t key,
		       unsigned *entries)
{
	uint64_t sum = 0;
	*entries = 0;
	for (uint32_t at = 0; at < bytes;) {
		const struct dof_aggent *e = entry_at(data, at);
		if (e->agg == id && *(const uint64_t *)(e + 1) == key) {
			sum += values_of(e)[0];
			++*entries;
		}
		at += (uint32_t)sizeof(*e) + e->keybytes + e->valbytes;
	}
	return sum;
}

/*
 * The memo of tagged keys: unknown until an update with the tag, then
 * folded into the same entry without the key; a tag is known only for
 * its aggregation; a switch forgets every tag, and the next update
 * remembers the entry in the new buffer.
 */
KTEST(trace_aggregation_tagged_keys, 1)
{
	struct aggbuf_set *a = aggbuf_create(AGG_BYTES, 0);
	KT_ASSERT(t, a, "no aggregation buffers");
	struct trace_agg g = { .func = DOF_AGG_SUM, .nkeys = 1, .keybytes = 8, .valbytes = 8,
			       .nvalues = 1 };
	const uint64_t tag = 7ull << 16 | 1, other = 8ull << 16 | 1;
	unsigned entries;
	uint32_t bytes;

	KT_EXPECT(t, !fold_known(a, 0, &g, tag, 1), "a tag was known before any update");
	KT_ASSERT(t, update_tagged(a, 0, &g, 99, 10, tag), "the tagged update was refused");
	KT_EXPECT(t, fold_known(a, 0, &g, tag, 5), "the tag was not remembered");
	KT_EXPECT(t, !fold_known(a, 1, &g, tag, 1), "the tag was known for another aggregation");
	KT_EXPECT(t, !fold_known(a, 0, &g, other, 1), "another tag was known");
	/* A second tag for the same key finds the same entry. */
	KT_ASSERT(t, update_tagged(a, 0, &g, 99, 100, other), "the second tag's update refused");
	KT_EXPECT(t, fold_known(a, 0, &g, other, 1000), "the second tag was not remembered");
	const uint8_t *data = snapshot(a, &bytes);
	uint64_t sum = sum_of(data, bytes, 0, 99, &entries);
	KT_EXPECT(t, entries == 1 && sum == 1115, "key 99: %u entries summing %llu, not 1 of 1115",
		  entries, (unsigned long long)sum);

	KT_EXPECT(t, !fold_known(a, 0, &g, tag, 1), "a tag was still known after the switch");
	KT_ASSERT(t, update_tagged(a, 0, &g, 99, 3, tag), "the update after the switch refused");
	KT_EXPECT(t, fold_known(a, 0, &g, tag, 4), "the tag was not remembered after the switch");
	data = snapshot(a, &bytes);
	sum = sum_of(data, bytes, 0, 99, &entries);
	KT_EXPECT(t, entries == 1 && sum == 7, "after the switch: %u entries summing %llu, not 1 of 7",
		  entries, (unsigned long long)sum);
	aggbuf_destroy(a);
}

extern const unsigned char d_object_test_trace_keys[];
extern const size_t d_object_test_trace_keys_size;

/*
 * Which aggregations' keys are found by tag (dof_load sets
 * key_probe_name once its programs are compiled): those that are one of
 * the probe's names alone, and only with native code (interpreted, every
 * key is built whole: the reference). A strjoin of a name, a pair with a
 * name and no key at all are not.
 */
KTEST(trace_aggregation_probe_name_keys, 1)
{
	static const unsigned want[] = {
		DIF_VAR_PROBEFUNC + 1, DIF_VAR_PROBENAME + 1, DIF_VAR_PROBEMOD + 1,
		DIF_VAR_PROBEPROV + 1, 0, 0, 0,
	};
	struct trace_object o;
	char why[128] = "";
	int rc = dof_load(d_object_test_trace_keys, (uint32_t)d_object_test_trace_keys_size, &o,
			  why, sizeof(why));

	KT_ASSERT(t, rc == 0, "load: %d %s", rc, why);
	KT_ASSERT(t, o.nclauses == 1 && o.clauses[0].nactions == 7, "%u clauses, %u actions",
		  o.nclauses, o.nclauses ? o.clauses[0].nactions : 0);
	for (unsigned i = 0; i < 7; i++) {
		const struct trace_action *a = &o.clauses[0].actions[i];
		unsigned expect = a->nprogs && a->progs[0]->native ? want[i] : 0;
		KT_EXPECT(t, a->kind == DOF_ACT_AGGREGATE && a->key_probe_name == expect,
			  "action %u: kind %u, key by probe name %u, not %u", i, a->kind,
			  a->key_probe_name, expect);
	}
	dof_free(&o);
}

KTEST(trace_dynvar_space, 1)
{
	struct dynvar_space *d = dynvar_create(4096);
	KT_ASSERT(t, d, "no dynamic variable space");
	irqflags_t f = dynvar_lock(d);
	uint64_t key;
	unsigned made = 0;
	for (key = 0; key < 1000; key++) {
		uint64_t *v = dynvar_lookup(d, DIF_SCOPE_GLOBAL, 1, (uint8_t *)&key, 8, 8, true);
		if (!v)
			break;
		*v = key * 3;
		made++;
	}
	/* 24-byte header + 8 key + 8 value = 40: the 64-byte class, 4096 / 64 of them. */
	KT_EXPECT(t, made == 64 && dynvar_count(d) == 64, "%u entries made, not 64", made);
	uint64_t probe = 17;
	uint64_t *v = dynvar_lookup(d, DIF_SCOPE_GLOBAL, 1, (uint8_t *)&probe, 8, 8, false);
	KT_EXPECT(t, v && *v == 51, "entry 17 lost its value");
	KT_EXPECT(t, !dynvar_lookup(d, DIF_SCOPE_THREAD, 1, (uint8_t *)&probe, 8, 8, false) &&
		  !dynvar_lookup(d, DIF_SCOPE_GLOBAL, 2, (uint8_t *)&probe, 8, 8, false),
		  "another scope or variable found global 1's element");
	dynvar_delete(d, DIF_SCOPE_GLOBAL, 1, (uint8_t *)&probe, 8);
	KT_EXPECT(t, !dynvar_lookup(d, DIF_SCOPE_GLOBAL, 1, (uint8_t *)&probe, 8, 8, false),
		  "a deleted element is still there");
	uint64_t fresh = 5000;
	KT_EXPECT(t, dynvar_lookup(d, DIF_SCOPE_THREAD, 3, (uint8_t *)&fresh, 8, 8, true),
		  "the deleted element's memory was not reused");
	KT_EXPECT(t, !dynvar_lookup(d, DIF_SCOPE_THREAD, 4, (uint8_t *)&fresh, 8, 8, true),
		  "a full space made another element");
	dynvar_unlock(d, f);
	dynvar_destroy(d);
}

/*
 * Storage of variables held by reference: zeroed, the same address for
 * the same element every time, distinct elements apart, all of it inside
 * the one area a program may write (dynvar_byref_area), and no entry (of
 * an ordinary variable, or of the by-reference ones themselves) inside
 * that area; a full space makes nothing more, and what was made stays.
 */
KTEST(trace_dynvar_byref_storage, 1)
{
	struct dynvar_space *d = dynvar_create(4096);
	KT_ASSERT(t, d, "no dynamic variable space");
	irqflags_t f = dynvar_lock(d);
	uint8_t *made[64];
	unsigned n = 0;
	for (uint64_t key = 0; key < 64; key++) {
		uint8_t *p = dynvar_lookup_byref(d, DIF_SCOPE_GLOBAL, 1, (uint8_t *)&key, 8, 100);
		if (!p)
			break;
		bool zero = true;
		for (unsigned i = 0; i < 100; i++)
			zero &= p[i] == 0;
		KT_EXPECT(t, zero, "element %llu's storage is not zeroed", (unsigned long long)key);
		memset(p, 0xa0 + (int)key, 100);
		made[n++] = p;
	}
	/* 40-byte entries (the 64-byte class) below, 104 bytes each above: 4096 / 168 of them. */
	KT_EXPECT(t, n == 24, "%u elements made, not 24", n);
	const uint8_t *area;
	uint32_t bytes = dynvar_byref_area(d, &area);
	KT_EXPECT(t, bytes == n * 104u, "the area is %u bytes, not %u", bytes, n * 104u);
	for (uint64_t key = 0; key < n; key++) {
		uint8_t *p = dynvar_lookup_byref(d, DIF_SCOPE_GLOBAL, 1, (uint8_t *)&key, 8, 100);
		KT_EXPECT(t, p == made[key] && p[0] == 0xa0 + key && p[99] == 0xa0 + key,
			  "element %llu moved or changed", (unsigned long long)key);
		KT_EXPECT(t, p >= area && p + 100 <= area + bytes, "element %llu lies outside the "
			  "area", (unsigned long long)key);
		uint8_t **slot = dynvar_lookup(d, DIF_SCOPE_GLOBAL, 1, (uint8_t *)&key, 8, 8, false);
		KT_EXPECT(t, slot && *slot == p && ((uint8_t *)slot + 8 <= area ||
						    (uint8_t *)slot >= area + bytes),
			  "element %llu's entry lies in the writable area", (unsigned long long)key);
	}
	uint64_t other = 1000;
	KT_EXPECT(t, !dynvar_lookup_byref(d, DIF_SCOPE_THREAD, 2, (uint8_t *)&other, 8, 100),
		  "a full space made another element");
	uint64_t *plain = dynvar_lookup(d, DIF_SCOPE_GLOBAL, 3, (uint8_t *)&other, 8, 8, true);
	KT_EXPECT(t, !plain || (uint8_t *)(plain + 1) <= area, "an ordinary entry lies in the area");
	KT_EXPECT(t, dynvar_byref_area(d, &area) == bytes, "the area changed when nothing was made");
	dynvar_unlock(d, f);
	dynvar_destroy(d);
}

/* The principal buffer of the test: commit reserves in it (trace_reserve's switch policy). */
static void *reserve_in(void *bufs, uint32_t bytes)
{
	return tbuf_reserve(bufs, bytes);
}

static uint32_t fixed_size(void *arg, uint32_t epid)
{
	(void)arg;
	return epid ? 32 : 0;
}

KTEST(trace_speculations, 1)
{
	struct spec_set *s = spec_create(2, 96);
	struct tbuf_set *bufs = tbuf_create(1024);
	KT_ASSERT(t, s && bufs, "no speculations or buffers");
	uint64_t a = spec_new(s), b = spec_new(s), c = spec_new(s);
	KT_EXPECT(t, a == 1 && b == 2 && c == 0, "ids %llu %llu %llu, not 1 2 0",
		  (unsigned long long)a, (unsigned long long)b, (unsigned long long)c);
	uint64_t rec[4] = { 0 };
	unsigned took = 0;
	for (unsigned i = 0; i < 4; i++) {
		struct dof_rechdr *h = (struct dof_rechdr *)rec;
		h->epid = 7;
		h->timestamp = i;
		took += spec_append(s, a, rec, 32);
	}
	KT_EXPECT(t, took == 3, "%u records of 32 bytes in a 96-byte speculation", took);
	KT_EXPECT(t, !spec_append(s, 9, rec, 32), "a record joined speculation 9 of 2");
	irqflags_t f = arch_irq_save();
	spec_commit(s, a, reserve_in, fixed_size, bufs);
	arch_irq_restore(f);
	tbuf_switch(bufs);
	uint32_t bytes;
	uint64_t records, drops;
	const uint8_t *data = tbuf_taken(bufs, this_cpu_index(), &bytes, &records, &drops);
	bool ordered = bytes == 96;
	for (unsigned i = 0; ordered && i < 3; i++)
		ordered = ((const struct dof_rechdr *)(data + i * 32))->timestamp == i;
	KT_EXPECT(t, ordered && records == 3, "commit gave %u bytes, %llu records, out of order",
		  bytes, (unsigned long long)records);
	KT_EXPECT(t, !spec_append(s, a, rec, 32), "a committed speculation still takes records");
	KT_EXPECT(t, spec_new(s) == a, "the committed speculation is not free again");
	spec_append(s, b, rec, 32);
	spec_discard(s, b);
	f = arch_irq_save();
	spec_commit(s, b, reserve_in, fixed_size, bufs);
	arch_irq_restore(f);
	tbuf_switch(bufs);
	tbuf_taken(bufs, this_cpu_index(), &bytes, &records, &drops);
	KT_EXPECT(t, bytes == 0, "a discarded speculation committed %u bytes", bytes);
	spec_destroy(s);
	tbuf_destroy(bufs);
}

/*
 * copyin's borders (env.c's trace_env_ops.copyin): a kernel thread has no
 * user memory; with a process, only [USER_BASE, USER_LIMIT) reads, a range
 * that runs past USER_LIMIT or starts below USER_BASE does not, a kernel
 * address never does, an unmapped user page is an error (never resolved),
 * and the thread's in_uaccess comes back as it was.
 */
KTEST(trace_copyin_borders, 1)
{
	static struct process fake;	/* no memory map: nothing can be resolved through it */
	struct thread *self = thread_current();
	uint8_t buf[16], kernel_bytes[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint64_t kaddr = (uint64_t)(uintptr_t)kernel_bytes;

	KT_ASSERT(t, !self->proc, "the test thread belongs to a process");
	KT_EXPECT(t, trace_env_ops.copyin(NULL, USER_BASE, buf, 8) == -EFAULT,
		  "a kernel thread read user memory");
	KT_EXPECT(t, trace_env_ops.copyin(NULL, USER_BASE, buf, 0) == 0, "0 bytes is not 0");
	self->proc = &fake;
	self->in_uaccess = true;
	int kernel = trace_env_ops.copyin(NULL, kaddr, buf, 8);
	int below = trace_env_ops.copyin(NULL, USER_BASE - 4, buf, 8);
	int past = trace_env_ops.copyin(NULL, USER_LIMIT - 4, buf, 8);
	int wraps = trace_env_ops.copyin(NULL, UINT64_MAX - 3, buf, 8);
	int unmapped = trace_env_ops.copyin(NULL, USER_BASE, buf, 8);
	bool kept = self->in_uaccess;
	self->in_uaccess = false;
	self->proc = NULL;
	KT_EXPECT(t, kernel == -EFAULT, "a kernel address read as user memory: %d", kernel);
	KT_EXPECT(t, below == -EFAULT, "below USER_BASE: %d", below);
	KT_EXPECT(t, past == -EFAULT, "past USER_LIMIT: %d", past);
	KT_EXPECT(t, wraps == -EFAULT, "a wrapping range: %d", wraps);
	KT_EXPECT(t, unmapped == -EFAULT, "an unmapped user page: %d", unmapped);
	KT_EXPECT(t, kept, "in_uaccess was not restored");
}
