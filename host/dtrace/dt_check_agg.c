// SPDX-License-Identifier: BSD-2-Clause
/*
 * The semantic pass, aggregations: `@name[keys] = func(args)`, one
 * function and one key signature per aggregation, stack() as a key,
 * lquantize's and llquantize's constant bounds (each use of an
 * aggregation must agree with its first), and where an aggregation may
 * stand among a clause's speculations.
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

/* A constant parameter of lquantize or llquantize: dtrace's tags and its name in messages. */
struct quantize_param {
	enum dt_errtag type_tag, value_tag;
	const char *what;
};

/* The optional increment (argument #argno of fname), any integer; false after saying why not. */
static bool increment_ok(struct dt_checker *ck, const char *fname, int argno,
			 const struct dt_node *incr)
{
	if (!incr || dt_type_is_int(incr->type))
		return true;
	dt_error(ck->ctx, incr->loc, D_PROTO_ARG, "%s( ) argument #%d (increment) is "
		 "incompatible with prototype: expected an integer, got %s", fname, argno,
		 dt_type_str(ck->ctx, incr->type));
	return false;
}

/*
 * lquantize(value, low, high[, step[, increment]]) (its arity already
 * checked): constant bounds, as dtrace insists; they go to *lq. The
 * increment, what the value's bucket grows by, is any integer.
 */
static bool check_lquantize(struct dt_checker *ck, const struct dt_node *value,
			    struct dt_loc loc, struct dt_agg *lq)
{
	static const struct quantize_param bounds[] = {
		{ D_LQUANT_BASETYPE, D_LQUANT_BASEVAL, "lower bound" },
		{ D_LQUANT_LIMTYPE, D_LQUANT_LIMVAL, "upper bound" },
		{ D_LQUANT_STEPTYPE, D_LQUANT_STEPVAL, "step" },
	};
	int64_t v[3] = { 0, 0, 1 };
	int i = 0;
	for (const struct dt_node *a = value->next; a && i < 3; a = a->next, i++) {
		if (a->kind != DT_N_INT) {
			dt_error(ck->ctx, a->loc, bounds[i].type_tag, "lquantize( ) argument #%d "
				 "(%s) must be an integer constant", i + 2, bounds[i].what);
			return false;
		}
		v[i] = (int64_t)a->value;
		bool fits = a->type.is_signed || a->value <= (uint64_t)INT64_MAX;
		if (!fits || (i < 2 && (v[i] < INT32_MIN || v[i] > INT32_MAX)) ||
		    (i == 2 && (v[i] < 1 || v[i] > UINT16_MAX))) {
			dt_error(ck->ctx, a->loc, bounds[i].value_tag, "lquantize( ) argument #%d "
				 "(%s) must be %s", i + 2, bounds[i].what, i < 2 ?
				 "a 32-bit quantity" : "from 1 to 65535");
			return false;
		}
	}
	const struct dt_node *incr = value->next ? value->next->next : NULL;
	incr = incr && incr->next ? incr->next->next : NULL;
	if (!increment_ok(ck, "lquantize", 5, incr))
		return false;
	if (v[1] <= v[0]) {
		dt_error(ck->ctx, loc, D_LQUANT_MISMATCH, "lquantize( ) upper bound (%lld) must "
			 "be greater than the lower bound (%lld)", (long long)v[1], (long long)v[0]);
		return false;
	}
	if (v[2] > v[1] - v[0]) {
		dt_error(ck->ctx, loc, D_LQUANT_STEPLARGE, "lquantize( ) step (%lld) is larger "
			 "than the range %lld..%lld", (long long)v[2], (long long)v[0],
			 (long long)v[1]);
		return false;
	}
	if ((v[1] - v[0]) / v[2] > UINT16_MAX) {
		dt_error(ck->ctx, loc, D_LQUANT_STEPSMALL, "lquantize( ) step (%lld) is too small: "
			 "more than 65535 levels", (long long)v[2]);
		return false;
	}
	lq->lq_low = v[0];
	lq->lq_high = v[1];
	lq->lq_step = v[2];
	return true;
}

/*
 * llquantize(value, factor, low, high, nsteps[, increment]) (its arity
 * already checked): four constants, each an unsigned 16-bit quantity,
 * with dtrace's rules and tags (dof_llquantize_valid says the same); they
 * go to *lq as the object carries them.
 */
