// SPDX-License-Identifier: BSD-2-Clause
/*
 * Code generation for clauses: dt_generate walks a checked program and
 * makes, per clause, the predicate's program and the kernel's actions
 * (scion/dof.h: EXPR, RECORD, STACK, EXIT, SPECULATE, COMMIT, DISCARD,
 * AGGREGATE), the consumer's actions with the layout of the record they
 * read, and per aggregation its key layout; then the object's options,
 * and dt_dof_write serializes it all.
 *
 * Rules:
 * - Consecutive assignment statements share one EXPR program. Those
 *   before speculate() run inside the SPECULATE program, ahead of its id,
 *   since SPECULATE must be a clause's first action (the checker allows
 *   nothing but assignments before it).
 * - A record is a struct dof_rechdr, then each RECORD / STACK / EXIT
 *   datum at the next multiple of 8; a clause writes one when it has any
 *   data-recording or consumer-side action, or no statement at all (the
 *   default action).
 * - An aggregation key's items sit back to back, each a multiple of 8
 *   bytes so the values after the key stay aligned: integers 8 bytes,
 *   converted to the key's type in the aggregation's signature (its first
 *   definition's), which is how the consumer prints them; strings strsize
 *   rounded up to 8 (the object declares strsize: what the kernel copies);
 *   stack() its frames x 8 bytes, which the kernel walks itself: such a
 *   key has no program in the AGGREGATE action.
 * - The object's limits (scion/dof.h) are checked here with a message
 *   naming the clause or statement: record and key sizes, frames,
 *   programs, actions, probe descriptions, option values (below the
 *   kernel's minimum refused; above its maximum reduced to it when
 *   bufresize=auto, refused when manual).
 */
#include <stdlib.h>
#include <string.h>
#include "dt_cg.h"

/* The range the kernel accepts for each option the object carries. */
static const struct {
	enum dt_option_id option;
	enum dof_option dof;
	uint64_t def, min, max;
} object_options[] = {
	{ DT_OPT_NSPEC, DOF_OPT_NSPEC, DOF_NSPEC_DEFAULT, DOF_NSPEC_MIN, DOF_NSPEC_MAX },
	{ DT_OPT_SPECSIZE, DOF_OPT_SPECSIZE, DOF_SPECSIZE_DEFAULT, DOF_SPECSIZE_MIN,
	  DOF_SPECSIZE_MAX },
	{ DT_OPT_DYNVARSIZE, DOF_OPT_DYNVARSIZE, DOF_DYNVARSIZE_DEFAULT, DOF_DYNVARSIZE_MIN,
	  DOF_DYNVARSIZE_MAX },
	{ DT_OPT_AGGSIZE, DOF_OPT_AGGSIZE, DOF_AGGSIZE_DEFAULT, DOF_AGGSIZE_MIN, DOF_AGGSIZE_MAX },
	{ DT_OPT_BUFPOLICY, DOF_OPT_BUFPOLICY, DOF_BUFPOLICY_SWITCH, DOF_BUFPOLICY_SWITCH,
	  DOF_BUFPOLICY_RING },
	{ DT_OPT_ZDEFS, DOF_OPT_ZDEFS, 0, 0, 1 },
	{ DT_OPT_DESTRUCTIVE, DOF_OPT_DESTRUCTIVE, 0, 0, 1 },
	{ DT_OPT_NOJIT, DOF_OPT_NOJIT, 0, 0, 1 },
};

enum dof_option dt_option_in_object(enum dt_option_id id)
{
	for (size_t i = 0; i < sizeof(object_options) / sizeof(object_options[0]); i++)
		if (object_options[i].option == id)
			return object_options[i].dof;
	return 0;
}

static uint32_t align_datum(uint32_t offset)
{
	return (offset + DT_CG_DATUM_ALIGN - 1) / DT_CG_DATUM_ALIGN * DT_CG_DATUM_ALIGN;
}

static struct dt_loc program_loc(const struct dt_program *p)
{
	return (struct dt_loc){ p->filename ? p->filename : "<input>", 0, 0 };
}

/* ---- programs ---- */

