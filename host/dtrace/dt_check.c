// SPDX-License-Identifier: BSD-2-Clause
/*
 * The semantic pass, expressions and clauses: gives every expression its
 * type (operators, casts, ?:, assignments), folds integer constants, and
 * walks the program: declarations in source order with the clauses,
 * predicates, statements. Names are resolved in dt_vars.c; calls,
 * actions, aggregations and the speculation rules are in dt_check_call.c.
 *
 * Types follow dtrace's D: an integer operator computes in the operand
 * type of higher rank (dt_type_promote), a shift and a unary operator in
 * their operand's type; comparisons and logical operators give an int 0
 * or 1. Folding converts each operand to that type, computes on 64 bits
 * and truncates the result to it, as the generated code does; shift
 * counts are taken modulo 64, as the x86 shift instructions take them.
 * Pointers come from casts; *p, p[i] (rewritten as *(p + i)) and pointer
 * arithmetic are checked here and never folded (a load, or a scaling,
 * happens when the code runs).
 *
 * Invariant: a node is rewritten (resolved, or folded into DT_N_INT) only
 * when it checks without error, so after an error nothing downstream
 * trusts it: dt_check_expr returns false and callers stop at the first
 * failure in a statement.
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

/*
 * Whether a thread-typed expression is the current thread (or 0): the
 * trace bytecode reads members of the current thread only. self-> and
 * this-> variables are only ever written by the current thread; a global
 * may hold another thread's pointer.
 */
static bool is_current_thread(const struct dt_node *n)
{
	switch (n->kind) {
	case DT_N_BUILTIN:
		return true;		/* curthread, the only thread-typed built-in */
	case DT_N_VAR:
	case DT_N_ARRAY:
		return n->ref.var->scope != DT_SCOPE_GLOBAL;
	case DT_N_TERNARY:
		return is_current_thread(n->left) && is_current_thread(n->right);
	case DT_N_COMMA:
	case DT_N_ASSIGN:
		return is_current_thread(n->right);
	default:
		return false;
	}
}

/* curpsinfo->member: a built-in of its own ("curpsinfo->pr_pid"), the node becomes it. */
static bool check_psinfo_member(struct dt_checker *ck, struct dt_node *n)
{
	char name[64];
	snprintf(name, sizeof(name), "curpsinfo->%s", n->str);
	const struct dt_builtin *b = dt_builtin_lookup(name);
	if (!b) {
		dt_error(ck->ctx, n->loc, D_TYPE_MEMBER, "curpsinfo has no member %s (Scion has "
			 "pr_pid, pr_ppid, pr_fname, pr_psargs)", n->str);
		return false;
	}
	n->kind = DT_N_BUILTIN;
	n->ref.builtin = b;
	n->str = b->name;
	n->type = b->type;
	n->left = NULL;
	return true;
}

/*
 * With the kernel's types curthread is a struct thread *, whose members
 * are read from memory; Scion's older names for members of its
 * scheduling entity (affinity, ticks_run, switches_in) stay readable
 * through the current thread as built-ins when struct thread has no
 * member of that name.
 */
static bool legacy_thread_member(struct dt_checker *ck, const struct dt_node *n)
{
	struct dt_type thread, t = n->left->type;
	struct dt_ctf_member m;
	if (!is_current_thread(n->left) || !dt_ctf_lookup(ck->ctx, "struct thread *", &thread) ||
	    !dt_type_equal(t, thread) || dt_ctf_member(ck->ctx, dt_type_pointee(t), n->str, &m) != -1)
		return false;
	for (int i = 0; i < DT_MEMBER_COUNT; i++)
		if (!strcmp(dt_thread_members[i].name, n->str))
			return true;
	return false;
}

