// SPDX-License-Identifier: BSD-2-Clause
/*
 * The reference evaluator's expressions: every node kind of a checked D
 * expression the generator writes, computed with D's semantics (see
 * dref_eval.h): integer types and their wrapping, comparisons in the
 * common type, && || short-circuit and ^^ both sides, ?: converting its
 * branch, casts, assignments (op= computing in the type of higher rank,
 * then stored into the variable's width), ++/--, built-in variables of
 * the firing, curthread's members and subroutine calls.
 *
 * Evaluation order is left to right, a variable's keys before the value
 * stored into it (where it shows: which of two faults is reported).
 * Constructs the generator never writes (pointers, curthread as a value,
 * rand(), ...) are reported as not modeled rather than guessed.
 */
#include <string.h>
#include "dref_eval.h"

bool dref_fail(struct dref_eval *e, enum dif_fault_kind kind, uint64_t addr)
{
	e->fault.kind = kind;
	e->fault.addr = addr;
	return false;
}

bool dref_unsupported(struct dref_eval *e, const char *what)
{
	e->fault.kind = DIF_FAULT_NONE;
	e->fault.unsupported = what;
	return false;
}

uint64_t dref_convert(struct dt_type t, uint64_t v)
{
	if (t.size >= 8)
		return v;
	unsigned bits = 8u * t.size;
	uint64_t low = v & ((1ull << bits) - 1);
	bool negative = t.is_signed && (low >> (bits - 1)) & 1;
	return negative ? low | ~((1ull << bits) - 1) : low;
}

void dref_int_value(struct dref_value *v, struct dt_type t, uint64_t raw)
{
	v->kind = DREF_INT;
	v->null = false;
	v->i = dref_convert(t, raw);
	v->s[0] = '\0';
}

void dref_str_value(struct dref_eval *e, struct dref_value *v, const char *s, size_t len)
{
	const char *nul = memchr(s, '\0', len);
	if (nul)
		len = (size_t)(nul - s);
	if (len > e->strmax)
		len = e->strmax;
	v->kind = DREF_STR;
	v->null = false;
	v->i = 0;
	memmove(v->s, s, len);
	v->s[len] = '\0';
}

static void null_value(struct dref_value *v)
{
	v->kind = DREF_STR;
	v->null = true;
	v->i = 0;
	v->s[0] = '\0';
}

/* The type two integers are compared in: the one of higher rank (wider, then unsigned). */
static struct dt_type common_type(struct dt_type a, struct dt_type b)
{
	unsigned ra = a.size * 16u + !a.is_signed, rb = b.size * 16u + !b.is_signed;
	return rb > ra ? b : a;
}

static bool truth(const struct dref_value *v)
{
	return v->i != 0;
}

/* ---- built-in variables ---- */

static bool builtin(struct dref_eval *e, const struct dt_node *n, struct dref_value *v)
{
	const struct dref_firing *f = e->f;
	const struct dref_thread *t = &e->sc->threads[f->thread];
	const struct dref_probe *p = &dref_probes[f->probe];
	enum dt_builtin_id id = n->ref.builtin->id;
	uint64_t raw;

	if (id >= DT_BV_ARG0 && id <= DT_BV_ARG9) {
		unsigned a = (unsigned)(id - DT_BV_ARG0);
		dref_int_value(v, n->type, a < 6 ? e->args[a] : 0);
		return true;
	}
	switch (id) {
	case DT_BV_TIMESTAMP: raw = f->now; break;
	case DT_BV_VTIMESTAMP: raw = t->run_ns + (f->now - t->oncpu_since); break;
	case DT_BV_WALLTIMESTAMP: raw = e->sc->wall_base + f->now; break;
	case DT_BV_CPU: raw = f->cpu; break;
	case DT_BV_TID: raw = t->tid; break;
	case DT_BV_PID:				/* the oracle's threads are kernel threads */
	case DT_BV_PPID:
	case DT_BV_UID:
	case DT_BV_ERRNO:			/* no traced system call */
	case DT_BV_PS_PID:
	case DT_BV_PS_PPID: raw = 0; break;
	case DT_BV_PS_PSARGS:
		dref_str_value(e, v, "", 0);
		return true;
	case DT_BV_EPID: raw = e->epid; break;
	case DT_BV_ID: raw = p->id; break;
	case DT_BV_PS_FNAME:
	case DT_BV_EXECNAME:
		dref_str_value(e, v, t->name, strlen(t->name));
		return true;
	case DT_BV_PROBEPROV:
		dref_str_value(e, v, p->provider, strlen(p->provider));
		return true;
	case DT_BV_PROBEMOD:
		dref_str_value(e, v, p->module, strlen(p->module));
		return true;
	case DT_BV_PROBEFUNC:
		dref_str_value(e, v, p->function, strlen(p->function));
		return true;
	case DT_BV_PROBENAME:
		dref_str_value(e, v, p->name, strlen(p->name));
		return true;
	default:
		return dref_unsupported(e, "a built-in variable without a deterministic value "
					"(curthread, caller)");
	}
	dref_int_value(v, n->type, raw);
	return true;
}