static bool check_llquantize(struct dt_checker *ck, const struct dt_node *value,
			     struct dt_loc loc, struct dt_agg *lq)
{
	static const struct quantize_param params[] = {
		{ D_LLQUANT_FACTORTYPE, D_LLQUANT_FACTORVAL, "factor" },
		{ D_LLQUANT_LOWTYPE, D_LLQUANT_LOWVAL, "low magnitude" },
		{ D_LLQUANT_HIGHTYPE, D_LLQUANT_HIGHVAL, "high magnitude" },
		{ D_LLQUANT_NSTEPTYPE, D_LLQUANT_NSTEPVAL, "linear steps per magnitude" },
	};
	uint64_t v[4];
	const struct dt_node *a = value->next;
	for (int i = 0; i < 4; i++, a = a->next) {
		if (a->kind != DT_N_INT) {
			dt_error(ck->ctx, a->loc, params[i].type_tag, "llquantize( ) argument #%d "
				 "(%s) must be an integer constant", i + 1, params[i].what);
			return false;
		}
		if (a->value > UINT16_MAX) {
			dt_error(ck->ctx, a->loc, params[i].value_tag, "llquantize( ) argument #%d "
				 "(%s) must be an unsigned 16-bit quantity", i + 1, params[i].what);
			return false;
		}
		v[i] = a->value;
	}
	if (!increment_ok(ck, "llquantize", 6, a))
		return false;
	uint64_t factor = v[0], low = v[1], high = v[2], nsteps = v[3];
	if (factor < 2) {
		dt_error(ck->ctx, loc, D_LLQUANT_FACTORSMALL, "llquantize( ) factor (argument #1) "
			 "must be two or more");
		return false;
	}
	if (low >= high) {
		dt_error(ck->ctx, loc, D_LLQUANT_MAGRANGE, "llquantize( ) high magnitude (argument "
			 "#3) must be greater than low magnitude (argument #2)");
		return false;
	}
	if (nsteps < factor) {
		dt_error(ck->ctx, loc, D_LLQUANT_FACTORNSTEPS, "llquantize( ) factor (argument #1) "
			 "must be less than or equal to the number of linear steps per magnitude "
			 "(argument #4)");
		return false;
	}
	uint64_t power = factor;
	while (power < nsteps)
		power *= factor;
	if (nsteps % factor || power % nsteps) {
		dt_error(ck->ctx, loc, D_LLQUANT_FACTOREVEN, "llquantize( ) factor (argument #1) "
			 "must evenly divide the number of steps per magnitude (argument #4), and the "
			 "number of steps per magnitude must evenly divide a power of the factor");
		return false;
	}
	if (!dof_llquantize_valid(factor, low, high, nsteps)) {
		dt_error(ck->ctx, loc, D_LLQUANT_MAGTOOBIG, "llquantize( ) factor (%d) raised to "
			 "power of high magnitude (%d) plus 1 overflows 64-bits", (int)factor,
			 (int)high);
		return false;
	}
	lq->lq_low = (int64_t)low;
	lq->lq_high = (int64_t)high;
	lq->lq_step = DOF_LLQ_PACK(factor, nsteps);
	return true;
}

/* dtrace's message for an llquantize( ) whose constants differ from the first one's. */
static void llquantize_mismatch(struct dt_checker *ck, struct dt_loc loc, const struct dt_agg *was,
				const struct dt_agg *now)
{
	static const struct {
		enum dt_errtag tag;
		const char *what;
	} params[] = {
		{ D_LLQUANT_FACTORMATCH, "factor" }, { D_LLQUANT_LOWMATCH, "low magnitude" },
		{ D_LLQUANT_HIGHMATCH, "high magnitude" },
		{ D_LLQUANT_NSTEPMATCH, "linear steps per magnitude" },
	};
	const int64_t a[4] = { DOF_LLQ_FACTOR(was->lq_step), was->lq_low, was->lq_high,
			       DOF_LLQ_NSTEPS(was->lq_step) };
	const int64_t b[4] = { DOF_LLQ_FACTOR(now->lq_step), now->lq_low, now->lq_high,
			       DOF_LLQ_NSTEPS(now->lq_step) };
	int i = 0;
	while (i < 3 && a[i] == b[i])
		i++;
	dt_error(ck->ctx, loc, params[i].tag, "llquantize( ) %s (argument #%d) doesn't match "
		 "previous declaration: expected %d, found %d", params[i].what, i + 1, (int)a[i],
		 (int)b[i]);
}

/*
 * A key of an aggregation: a value, or stack() / stack(frames), which
 * only a key may be besides the action: the kernel records the frames as
 * the key, so entries merge by their frames.
 */
static bool check_agg_key(struct dt_checker *ck, struct dt_node *k)
{
	if (k->kind != DT_N_CALL || strcmp(k->str, "stack"))
		return dt_check_expr(ck, k);
	const struct dt_func *f = &dt_funcs[DT_F_STACK];
	if (!dt_check_func_args(ck, f, k->args, k->nargs, k->loc))
		return false;
	uint64_t frames = k->nargs ? k->args->value : 0;
	if (k->nargs && (frames < 1 || frames > DOF_MAX_FRAMES)) {
		dt_error(ck->ctx, k->args->loc, D_STACK_SIZE, "stack( ) argument #1 must be a number "
			 "of frames from 1 to %d in an aggregation key", DOF_MAX_FRAMES);
		return false;
	}
	k->ref.func = f;
	k->type = (struct dt_type){ .kind = DT_TYPE_STACK, .size = (uint8_t)frames };
	return true;
}

