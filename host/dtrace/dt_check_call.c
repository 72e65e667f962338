// SPDX-License-Identifier: BSD-2-Clause
/*
 * The semantic pass, calls: each call checked against the function table
 * (dt_funcs.c) by arity and argument kinds, actions, printf/printa
 * formats against their arguments, and the speculation rules of a
 * clause. Aggregation statements are dt_check_agg.c's.
 *
 * Invariants: actions are only statements, aggregating functions only
 * the right side of an aggregation, subroutines only values; each
 * statement reports at most one error; references to aggregations
 * (printa, clear, ...) are checked once every clause has been seen, so
 * a printa may come before the clause that fills its aggregation.
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

/* The error tags of the functions dtrace gives their own. */
static const struct {
	enum dt_func_id id;
	enum dt_errtag proto, aggarg, aggbad, scalar;
} func_tags[] = {
	{ DT_F_PRINTA, D_PRINTA_PROTO, D_PRINTA_AGGARG, D_PRINTA_AGGBAD, D_PROTO_ARG },
	{ DT_F_CLEAR, D_CLEAR_PROTO, D_CLEAR_AGGARG, D_CLEAR_AGGBAD, D_PROTO_ARG },
	{ DT_F_TRUNC, D_TRUNC_PROTO, D_TRUNC_AGGARG, D_TRUNC_AGGBAD, D_TRUNC_SCALAR },
	{ DT_F_NORMALIZE, D_NORMALIZE_PROTO, D_NORMALIZE_AGGARG, D_NORMALIZE_AGGBAD,
	  D_NORMALIZE_SCALAR },
	{ DT_F_DENORMALIZE, D_NORMALIZE_PROTO, D_NORMALIZE_AGGARG, D_NORMALIZE_AGGBAD,
	  D_NORMALIZE_SCALAR },
	{ DT_F_STACK, D_STACK_PROTO, D_PROTO_ARG, D_PROTO_ARG, D_STACK_SIZE },
};

static enum dt_errtag tag_for(enum dt_func_id id, int which)
{
	for (size_t i = 0; i < sizeof(func_tags) / sizeof(func_tags[0]); i++)
		if (func_tags[i].id == id)
			return which == 0 ? func_tags[i].proto : which == 1 ? func_tags[i].aggarg :
			       which == 2 ? func_tags[i].aggbad : func_tags[i].scalar;
	return which == 0 ? D_PROTO_LEN : D_PROTO_ARG;
}

static enum dt_arg_kind param_kind(const struct dt_func *f, int i)
{
	int last = 0;
	for (int k = 1; k < DT_FUNC_MAX_PARAMS; k++)
		if (f->params[k])
			last = k;
	return (enum dt_arg_kind)f->params[i < last ? i : last];
}

struct dt_agg *dt_agg_ref(struct dt_checker *ck, const char *name, struct dt_loc loc)
{
	struct dt_agg *a = dt_sym_find(&ck->syms, DT_NS_AGG, name);
	if (a)
		return a;
	a = dt_alloc(ck->ctx, sizeof(*a));
	a->name = name;
	a->loc = loc;
	a->id = ck->prog->naggs++;
	*ck->aggs_tail = a;
	ck->aggs_tail = &a->next;
	dt_sym_add(ck->ctx, &ck->syms, DT_NS_AGG, name, a);
	return a;
}