static bool check_member(struct dt_checker *ck, struct dt_node *n)
{
	if (n->left->kind == DT_N_IDENT && !strcmp(n->left->str, "curpsinfo"))
		return check_psinfo_member(ck, n);
	if (n->left->kind == DT_N_XLATE)
		return dt_xlate_member(ck, n, true);
	if (!dt_check_expr(ck, n->left))
		return false;
	if (n->left->type.kind == DT_TYPE_PTR && !legacy_thread_member(ck, n))
		return dt_check_arrow(ck, n);
	if (n->left->type.kind != DT_TYPE_THREAD && n->left->type.kind != DT_TYPE_PTR) {
		dt_error(ck->ctx, n->loc, D_OP_PTR, "operator -> must be applied to a pointer to a "
			 "struct or union, not %s", dt_type_str(ck->ctx, n->left->type));
		return false;
	}
	if (!is_current_thread(n->left)) {
		dt_error(ck->ctx, n->loc, D_UNSUPPORTED, "->%s of a thread kept in a global "
			 "variable is not supported: only the current thread's members can be read "
			 "(use curthread->%s, or keep the pointer in self-> or this->)", n->str,
			 n->str);
		return false;
	}
	for (int i = 0; i < DT_MEMBER_COUNT; i++)
		if (!strcmp(dt_thread_members[i].name, n->str)) {
			n->ref.member = &dt_thread_members[i];
			n->type = dt_thread_members[i].type;
			return true;
		}
	dt_error(ck->ctx, n->loc, D_TYPE_MEMBER, "curthread has no member %s (it has tid, name, "
		 "affinity, ticks_run, switches_in)", n->str);
	return false;
}

static bool is_const(const struct dt_node *n)
{
	return n->kind == DT_N_INT;
}

static void make_const(struct dt_node *n, uint64_t v)
{
	n->kind = DT_N_INT;
	n->value = dt_type_normalize(n->type, v);
	n->cond = n->left = n->right = NULL;
}

/* Arithmetic right shift without relying on how C shifts negative values. */
static uint64_t sar(uint64_t v, unsigned s)
{
	return (int64_t)v < 0 ? ~(~v >> s) : v >> s;
}

static bool is_relational(enum dt_op op)
{
	return op >= DT_OP_EQ && op <= DT_OP_GE;
}

/*
 * The type the operands of a binary operator are converted to before it
 * computes: its result type, but for comparisons (the common type of
 * two integers; an unsigned 64-bit compare of anything else, as dtrace
 * compares pointers) and logical operators (no conversion).
 */
struct dt_type dt_operand_type(const struct dt_node *n)
{
	struct dt_type l = n->left->type, r = n->right->type;
	if (n->op == DT_OP_LAND || n->op == DT_OP_LOR || n->op == DT_OP_LXOR)
		return dt_type_uint64;
	if (!is_relational(n->op))
		return n->type;
	return dt_type_is_int(l) && dt_type_is_int(r) ? dt_type_promote(l, r) : dt_type_uint64;
}

static bool fold_binary(struct dt_checker *ck, struct dt_node *n)
{
	struct dt_type t = dt_operand_type(n);
	bool shift = n->op == DT_OP_SHL || n->op == DT_OP_SHR;
	uint64_t l = dt_type_normalize(t, n->left->value), v;
	uint64_t r = shift ? n->right->value : dt_type_normalize(t, n->right->value);
	bool sgn = t.is_signed;

	switch (n->op) {
	case DT_OP_ADD: v = l + r; break;
	case DT_OP_SUB: v = l - r; break;
	case DT_OP_MUL: v = l * r; break;
	case DT_OP_DIV:
	case DT_OP_MOD:
		if (r == 0) {
			dt_error(ck->ctx, n->loc, D_DIV_ZERO, "division by zero");
			return false;
		}
		if (sgn && l == (uint64_t)INT64_MIN && r == UINT64_MAX)
			v = n->op == DT_OP_DIV ? l : 0;
		else if (sgn)
			v = (uint64_t)(n->op == DT_OP_DIV ? (int64_t)l / (int64_t)r :
				       (int64_t)l % (int64_t)r);
		else
			v = n->op == DT_OP_DIV ? l / r : l % r;
		break;
	case DT_OP_SHL: v = l << (r & 63); break;
	case DT_OP_SHR:	/* signed or not as the left operand (the node's type) is */
		v = sgn ? sar(l, r & 63) : l >> (r & 63);
		break;
	case DT_OP_BAND: v = l & r; break;
	case DT_OP_BOR: v = l | r; break;
	case DT_OP_BXOR: v = l ^ r; break;
	case DT_OP_LAND: v = l && r; break;
	case DT_OP_LOR: v = l || r; break;
	case DT_OP_LXOR: v = !l != !r; break;
	case DT_OP_EQ: v = l == r; break;
	case DT_OP_NE: v = l != r; break;
	case DT_OP_LT: v = sgn ? (int64_t)l < (int64_t)r : l < r; break;
	case DT_OP_LE: v = sgn ? (int64_t)l <= (int64_t)r : l <= r; break;
	case DT_OP_GT: v = sgn ? (int64_t)l > (int64_t)r : l > r; break;
	case DT_OP_GE: v = sgn ? (int64_t)l >= (int64_t)r : l >= r; break;
	default: return true;
	}
	make_const(n, v);
	return true;
}

