/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The reference evaluator's insides, shared by dref_eval.c (expressions),
 * dref_vars.c (variables), dref_strings.c (string subroutines) and
 * dref_clause.c (clauses, aggregations, records, firings).
 *
 * It evaluates the checked AST directly with D's semantics, written from
 * D's definition (and DTrace's where D's is silent), never from the code
 * generator or the DIF interpreter:
 * - An integer value is held normalized to its type (sign- or zero-
 *   extended from its width); every operator computes in the type the
 *   checker gave its node (comparisons: the common type of their
 *   operands, the wider, then the unsigned), wraps to it, and converts
 *   on casts, stores, keys and ?: branches.
 * - A string value holds at most strsize - 1 bytes: every string is cut
 *   there when it comes into being (literal, built-in, subroutine
 *   result), which is where every reader of it would stop. NULL (a
 *   search that found nothing) is a string of its own: it compares as "",
 *   reads back as "" once stored, and is an invalid address (0) to
 *   anything that reads its bytes.
 * - A fault abandons the clause for this firing, as in DTrace.
 */
#ifndef DREF_EVAL_H
#define DREF_EVAL_H

#include <scion/dif_exec.h>
#include "dref.h"

enum dref_kind { DREF_INT, DREF_STR };

struct dref_value {
	uint8_t kind;
	bool null;			/* DREF_STR: D's NULL */
	uint64_t i;			/* DREF_INT: normalized to its type */
	char s[DREF_STRMAX];		/* DREF_STR: at most strsize - 1 bytes and a NUL */
};

/* What stopped a clause: a DIF fault as the kernel reports it, or a construct not modeled. */
struct dref_fault {
	enum dif_fault_kind kind;	/* DIF_FAULT_NONE with unsupported set: not modeled */
	uint64_t addr;
	const char *unsupported;
};

/* Dynamic variables: self-> scalars and associative arrays of both scopes, by encoded key. */
struct dref_dynvar {
	uint8_t *key;
	uint32_t keylen;
	struct dref_value value;
};

struct dref_dynmap {
	struct dref_dynvar *v;
	unsigned n, cap;
	uint32_t nbuckets;
	uint32_t *bucket, *next;	/* entry index + 1 */
};

struct dref_eval {
	const struct dt_object *obj;
	const struct dt_program *prog;
	const struct dref_scenario *sc;
	unsigned strmax;		/* strsize - 1 */
	struct dref_value *globals;	/* by id */
	struct dref_value *locals;	/* this->, by id; cleared at each probe firing */
	struct dref_dynmap dyn;
	struct dref_results *out;
	/* The firing being run. */
	const struct dref_firing *f;
	uint64_t args[6];
	uint32_t epid;
	struct {
		bool on;		/* a token search is under way */
		char s[DREF_STRMAX];	/* the string it searches */
		size_t at;		/* where the next search starts */
	} strtok;
	struct dref_fault fault;
	/* The session: its state (trace_internal.h's), exit(), the ERROR probe's clauses. */
	enum { DREF_WARMUP, DREF_ACTIVE, DREF_DRAINING, DREF_STOPPED, DREF_ANY } state;
	bool exited;
	int32_t exit_status;
	const struct dref_ecbs *ecbs;
};

/* ---- dref_eval.c ---- */

/* n's value into *v; false after a fault (e->fault says which). */
bool dref_eval_expr(struct dref_eval *e, const struct dt_node *n, struct dref_value *v);
/* v (an integer) converted to integer type t: truncated to its width, re-extended. */
uint64_t dref_convert(struct dt_type t, uint64_t v);
/* A value of type t from a raw 64-bit integer, or from C string s (cut at strmax). */
void dref_int_value(struct dref_value *v, struct dt_type t, uint64_t raw);
void dref_str_value(struct dref_eval *e, struct dref_value *v, const char *s, size_t len);
/* Record a fault; returns false, for `return dref_fail(...)`. */
bool dref_fail(struct dref_eval *e, enum dif_fault_kind kind, uint64_t addr);
bool dref_unsupported(struct dref_eval *e, const char *what);

/* ---- dref_vars.c ---- */

/*
 * Variable n (DT_N_VAR, DT_N_ARRAY): its keys evaluated (false after a
 * fault) and converted to the array's signature; then a load or a store
 * of it (false after a fault: a NULL string key does not read).
 */
bool dref_var_keys(struct dref_eval *e, const struct dt_node *n, struct dref_value *keys);
bool dref_var_load(struct dref_eval *e, const struct dt_node *n, const struct dref_value *keys,
		   struct dref_value *v);
bool dref_var_store(struct dref_eval *e, const struct dt_node *n, const struct dref_value *keys,
		    const struct dref_value *v);
void dref_vars_init(struct dref_eval *e);
void dref_vars_free(struct dref_eval *e);
/* Clause-locals start every probe firing empty. */
void dref_locals_clear(struct dref_eval *e);

/* ---- dref_strings.c ---- */

/*
 * The subroutine call n with its arguments already evaluated (args[i]
 * of n's i-th argument), into *v; false after a fault.
 */
bool dref_subroutine(struct dref_eval *e, const struct dt_node *n, const struct dref_value *args,
		     struct dref_value *v);

#endif