/* Arity, then each argument against its kind. */
bool dt_check_func_args(struct dt_checker *ck, const struct dt_func *f, struct dt_node *args,
			int nargs, struct dt_loc loc)
{
	if (nargs < f->min_args || nargs > f->max_args) {
		const char *bound = f->min_args == f->max_args ? "" :
				    nargs < f->min_args ? "at least " : "at most ";
		dt_error(ck->ctx, loc, tag_for(f->id, 0), "%s( ) prototype mismatch: %d arg%s "
			 "passed, %s%d expected", f->name, nargs, nargs == 1 ? "" : "s", bound,
			 nargs < f->min_args ? f->min_args : f->max_args);
		return false;
	}
	int i = 0;
	for (struct dt_node *a = args; a; a = a->next, i++) {
		enum dt_arg_kind kind = param_kind(f, i);
		if (kind == DT_ARG_AGG) {
			if (a->kind != DT_N_AGGNAME) {
				dt_error(ck->ctx, a->loc, tag_for(f->id, 1), "%s( ) argument #%d must be "
					 "an aggregation (@name)", f->name, i + 1);
				return false;
			}
			a->kind = DT_N_AGGREF;
			a->ref.agg = dt_agg_ref(ck, a->str, a->loc);
			continue;
		}
		if (kind == DT_ARG_FORMAT && a->kind != DT_N_STRING) {
			dt_error(ck->ctx, a->loc, D_PRINTF_ARG_FMT, "%s( ) argument #%d must be a "
				 "string constant (the format)", f->name, i + 1);
			return false;
		}
		if (!dt_check_expr(ck, a))
			return false;
		if ((f->id == DT_F_LQUANTIZE && i > 0) || (f->id == DT_F_LLQUANTIZE && i > 0 && i < 5))
			continue;	/* check_(l)lquantize: constants with their own tags */
		struct dt_type t = a->type;
		const char *want = NULL;
		if (t.kind == DT_TYPE_VOID) {
			dt_error(ck->ctx, a->loc, f->id == DT_F_TRACE ? D_TRACE_VOID : D_PROTO_ARG,
				 "%s( ) argument #%d has no value", f->name, i + 1);
			return false;
		}
		if ((kind == DT_ARG_INT || kind == DT_ARG_INT_CONST) && !dt_type_is_int(t))
			want = kind == DT_ARG_INT ? "an integer" : "an integer constant";
		else if (kind == DT_ARG_ADDRESS && !dt_type_is_int(t) && t.kind != DT_TYPE_PTR &&
			 t.kind != DT_TYPE_STRING)
			want = "an address (a pointer, an integer or a char array)";
		else if (kind == DT_ARG_STRING && t.kind != DT_TYPE_STRING && !dt_is_null(a))
			want = "a string";
		if (want) {
			dt_error(ck->ctx, a->loc, i > 0 ? tag_for(f->id, 3) : D_PROTO_ARG,
				 "%s( ) argument #%d is incompatible with prototype: expected %s, "
				 "got %s", f->name, i + 1, want, dt_type_str(ck->ctx, t));
			return false;
		}
		if (kind == DT_ARG_INT_CONST && a->kind != DT_N_INT) {
			dt_error(ck->ctx, a->loc, tag_for(f->id, 3), "%s( ) argument #%d must be an "
				 "integer constant", f->name, i + 1);
			return false;
		}
	}
	return true;
}

/* A subroutine call (statement: on its own, where a void one may stand). */
static bool check_call(struct dt_checker *ck, struct dt_node *n, bool statement)
{
	const struct dt_func *f = dt_func_lookup(n->str);

	if (!f) {
		const char *why = dt_func_refusal(n->str);
		if (why)
			dt_error(ck->ctx, n->loc, D_UNSUPPORTED, "%s( ) is not supported: %s", n->str,
				 why);
		else
			dt_error(ck->ctx, n->loc, D_FUNC_UNDEF, "failed to resolve %s: unknown "
				 "function", n->str);
		return false;
	}
	if (f->kind == DT_FK_ACTION) {
		dt_error(ck->ctx, n->loc, D_CG_EXPR, "%s( ) is an action: it may only be a "
			 "statement of its own, not part of an expression", f->name);
		return false;
	}
	if (f->kind == DT_FK_AGG) {
		dt_error(ck->ctx, n->loc, D_AGG_FUNC, "%s( ) is an aggregating function: it may "
			 "only be assigned to an aggregation, e.g. @name[keys] = %s(...)", f->name,
			 f->name);
		return false;
	}
	if (!dt_check_func_args(ck, f, n->args, n->nargs, n->loc))
		return false;
	if (f->result.kind == DT_TYPE_VOID && !statement) {
		dt_error(ck->ctx, n->loc, D_PROTO_ARG, "%s( ) returns no value: it may only be a "
			 "statement of its own", f->name);
		return false;
	}
	n->ref.func = f;
	n->type = f->result;
	return true;
}

bool dt_check_call_statement(struct dt_checker *ck, struct dt_node *n)
{
	return check_call(ck, n, true);
}

bool dt_check_call_expr(struct dt_checker *ck, struct dt_node *n)
{
	return check_call(ck, n, false);
}