/*
 * p + i, i + p, p - i (a pointer, scaled by the pointee's size when the
 * code runs) and p - q (the distance in elements, int64), as in C; void *
 * has no element size. Never folded: the scaling is the code generator's.
 */
static bool check_pointer_arith(struct dt_checker *ck, struct dt_node *n)
{
	struct dt_type l = n->left->type, r = n->right->type;
	bool lp = l.kind == DT_TYPE_PTR && dt_type_pointee_size(l);
	bool rp = r.kind == DT_TYPE_PTR && dt_type_pointee_size(r);
	if (lp && dt_type_is_int(r)) {
		n->type = l;
	} else if (rp && dt_type_is_int(l) && n->op == DT_OP_ADD) {
		n->type = r;
	} else if (lp && rp && n->op == DT_OP_SUB && dt_type_equal(l, r)) {
		n->type = (struct dt_type)DT_INT_T(8, true, DT_TD_PTRDIFF);
	} else {
		const char *op = dt_op_name(n->op);
		dt_error(ck->ctx, n->loc, D_OP_INCOMPAT, "operands have incompatible types: %s %s %s",
			 dt_type_str(ck->ctx, l), op, dt_type_str(ck->ctx, r));
		return false;
	}
	return true;
}

static bool check_binary(struct dt_checker *ck, struct dt_node *n)
{
	if (!dt_check_expr(ck, n->left) || !dt_check_expr(ck, n->right))
		return false;
	struct dt_type l = n->left->type, r = n->right->type;
	const char *op = dt_op_name(n->op);

	if ((n->op == DT_OP_ADD || n->op == DT_OP_SUB) &&
	    (l.kind == DT_TYPE_PTR || r.kind == DT_TYPE_PTR))
		return check_pointer_arith(ck, n);

	if (n->op == DT_OP_LAND || n->op == DT_OP_LOR || n->op == DT_OP_LXOR) {
		if (!dt_type_is_scalar(l) || !dt_type_is_scalar(r)) {
			dt_error(ck->ctx, n->loc, D_OP_SCALAR, "operator %s needs scalar operands, "
				 "not %s", op, dt_type_str(ck->ctx, dt_type_is_scalar(l) ? r : l));
			return false;
		}
		n->type = dt_type_int32;
	} else if (is_relational(n->op)) {
		bool ok = dt_type_same_class(l, r) && l.kind != DT_TYPE_VOID &&
			  l.kind != DT_TYPE_FLOAT;
		/* A pointer compares with 0 (or any integer) for equality. */
		bool lptr = l.kind == DT_TYPE_THREAD || l.kind == DT_TYPE_PTR;
		bool rptr = r.kind == DT_TYPE_THREAD || r.kind == DT_TYPE_PTR;
		if ((n->op == DT_OP_EQ || n->op == DT_OP_NE) &&
		    ((lptr && r.kind == DT_TYPE_INT) || (rptr && l.kind == DT_TYPE_INT)))
			ok = true;
		/* A string compares with NULL as with "" (strtok(...) == NULL). */
		if ((l.kind == DT_TYPE_STRING && dt_is_null(n->right)) ||
		    (r.kind == DT_TYPE_STRING && dt_is_null(n->left)))
			ok = true;
		if (!ok) {
			dt_error(ck->ctx, n->loc, D_OP_INCOMPAT, "operands of %s have incompatible "
				 "types: %s %s %s", op, dt_type_str(ck->ctx, l), op, dt_type_str(ck->ctx, r));
			return false;
		}
		n->type = dt_type_int32;
	} else {
		if (!dt_type_is_int(l) || !dt_type_is_int(r)) {
			bool arith = n->op <= DT_OP_DIV;
			dt_error(ck->ctx, n->loc, arith ? D_OP_ARITH : D_OP_INT, "operator %s needs "
				 "integer operands, not %s%s", op,
				 dt_type_str(ck->ctx, dt_type_is_int(l) ? r : l),
				 n->op == DT_OP_ADD && (l.kind == DT_TYPE_STRING ||
							r.kind == DT_TYPE_STRING) ?
				 " (strjoin() joins strings)" : "");
			return false;
		}
		n->type = n->op == DT_OP_SHL || n->op == DT_OP_SHR ? dt_type_promote(l, l) :
			dt_type_promote(l, r);
		if ((n->op == DT_OP_DIV || n->op == DT_OP_MOD) && is_const(n->right) &&
		    n->right->value == 0) {
			dt_error(ck->ctx, n->loc, D_DIV_ZERO, "division by zero");
			return false;
		}
	}
	if (is_const(n->left) && is_const(n->right))
		return fold_binary(ck, n);
	return true;
}