static bool member(struct dref_eval *e, const struct dt_node *n, struct dref_value *v)
{
	if (n->left->kind != DT_N_BUILTIN)
		return dref_unsupported(e, "a member of a thread pointer kept in a variable");
	const struct dref_thread *t = &e->sc->threads[e->f->thread];
	switch (n->ref.member->id) {
	case DT_MEMBER_TID: dref_int_value(v, n->type, t->tid); return true;
	case DT_MEMBER_NAME: dref_str_value(e, v, t->name, strlen(t->name)); return true;
	case DT_MEMBER_AFFINITY: dref_int_value(v, n->type, (uint64_t)(int64_t)t->affinity);
		return true;
	case DT_MEMBER_TICKS_RUN: dref_int_value(v, n->type, t->ticks_run); return true;
	case DT_MEMBER_SWITCHES_IN: dref_int_value(v, n->type, t->switches_in); return true;
	default: return dref_unsupported(e, "an unknown curthread member");
	}
}

/* ---- operators ---- */

/* l OP r computed in integer type t (operands of any integer type, normalized to theirs). */
static bool arith(struct dref_eval *e, enum dt_op op, struct dt_type t, uint64_t l, uint64_t r,
		  uint64_t *out)
{
	uint64_t a = dref_convert(t, l), b = dref_convert(t, r), v;
	unsigned shift = (unsigned)(r & 63);	/* a count is not converted; taken mod 64 */

	switch (op) {
	case DT_OP_ADD: v = a + b; break;
	case DT_OP_SUB: v = a - b; break;
	case DT_OP_MUL: v = a * b; break;
	case DT_OP_DIV:
	case DT_OP_MOD:
		if (b == 0)
			return dref_fail(e, DIF_FAULT_DIVZERO, 0);
		if (!t.is_signed)
			v = op == DT_OP_DIV ? a / b : a % b;
		else if ((int64_t)a == INT64_MIN && (int64_t)b == -1)
			v = op == DT_OP_DIV ? a : 0;	/* wraps, as two's complement does */
		else
			v = (uint64_t)(op == DT_OP_DIV ? (int64_t)a / (int64_t)b :
				       (int64_t)a % (int64_t)b);
		break;
	case DT_OP_SHL: v = a << shift; break;
	case DT_OP_SHR:
		v = t.is_signed ? (uint64_t)((int64_t)a >> shift) : a >> shift;
		break;
	case DT_OP_BAND: v = a & b; break;
	case DT_OP_BOR: v = a | b; break;
	case DT_OP_BXOR: v = a ^ b; break;
	default:
		return dref_unsupported(e, "an operator the evaluator does not know");
	}
	*out = dref_convert(t, v);
	return true;
}

static bool is_null_literal(const struct dt_node *n)
{
	return n->kind == DT_N_INT && n->type.kind == DT_TYPE_PTR && n->value == 0;
}