/*
 * One program: the assignment statements [first, stop) for their effect,
 * then value (NULL: return 0), converted to *as when given (an
 * aggregation key: its signature's type). DOF_NONE after a reported
 * failure.
 */
static uint32_t gen_prog_as(struct dt_cg *cg, const struct dt_stmt *first,
			    const struct dt_stmt *stop, const struct dt_node *value,
			    const struct dt_type *as, struct dt_loc loc)
{
	dt_cg_prog_reset(cg);
	if (setjmp(cg->fail))
		return DOF_NONE;
	for (const struct dt_stmt *s = first; s && s != stop; s = s->next)
		dt_cg_reg_free(cg, dt_cg_expr(cg, s->expr));
	int reg = !value ? 0 : as ? dt_cg_expr_as(cg, value, *as) : dt_cg_expr(cg, value);
	return dt_cg_prog_finish(cg, reg, value ? value->type : dt_type_int64,
				 value ? value->loc : loc);
}

static uint32_t gen_prog(struct dt_cg *cg, const struct dt_stmt *first, const struct dt_stmt *stop,
			 const struct dt_node *value, struct dt_loc loc)
{
	return gen_prog_as(cg, first, stop, value, NULL, loc);
}

/* ---- one clause ---- */

struct clause_gen {
	struct dt_cg *cg;
	const struct dt_clause *clause;
	struct dt_kaction kactions[DOF_MAX_ACTIONS];
	int nkactions;
	bool too_many_reported;
	struct dt_action *actions;	/* [clause->nstmts] */
	int nactions;
	uint32_t offset;		/* end of the record so far */
	const struct dt_stmt *pending;	/* first assignment not yet in a program */
};

static struct dt_kaction *add_kaction(struct clause_gen *g, const struct dt_stmt *s,
				      uint16_t kind, uint32_t arg, int nprogs)
{
	if (g->nkactions == DOF_MAX_ACTIONS) {
		if (!g->too_many_reported)
			dt_error(g->cg->ctx, s->loc, D_CG_EXPR, "too many actions in one clause: the "
				 "object allows %d (each printf argument is one)", DOF_MAX_ACTIONS);
		g->too_many_reported = true;
		return NULL;
	}
	struct dt_kaction *k = &g->kactions[g->nkactions++];
	k->kind = kind;
	k->arg = arg;
	k->nprogs = (uint16_t)nprogs;
	k->progs = nprogs ? dt_alloc(g->cg->ctx, (size_t)nprogs * sizeof(*k->progs)) : NULL;
	return k;
}

/* An action with one program. */
static void add_prog_action(struct clause_gen *g, const struct dt_stmt *s, uint16_t kind,
			    uint32_t prog)
{
	struct dt_kaction *k = add_kaction(g, s, kind, 0, 1);
	if (k)
		k->progs[0] = prog;
}

/* The assignments waiting since g->pending, as one EXPR action. */
static void flush_pending(struct clause_gen *g, const struct dt_stmt *stop)
{
	if (!g->pending || g->pending == stop)
		return;
	add_prog_action(g, g->pending, DOF_ACT_EXPR,
			gen_prog(g->cg, g->pending, stop, NULL, g->pending->loc));
	g->pending = NULL;
}

static struct dt_datum value_datum(const struct dt_cg *cg, struct dt_type t)
{
	if (t.kind == DT_TYPE_SOU || t.kind == DT_TYPE_ARRAY)
		return (struct dt_datum){ .kind = DT_DATUM_BYTES, .size = t.size, .type = t };
	if (t.kind == DT_TYPE_STRING)
		return (struct dt_datum){ .kind = DT_DATUM_STRING, .size = cg->strsize, .type = t };
	if (t.kind == DT_TYPE_THREAD || t.kind == DT_TYPE_PTR)	/* an address: uint64 */
		t = (struct dt_type){ .kind = DT_TYPE_INT, .size = 8 };
	return (struct dt_datum){ .kind = DT_DATUM_INT, .size = sizeof(uint64_t), .type = t };
}

/* Place d at the record's next aligned offset. */
static void place(struct clause_gen *g, struct dt_datum *d)
{
	d->offset = align_datum(g->offset);
	g->offset = d->offset + d->size;
}