/* printf: the format's conversions against the values after it. */
static bool check_printf(struct dt_checker *ck, struct dt_stmt *s)
{
	struct dt_node *fmt = s->args;
	if (fmt->len == 0) {
		dt_error(ck->ctx, fmt->loc, D_PRINTF_FMT_EMPTY, "printf( ) format string is empty");
		return false;
	}
	struct dt_format *f = dt_format_parse(ck->ctx, fmt->loc, "printf", fmt->str, fmt->len,
					      false);
	if (!f)
		return false;
	struct dt_type types[DT_MAX_ARGS];
	struct dt_loc locs[DT_MAX_ARGS];
	int n = 0;
	for (struct dt_node *a = s->args->next; a && n < DT_MAX_ARGS; a = a->next, n++) {
		types[n] = a->type;
		locs[n] = a->loc;
	}
	struct dt_format_values v = { .fname = "printf", .loc = s->loc, .n = n, .types = types,
				      .locs = locs, .arg_offset = 1, .exact = true };
	if (!dt_format_check(ck->ctx, f, &v))
		return false;
	s->format = f;
	return true;
}

/* printa([format,] @a[, @b...]): the format is checked once the keys are known. */
static bool check_printa(struct dt_checker *ck, struct dt_stmt *s)
{
	struct dt_node *first = s->args;
	const struct dt_func *f = s->func;

	if (s->nargs == 0 || (first->kind == DT_N_STRING && s->nargs == 1)) {
		dt_error(ck->ctx, s->loc, D_PRINTA_PROTO, "printa( ) prototype mismatch: expected "
			 "an aggregation%s", s->nargs ? " after the format" : "");
		return false;
	}
	if (first->kind != DT_N_STRING && first->kind != DT_N_AGGNAME) {
		if (!dt_check_expr(ck, first))
			return false;
		bool stringish = first->type.kind == DT_TYPE_STRING;
		dt_error(ck->ctx, first->loc, stringish ? D_PRINTF_ARG_FMT : D_PRINTA_AGGARG,
			 stringish ? "printa( ) argument #1 must be a string constant (the format)" :
			 "printa( ) argument #1 must be a format or an aggregation");
		return false;
	}
	int i = 0;
	for (struct dt_node *a = first; a; a = a->next, i++) {
		if (i == 0 && a->kind == DT_N_STRING)
			continue;
		if (a->kind != DT_N_AGGNAME) {
			dt_error(ck->ctx, a->loc, D_PRINTA_AGGARG, "printa( ) argument #%d must be an "
				 "aggregation (@name)", i + 1);
			return false;
		}
		a->kind = DT_N_AGGREF;
		a->ref.agg = dt_agg_ref(ck, a->str, a->loc);
	}
	if (first->kind == DT_N_STRING) {
		if (first->len == 0) {
			dt_error(ck->ctx, first->loc, D_PRINTF_FMT_EMPTY, "printa( ) format string is "
				 "empty");
			return false;
		}
		s->format = dt_format_parse(ck->ctx, first->loc, f->name, first->str, first->len,
					    true);
		if (!s->format)
			return false;
	}
	return true;
}

static void defer(struct dt_checker *ck, struct dt_stmt *s)
{
	struct dt_deferred *d = dt_alloc(ck->ctx, sizeof(*d));
	d->stmt = s;
	d->next = ck->deferred;
	ck->deferred = d;
}

/*
 * The speculation rules, per clause, in statement order (dtrace's, and
 * discard() is held to commit()'s): speculate() comes before any
 * data-recording action or aggregation and only once; commit()/discard()
 * do not mix with data-recording actions or aggregations and come once;
 * exit() is not speculative. exit() records data (its status).
 */
void dt_speculation_rules(struct dt_checker *ck, struct dt_stmt *s)
{
	struct dt_ctx *ctx = ck->ctx;
	const struct dt_func *f = s->func;

	switch (f->id) {
	case DT_F_SPECULATE:
		if (ck->seen_speculate)
			dt_error(ctx, s->loc, D_SPEC_SPEC, "speculate( ) may not follow another "
				 "speculate( ) in the same clause");
		else if (ck->seen_commit)
			dt_error(ctx, s->loc, D_SPEC_COMM, "speculate( ) may not follow commit( ) or "
				 "discard( ) in the same clause");
		else if (ck->seen_data || ck->seen_agg)
			dt_error(ctx, s->loc, D_SPEC_DREC, "speculate( ) may not follow "
				 "data-recording actions or aggregations in the same clause");
		ck->seen_speculate = true;
		ck->clause->speculative = true;
		return;
	case DT_F_COMMIT:
	case DT_F_DISCARD:
		if (ck->seen_commit)
			dt_error(ctx, s->loc, D_COMM_COMM, "%s( ) may not follow another commit( ) or "
				 "discard( ) in the same clause", f->name);
		else if (ck->seen_data || ck->seen_agg)
			dt_error(ctx, s->loc, D_COMM_DREC, "%s( ) may not follow data-recording "
				 "actions or aggregations in the same clause", f->name);
		ck->seen_commit = true;
		return;
	default:
		break;
	}
	if (f->id == DT_F_EXIT && ck->seen_speculate) {
		dt_error(ctx, s->loc, D_EXIT_SPEC, "exit( ) may not follow speculate( ): a "
			 "speculative clause cannot end tracing");
		return;
	}
	if (!f->records_data)
		return;
	if (ck->seen_commit)
		dt_error(ctx, s->loc, D_DREC_COMM, "data-recording actions may not follow commit( ) "
			 "or discard( ) in the same clause");
	ck->seen_data = true;
}