/* *p: a load through the pointer when the code runs (never folded). */
static bool check_deref(struct dt_checker *ck, struct dt_node *n)
{
	struct dt_type t = n->left->type;
	if (t.kind != DT_TYPE_PTR) {
		dt_error(ck->ctx, n->loc, D_DEREF_NONPTR, "cannot dereference non-pointer type");
		return false;
	}
	n->type = dt_type_pointee(t);
	if (n->type.kind == DT_TYPE_VOID) {
		dt_error(ck->ctx, n->loc, D_DEREF_VOID, "cannot dereference pointer to void");
		return false;
	}
	if (n->type.kind == DT_TYPE_SOU)
		return dt_check_deref_sou(ck, n);
	return true;
}

static bool check_unary(struct dt_checker *ck, struct dt_node *n)
{
	if (n->op == DT_OP_ADDROF)
		return dt_check_addrof(ck, n);
	if (!dt_check_expr(ck, n->left))
		return false;
	struct dt_type t = n->left->type;
	if (n->op == DT_OP_DEREF)
		return check_deref(ck, n);
	if (n->op == DT_OP_LNOT) {
		if (!dt_type_is_scalar(t)) {
			dt_error(ck->ctx, n->loc, D_OP_SCALAR, "operator ! needs a scalar operand, "
				 "not %s", dt_type_str(ck->ctx, t));
			return false;
		}
		n->type = dt_type_int32;
	} else {
		if (!dt_type_is_int(t)) {
			dt_error(ck->ctx, n->loc, n->op == DT_OP_BNOT ? D_OP_INT : D_OP_ARITH,
				 "operator %s needs an integer operand, not %s", dt_op_name(n->op),
				 dt_type_str(ck->ctx, t));
			return false;
		}
		n->type = dt_type_promote(t, t);
	}
	if (is_const(n->left)) {
		uint64_t v = n->left->value;
		make_const(n, n->op == DT_OP_NEG ? 0 - v : n->op == DT_OP_BNOT ? ~v :
			   n->op == DT_OP_LNOT ? v == 0 : v);
	}
	return true;
}