/* A value the kernel records (RECORD, or EXIT) into *d. */
static void record_value(struct clause_gen *g, const struct dt_stmt *s, const struct dt_node *v,
			 uint16_t kind, struct dt_datum *d)
{
	*d = value_datum(g->cg, v->type);
	place(g, d);
	add_prog_action(g, s, kind, gen_prog(g->cg, NULL, NULL, v, s->loc));
}

static struct dt_action *new_action(struct clause_gen *g, const struct dt_stmt *s,
				    enum dt_action_kind kind, int ndata)
{
	struct dt_action *a = &g->actions[g->nactions++];
	a->kind = kind;
	a->stmt = s;
	a->ndata = ndata;
	a->data = ndata ? dt_alloc(g->cg->ctx, (size_t)ndata * sizeof(*a->data)) : NULL;
	return a;
}

/* The aggregations among s's arguments, as ids. */
static void take_aggs(struct clause_gen *g, const struct dt_stmt *s, struct dt_action *a)
{
	a->aggs = dt_alloc(g->cg->ctx, (size_t)(s->nargs ? s->nargs : 1) * sizeof(*a->aggs));
	for (const struct dt_node *arg = s->args; arg; arg = arg->next)
		if (arg->kind == DT_N_AGGREF)
			a->aggs[a->naggs++] = arg->ref.agg->id;
}

/*
 * The datum of stack(given) (given 0: stack(), the stackframes option's
 * frames); false after reporting more frames than the kernel records.
 */
static bool stack_datum(struct dt_cg *cg, uint64_t given, struct dt_loc loc, struct dt_datum *d)
{
	uint64_t frames = given ? given :
		dt_option_get(&cg->obj->program->options, DT_OPT_STACKFRAMES);
	if (frames < 1 || frames > DOF_MAX_FRAMES) {
		dt_error(cg->ctx, loc, D_STACK_SIZE, "stack( ) of %llu frames: Scion records "
			 "at most %d%s", (unsigned long long)frames, DOF_MAX_FRAMES,
			 given ? "" : " (set by the stackframes option)");
		return false;
	}
	*d = (struct dt_datum){ .kind = DT_DATUM_STACK, .frames = (uint32_t)frames,
				.size = (uint32_t)frames * (uint32_t)sizeof(uint64_t),
				.type = { .kind = DT_TYPE_INT, .size = 8 } };
	return true;
}

static void gen_stack(struct clause_gen *g, const struct dt_stmt *s)
{
	struct dt_datum d;
	if (!stack_datum(g->cg, s->nargs ? s->args->value : 0, s->loc, &d))
		return;
	struct dt_action *a = new_action(g, s, DT_ACTION_STACK, 1);
	a->data[0] = d;
	place(g, &a->data[0]);
	add_kaction(g, s, DOF_ACT_STACK, d.frames, 0);
}

