// SPDX-License-Identifier: BSD-2-Clause
/*
 * The reference evaluator's clauses and firings (dref_evaluate): for
 * each firing, the clauses enabled on its probe in EPID order, each one
 * its predicate, then its statements in order: assignments, trace(),
 * printf() and exit() into the clause's record, aggregations folded with DTrace's
 * definitions (count, sum, min/max as signed 64-bit, avg, stddev with
 * a 128-bit sum of squares, quantize's power-of-two buckets, lquantize's
 * linear ones, llquantize's log-linear ones, all optionally weighted).
 *
 * What the consumer sees is produced in the kernel's formats, so the
 * comparison is byte for byte: a record is a struct dof_rechdr and each
 * traced value at the offset the compiler's layout gives; an aggregation
 * key's items at their offsets in the key; a fault abandons the clause
 * and writes an error record (struct dof_error) naming the action as the
 * kernel numbers them (0 for the predicate, then one per run of
 * assignment statements, one per aggregation and one per recorded
 * value), then fires dtrace:::ERROR. The session's states are
 * session.c's: exit() ends the firing's later clauses and every later
 * firing but END's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dref_eval.h"

/* ---- aggregating functions ---- */

/* quantize's bucket: DTrace's powers of two, 0 in the middle, INT64_MIN in the lowest. */
static unsigned quantize_bucket(int64_t v)
{
	const int zero = DOF_QUANTIZE_ZERO, n = DOF_QUANTIZE_BUCKETS;
	if (v < 0) {
		/* Bucket b holds the values at most -(2^(zero - 1 - b)). */
		for (int b = 0; b < zero; b++)
			if (v <= -(int64_t)(1ull << (zero - 1 - b)))
				return (unsigned)b;
	}
	if (v == 0)
		return (unsigned)zero;
	for (int b = zero + 1; b < n; b++)	/* bucket b starts at 2^(b - zero - 1) */
		if (b == n - 1 || v < (int64_t)(1ull << (b - zero)))
			return (unsigned)b;
	return (unsigned)(n - 1);
}

/* lquantize's bucket (scion/dof.h): below low, [low + i*step, low + (i+1)*step), >= high. */
static unsigned lquantize_bucket(const struct dt_agg *a, int64_t v)
{
	int64_t levels = (a->lq_high - a->lq_low) / a->lq_step;
	if (v < a->lq_low)
		return 0;
	if (v >= a->lq_high)
		return (unsigned)levels + 1;
	return 1 + (unsigned)((v - a->lq_low) / a->lq_step);
}

/*
 * llquantize's bucket, found the way dtrace's consumer labels them (an
 * independent reading of the layout scion/dof.h describes): walk the
 * buckets' lower bounds -- factor^m, then up by factor^(m+1) / nsteps
 * (at least 1) to factor^(m+1), for m = low .. high -- and take the last
 * bound at or below v; below factor^low is bucket 0.
 */
static unsigned llquantize_bucket(const struct dt_agg *a, int64_t v)
{
	int64_t factor = (int64_t)(a->lq_step >> 16), nsteps = a->lq_step & 0xffff;
	int64_t bound = 1;
	for (int64_t m = 0; m < a->lq_low; m++)
		bound *= factor;
	unsigned bucket = 0;
	for (int64_t m = a->lq_low; m <= a->lq_high; m++) {
		int64_t next = bound * factor, step = next / nsteps ? next / nsteps : 1;
		for (; bound < next; bound += step, bucket++)
			if (v < bound)
				return bucket;
	}
	return v < bound ? bucket : bucket + 1;
}