void dt_check_aggregation(struct dt_checker *ck, struct dt_stmt *s)
{
	struct dt_node *target = s->expr, *rhs = target->right;
	const char *name = target->str;
	char what[300];

	snprintf(what, sizeof(what), "@%s", name);
	for (struct dt_node *k = target->args; k; k = k->next)
		if (!check_agg_key(ck, k))
			return;
	for (struct dt_node *k = target->args; k; k = k->next)
		if (!dt_type_is_scalar(k->type) && k->type.kind != DT_TYPE_STRING &&
		    k->type.kind != DT_TYPE_STACK) {
			dt_error(ck->ctx, k->loc, D_KEY_TYPE, "%s[ ] key %s", what,
				 k->type.kind == DT_TYPE_FLOAT ? "cannot be a floating-point value" :
				 "has no value");
			return;
		}
	const struct dt_func *f = rhs->kind == DT_N_CALL ? dt_func_lookup(rhs->str) : NULL;
	if (!f || f->kind != DT_FK_AGG) {
		if (rhs->kind == DT_N_CALL && !f && dt_func_refusal(rhs->str))
			dt_error(ck->ctx, rhs->loc, D_UNSUPPORTED, "%s( ) is not supported: %s",
				 rhs->str, dt_func_refusal(rhs->str));
		else
			dt_error(ck->ctx, rhs->loc, D_AGG_FUNC, "%s must be assigned an aggregating "
				 "function (count, sum, min, max, avg, stddev, quantize, lquantize, llquantize)",
				 what);
		return;
	}
	if (!dt_check_func_args(ck, f, rhs->args, rhs->nargs, rhs->loc))
		return;
	struct dt_agg shape = { .func = f };
	if (f->id == DT_F_LQUANTIZE && !check_lquantize(ck, rhs->args, rhs->loc, &shape))
		return;
	if (f->id == DT_F_LLQUANTIZE && !check_llquantize(ck, rhs->args, rhs->loc, &shape))
		return;

	struct dt_agg *a = dt_agg_ref(ck, name, target->loc);
	if (a->defined && a->func == f && f->id == DT_F_LLQUANTIZE &&
	    (a->lq_low != shape.lq_low || a->lq_high != shape.lq_high ||
	     a->lq_step != shape.lq_step)) {
		llquantize_mismatch(ck, rhs->loc, a, &shape);
		return;
	}
	if (a->defined) {
		if (a->func != f || a->lq_low != shape.lq_low || a->lq_high != shape.lq_high ||
		    a->lq_step != shape.lq_step) {
			dt_error(ck->ctx, rhs->loc, D_AGG_REDEF, "aggregation %s redefined: it is %s( ) "
				 "%sat line %d, here %s( )", what, a->func->name,
				 a->func == f ? "with other bounds " : "", a->loc.line, f->name);
			return;
		}
	}
	if (a->defined) {
		int i = 0;
		if (target->nargs != a->nkeys) {
			dt_error(ck->ctx, target->loc, D_PROTO_LEN, "%s[ ] prototype mismatch: %d key%s "
				 "given, %d expected", what, target->nargs, target->nargs == 1 ? "" :
				 "s", a->nkeys);
			return;
		}
		for (struct dt_node *k = target->args; k; k = k->next, i++)
			if (!dt_type_same_class(k->type, a->keys[i]) ||
			    (k->type.kind == DT_TYPE_STACK && k->type.size != a->keys[i].size)) {
				dt_error(ck->ctx, k->loc, D_PROTO_ARG, "%s[ ] key #%d is incompatible "
					 "with prototype: expected %s, got %s", what, i + 1,
					 dt_type_str(ck->ctx, a->keys[i]), dt_type_str(ck->ctx, k->type));
				return;
			}
	} else if (target->nargs > DT_MAX_KEYS) {
		dt_error(ck->ctx, target->loc, D_KEY_TYPE, "%s has more than %d keys", what,
			 DT_MAX_KEYS);
		return;
	} else {
		a->defined = true;
		a->func = f;
		a->loc = target->loc;
		a->lq_low = shape.lq_low;
		a->lq_high = shape.lq_high;
		a->lq_step = shape.lq_step;
		a->nkeys = 0;
		for (struct dt_node *k = target->args; k; k = k->next)
			a->keys[a->nkeys++] = k->type;
	}
	s->agg = a;
	s->func = f;
	s->keys = target->args;
	s->nkeys = target->nargs;
	s->args = rhs->args;
	s->nargs = rhs->nargs;
	s->expr = NULL;
	if (ck->seen_speculate)
		dt_error(ck->ctx, s->loc, D_AGG_SPEC, "aggregations may not follow speculate( ) in "
			 "the same clause");
	else if (ck->seen_commit)
		dt_error(ck->ctx, s->loc, D_AGG_COMM, "aggregations may not follow commit( ) or "
			 "discard( ) in the same clause");
	ck->seen_agg = true;
}