static void gen_action(struct clause_gen *g, const struct dt_stmt *s)
{
	struct dt_cg *cg = g->cg;
	const struct dt_node *arg1 = s->args ? s->args->next : NULL;
	struct dt_action *a;

	switch (s->func->id) {
	case DT_F_PRINT:
	case DT_F_TRACE:
		a = new_action(g, s, s->func->id == DT_F_PRINT ? DT_ACTION_PRINT : DT_ACTION_TRACE, 1);
		record_value(g, s, s->args, DOF_ACT_RECORD, &a->data[0]);
		return;
	case DT_F_PRINTF:
		a = new_action(g, s, DT_ACTION_PRINTF, s->nargs - 1);
		a->format = s->format;
		for (int i = 0; arg1; arg1 = arg1->next, i++)
			record_value(g, s, arg1, DOF_ACT_RECORD, &a->data[i]);
		return;
	case DT_F_PRINTA:
		a = new_action(g, s, DT_ACTION_PRINTA, 0);
		a->format = s->format;
		take_aggs(g, s, a);
		return;
	case DT_F_EXIT:
		a = new_action(g, s, DT_ACTION_EXIT, 1);
		record_value(g, s, s->args, DOF_ACT_EXIT, &a->data[0]);
		return;
	case DT_F_STACK:
		gen_stack(g, s);
		return;
	case DT_F_TRACEMEM:	/* the bytes (a DT_N_FIELD made by the checker), the dynamic size */
		a = new_action(g, s, DT_ACTION_TRACEMEM, s->nargs == 3 ? 2 : 1);
		record_value(g, s, s->args, DOF_ACT_RECORD, &a->data[0]);
		if (s->nargs == 3)
			record_value(g, s, s->args->next->next, DOF_ACT_RECORD, &a->data[1]);
		return;
	case DT_F_COMMIT:
	case DT_F_DISCARD:
		add_prog_action(g, s, s->func->id == DT_F_COMMIT ? DOF_ACT_COMMIT : DOF_ACT_DISCARD,
				gen_prog(cg, NULL, NULL, s->args, s->loc));
		return;
	case DT_F_CHILL:
	case DT_F_RAISE:
		add_prog_action(g, s, s->func->id == DT_F_CHILL ? DOF_ACT_CHILL : DOF_ACT_RAISE,
				gen_prog(cg, NULL, NULL, s->args, s->loc));
		return;
	case DT_F_PANIC:
	case DT_F_BREAKPOINT:
	case DT_F_STOP:
	case DT_F_PAUSE:
		add_kaction(g, s, s->func->id == DT_F_PANIC ? DOF_ACT_PANIC :
			    s->func->id == DT_F_STOP ? DOF_ACT_STOP :
			    s->func->id == DT_F_PAUSE ? DOF_ACT_PAUSE : DOF_ACT_BREAKPOINT, 0, 0);
		return;
	case DT_F_CLEAR:
	case DT_F_DENORMALIZE:
		a = new_action(g, s, s->func->id == DT_F_CLEAR ? DT_ACTION_CLEAR :
			       DT_ACTION_DENORMALIZE, 0);
		take_aggs(g, s, a);
		return;
	case DT_F_TRUNC:
	case DT_F_NORMALIZE:
		a = new_action(g, s, s->func->id == DT_F_TRUNC ? DT_ACTION_TRUNC :
			       DT_ACTION_NORMALIZE, arg1 ? 1 : 0);
		take_aggs(g, s, a);
		if (arg1)
			record_value(g, s, arg1, DOF_ACT_RECORD, &a->data[0]);
		return;
	default:
		dt_error(cg->ctx, s->loc, D_UNKNOWN, "internal error: no code for action %s( )",
			 s->func->name);
		return;
	}
}

/*
 * quantize(x, incr), lquantize(x, lo, hi, step, incr), llquantize(x, factor,
 * low, high, nsteps, incr): the increment's argument, or NULL.
 */
static const struct dt_node *agg_increment(const struct dt_stmt *s)
{
	int at = s->func->id == DT_F_QUANTIZE ? 1 : s->func->id == DT_F_LQUANTIZE ? 4 :
		 s->func->id == DT_F_LLQUANTIZE ? 5 : -1;
	const struct dt_node *a = s->args;
	for (int i = 0; a && i < at; i++)
		a = a->next;
	return at > 0 ? a : NULL;
}

static void gen_aggregate(struct clause_gen *g, const struct dt_stmt *s)
{
	struct dt_cg *cg = g->cg;
	/*
	 * count( ) has no value; lquantize's bounds are constants in the
	 * object; a weighted (l)quantize has a second value program, the increment.
	 */
	const struct dt_node *incr = agg_increment(s);
	int nvalues = (s->func->id == DT_F_COUNT ? 0 : 1) + (incr ? 1 : 0), nkeyprogs = 0;
	for (const struct dt_node *key = s->keys; key; key = key->next)
		nkeyprogs += key->type.kind != DT_TYPE_STACK;	/* the kernel walks stacks itself */
	struct dt_kaction *k = add_kaction(g, s, DOF_ACT_AGGREGATE, (uint32_t)s->agg->id,
					   nkeyprogs + nvalues);
	if (!k)
		return;
	int i = 0, nth = 0;
	/* Each key converts to the aggregation's key type, as an array's key does. */
	for (const struct dt_node *key = s->keys; key; key = key->next, nth++)
		if (key->type.kind != DT_TYPE_STACK)
			k->progs[i++] = gen_prog_as(cg, NULL, NULL, key, &s->agg->keys[nth],
						    s->loc);
	if (s->func->id != DT_F_COUNT)
		k->progs[i++] = gen_prog(cg, NULL, NULL, s->args, s->loc);
	if (incr)
		k->progs[i] = gen_prog(cg, NULL, NULL, incr, s->loc);
}