static void fold(const struct dt_agg_code *ac, uint64_t *vals, bool fresh, uint64_t value,
		 uint64_t incr)
{
	int64_t v = (int64_t)value;
	switch (ac->func) {
	case DOF_AGG_COUNT: vals[0]++; break;
	case DOF_AGG_SUM: vals[0] += value; break;
	case DOF_AGG_MIN: if (fresh || v < (int64_t)vals[0]) vals[0] = value; break;
	case DOF_AGG_MAX: if (fresh || v > (int64_t)vals[0]) vals[0] = value; break;
	case DOF_AGG_AVG: vals[0]++; vals[1] += value; break;
	case DOF_AGG_STDDEV: {
		uint64_t mag = v < 0 ? 0 - value : value;
		unsigned __int128 sq = (unsigned __int128)mag * mag;
		unsigned __int128 sum = ((unsigned __int128)vals[3] << 64 | vals[2]) + sq;
		vals[0]++;
		vals[1] += value;
		vals[2] = (uint64_t)sum;
		vals[3] = (uint64_t)(sum >> 64);
		break;
	}
	case DOF_AGG_QUANTIZE: vals[quantize_bucket(v)] += incr; break;
	case DOF_AGG_LQUANTIZE: vals[lquantize_bucket(ac->agg, v)] += incr; break;
	case DOF_AGG_LLQUANTIZE: vals[llquantize_bucket(ac->agg, v)] += incr; break;
	}
}

/* The weighted (l)quantize's increment argument, or NULL. */
static const struct dt_node *increment_arg(const struct dt_stmt *s)
{
	int at = s->func->id == DT_F_QUANTIZE ? 1 : s->func->id == DT_F_LQUANTIZE ? 4 :
		 s->func->id == DT_F_LLQUANTIZE ? 5 : -1;
	const struct dt_node *a = s->args;
	for (int i = 0; a && i < at; i++)
		a = a->next;
	return at > 0 ? a : NULL;
}

static bool aggregate(struct dref_eval *e, const struct dt_stmt *s)
{
	const struct dt_agg_code *ac = &e->obj->aggs[s->agg->id];
	uint8_t key[DOF_MAX_KEYBYTES] = { 0 };
	struct dref_value v;
	int i = 0;

	for (const struct dt_node *k = s->keys; k; k = k->next, i++) {
		const struct dt_datum *d = &ac->keys[i];
		if (d->kind == DT_DATUM_STACK)
			return dref_unsupported(e, "stack() as an aggregation key");
		if (!dref_eval_expr(e, k, &v))
			return false;
		if (v.kind == DREF_INT) {
			/* As an array's: the key converts to the aggregation's key type. */
			uint64_t x = dref_convert(s->agg->keys[i], v.i);
			memcpy(key + d->offset, &x, 8);
		} else if (v.null) {
			return dref_fail(e, DIF_FAULT_BADADDR, 0);
		} else {
			memcpy(key + d->offset, v.s, strlen(v.s));
		}
	}
	uint64_t value = 0, incr = 1;
	if (s->func->id != DT_F_COUNT) {
		if (!dref_eval_expr(e, s->args, &v))
			return false;
		value = v.i;
	}
	const struct dt_node *weight = increment_arg(s);
	if (weight) {
		if (!dref_eval_expr(e, weight, &v))
			return false;
		incr = v.i;
	}
	bool fresh;
	uint64_t *vals = dref_agg_entry(e->out, e->f->cpu, (uint32_t)s->agg->id, key, ac->keybytes,
					dref_agg_nvals(ac), &fresh);
	fold(ac, vals, fresh, value, incr);
	return true;
}

/* ---- records ---- */

static const struct dt_action *action_of(const struct dt_clause_code *cc, const struct dt_stmt *s)
{
	for (int i = 0; i < cc->nactions; i++)
		if (cc->actions[i].stmt == s)
			return &cc->actions[i];
	return NULL;
}

/* Value n into the record at datum d; *v keeps it (exit's status). */
static bool record_value(struct dref_eval *e, const struct dt_node *n, const struct dt_datum *d,
			 uint8_t *rec, struct dref_value *v)
{
	if (d->kind == DT_DATUM_STACK)
		return dref_unsupported(e, "stack()");
	if (!dref_eval_expr(e, n, v))
		return false;
	if (v->kind == DREF_INT) {
		memcpy(rec + d->offset, &v->i, 8);
	} else if (v->null) {
		return dref_fail(e, DIF_FAULT_BADADDR, 0);	/* recording NULL reads 0 */
	} else {
		memcpy(rec + d->offset, v->s, strlen(v->s));
	}
	return true;
}

/*
 * trace(), exit() and printf(): each value a RECORD (or EXIT) action of
 * its own, counted in *action as the kernel numbers them.
 */