static bool compare(struct dref_eval *e, const struct dt_node *n, const struct dref_value *l,
		    const struct dref_value *r, struct dref_value *v)
{
	int c;
	if (l->kind == DREF_STR || r->kind == DREF_STR) {
		/* NULL compares as "" (strtok(...) == NULL). */
		c = strcmp(l->kind == DREF_STR ? l->s : "", r->kind == DREF_STR ? r->s : "");
	} else {
		if (n->left->type.kind != DT_TYPE_INT || n->right->type.kind != DT_TYPE_INT)
			return dref_unsupported(e, "a comparison of pointers");
		struct dt_type t = common_type(n->left->type, n->right->type);
		uint64_t a = dref_convert(t, l->i), b = dref_convert(t, r->i);
		if (t.is_signed)
			c = (int64_t)a < (int64_t)b ? -1 : (int64_t)a > (int64_t)b;
		else
			c = a < b ? -1 : a > b;
	}
	bool res;
	switch (n->op) {
	case DT_OP_EQ: res = c == 0; break;
	case DT_OP_NE: res = c != 0; break;
	case DT_OP_LT: res = c < 0; break;
	case DT_OP_LE: res = c <= 0; break;
	case DT_OP_GT: res = c > 0; break;
	default: res = c >= 0; break;
	}
	dref_int_value(v, n->type, res);
	return true;
}

static bool binary(struct dref_eval *e, const struct dt_node *n, struct dref_value *v)
{
	struct dref_value r;
	if (n->left->type.kind == DT_TYPE_PTR && !is_null_literal(n->left))
		return dref_unsupported(e, "pointer arithmetic");
	if (!dref_eval_expr(e, n->left, v))
		return false;
	if (n->op == DT_OP_LAND || n->op == DT_OP_LOR) {
		if (truth(v) == (n->op == DT_OP_LOR)) {
			dref_int_value(v, n->type, n->op == DT_OP_LOR);
			return true;
		}
		if (!dref_eval_expr(e, n->right, &r))
			return false;
		dref_int_value(v, n->type, truth(&r));
		return true;
	}
	if (!dref_eval_expr(e, n->right, &r))
		return false;
	if (n->op == DT_OP_LXOR) {
		dref_int_value(v, n->type, truth(v) != truth(&r));
		return true;
	}
	if (n->op >= DT_OP_EQ && n->op <= DT_OP_GE) {
		struct dref_value l = *v;
		return compare(e, n, &l, &r, v);
	}
	if (n->type.kind != DT_TYPE_INT || n->right->type.kind == DT_TYPE_PTR)
		return dref_unsupported(e, "pointer arithmetic");
	uint64_t out;
	if (!arith(e, n->op, n->type, v->i, r.i, &out))
		return false;
	dref_int_value(v, n->type, out);
	return true;
}

static bool unary(struct dref_eval *e, const struct dt_node *n, struct dref_value *v)
{
	if (n->op == DT_OP_DEREF)
		return dref_unsupported(e, "a load through a pointer");
	if (!dref_eval_expr(e, n->left, v))
		return false;
	if (v->kind != DREF_INT)
		return dref_unsupported(e, "a unary operator on a string");
	uint64_t a = dref_convert(n->type, v->i);
	switch (n->op) {
	case DT_OP_NEG: dref_int_value(v, n->type, 0 - a); return true;
	case DT_OP_BNOT: dref_int_value(v, n->type, ~a); return true;
	case DT_OP_LNOT: dref_int_value(v, n->type, v->i == 0); return true;
	case DT_OP_PLUS: dref_int_value(v, n->type, a); return true;
	default: return dref_unsupported(e, "a unary operator the evaluator does not know");
	}
}

static bool ternary(struct dref_eval *e, const struct dt_node *n, struct dref_value *v)
{
	if (!dref_eval_expr(e, n->cond, v))
		return false;
	if (!dref_eval_expr(e, truth(v) ? n->left : n->right, v))
		return false;
	if (n->type.kind == DT_TYPE_INT)
		dref_int_value(v, n->type, v->i);	/* the branch converts to the result type */
	return true;
}

static bool cast(struct dref_eval *e, const struct dt_node *n, struct dref_value *v)
{
	if (n->type.kind == DT_TYPE_PTR || n->left->type.kind == DT_TYPE_PTR ||
	    n->left->type.kind == DT_TYPE_THREAD)
		return dref_unsupported(e, "a cast to or from a pointer");
	if (!dref_eval_expr(e, n->left, v))
		return false;
	if (n->type.kind == DT_TYPE_INT)
		dref_int_value(v, n->type, v->i);
	return true;
}