static bool probe_part_ok(struct dt_cg *cg, const struct dt_probedesc *d, const char *part)
{
	if (strlen(part) <= DOF_MAX_PROBEDESC)
		return true;
	dt_error(cg->ctx, d->loc, D_PDESC_INVAL, "probe description part of %zu bytes: the object "
		 "allows %d", strlen(part), DOF_MAX_PROBEDESC);
	return false;
}

static void gen_clause(struct dt_cg *cg, const struct dt_clause *c, struct dt_clause_code *cc)
{
	struct clause_gen gen = { .cg = cg }, *g = &gen;

	g->clause = c;
	g->offset = sizeof(struct dof_rechdr);
	g->actions = dt_alloc(cg->ctx, (size_t)(c->nstmts ? c->nstmts : 1) * sizeof(*g->actions));

	if (c->nprobes > DOF_MAX_PROBEDESCS)
		dt_error(cg->ctx, c->loc, D_PDESC_INVAL, "clause with %d probe descriptions: the "
			 "object allows %d (split it into clauses)", c->nprobes, DOF_MAX_PROBEDESCS);
	for (const struct dt_probedesc *d = c->probes; d; d = d->next)
		if (!probe_part_ok(cg, d, d->provider) || !probe_part_ok(cg, d, d->module) ||
		    !probe_part_ok(cg, d, d->function) || !probe_part_ok(cg, d, d->name))
			break;
	cc->clause = c;
	cc->predicate = c->predicate ? gen_prog(cg, NULL, NULL, c->predicate, c->loc) : DOF_NONE;
	for (const struct dt_stmt *s = c->stmts; s; s = s->next) {
		if (s->kind == DT_S_EXPR) {
			if (!g->pending)
				g->pending = s;
			continue;
		}
		if (s->kind == DT_S_ACTION && s->func->id == DT_F_SPECULATE) {
			/* First action: the assignments before it run in its program. */
			add_prog_action(g, s, DOF_ACT_SPECULATE,
					gen_prog(cg, g->pending, s, s->args, s->loc));
			g->pending = NULL;
			continue;
		}
		flush_pending(g, s);
		if (s->kind == DT_S_AGG)
			gen_aggregate(g, s);
		else
			gen_action(g, s);
	}
	flush_pending(g, NULL);

	cc->default_action = c->nstmts == 0;
	bool record = cc->default_action || g->nactions > 0;
	cc->flags = record ? DOF_CLAUSE_RECORD : 0;
	cc->size = record ? align_datum(g->offset) : 0;
	if (cc->size > DOF_MAX_RECORD)
		dt_error(cg->ctx, c->loc, D_CG_EXPR, "clause records %u bytes per firing: the object "
			 "allows %d (strings take strsize=%u bytes each)", cc->size, DOF_MAX_RECORD,
			 cg->strsize);
	cc->nkactions = g->nkactions;
	cc->kactions = dt_alloc(cg->ctx, (size_t)(g->nkactions ? g->nkactions : 1) *
				sizeof(*cc->kactions));
	memcpy(cc->kactions, g->kactions, (size_t)g->nkactions * sizeof(*cc->kactions));
	cc->nactions = g->nactions;
	cc->actions = g->actions;
}

/* ---- aggregations and options ---- */

static const uint8_t dof_agg_funcs[DT_FUNC_COUNT] = {
	[DT_F_COUNT] = DOF_AGG_COUNT, [DT_F_SUM] = DOF_AGG_SUM, [DT_F_MIN] = DOF_AGG_MIN,
	[DT_F_MAX] = DOF_AGG_MAX, [DT_F_AVG] = DOF_AGG_AVG, [DT_F_STDDEV] = DOF_AGG_STDDEV,
	[DT_F_QUANTIZE] = DOF_AGG_QUANTIZE, [DT_F_LQUANTIZE] = DOF_AGG_LQUANTIZE,
	[DT_F_LLQUANTIZE] = DOF_AGG_LLQUANTIZE,
};