static bool record_action(struct dref_eval *e, const struct dt_clause_code *cc,
			  const struct dt_stmt *s, uint8_t *rec, uint32_t *action, bool *exiting,
			  int64_t *status)
{
	const struct dt_action *a = action_of(cc, s);
	struct dref_value v;
	enum dt_func_id id = s->func->id;
	if (!a || (id != DT_F_TRACE && id != DT_F_EXIT && id != DT_F_PRINTF))
		return dref_unsupported(e, "an action other than trace(), printf() and exit()");
	const struct dt_node *n = id == DT_F_PRINTF ? s->args->next : s->args;
	for (int i = 0; n && i < a->ndata; n = n->next, i++) {
		++*action;
		if (!record_value(e, n, &a->data[i], rec, &v))
			return false;
	}
	if (id == DT_F_EXIT) {
		*exiting = true;
		*status = (int64_t)v.i;
	}
	return true;
}

/* dtrace:::ERROR's arg4: the fault in DTrace's numbering (DTRACEFLT_*). */
static uint64_t dtrace_fault_code(enum dif_fault_kind kind)
{
	switch (kind) {
	case DIF_FAULT_BADADDR: return 1;
	case DIF_FAULT_ALIGN: return 2;
	case DIF_FAULT_ILLOP:
	case DIF_FAULT_BADINDEX:
	case DIF_FAULT_BADARG: return 3;	/* DTrace's illegal operation */
	case DIF_FAULT_DIVZERO: return 4;
	case DIF_FAULT_NOSCRATCH: return 5;
	case DIF_FAULT_TUPLE: return 8;
	default: return 0;
	}
}

/* ---- clauses and firings ---- */

static bool run_clause(struct dref_eval *e, const struct dt_clause *c, uint32_t epid);

static const struct dt_clause *clause_by_index(const struct dt_program *p, int index)
{
	for (const struct dt_clause *c = p->clauses; c; c = c->next)
		if (c->index == index)
			return c;
	return NULL;
}

/* The clauses enabled on the firing's probe, in EPID order, while the session is in runs_in. */
static bool run_clauses(struct dref_eval *e, int runs_in)
{
	const struct dref_ecbs *ecbs = e->ecbs;
	for (unsigned k = 0; k < ecbs->n; k++) {
		if (ecbs->ecb[k].probe != e->f->probe)
			continue;
		/* exit() in an earlier clause stops the later ones. */
		if (runs_in != DREF_ANY && (int)e->state != runs_in)
			return true;
		if (!run_clause(e, clause_by_index(e->prog, ecbs->ecb[k].clause), k + 1))
			return false;
	}
	return true;
}

/*
 * A fault: its error record, then dtrace:::ERROR fires (unless the fault
 * was in one of its own clauses) with arg1 the EPID, arg2 the action,
 * arg4 the fault, arg5 the address, within the failed firing: on its CPU
 * and thread, its clause-locals as they are, a strtok() of its own.
 */
static bool failed(struct dref_eval *e, uint32_t action)
{
	struct {
		struct dof_rechdr h;
		struct dof_error err;
	} r = {
		{ DOF_EPID_ERROR, dref_probes[e->f->probe].id, e->f->now },
		{ e->epid, action, 0, (uint32_t)e->fault.kind, e->fault.addr },
	};
	e->out->errors++;
	dref_add_record(e->out, e->f->cpu, &r, sizeof(r));
	if (e->f->probe == DREF_PROBE_ERROR)
		return true;
	const struct dref_firing *outer = e->f;
	struct dref_firing error = *outer;
	uint64_t args[6];
	typeof(e->strtok) strtok = e->strtok;
	uint32_t epid = e->epid;
	memcpy(args, e->args, sizeof(args));
	error.probe = DREF_PROBE_ERROR;
	e->f = &error;
	e->args[0] = 0;
	e->args[1] = r.err.epid;
	e->args[2] = action;
	e->args[3] = 0;		/* the instruction: not modeled (nothing generated reads it) */
	e->args[4] = dtrace_fault_code(e->fault.kind);
	e->args[5] = e->fault.addr;
	e->strtok.on = false;
	bool ok = run_clauses(e, DREF_ANY);
	e->f = outer;
	memcpy(e->args, args, sizeof(args));
	e->strtok = strtok;
	e->epid = epid;
	return ok;
}

