// SPDX-License-Identifier: BSD-2-Clause
/*
 * Comparing the two runs of a program (dref_compare): the records each
 * CPU wrote, in order and byte for byte; the aggregation entries of each
 * CPU, as sets keyed by (aggregation, key bytes), values equal; every
 * global scalar's final value; exit()'s status; the error count. The first
 * difference is described the way a person reads the program's output:
 * the aggregation by name, its key decoded by the key layout (integers
 * by their type, strings quoted, stray bytes escaped), the values by
 * function, the record's clause and traced values.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <scion/dif_exec.h>
#include "dref.h"

static const char *agg_name(const struct dt_object *obj, uint32_t agg)
{
	return agg < (uint32_t)obj->naggs && obj->aggs[agg].agg ? obj->aggs[agg].agg->name : "?";
}

static void print_bytes_as_string(struct dref_buf *b, const uint8_t *s, uint32_t size)
{
	uint32_t len = 0;
	while (len < size && s[len])
		len++;
	bool tail = false;	/* bytes after the NUL that should be zero padding */
	for (uint32_t i = len; i < size; i++)
		tail |= s[i] != 0;
	uint32_t end = len;
	if (tail)		/* show the stray bytes, up to the last that is not 0 */
		for (end = size; end && !s[end - 1]; end--)
			;
	dref_printf(b, "\"");
	for (uint32_t i = 0; i < end; i++) {
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\')
			dref_printf(b, "%c", s[i]);
		else
			dref_printf(b, "\\x%02x", s[i]);
	}
	dref_printf(b, "\"");
	if (tail && end < size)
		dref_printf(b, " and %u NUL bytes", size - end);
}

static void print_int(struct dref_buf *b, struct dt_type t, uint64_t v)
{
	if (t.is_signed)
		dref_printf(b, "%" PRId64, (int64_t)v);
	else
		dref_printf(b, "%" PRIu64, v);
}

static void print_key(struct dref_buf *b, const struct dt_object *obj, const struct dref_aggent *e)
{
	const struct dt_agg_code *ac = e->agg < (uint32_t)obj->naggs ? &obj->aggs[e->agg] : NULL;
	dref_printf(b, "[");
	if (!ac || ac->keybytes != e->keybytes) {
		print_bytes_as_string(b, e->key, e->keybytes);
		dref_printf(b, " (%u key bytes)]", e->keybytes);
		return;
	}
	for (int i = 0; i < ac->nkeys; i++) {
		const struct dt_datum *d = &ac->keys[i];
		uint64_t v;
		dref_printf(b, "%s", i ? ", " : "");
		if (d->kind == DT_DATUM_STRING) {
			print_bytes_as_string(b, e->key + d->offset, d->size);
		} else {
			memcpy(&v, e->key + d->offset, 8);
			print_int(b, d->type, v);
		}
	}
	dref_printf(b, "]");
}

static void print_values(struct dref_buf *b, const struct dt_object *obj,
			 const struct dref_aggent *e)
{
	uint8_t func = e->agg < (uint32_t)obj->naggs ? obj->aggs[e->agg].func : 0;
	static const char *const names[DOF_AGG_LIMIT] = {
		[DOF_AGG_COUNT] = "count", [DOF_AGG_SUM] = "sum", [DOF_AGG_MIN] = "min",
		[DOF_AGG_MAX] = "max", [DOF_AGG_AVG] = "avg (count, sum)",
		[DOF_AGG_STDDEV] = "stddev (count, sum, sum of squares low, high)",
		[DOF_AGG_QUANTIZE] = "quantize (bucket:count)",
		[DOF_AGG_LQUANTIZE] = "lquantize (bucket:count)",
		[DOF_AGG_LLQUANTIZE] = "llquantize (bucket:count)",
	};
	dref_printf(b, "%s", func < DOF_AGG_LIMIT && names[func] ? names[func] : "?");
	bool buckets = func == DOF_AGG_QUANTIZE || func == DOF_AGG_LQUANTIZE ||
		       func == DOF_AGG_LLQUANTIZE;
	for (uint32_t i = 0; i < e->nvals; i++) {
		if (buckets && e->vals[i])
			dref_printf(b, " %u:%" PRId64, i, (int64_t)e->vals[i]);
		else if (!buckets)
			dref_printf(b, " %" PRId64, (int64_t)e->vals[i]);
	}
}