/* The type `x op= y` computes in: a shift's is x's, else the one of higher rank. */
static struct dt_type compound_type(enum dt_op op, struct dt_type x, struct dt_type y)
{
	return op == DT_OP_SHL || op == DT_OP_SHR ? x : common_type(x, y);
}

static bool assign(struct dref_eval *e, const struct dt_node *n, struct dref_value *v)
{
	const struct dt_node *lhs = n->left;
	struct dref_value keys[DT_MAX_KEYS], old;
	if (lhs->kind != DT_N_VAR && lhs->kind != DT_N_ARRAY)
		return dref_unsupported(e, "an assignment to something but a variable");
	if (!dref_var_keys(e, lhs, keys))
		return false;
	if (n->op == DT_OP_NONE) {
		if (!dref_eval_expr(e, n->right, v))
			return false;
		if (lhs->type.kind == DT_TYPE_INT)
			dref_int_value(v, lhs->type, v->i);
	} else {
		if (!dref_var_load(e, lhs, keys, &old))
			return false;
		if (!dref_eval_expr(e, n->right, v))
			return false;
		uint64_t out;
		if (!arith(e, n->op, compound_type(n->op, lhs->type, n->right->type), old.i, v->i,
			   &out))
			return false;
		dref_int_value(v, lhs->type, out);
	}
	return dref_var_store(e, lhs, keys, v);
}

static bool incdec(struct dref_eval *e, const struct dt_node *n, struct dref_value *v)
{
	const struct dt_node *lhs = n->left;
	struct dref_value keys[DT_MAX_KEYS], updated;
	if (!dref_var_keys(e, lhs, keys))
		return false;
	if (!dref_var_load(e, lhs, keys, v))
		return false;
	bool inc = n->op == DT_OP_PREINC || n->op == DT_OP_POSTINC;
	dref_int_value(&updated, lhs->type, inc ? v->i + 1 : v->i - 1);
	if (!dref_var_store(e, lhs, keys, &updated))
		return false;
	if (n->op == DT_OP_PREINC || n->op == DT_OP_PREDEC)
		*v = updated;
	return true;
}

static bool call(struct dref_eval *e, const struct dt_node *n, struct dref_value *v)
{
	struct dref_value args[3];
	int i = 0;
	if (n->type.kind == DT_TYPE_STACK || n->nargs > 3)
		return dref_unsupported(e, "stack() or a call of more than 3 arguments");
	for (const struct dt_node *a = n->args; a; a = a->next, i++)
		if (!dref_eval_expr(e, a, &args[i]))
			return false;
	return dref_subroutine(e, n, args, v);
}

bool dref_eval_expr(struct dref_eval *e, const struct dt_node *n, struct dref_value *v)
{
	switch (n->kind) {
	case DT_N_INT:
		if (n->type.kind == DT_TYPE_PTR) {
			if (n->value)
				return dref_unsupported(e, "a pointer constant");
			null_value(v);	/* NULL: as a string, what strtok(NULL, ...) passes */
			return true;
		}
		dref_int_value(v, n->type, n->value);
		return true;
	case DT_N_STRING:
		dref_str_value(e, v, n->str, n->len);
		return true;
	case DT_N_BUILTIN:
		return builtin(e, n, v);
	case DT_N_MEMBER:
		return member(e, n, v);
	case DT_N_VAR:
	case DT_N_ARRAY: {
		struct dref_value keys[DT_MAX_KEYS];
		if (!dref_var_keys(e, n, keys))
			return false;
		return dref_var_load(e, n, keys, v);
	}
	case DT_N_UNARY:
		return unary(e, n, v);
	case DT_N_BINARY:
		return binary(e, n, v);
	case DT_N_TERNARY:
		return ternary(e, n, v);
	case DT_N_ASSIGN:
		return assign(e, n, v);
	case DT_N_INCDEC:
		return incdec(e, n, v);
	case DT_N_CAST:
		return cast(e, n, v);
	case DT_N_CALL:
		return call(e, n, v);
	case DT_N_COMMA:
		return dref_eval_expr(e, n->left, v) && dref_eval_expr(e, n->right, v);
	default:
		return dref_unsupported(e, "an expression node the evaluator does not know");
	}
}