/*
 * base[index] where base is not an associative array (dt_resolve_array
 * decides): C's *(base + index), as dtrace rewrites it, so a pointer
 * loads (or, as an lvalue, stores) its index-th element and anything
 * else fails as *(non-pointer) does.
 */
bool dt_check_pointer_index(struct dt_checker *ck, struct dt_node *n, bool lvalue)
{
	struct dt_node *base = n->left, *index = n->args;
	if (n->nargs != 1) {
		bool named = base->kind == DT_N_IDENT || base->kind == DT_N_VAR;
		const char *pre = !named ? "" : base->scope == DT_SCOPE_THREAD ? "self->" :
			base->scope == DT_SCOPE_CLAUSE ? "this->" : "";
		dt_error(ck->ctx, n->loc, D_ARR_BADREF, "cannot access %s%s as an associative array",
			 pre, named ? base->str : "an expression");
		return false;
	}
	if (!dt_check_object(ck, base))
		return false;
	uint32_t count = dt_variable_array_count(ck, base);
	/* array[constant]: the element is one more field (one load at an offset). */
	if (base->kind == DT_N_FIELD && base->type.kind == DT_TYPE_ARRAY) {
		if (!dt_check_expr(ck, index))
			return false;
		if (is_const(index) && dt_type_is_int(index->type)) {
			int64_t i = index->type.is_signed || index->type.size < 8 ?
				    (int64_t)index->value : (int64_t)(index->value & INT64_MAX);
			if (count && (i < 0 || (uint64_t)i >= count)) {
				dt_error(ck->ctx, index->loc, D_ARR_BOUNDS, "index %lld is out of "
					 "bounds for an array of %u elements", (long long)i, count);
				return false;
			}
			uint32_t elements;
			struct dt_type element = dt_ctf_element(ck->ctx, base->type, &elements);
			n->kind = DT_N_FIELD;
			n->left = base->left;
			n->value = base->value + (uint64_t)i * element.size;
			n->type = element;
			n->bits = n->shift = 0;
			n->args = NULL;
			n->nargs = 0;
			return !lvalue || dt_check_store_target(ck, n, "=");
		}
	}
	if (!dt_decay_to_pointer(ck, base))	/* an array indexes from its address */
		return false;
	struct dt_node *sum = dt_node_new(ck->ctx, DT_N_BINARY, index->loc);
	sum->op = DT_OP_ADD;
	sum->left = base;
	sum->right = index;
	sum->depth = n->depth;
	n->kind = DT_N_UNARY;
	n->op = DT_OP_DEREF;
	n->left = sum;
	n->args = NULL;
	n->nargs = 0;
	n->depth++;
	if (!check_binary(ck, sum) || !check_deref(ck, n))
		return false;
	sum->bound = count;	/* a D array variable's elements, and no others, at run time */
	return !lvalue || dt_check_store_target(ck, n, "=");
}

static bool check_ternary(struct dt_checker *ck, struct dt_node *n)
{
	if (!dt_check_expr(ck, n->cond) || !dt_check_expr(ck, n->left) ||
	    !dt_check_expr(ck, n->right))
		return false;
	if (!dt_type_is_scalar(n->cond->type)) {
		dt_error(ck->ctx, n->cond->loc, D_OP_SCALAR, "the condition of ?: must be scalar, "
			 "not %s", dt_type_str(ck->ctx, n->cond->type));
		return false;
	}
	struct dt_type a = n->left->type, b = n->right->type;
	if (!dt_type_same_class(a, b) || a.kind == DT_TYPE_VOID) {
		dt_error(ck->ctx, n->loc, D_OP_INCOMPAT, "operands of ?: have incompatible types: "
			 "%s and %s", dt_type_str(ck->ctx, a), dt_type_str(ck->ctx, b));
		return false;
	}
	n->type = a.kind == DT_TYPE_INT ? dt_type_promote(a, b) : a;
	if (is_const(n->cond) && is_const(n->left) && is_const(n->right))
		make_const(n, n->cond->value ? n->left->value : n->right->value);
	return true;
}