/* Run one clause; false when the evaluator cannot model it (e->fault.unsupported). */
static bool run_clause(struct dref_eval *e, const struct dt_clause *c, uint32_t epid)
{
	const struct dt_clause_code *cc = &e->obj->clauses[c->index];
	struct dref_value v;
	uint8_t rec[DOF_MAX_RECORD];

	e->epid = epid;
	e->fault = (struct dref_fault){ 0 };
	if (c->predicate) {
		if (!dref_eval_expr(e, c->predicate, &v))
			return e->fault.unsupported ? false : failed(e, 0);
		if (v.kind != DREF_INT)
			return dref_unsupported(e, "a predicate that is not an integer");
		if (!v.i)
			return true;
	}
	if (cc->flags & DOF_CLAUSE_RECORD) {
		struct dof_rechdr h = { epid, dref_probes[e->f->probe].id, e->f->now };
		memset(rec, 0, cc->size);
		memcpy(rec, &h, sizeof(h));
	}
	uint32_t action = 0;
	bool in_assignments = false, exiting = false;
	int64_t status = 0;
	for (const struct dt_stmt *s = c->stmts; s; s = s->next) {
		bool ok;
		if (s->kind == DT_S_EXPR) {
			action += !in_assignments;	/* a run of assignments is one action */
			in_assignments = true;
			ok = dref_eval_expr(e, s->expr, &v);
		} else if (s->kind == DT_S_AGG) {
			action++;
			in_assignments = false;
			ok = aggregate(e, s);
		} else {
			in_assignments = false;
			ok = record_action(e, cc, s, rec, &action, &exiting, &status);
		}
		if (!ok)
			return e->fault.unsupported ? false : failed(e, action);
	}
	if (cc->flags & DOF_CLAUSE_RECORD)
		dref_add_record(e->out, e->f->cpu, rec, cc->size);
	if (exiting && !e->exited) {
		e->exited = true;
		e->exit_status = (int32_t)status;
		if (e->state == DREF_ACTIVE || e->state == DREF_WARMUP)
			e->state = DREF_DRAINING;
	}
	return true;
}

/* One probe firing: clause-locals and strtok() start afresh; false if not modeled. */
static bool fire(struct dref_eval *e, const struct dref_firing *f, int runs_in)
{
	e->f = f;
	dref_firing_args(f, e->args);
	dref_locals_clear(e);
	e->strtok.on = false;
	return run_clauses(e, runs_in);
}

static void export_globals(struct dref_eval *e)
{
	for (const struct dt_var *v = e->prog->vars; v; v = v->next) {
		if (v->scope != DT_SCOPE_GLOBAL || v->is_array)
			continue;
		const struct dref_value *g = &e->globals[v->id];
		if (g->kind == DREF_STR)
			snprintf(e->out->global_str[v->id], DREF_STRMAX, "%s", g->s);
		else
			e->out->global_int[v->id] = g->i;
	}
}

int dref_evaluate(const struct dt_object *obj, const struct dref_scenario *sc,
		  const struct dref_ecbs *ecbs, struct dref_results *out, char *why, size_t whylen)
{
	struct dref_eval e = { .obj = obj, .prog = obj->program, .sc = sc, .out = out };
	if (obj->strsize < 2 || obj->strsize > DREF_STRMAX) {
		snprintf(why, whylen, "strsize %u: the evaluator holds 2..%d", obj->strsize,
			 DREF_STRMAX);
		return -1;
	}
	e.strmax = obj->strsize - 1u;
	e.ecbs = ecbs;
	dref_vars_init(&e);
	/* As session.c: BEGIN while warming up, probes while active, END while draining. */
	e.state = DREF_WARMUP;
	bool ok = fire(&e, &sc->begin, DREF_WARMUP);
	if (e.state == DREF_WARMUP)
		e.state = DREF_ACTIVE;
	for (unsigned i = 0; ok && i < sc->nfirings; i++)
		ok = fire(&e, &sc->firings[i], DREF_ACTIVE);
	e.state = DREF_DRAINING;
	ok = ok && fire(&e, &sc->end, DREF_DRAINING);
	e.state = DREF_STOPPED;
	if (ok) {
		export_globals(&e);
		out->exited = e.exited;
		out->exit_status = e.exit_status;
	}
	else
		snprintf(why, whylen, "the evaluator does not model %s", e.fault.unsupported);
	dref_vars_free(&e);
	return ok ? 0 : -1;
}
