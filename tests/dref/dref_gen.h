/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The program generator's insides, shared by dref_gen.c (declarations,
 * clauses, statements) and dref_gen_expr.c (expressions).
 *
 * The generator keeps what the checker will decide in a form it can
 * honour while writing: each variable's scope, whether it holds strings,
 * its key kinds, and whether it has appeared in the text yet (a global
 * must be declared or assigned before it is read; a string variable of
 * any scope must be, or the checker makes it an int64). It writes in
 * the order the checker reads (predicate, statements; an assignment's
 * value before its target), so "appeared" is exactly the checker's view.
 * Integer widths it leaves to the checker: the evaluator takes the
 * types from the checked program.
 */
#ifndef DREF_GEN_H
#define DREF_GEN_H

#include "dref.h"

/* One entry of a static table, drawn evenly. */
#define PICK(g, table) (table[dref_below((g)->r, sizeof(table) / sizeof(table[0]))])

#define GEN_MAX_VARS 24
#define GEN_MAX_AGGS 6
#define GEN_MAX_KEYS 3

struct gen_var {
	char name[24];			/* as the program spells it: g0, self->t1, this->l2 */
	enum dt_scope scope;
	bool is_string, is_array;
	int nkeys;
	bool key_string[GEN_MAX_KEYS];
	bool declared;
	bool appeared;			/* assigned (or declared) earlier in the text */
};

struct gen_agg {
	char name[12];			/* "" is the anonymous @ */
	enum dt_func_id func;
	int nkeys;
	bool key_string[GEN_MAX_KEYS];
	int lq_low, lq_high, lq_step;	/* llquantize: low, high, nsteps */
	int ll_factor;
};

struct gen {
	struct dref_rng *r;
	unsigned strsize;
	struct gen_var vars[GEN_MAX_VARS];
	unsigned nvars;
	struct gen_agg aggs[GEN_MAX_AGGS];
	unsigned naggs;
	unsigned scratch;		/* string results this clause may still make (the kernel's
					   per-firing scratch holds TRACE_SCRATCH bytes) */
	unsigned faults;		/* constructs that may fault this clause may still use */
	bool may_exit;			/* this clause may call exit() */
};

/* How an expression will be used: what it must avoid. */
enum gen_use {
	GEN_ANY,			/* anything: a value, a comparison operand */
	GEN_SAFE,			/* read by something that faults on NULL (trace, keys,
					   string arguments), mostly without dividing by zero */
	GEN_KEY,			/* an array or aggregation key: few distinct values */
};

/* dref_gen_expr.c: expressions appended to b. */
void gen_int(struct gen *g, struct dref_buf *b, int depth, enum gen_use use);
void gen_str(struct gen *g, struct dref_buf *b, int depth, enum gen_use use);
/* An element or scalar reference to v, its keys (if any) of depth - 1. */
void gen_var_ref(struct gen *g, struct dref_buf *b, const struct gen_var *v, int depth);
/* One of the integer type names D knows (C's and the typedefs). */
const char *gen_int_type(struct gen *g);

/* Whether v may be read at this point of the text. */
bool gen_readable(const struct gen_var *v);

#endif