static void gen_agg(struct dt_cg *cg, const struct dt_agg *a, struct dt_agg_code *ac)
{
	ac->agg = a;
	if (!a->func || !dof_agg_funcs[a->func->id]) {
		dt_error(cg->ctx, a->loc, D_AGG_NULL, "@%s is never given a value", a->name);
		return;
	}
	ac->func = dof_agg_funcs[a->func->id];
	if (a->func->id == DT_F_LQUANTIZE &&
	    (a->lq_high - a->lq_low) / a->lq_step > DOF_LQUANTIZE_MAX_LEVELS)
		dt_error(cg->ctx, a->loc, D_LQUANT_STEPSMALL, "lquantize( ) of @%s has %lld levels: "
			 "the object allows %d", a->name,
			 (long long)((a->lq_high - a->lq_low) / a->lq_step), DOF_LQUANTIZE_MAX_LEVELS);
	if (a->func->id == DT_F_LLQUANTIZE) {
		uint32_t n = dof_llquantize_buckets(DOF_LLQ_FACTOR(a->lq_step), (uint16_t)a->lq_low,
						    (uint16_t)a->lq_high, DOF_LLQ_NSTEPS(a->lq_step));
		if (n > DOF_LLQUANTIZE_MAX_BUCKETS)
			dt_error(cg->ctx, a->loc, D_LLQUANT_NSTEPVAL, "llquantize( ) of @%s has %u "
				 "buckets: the object allows %d", a->name, n,
				 DOF_LLQUANTIZE_MAX_BUCKETS);
	}
	ac->nkeys = a->nkeys;
	for (int i = 0; i < a->nkeys; i++) {
		if (a->keys[i].kind == DT_TYPE_STACK) {
			if (!stack_datum(cg, a->keys[i].size, a->loc, &ac->keys[i]))
				return;
		} else {
			ac->keys[i] = value_datum(cg, a->keys[i]);
		}
		ac->keys[i].size = align_datum(ac->keys[i].size);
		ac->keys[i].offset = ac->keybytes;
		ac->keybytes += ac->keys[i].size;
	}
	if (ac->keybytes > DOF_MAX_KEYBYTES)
		dt_error(cg->ctx, a->loc, D_KEY_TYPE, "@%s has keys of %u bytes: the object allows "
			 "%d (strings take strsize=%u bytes each)", a->name, ac->keybytes,
			 DOF_MAX_KEYBYTES, cg->strsize);
}

/* strsize for the bytecode; the object's options, clamped or refused past the kernel's limits. */
static bool gen_options(struct dt_cg *cg)
{
	const struct dt_program *p = cg->obj->program;
	uint64_t strsize = dt_option_get(&p->options, DT_OPT_STRSIZE);
	bool manual = dt_option_get(&p->options, DT_OPT_BUFRESIZE) == DT_BUFRESIZE_MANUAL;
	bool ok = true;

	if (strsize > DIF_STRSIZE_MAX) {
		dt_error(cg->ctx, program_loc(p), D_PRAGMA_OPTSET, "option strsize=%llu: strings "
			 "hold at most %d bytes in the trace bytecode", (unsigned long long)strsize,
			 DIF_STRSIZE_MAX);
		ok = false;
	}
	cg->strsize = (uint16_t)(strsize > DIF_STRSIZE_MAX ? DIF_STRSIZE_MAX : strsize);
	cg->obj->strsize = cg->strsize;
	for (size_t i = 0; i < sizeof(object_options) / sizeof(object_options[0]); i++) {
		enum dt_option_id id = object_options[i].option;
		cg->obj->option[object_options[i].dof] = object_options[i].def;
		if (!p->options.set[id])
			continue;
		uint64_t v = p->options.value[id], max = object_options[i].max;
		if (v < object_options[i].min) {
			dt_error(cg->ctx, program_loc(p), D_PRAGMA_OPTSET, "option %s=%llu is less "
				 "than Scion's minimum (%llu)", dt_options_table[id].name,
				 (unsigned long long)v, (unsigned long long)object_options[i].min);
			ok = false;
		}
		if (v > max && manual) {
			dt_error(cg->ctx, program_loc(p), D_PRAGMA_OPTSET, "option %s=%llu is more "
				 "than Scion allows (%llu) and bufresize=manual forbids reducing it",
				 dt_options_table[id].name, (unsigned long long)v,
				 (unsigned long long)max);
			ok = false;
		}
		cg->obj->option_set[object_options[i].dof] = true;
		cg->obj->option[object_options[i].dof] = v > max ? max : v;
	}
	/* Compiled against the kernel's types: the kernel checks they are its own. */
	uint64_t ktypes = dt_ctf_id(p->ctf);
	if (ktypes) {
		cg->obj->option_set[DOF_OPT_KTYPES] = true;
		cg->obj->option[DOF_OPT_KTYPES] = ktypes;
	}
	return ok;
}