/*
 * trace(x): any value, or a struct or array object (a member, *p, a
 * variable held by reference) recorded whole, its bytes as in memory,
 * as dtrace traces one. A char array is still a string.
 */
static bool check_trace(struct dt_checker *ck, const struct dt_func *f, struct dt_stmt *s)
{
	struct dt_node *a = s->args;
	if (s->nargs != 1 || a->kind == DT_N_AGGNAME)
		return dt_check_func_args(ck, f, s->args, s->nargs, s->loc);	/* its errors */
	if (!dt_check_object(ck, a))
		return false;
	bool whole = a->kind == DT_N_FIELD && (a->type.kind == DT_TYPE_SOU ||
		     (a->type.kind == DT_TYPE_ARRAY && !dt_ctf_is_char_array(ck->ctx, a->type)));
	if (whole && a->type.size > DIF_BYREF_MAX) {
		dt_error(ck->ctx, a->loc, D_TRACE_VOID, "%s( ) of %s: %u bytes, at most %d are "
			 "recorded", f->name, dt_type_str(ck->ctx, a->type), a->type.size,
			 DIF_BYREF_MAX);
		return false;
	}
	if (whole)
		return true;
	if (!dt_decay(ck, a))	/* the rest of dt_check_expr: a value */
		return false;
	if (a->type.kind == DT_TYPE_VOID) {
		dt_error(ck->ctx, a->loc, D_TRACE_VOID, "trace( ) argument #1 has no value");
		return false;
	}
	return true;
}

/*
 * tracemem(addr, size[, dynsize]): size bytes at addr recorded (size an
 * integer constant of 1 to DIF_BYREF_MAX), of which the consumer prints
 * dynsize when given. The address becomes the object of size bytes at it
 * (a DT_N_FIELD of an array type), which records as trace() records an
 * array: the kernel copies it through the fault-tolerant read.
 */
static bool check_tracemem(struct dt_checker *ck, const struct dt_func *f, struct dt_stmt *s)
{
	struct dt_ctx *ctx = ck->ctx;
	if (s->nargs < 2 || s->nargs > 3)
		return dt_check_func_args(ck, f, s->args, s->nargs, s->loc);	/* its errors */
	struct dt_node *addr = s->args, *size = addr->next, *dynsize = size->next;
	if (!dt_check_expr(ck, addr) || !dt_check_expr(ck, size) ||
	    (dynsize && !dt_check_expr(ck, dynsize)))
		return false;
	if (addr->type.kind != DT_TYPE_INT && addr->type.kind != DT_TYPE_PTR &&
	    addr->type.kind != DT_TYPE_THREAD) {
		dt_error(ctx, addr->loc, D_TRACEMEM_ADDR, "tracemem( ) argument #1 is incompatible "
			 "with prototype:\n\tprototype: pointer or integer\n\t argument: %s",
			 dt_type_str(ctx, addr->type));
		return false;
	}
	if (size->kind != DT_N_INT || (int64_t)size->value < 1 ||
	    size->value > DIF_BYREF_MAX) {
		dt_error(ctx, size->loc, D_TRACEMEM_SIZE, "tracemem( ) argument #2 must be an "
			 "integer constant of 1 to %d (the bytes recorded)", DIF_BYREF_MAX);
		return false;
	}
	if (dynsize && dynsize->type.kind != DT_TYPE_INT) {
		dt_error(ctx, dynsize->loc, D_TRACEMEM_DYNSIZE, "tracemem( ) dynamic size "
			 "(argument #3) must be of scalar type, not %s", dt_type_str(ctx, dynsize->type));
		return false;
	}
	struct dt_node *bytes = dt_node_new(ctx, DT_N_FIELD, addr->loc);
	bytes->left = addr;
	bytes->depth = addr->depth + 1;
	bytes->type = (struct dt_type){ .kind = DT_TYPE_ARRAY, .size = (uint32_t)size->value };
	bytes->next = size;
	s->args = bytes;
	return true;
}