static int entry_order(const void *pa, const void *pb)
{
	const struct dref_aggent *a = *(const struct dref_aggent *const *)pa;
	const struct dref_aggent *b = *(const struct dref_aggent *const *)pb;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->agg != b->agg)
		return a->agg < b->agg ? -1 : 1;
	if (a->keybytes != b->keybytes)
		return a->keybytes < b->keybytes ? -1 : 1;
	return memcmp(a->key, b->key, a->keybytes);
}

static const struct dref_aggent **sorted(const struct dref_results *r)
{
	const struct dref_aggent **v = calloc(r->naggs + 1, sizeof(*v));
	if (!v)
		abort();
	for (unsigned i = 0; i < r->naggs; i++)
		v[i] = &r->aggs[i];
	qsort(v, r->naggs, sizeof(*v), entry_order);
	return v;
}

/* The keys the other run has for that aggregation on that CPU: what the missing one became. */
static void list_keys(struct dref_buf *b, const struct dt_object *obj,
		      const struct dref_results *r, const struct dref_aggent *like, const char *who)
{
	unsigned shown = 0;
	for (unsigned i = 0; i < r->naggs && shown < 6; i++) {
		const struct dref_aggent *e = &r->aggs[i];
		if (e->cpu != like->cpu || e->agg != like->agg)
			continue;
		dref_printf(b, "    %s has @%s", who, agg_name(obj, e->agg));
		print_key(b, obj, e);
		dref_printf(b, " = ");
		print_values(b, obj, e);
		dref_printf(b, "\n");
		shown++;
	}
	if (!shown)
		dref_printf(b, "    %s has no entry of @%s on CPU %u\n", who,
			    agg_name(obj, like->agg), like->cpu);
}

static bool compare_aggs(const struct dt_object *obj, const struct dref_results *want,
			 const struct dref_results *got, struct dref_buf *b, unsigned *n)
{
	const struct dref_aggent **w = sorted(want), **g = sorted(got);
	unsigned i = 0, j = 0;
	bool same = true;
	while (same && (i < want->naggs || j < got->naggs)) {
		int order = i == want->naggs ? 1 : j == got->naggs ? -1 : entry_order(&w[i], &g[j]);
		const struct dref_aggent *e = order <= 0 ? w[i] : g[j];
		if (order == 0 && e->nvals == g[j]->nvals &&
		    !memcmp(e->vals, g[j]->vals, e->nvals * 8)) {
			i++, j++, ++*n;
			continue;
		}
		same = false;
		dref_printf(b, "first difference: aggregation @%s on CPU %u, key ",
			    agg_name(obj, e->agg), e->cpu);
		print_key(b, obj, e);
		dref_printf(b, ":\n  reference: ");
		if (order <= 0)
			print_values(b, obj, w[i]);
		else
			dref_printf(b, "(no such entry)");
		dref_printf(b, "\n  kernel:    ");
		if (order >= 0)
			print_values(b, obj, g[j]);
		else
			dref_printf(b, "(no such entry)");
		dref_printf(b, "\n");
		if (order != 0)
			list_keys(b, obj, order < 0 ? got : want, e, order < 0 ? "the kernel" :
				  "the reference");
	}
	free(w);
	free(g);
	return same;
}

static void print_record(struct dref_buf *b, const struct dt_object *obj,
			 const struct dref_record *r)
{
	if (!r) {
		dref_printf(b, "(no record)\n");
		return;
	}
	const struct dof_rechdr *h = (const struct dof_rechdr *)r->bytes;
	if (r->size < sizeof(*h)) {
		dref_printf(b, "(%u bytes)\n", r->size);
		return;
	}
	if (h->epid == DOF_EPID_ERROR && r->size >= sizeof(*h) + sizeof(struct dof_error)) {
		const struct dof_error *e = (const struct dof_error *)(h + 1);
		dref_printf(b, "error on EPID %u action %u: %s at %#" PRIx64 " (probe %u, time %"
			    PRIu64 ")\n", e->epid, e->action, dif_fault_name(e->fault), e->addr,
			    h->probe_id, h->timestamp);
		return;
	}
	dref_printf(b, "EPID %u probe %u time %" PRIu64 " (%u bytes):", h->epid, h->probe_id,
		    h->timestamp, r->size);
	for (int c = 0; c < obj->nclauses; c++) {
		const struct dt_clause_code *cc = &obj->clauses[c];
		if (cc->size != r->size)
			continue;
		for (int a = 0; a < cc->nactions; a++) {
			for (int d = 0; d < cc->actions[a].ndata; d++) {
				const struct dt_datum *dt = &cc->actions[a].data[d];
				if (dt->offset + dt->size > r->size)
					continue;
				dref_printf(b, " ");
				if (dt->kind == DT_DATUM_STRING) {
					print_bytes_as_string(b, r->bytes + dt->offset, dt->size);
				} else {
					uint64_t v;
					memcpy(&v, r->bytes + dt->offset, 8);
					print_int(b, dt->type, v);
				}
			}
		}
		break;
	}
	dref_printf(b, "\n");
}