static bool check_cast(struct dt_checker *ck, struct dt_node *n)
{
	if (!dt_check_expr(ck, n->left))
		return false;
	struct dt_type from = n->left->type, to = n->type;
	bool ok = ((to.kind == DT_TYPE_INT || to.kind == DT_TYPE_PTR) && dt_type_is_scalar(from)) ||
		  (to.kind == DT_TYPE_STRING && from.kind == DT_TYPE_STRING);
	if (!ok) {
		dt_error(ck->ctx, n->loc, D_CAST_INVAL, "invalid cast from %s to %s",
			 dt_type_str(ck->ctx, from), dt_type_str(ck->ctx, to));
		return false;
	}
	if (is_const(n->left))
		make_const(n, n->left->value);
	return true;
}

static bool check_assign(struct dt_checker *ck, struct dt_node *n)
{
	if (!dt_check_expr(ck, n->right))
		return false;
	struct dt_type value = n->right->type;
	if (value.kind == DT_TYPE_VOID)
		return false;
	if (value.kind == DT_TYPE_FLOAT) {
		dt_error(ck->ctx, n->loc, D_OP_ARITH, "a %s can only be traced or printed (%%e "
			 "%%f %%g): D keeps no floating-point values", dt_type_str(ck->ctx, value));
		return false;
	}
	if (n->op == DT_OP_NONE) {
		if (!dt_resolve_lvalue(ck, n->left, value))
			return false;
		n->type = n->left->type;
		return true;
	}
	char op[4];
	snprintf(op, sizeof(op), "%s=", dt_op_name(n->op));
	if (!dt_check_modifiable(ck, n->left, op))
		return false;
	if (!dt_type_is_int(value)) {
		dt_error(ck->ctx, n->loc, n->op <= DT_OP_DIV ? D_OP_ARITH : D_OP_INT, "operator %s "
			 "needs an integer on its right, not %s", op, dt_type_str(ck->ctx, value));
		return false;
	}
	if ((n->op == DT_OP_DIV || n->op == DT_OP_MOD) && is_const(n->right) &&
	    n->right->value == 0) {
		dt_error(ck->ctx, n->loc, D_DIV_ZERO, "division by zero");
		return false;
	}
	n->type = n->left->type;
	return true;
}

bool dt_check_expr(struct dt_checker *ck, struct dt_node *n)
{
	return dt_check_object(ck, n) && dt_decay(ck, n);
}

bool dt_check_object(struct dt_checker *ck, struct dt_node *n)
{
	if (ck->ctx->stopped)
		return false;
	switch (n->kind) {
	case DT_N_FIELD:
		return true;
	case DT_N_DOT:
		return dt_check_dot(ck, n);
	case DT_N_SIZEOF:
		return dt_check_sizeof(ck, n);
	case DT_N_XLATE:
		dt_error(ck->ctx, n->loc, D_UNSUPPORTED, "xlate < %s > is read through its members "
			 "(-> or .): translated structs are not values", dt_type_str(ck->ctx, n->type));
		return false;
	case DT_N_INT:
	case DT_N_STRING:
	case DT_N_BUILTIN:
	case DT_N_AGGREF:
		return true;
	case DT_N_VAR:
		return n->ref.var ? true : dt_resolve_read(ck, n);
	case DT_N_ARRAY:
		return true;
	case DT_N_IDENT:
		return dt_resolve_read(ck, n);
	case DT_N_INDEX:
		return dt_resolve_array(ck, n, NULL);
	case DT_N_AGGNAME:
		dt_error(ck->ctx, n->loc, D_AGG_USE, "@%s cannot be used as a value: aggregations "
			 "are printed with printa()", n->str);
		return false;
	case DT_N_MEMBER:
		return check_member(ck, n);
	case DT_N_UNARY:
		return check_unary(ck, n);
	case DT_N_BINARY:
		return check_binary(ck, n);
	case DT_N_TERNARY:
		return check_ternary(ck, n);
	case DT_N_ASSIGN:
		return check_assign(ck, n);
	case DT_N_INCDEC:
		if (!dt_check_modifiable(ck, n->left, n->op == DT_OP_PREINC ||
				      n->op == DT_OP_POSTINC ? "++" : "--"))
			return false;
		n->type = n->left->type;
		return true;
	case DT_N_CAST:
		return check_cast(ck, n);
	case DT_N_CALL:
		return dt_check_call_expr(ck, n);
	case DT_N_COMMA:
		if (!dt_check_expr(ck, n->left) || !dt_check_expr(ck, n->right))
			return false;
		n->type = n->right->type;
		if (is_const(n->left) && is_const(n->right))
			make_const(n, n->right->value);
		return true;
	}
	return false;
}