void dt_check_action(struct dt_checker *ck, struct dt_stmt *s)
{
	struct dt_node *call = s->expr;
	const struct dt_func *f = dt_func_lookup(call->str);
	bool ok;

	s->kind = DT_S_ACTION;
	s->func = f;
	s->args = call->args;
	s->nargs = call->nargs;
	s->expr = NULL;
	switch (f->id) {
	case DT_F_PRINTA:
		ok = check_printa(ck, s);
		break;
	case DT_F_TRACE:
	case DT_F_PRINT:
		ok = check_trace(ck, f, s);
		break;
	case DT_F_TRACEMEM:
		ok = check_tracemem(ck, f, s);
		break;
	case DT_F_PRINTF:
		ok = dt_check_func_args(ck, f, s->args, s->nargs, s->loc) && check_printf(ck, s);
		break;
	default:
		ok = dt_check_func_args(ck, f, s->args, s->nargs, s->loc);
		break;
	}
	if (!ok)
		return;
	if (f->id == DT_F_STACK && s->nargs == 1 &&
	    ((int64_t)s->args->value < 1 || s->args->value > 1024)) {
		dt_error(ck->ctx, s->args->loc, D_STACK_SIZE, "stack( ) argument #1 must be a "
			 "number of frames from 1 to 1024");
		return;
	}
	for (struct dt_node *a = s->args; a; a = a->next)
		if (a->kind == DT_N_AGGREF) {
			defer(ck, s);
			break;
		}
	dt_speculation_rules(ck, s);
}


/*
 * printa's format against the keys of its first aggregation, and %@
 * against its value (dtrace checks them with the first one's function).
 */
static void check_printa_format(struct dt_checker *ck, struct dt_stmt *s, struct dt_agg *agg,
				int naggs)
{
	struct dt_format_values v = {
		.fname = "printa", .loc = s->args->loc, .n = agg->nkeys, .types = agg->keys,
		.aggtype = agg->func->id == DT_F_COUNT ? dt_type_uint64 : dt_type_int64,
		.naggs = naggs,
	};
	dt_format_check(ck->ctx, s->format, &v);
}

void dt_check_deferred(struct dt_checker *ck)
{
	/* The list is newest first: reverse it so errors come in source order. */
	struct dt_deferred *rev = NULL;
	while (ck->deferred) {
		struct dt_deferred *d = ck->deferred;
		ck->deferred = d->next;
		d->next = rev;
		rev = d;
	}
	for (struct dt_deferred *d = rev; d && !ck->ctx->stopped; d = d->next) {
		struct dt_stmt *s = d->stmt;
		const struct dt_func *f = s->func;
		struct dt_agg *first = NULL;
		int i = 0, naggs = 0;
		bool ok = true;
		for (struct dt_node *a = s->args; a && ok; a = a->next, i++) {
			if (a->kind != DT_N_AGGREF)
				continue;
			struct dt_agg *agg = a->ref.agg;
			naggs++;
			if (!agg->defined) {
				dt_error(ck->ctx, a->loc, tag_for(f->id, 2), "%s( ) argument #%d: "
					 "aggregation @%s is not defined by any clause", f->name, i + 1,
					 agg->name);
				ok = false;
			} else if (!first) {
				first = agg;
			} else if (agg->nkeys != first->nkeys) {
				dt_error(ck->ctx, a->loc, tag_for(f->id, 1), "%s( ) aggregations @%s and "
					 "@%s have different keys", f->name, first->name, agg->name);
				ok = false;
			} else {
				for (int k = 0; k < agg->nkeys && ok; k++)
					if (!dt_type_same_class(agg->keys[k], first->keys[k])) {
						dt_error(ck->ctx, a->loc, tag_for(f->id, 1), "%s( ) aggregations "
							 "@%s and @%s have different keys", f->name,
							 first->name, agg->name);
						ok = false;
					}
			}
		}
		if (ok && first && s->format)
			check_printa_format(ck, s, first, naggs);
	}
}