static bool compare_records(const struct dt_object *obj, const struct dref_results *want,
			    const struct dref_results *got, struct dref_buf *b, unsigned *n)
{
	for (unsigned cpu = 0; cpu < DREF_CPUS; cpu++) {
		unsigned i = 0, j = 0, index = 0;
		for (;;) {
			while (i < want->nrecs && want->recs[i].cpu != cpu)
				i++;
			while (j < got->nrecs && got->recs[j].cpu != cpu)
				j++;
			const struct dref_record *w = i < want->nrecs ? &want->recs[i] : NULL;
			const struct dref_record *g = j < got->nrecs ? &got->recs[j] : NULL;
			if (!w && !g)
				break;
			if (w && g && w->size == g->size && !memcmp(w->bytes, g->bytes, w->size)) {
				i++, j++, index++, ++*n;
				continue;
			}
			dref_printf(b, "first difference: record %u of CPU %u:\n  reference: ",
				    index, cpu);
			print_record(b, obj, w);
			dref_printf(b, "  kernel:    ");
			print_record(b, obj, g);
			return false;
		}
	}
	return true;
}

static const struct dt_var *global_var(const struct dt_object *obj, unsigned id)
{
	for (const struct dt_var *v = obj->program->vars; v; v = v->next)
		if (v->scope == DT_SCOPE_GLOBAL && v->id == (int)id)
			return v;
	return NULL;
}

static bool compare_globals(const struct dt_object *obj, const struct dref_results *want,
			    const struct dref_results *got, struct dref_buf *b, unsigned *n)
{
	for (unsigned id = 0; id < want->nglobals; id++) {
		if (want->global_is_array[id])
			continue;
		const struct dt_var *v = global_var(obj, id);
		const char *name = v ? v->name : "?";
		if (want->global_is_string[id]) {
			if (strcmp(want->global_str[id], got->global_str[id])) {
				dref_printf(b, "first difference: global %s:\n  reference: \"%s\"\n"
					    "  kernel:    \"%s\"\n", name, want->global_str[id],
					    got->global_str[id]);
				return false;
			}
		} else if (want->global_int[id] != got->global_int[id]) {
			dref_printf(b, "first difference: global %s:\n  reference: ", name);
			print_int(b, v ? v->type : (struct dt_type){ 0 }, want->global_int[id]);
			dref_printf(b, "\n  kernel:    ");
			print_int(b, v ? v->type : (struct dt_type){ 0 }, got->global_int[id]);
			dref_printf(b, "\n");
			return false;
		}
		++*n;
	}
	return true;
}

bool dref_compare(const struct dt_object *obj, const struct dref_results *want,
		  const struct dref_results *got, struct dref_buf *b, struct dref_stats *stats)
{
	unsigned records = 0, entries = 0, globals = 0;
	bool same = compare_records(obj, want, got, b, &records) &&
		    compare_aggs(obj, want, got, b, &entries) &&
		    compare_globals(obj, want, got, b, &globals);
	if (same && (want->exited != got->exited || want->exit_status != got->exit_status)) {
		dref_printf(b, "first difference: exit(): reference %s %d, kernel %s %d\n",
			    want->exited ? "exited with" : "did not exit,", want->exit_status,
			    got->exited ? "exited with" : "did not exit,", got->exit_status);
		same = false;
	}
	if (same && want->errors != got->errors) {
		dref_printf(b, "first difference: run-time errors: reference %" PRIu64 ", kernel %"
			    PRIu64 "\n", want->errors, got->errors);
		same = false;
	}
	stats->records += records;
	stats->agg_entries += entries;
	stats->globals += globals;
	stats->comparisons += records + entries + globals + 1;
	return same;
}
