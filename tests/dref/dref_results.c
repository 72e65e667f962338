// SPDX-License-Identifier: BSD-2-Clause
/*
 * What a run of a program produced (struct dref_results), in the form
 * both runs can fill and dref_compare can compare byte for byte:
 * aggregation entries keyed by (CPU, aggregation, key bytes) with their
 * values, records in the order each CPU wrote them, the globals' final
 * values and the counters.
 *
 * Aggregation entries are found through a chained hash on their key;
 * the table owns every key and value array.
 */
#include <stdlib.h>
#include <string.h>
#include "dref.h"

#define HASH_MIN 64

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		abort();
	return p;
}

void dref_results_init(struct dref_results *r, const struct dt_program *p)
{
	memset(r, 0, sizeof(*r));
	r->nglobals = (unsigned)p->nvars[DT_SCOPE_GLOBAL];
	r->global_is_string = xcalloc(r->nglobals, sizeof(bool));
	r->global_is_array = xcalloc(r->nglobals, sizeof(bool));
	r->global_int = xcalloc(r->nglobals, sizeof(uint64_t));
	r->global_str = xcalloc(r->nglobals, DREF_STRMAX);
	for (const struct dt_var *v = p->vars; v; v = v->next) {
		if (v->scope != DT_SCOPE_GLOBAL)
			continue;
		r->global_is_string[v->id] = v->type.kind == DT_TYPE_STRING;
		r->global_is_array[v->id] = v->is_array;
	}
}

void dref_results_free(struct dref_results *r)
{
	for (unsigned i = 0; i < r->naggs; i++) {
		free(r->aggs[i].key);
		free(r->aggs[i].vals);
	}
	free(r->aggs);
	free(r->bucket);
	free(r->next);
	for (unsigned i = 0; i < r->nrecs; i++)
		free(r->recs[i].bytes);
	free(r->recs);
	free(r->global_is_string);
	free(r->global_is_array);
	free(r->global_int);
	free(r->global_str);
	memset(r, 0, sizeof(*r));
}

static uint32_t hash_key(unsigned cpu, uint32_t agg, const uint8_t *key, uint32_t keybytes)
{
	uint64_t h = 1469598103934665603ull ^ ((uint64_t)cpu << 32 | agg);	/* FNV-1a */
	for (uint32_t i = 0; i < keybytes; i++)
		h = (h ^ key[i]) * 1099511628211ull;
	return (uint32_t)(h ^ (h >> 32));
}

static void rehash(struct dref_results *r, uint32_t nbuckets)
{
	free(r->bucket);
	r->nbuckets = nbuckets;
	r->bucket = xcalloc(nbuckets, sizeof(uint32_t));
	for (unsigned i = 0; i < r->naggs; i++) {
		const struct dref_aggent *e = &r->aggs[i];
		uint32_t b = hash_key(e->cpu, e->agg, e->key, e->keybytes) & (nbuckets - 1);
		r->next[i] = r->bucket[b];
		r->bucket[b] = i + 1;
	}
}

/* Room for one more entry: entries and their index grow together. */
static void grow(struct dref_results *r)
{
	unsigned cap = r->aggcap ? 2 * r->aggcap : HASH_MIN;
	r->aggs = realloc(r->aggs, cap * sizeof(*r->aggs));
	r->next = realloc(r->next, cap * sizeof(*r->next));
	if (!r->aggs || !r->next)
		abort();
	r->aggcap = cap;
	rehash(r, 2 * cap);
}

uint64_t *dref_agg_entry(struct dref_results *r, unsigned cpu, uint32_t agg, const uint8_t *key,
			 uint32_t keybytes, uint32_t nvals, bool *fresh)
{
	uint32_t h = hash_key(cpu, agg, key, keybytes);
	for (uint32_t i = r->nbuckets ? r->bucket[h & (r->nbuckets - 1)] : 0; i; i = r->next[i - 1]) {
		struct dref_aggent *e = &r->aggs[i - 1];
		if (e->cpu == cpu && e->agg == agg && e->keybytes == keybytes &&
		    !memcmp(e->key, key, keybytes)) {
			*fresh = false;
			return e->vals;
		}
	}
	if (r->naggs == r->aggcap)
		grow(r);
	struct dref_aggent *e = &r->aggs[r->naggs];
	e->cpu = cpu;
	e->agg = agg;
	e->keybytes = keybytes;
	e->nvals = nvals;
	e->key = xcalloc(keybytes, 1);
	memcpy(e->key, key, keybytes);
	e->vals = xcalloc(nvals, sizeof(uint64_t));
	uint32_t b = h & (r->nbuckets - 1);
	r->next[r->naggs] = r->bucket[b];
	r->bucket[b] = ++r->naggs;
	*fresh = true;
	return e->vals;
}

void dref_add_record(struct dref_results *r, unsigned cpu, const void *bytes, uint32_t size)
{
	if (r->nrecs == r->reccap) {
		r->reccap = r->reccap ? 2 * r->reccap : 64;
		r->recs = realloc(r->recs, r->reccap * sizeof(*r->recs));
		if (!r->recs)
			abort();
	}
	struct dref_record *rec = &r->recs[r->nrecs++];
	rec->cpu = cpu;
	rec->size = size;
	rec->bytes = xcalloc(size, 1);
	memcpy(rec->bytes, bytes, size);
}

uint32_t dref_agg_nvals(const struct dt_agg_code *ac)
{
	switch (ac->func) {
	case DOF_AGG_AVG:
		return 2;
	case DOF_AGG_STDDEV:
		return 4;
	case DOF_AGG_QUANTIZE:
		return DOF_QUANTIZE_BUCKETS;
	case DOF_AGG_LQUANTIZE:
		return (uint32_t)((ac->agg->lq_high - ac->agg->lq_low) / ac->agg->lq_step) + 2;
	case DOF_AGG_LLQUANTIZE: {
		/* 1 below factor^low, nsteps - nsteps / factor per order (fewer while
		   factor^(m+1) < nsteps: one per value), 1 at or above factor^(high+1) */
		uint64_t factor = (uint64_t)ac->agg->lq_step >> 16, nsteps = ac->agg->lq_step & 0xffff;
		uint64_t end = 1, n = 2;
		for (int64_t m = 0; m <= ac->agg->lq_high; m++) {
			end *= factor;
			if (m >= ac->agg->lq_low) {
				uint64_t per = end < nsteps ? end : nsteps;
				n += per - per / factor;
			}
		}
		return (uint32_t)n;
	}
	default:
		return 1;
	}
}