static void check_statement(struct dt_checker *ck, struct dt_stmt *s)
{
	if (s->kind == DT_S_AGG) {
		dt_check_aggregation(ck, s);
		return;
	}
	struct dt_node *e = s->expr;
	if (e->kind == DT_N_CALL) {
		const struct dt_func *f = dt_func_lookup(e->str);
		if (f && f->kind == DT_FK_ACTION) {
			dt_check_action(ck, s);
			return;
		}
		if (f && f->kind == DT_FK_SUBR && f->result.kind == DT_TYPE_VOID) {
			dt_check_call_statement(ck, e);
			return;
		}
		/* func(pc); and sym(pc); on their own record the symbol, as trace() would. */
		if (f && (f->id == DT_F_FUNC || f->id == DT_F_SYM)) {
			if (!dt_check_expr(ck, e))
				return;
			s->kind = DT_S_ACTION;
			s->func = &dt_funcs[DT_F_TRACE];
			s->args = e;
			s->nargs = 1;
			s->expr = NULL;
			dt_speculation_rules(ck, s);
			return;
		}
	}
	dt_check_expr(ck, e);
}

static void check_clause(struct dt_checker *ck, struct dt_clause *c)
{
	ck->clause = c;
	ck->seen_speculate = ck->seen_commit = ck->seen_data = ck->seen_agg = false;
	if (c->predicate && dt_check_expr(ck, c->predicate) &&
	    !dt_type_is_scalar(c->predicate->type))
		dt_error(ck->ctx, c->predicate->loc, D_PRED_SCALAR, "predicate must be of scalar "
			 "type, not %s", dt_type_str(ck->ctx, c->predicate->type));
	for (struct dt_stmt *s = c->stmts; s && !ck->ctx->stopped; s = s->next)
		check_statement(ck, s);
}

void dt_check_program(struct dt_ctx *ctx)
{
	struct dt_checker ck = { .ctx = ctx, .prog = ctx->prog };
	const struct dt_decl *d = ctx->decls;

	ck.vars_tail = &ctx->prog->vars;
	ck.aggs_tail = &ctx->prog->aggs;
	for (struct dt_clause *c = ctx->prog->clauses; c && !ctx->stopped; c = c->next) {
		for (; d && d->before_clause <= c->index; d = d->next)
			dt_apply_declaration(&ck, d);
		check_clause(&ck, c);
	}
	for (; d && !ctx->stopped; d = d->next)
		dt_apply_declaration(&ck, d);
	dt_check_deferred(&ck);
	/* Like dtrace: an argument nothing uses is probably a mistake (reported last). */
	for (int i = 1; i <= ctx->argc && ctx->prog->nerrors == 0; i++)
		if (!ctx->arg_used[i])
			dt_error(ctx, ctx->end, D_MACRO_UNUSED, "extraneous argument %s ($%d is not "
				 "used by the program)",
				 dt_quote(ctx, ctx->argv[i - 1] ? ctx->argv[i - 1] : "",
					  ctx->argv[i - 1] ? strlen(ctx->argv[i - 1]) : 0, 40), i);
}