/*
 * dtrace enables destructive actions only with -w (the destructive
 * option): without it, the first one is the program's error (dtrace's
 * "Destructive actions not allowed" when it enables tracing).
 */
static bool destructive_allowed(struct dt_cg *cg, const struct dt_program *p)
{
	if (dt_option_get(&p->options, DT_OPT_DESTRUCTIVE))
		return true;
	for (const struct dt_clause *c = p->clauses; c; c = c->next)
		for (const struct dt_stmt *s = c->stmts; s; s = s->next)
			if (s->kind == DT_S_ACTION && dt_func_destructive(s->func->id)) {
				dt_error(cg->ctx, s->loc, D_DESTRUCTIVE, "%s( ): Destructive actions "
					 "not allowed (allow them with -w or #pragma D option "
					 "destructive)", s->func->name);
				return false;
			}
	return true;
}

/* ---- the whole program ---- */

static void generate(struct dt_cg *cg, struct dt_program *p)
{
	struct dt_object *obj = cg->obj;
	if (!gen_options(cg) || !destructive_allowed(cg, p))
		return;
	if (p->naggs > DOF_MAX_AGGS || p->nclauses > DOF_MAX_CLAUSES) {
		dt_error(cg->ctx, program_loc(p), D_CG_EXPR, "%d clauses and %d aggregations: the "
			 "object allows %d and %d", p->nclauses, p->naggs, DOF_MAX_CLAUSES,
			 DOF_MAX_AGGS);
		return;
	}
	obj->naggs = p->naggs;
	obj->aggs = dt_alloc(cg->ctx, (size_t)(p->naggs ? p->naggs : 1) * sizeof(*obj->aggs));
	for (const struct dt_agg *a = p->aggs; a; a = a->next)
		gen_agg(cg, a, &obj->aggs[a->id]);
	obj->nclauses = p->nclauses;
	obj->clauses = dt_alloc(cg->ctx, (size_t)(p->nclauses ? p->nclauses : 1) *
				sizeof(*obj->clauses));
	for (const struct dt_clause *c = p->clauses; c && !cg->ctx->stopped; c = c->next)
		gen_clause(cg, c, &obj->clauses[c->index]);
	if (p->nerrors == 0)
		dt_dof_write(cg->ctx, obj);
}

/* Run generate with out-of-memory caught; false if memory ran out. */
static bool generate_guarded(struct dt_cg *cg, struct dt_program *p)
{
	if (setjmp(cg->ctx->nomem))
		return false;
	cg->obj = dt_alloc(cg->ctx, sizeof(*cg->obj));
	cg->obj->program = p;
	generate(cg, p);
	return true;
}

int dt_generate(struct dt_program *program, struct dt_object **out)
{
	*out = NULL;
	if (!program || program->nerrors || !program->arena)
		return -1;
	struct dt_ctx ctx = { .prog = program, .filename = program->filename };
	struct dt_cg *cg = calloc(1, sizeof(*cg));	/* ~110 KiB: the program being built */
	if (cg)
		cg->ctx = &ctx;
	if (!cg || !generate_guarded(cg, program)) {
		free(cg);
		if (program->nerrors <= DT_MAX_ERRORS)
			program->errors[program->nerrors++] = (struct dt_error){
				D_NOMEM, program_loc(program), "out of memory" };
		return -1;
	}
	struct dt_object *obj = cg->obj;
	free(cg);
	if (program->nerrors)
		return -1;
	*out = obj;
	return 0;
}
