// SPDX-License-Identifier: BSD-2-Clause
/*
 * Code generation for expressions: a checked D expression (dtrace.h) to
 * DIF instructions (scion/dif.h) in the program being built, with its
 * tables of constants, strings and variables, and the program's end
 * (RET, verification). Clauses and actions are in dt_cg_clause.c.
 *
 * Semantics kept from C and D:
 * - Every register holds its expression's value the way dt_type_normalize
 *   would: narrower integers sign- or zero-extended. An operator computes
 *   in its type (the checker's, dtrace's dt_type_promote; a shift in its
 *   left operand's): operands are converted to it first where the result
 *   depends on their upper bits (/ % >> & | ^ and comparisons), and a
 *   result that can leave its type's range (+ - * << unary - ~, signed /)
 *   is truncated and re-extended, as dtrace's dt_cg_typecast does for a
 *   cast. Casts and stores into narrower variables do the same, and so do
 *   an associative array's integer keys, converted to the key types of its
 *   signature (DTrace's prototype). Division, remainder, right shift and
 *   ordering comparisons are signed or unsigned as that type is.
 * - && and || evaluate their right operand only when needed; ^^ always
 *   evaluates both. Results of comparisons and logical operators are 0/1.
 * - Strings are addresses; comparisons of strings go through SCMP.
 * - curthread->member reads a built-in of the current thread; a thread
 *   pointer that may be 0 (self->t unset) is checked first with a load
 *   from address 0, which faults as dereferencing NULL does in dtrace.
 * - *p is one load (LDSB..LDX: sign- or zero-extended from the pointee's
 *   width, as C converts it); pointer arithmetic scales by the pointee's
 *   size. The kernel's loads are fault tolerant and check alignment.
 *   Members of C types are loads too (dt_cg_field.c).
 *
 * Registers are handed out stack-like over r1..r15 (r0 reads 0); an
 * expression needing more fails with D_CG_EXPR "expression too complex".
 */
#include <stdio.h>
#include <string.h>
#include "dt_cg.h"

#define FIRST_REG 1			/* r0 always reads 0 */

_Noreturn void dt_cg_fail(struct dt_cg *cg, struct dt_loc loc, enum dt_errtag tag,
			  const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dt_error(cg->ctx, loc, tag, "%s", msg);
	longjmp(cg->fail, 1);
}

void dt_cg_prog_reset(struct dt_cg *cg)
{
	cg->busy = 0;
	cg->ninsns = cg->nints = cg->strtab_len = cg->nvars = 0;
}

uint8_t dt_cg_dif_type(struct dt_type t)
{
	return t.kind == DT_TYPE_STRING ? DIF_TYPE_STRING : DIF_TYPE_INT;
}

/* ---- registers ---- */

int dt_cg_reg_alloc(struct dt_cg *cg, const struct dt_node *at)
{
	for (int r = FIRST_REG; r < DIF_NREGS; r++)
		if (!(cg->busy & (1u << r))) {
			cg->busy |= (uint16_t)(1u << r);
			return r;
		}
	dt_cg_fail(cg, at->loc, D_CG_EXPR, "expression too complex: it needs more than %d "
		   "registers (split it with this-> variables)", DIF_NREGS - FIRST_REG);
}

void dt_cg_reg_free(struct dt_cg *cg, int reg)
{
	if (reg >= FIRST_REG)
		cg->busy &= (uint16_t)~(1u << reg);
}

/* ---- instructions and tables ---- */

uint32_t dt_cg_emit(struct dt_cg *cg, const struct dt_node *at, uint8_t op, int rd, int r1,
		     int r2, int32_t imm)
{
	if (cg->ninsns == DIF_MAX_INSNS)
		dt_cg_fail(cg, at->loc, D_CG_EXPR, "expression too complex: more than %d "
			   "instructions in one program", DIF_MAX_INSNS);
	cg->insns[cg->ninsns] = (struct dif_insn){ op, (uint8_t)rd, (uint8_t)r1, (uint8_t)r2, imm };
	return cg->ninsns++;
}

void dt_cg_emit_r3(struct dt_cg *cg, const struct dt_node *at, uint8_t op, int rd, int r1,
		    int r2)
{
	dt_cg_emit(cg, at, op, rd, r1, r2, 0);
}

/* A forward branch whose target is set later by land_here. */
static uint32_t emit_branch(struct dt_cg *cg, const struct dt_node *at, uint8_t op, int r1,
			    int r2)
{
	return dt_cg_emit(cg, at, op, 0, r1, r2, 0);
}

/* Make the branch at index `branch` go to the next instruction emitted. */
static void land_here(struct dt_cg *cg, uint32_t branch)
{
	cg->insns[branch].imm = (int32_t)(cg->ninsns - branch - 1);
}

static int32_t int_index(struct dt_cg *cg, const struct dt_node *at, uint64_t v)
{
	for (uint32_t i = 0; i < cg->nints; i++)
		if (cg->ints[i] == v)
			return (int32_t)i;
	if (cg->nints == DIF_MAX_INTS)
		dt_cg_fail(cg, at->loc, D_CG_EXPR, "expression too complex: more than %d "
			   "64-bit constants in one program", DIF_MAX_INTS);
	cg->ints[cg->nints] = v;
	return (int32_t)cg->nints++;
}

void dt_cg_load_const(struct dt_cg *cg, const struct dt_node *at, int rd, uint64_t v)
{
	int64_t sv = (int64_t)v;
	if (sv >= INT32_MIN && sv <= INT32_MAX)
		dt_cg_emit(cg, at, DIF_OP_LDI, rd, 0, 0, (int32_t)sv);
	else
		dt_cg_emit(cg, at, DIF_OP_LDC, rd, 0, 0, int_index(cg, at, v));
}

/* The offset of s (up to its first NUL) in the string table, added if new. */
static int32_t string_index(struct dt_cg *cg, const struct dt_node *at, const char *s,
			    size_t len)
{
	const char *nul = memchr(s, '\0', len);
	if (nul)
		len = (size_t)(nul - s);
	for (uint32_t off = 0; off < cg->strtab_len; off += (uint32_t)strlen(cg->strtab + off) + 1)
		if (strlen(cg->strtab + off) == len && !memcmp(cg->strtab + off, s, len))
			return (int32_t)off;
	if (len + 1 > DIF_MAX_STRTAB - cg->strtab_len)
		dt_cg_fail(cg, at->loc, D_CG_EXPR, "expression too complex: more than %d bytes "
			   "of strings in one program", DIF_MAX_STRTAB);
	uint32_t off = cg->strtab_len;
	memcpy(cg->strtab + off, s, len);
	cg->strtab[off + len] = '\0';
	cg->strtab_len += (uint32_t)len + 1;
	return (int32_t)off;
}

static const uint8_t dif_scope[DT_SCOPE_COUNT] = {
	[DT_SCOPE_GLOBAL] = DIF_SCOPE_GLOBAL,
	[DT_SCOPE_THREAD] = DIF_SCOPE_THREAD,
	[DT_SCOPE_CLAUSE] = DIF_SCOPE_CLAUSE,
};

/* Index of v in the program's variable table, added if new. */
static int32_t var_index(struct dt_cg *cg, const struct dt_node *at, const struct dt_var *v)
{
	uint8_t scope = dif_scope[v->scope];
	uint8_t kind = v->is_array ? DIF_KIND_ASSOC : DIF_KIND_SCALAR;
	for (uint32_t i = 0; i < cg->nvars; i++)
		if (cg->vars[i].id == v->id && cg->vars[i].scope == scope && cg->vars[i].kind == kind)
			return (int32_t)i;
	if (v->id >= DIF_MAX_VARS)	/* the kernel keeps each scope's variables in a table */
		dt_cg_fail(cg, at->loc, D_CG_EXPR, "too many variables: %s is number %d of its "
			   "scope, the kernel allows %d", v->name, v->id + 1, DIF_MAX_VARS);
	if (cg->nvars == DIF_MAX_VARS)
		dt_cg_fail(cg, at->loc, D_CG_EXPR, "expression too complex: more than %d "
			   "variables in one program", DIF_MAX_VARS);
	bool string = v->type.kind == DT_TYPE_STRING, byref = dt_var_by_reference(v);
	cg->vars[cg->nvars] = (struct dif_var){
		.id = (uint16_t)v->id, .scope = scope, .kind = kind,
		.type = string ? DIF_TYPE_STRING : byref ? DIF_TYPE_BYREF : DIF_TYPE_INT,
		.nkeys = (uint8_t)(v->is_array ? v->nkeys : 0),
		.size = (uint16_t)(string ? cg->strsize : byref ? v->type.size : 0),
	};
	return (int32_t)cg->nvars++;
}

/* ---- values ---- */

/* reg holds a 64-bit result computed in type t: truncate it to t's width and re-extend. */
static void narrow(struct dt_cg *cg, const struct dt_node *at, int reg, struct dt_type t)
{
	if (t.kind != DT_TYPE_INT || t.size >= 8)
		return;
	int bits = dt_cg_reg_alloc(cg, at);
	dt_cg_load_const(cg, at, bits, 64 - 8u * t.size);
	dt_cg_emit_r3(cg, at, DIF_OP_SHL, reg, reg, bits);
	dt_cg_emit_r3(cg, at, t.is_signed ? DIF_OP_SAR : DIF_OP_SHR, reg, reg, bits);
	dt_cg_reg_free(cg, bits);
}

/*
 * reg holds a value of type `from`; make it a value of type `to` (C's
 * conversion): nothing when every value of `from` already is one of
 * `to`, else truncate and re-extend.
 */
static void fit(struct dt_cg *cg, const struct dt_node *at, int reg, struct dt_type from,
		struct dt_type to)
{
	if (from.kind == DT_TYPE_INT && to.kind == DT_TYPE_INT &&
	    ((from.size < to.size && (to.is_signed || !from.is_signed)) ||
	     (from.size == to.size && from.is_signed == to.is_signed)))
		return;
	narrow(cg, at, reg, to);
}

static int load_builtin(struct dt_cg *cg, const struct dt_node *n, uint8_t var)
{
	if (var >= DIF_VAR_LIMIT)
		dt_cg_fail(cg, n->loc, D_UNKNOWN, "internal error: no DIF built-in for %s",
			   n->str ? n->str : "a built-in");
	int r = dt_cg_reg_alloc(cg, n);
	dt_cg_emit(cg, n, DIF_OP_LDB, r, 0, 0, var);
	return r;
}

static int gen_member(struct dt_cg *cg, const struct dt_node *n)
{
	const struct dt_node *base = n->left;
	if (base->kind == DT_N_BUILTIN && base->ref.builtin->id == DT_BV_CURTHREAD)
		return load_builtin(cg, n, dt_cg_member_var(n->ref.member->id));
	/* self->t, this->t, ...: the current thread or 0 (the checker refused the rest). */
	int r = dt_cg_expr(cg, base);
	uint32_t nonzero = emit_branch(cg, n, DIF_OP_BNE, r, 0);
	dt_cg_emit(cg, n, DIF_OP_LDX, r, r, 0, 0);	/* faults: a NULL dereference */
	land_here(cg, nonzero);
	dt_cg_emit(cg, n, DIF_OP_LDB, r, 0, 0, dt_cg_member_var(n->ref.member->id));
	return r;
}

/* ---- variables and associative arrays ---- */

struct keys {
	int n;
	int reg[DT_MAX_KEYS];
	int32_t size[DT_MAX_KEYS];	/* PUSHT's imm: 0 for an integer, strsize for a string */
};

/*
 * Evaluate keys or arguments into registers. sig, an array's key types
 * (NULL for a call's arguments): each integer key is converted to its
 * type, as DTrace converts a tuple to the array's prototype, so that
 * a[(uint8_t)300] and a[44] name one element.
 */
static void eval_keys(struct dt_cg *cg, const struct dt_node *first, const struct dt_type *sig,
		      struct keys *k)
{
	k->n = 0;
	for (const struct dt_node *a = first; a; a = a->next) {
		if (k->n == DT_MAX_KEYS || k->n == DIF_MAX_TUPLE)
			dt_cg_fail(cg, a->loc, D_CG_EXPR, "too many keys or arguments: at most %d",
				   DT_MAX_KEYS);
		k->reg[k->n] = sig ? dt_cg_expr_as(cg, a, sig[k->n]) : dt_cg_expr(cg, a);
		k->size[k->n] = a->type.kind == DT_TYPE_STRING ? cg->strsize : 0;
		k->n++;
	}
}

static void push_keys(struct dt_cg *cg, const struct dt_node *at, const struct keys *k)
{
	for (int i = 0; i < k->n; i++)
		dt_cg_emit(cg, at, DIF_OP_PUSHT, 0, k->reg[i], 0, k->size[i]);
}

static void free_keys(struct dt_cg *cg, const struct keys *k)
{
	for (int i = k->n - 1; i >= 0; i--)
		dt_cg_reg_free(cg, k->reg[i]);
}

/* Load and store opcodes by scope, [scalar, associative]; clause-local arrays do not exist. */
static const uint8_t load_ops[DT_SCOPE_COUNT][2] = {
	[DT_SCOPE_GLOBAL] = { DIF_OP_LDG, DIF_OP_LDGA },
	[DT_SCOPE_THREAD] = { DIF_OP_LDT, DIF_OP_LDTA },
	[DT_SCOPE_CLAUSE] = { DIF_OP_LDL, DIF_OP_NOP },
};
static const uint8_t store_ops[DT_SCOPE_COUNT][2] = {
	[DT_SCOPE_GLOBAL] = { DIF_OP_STG, DIF_OP_STGA },
	[DT_SCOPE_THREAD] = { DIF_OP_STT, DIF_OP_STTA },
	[DT_SCOPE_CLAUSE] = { DIF_OP_STL, DIF_OP_NOP },
};

/*
 * A variable or array element about to be read and/or written (its keys
 * in registers), or an object in memory (its address in a register).
 */
struct lvalue {
	const struct dt_node *node;
	const struct dt_var *var;	/* NULL: memory */
	struct keys keys;
	int addr;			/* memory: the address is addr + imm */
	int32_t imm;
};

static void lvalue_begin(struct dt_cg *cg, const struct dt_node *n, struct lvalue *lv)
{
	lv->node = n;
	lv->keys.n = 0;
	if (n->kind == DT_N_FIELD || n->kind == DT_N_UNARY) {
		lv->var = NULL;
		lv->addr = dt_cg_memory_address(cg, n, &lv->imm);
		return;
	}
	lv->var = n->ref.var;
	if (n->kind == DT_N_ARRAY)
		eval_keys(cg, n->args, lv->var->keys, &lv->keys);
	if (lv->var->is_array && lv->var->scope == DT_SCOPE_CLAUSE)
		dt_cg_fail(cg, n->loc, D_DECL_LOCASSC, "clause-local associative arrays do not "
			   "exist");
}

static void lvalue_load(struct dt_cg *cg, const struct lvalue *lv, int rd)
{
	if (!lv->var) {
		dt_cg_emit(cg, lv->node, dt_cg_load_op(lv->node->type), rd, lv->addr, 0, lv->imm);
		return;
	}
	bool assoc = lv->var->is_array;
	push_keys(cg, lv->node, &lv->keys);
	dt_cg_emit(cg, lv->node, load_ops[lv->var->scope][assoc], rd, 0, 0,
	     var_index(cg, lv->node, lv->var));
	if (assoc)
		dt_cg_emit(cg, lv->node, DIF_OP_POPT, 0, 0, 0, 0);
}

static void lvalue_store(struct dt_cg *cg, const struct lvalue *lv, int value)
{
	if (!lv->var) {
		dt_cg_emit(cg, lv->node, dt_cg_store_op(lv->node->type), 0, value, lv->addr,
			   lv->imm);
		return;
	}
	bool assoc = lv->var->is_array;
	push_keys(cg, lv->node, &lv->keys);
	dt_cg_emit(cg, lv->node, store_ops[lv->var->scope][assoc], 0, value, 0,
	     var_index(cg, lv->node, lv->var));
	if (assoc)
		dt_cg_emit(cg, lv->node, DIF_OP_POPT, 0, 0, 0, 0);
}

/* The registers an lvalue held: its keys, or its address. */
static void lvalue_end(struct dt_cg *cg, struct lvalue *lv)
{
	if (!lv->var)
		dt_cg_reg_free(cg, lv->addr);
	free_keys(cg, &lv->keys);
}

static int gen_var_load(struct dt_cg *cg, const struct dt_node *n)
{
	struct lvalue lv;
	lvalue_begin(cg, n, &lv);
	push_keys(cg, n, &lv.keys);	/* the tuple holds copies: the registers are free again */
	free_keys(cg, &lv.keys);
	lv.keys.n = 0;
	int r = dt_cg_reg_alloc(cg, n);
	lvalue_load(cg, &lv, r);
	return r;
}

/* ---- operators ---- */

static uint8_t arith_op(enum dt_op op, bool is_signed)
{
	switch (op) {
	case DT_OP_ADD: return DIF_OP_ADD;
	case DT_OP_SUB: return DIF_OP_SUB;
	case DT_OP_MUL: return DIF_OP_MUL;
	case DT_OP_DIV: return is_signed ? DIF_OP_SDIV : DIF_OP_UDIV;
	case DT_OP_MOD: return is_signed ? DIF_OP_SREM : DIF_OP_UREM;
	case DT_OP_SHL: return DIF_OP_SHL;
	case DT_OP_SHR: return is_signed ? DIF_OP_SAR : DIF_OP_SHR;
	case DT_OP_BAND: return DIF_OP_AND;
	case DT_OP_BOR: return DIF_OP_OR;
	case DT_OP_BXOR: return DIF_OP_XOR;
	default: return DIF_OP_LIMIT;
	}
}

/* The type a binary operator computes in: a shift's is its left operand's. */
static struct dt_type op_type(enum dt_op op, struct dt_type l, struct dt_type r)
{
	return op == DT_OP_SHL || op == DT_OP_SHR ? dt_type_promote(l, l) : dt_type_promote(l, r);
}

/*
 * rd = rd OP rs on integers: rd holding a value of type lt, rs one of
 * rt, computed in type t as C does it (see the top of this file).
 */
static void gen_arith(struct dt_cg *cg, const struct dt_node *at, enum dt_op op,
		      struct dt_type t, int rd, struct dt_type lt, int rs, struct dt_type rt)
{
	uint8_t dop = arith_op(op, t.is_signed);
	if (dop == DIF_OP_LIMIT)
		dt_cg_fail(cg, at->loc, D_UNKNOWN, "internal error: operator %s has no DIF "
			   "instruction", dt_op_name(op));
	bool upper_bits_matter = op == DT_OP_DIV || op == DT_OP_MOD || op == DT_OP_SHR ||
				 op == DT_OP_BAND || op == DT_OP_BOR || op == DT_OP_BXOR;
	if (upper_bits_matter) {
		fit(cg, at, rd, lt, t);
		if (op != DT_OP_SHR)	/* a shift count is not converted */
			fit(cg, at, rs, rt, t);
	}
	dt_cg_emit_r3(cg, at, dop, rd, rd, rs);
	if (op == DT_OP_ADD || op == DT_OP_SUB || op == DT_OP_MUL || op == DT_OP_SHL ||
	    (op == DT_OP_DIV && t.is_signed))	/* INT_MIN / -1 leaves int */
		narrow(cg, at, rd, t);
}

/*
 * a = (a OP b) for a comparison: integers converted to their common type
 * and compared signed or not as it is; pointers unsigned; strings
 * through SCMP.
 */
static void gen_compare(struct dt_cg *cg, const struct dt_node *n, int a, int b)
{
	bool strings = n->left->type.kind == DT_TYPE_STRING ||
		       n->right->type.kind == DT_TYPE_STRING;	/* or NULL on one side */
	struct dt_type t = dt_operand_type(n);
	bool sgn = strings || t.is_signed;
	uint8_t lt = sgn ? DIF_OP_SLT : DIF_OP_SLTU, le = sgn ? DIF_OP_SLE : DIF_OP_SLEU;

	if (strings) {
		dt_cg_emit_r3(cg, n, DIF_OP_SCMP, a, a, b);	/* -1, 0 or 1: compare it with 0 */
		b = 0;
	} else {
		fit(cg, n, a, n->left->type, t);
		fit(cg, n, b, n->right->type, t);
	}
	switch (n->op) {
	case DT_OP_EQ: dt_cg_emit_r3(cg, n, DIF_OP_SEQ, a, a, b); break;
	case DT_OP_NE: dt_cg_emit_r3(cg, n, DIF_OP_SNE, a, a, b); break;
	case DT_OP_LT: dt_cg_emit_r3(cg, n, lt, a, a, b); break;
	case DT_OP_LE: dt_cg_emit_r3(cg, n, le, a, a, b); break;
	case DT_OP_GT: dt_cg_emit_r3(cg, n, lt, a, b, a); break;
	case DT_OP_GE: dt_cg_emit_r3(cg, n, le, a, b, a); break;
	default: break;
	}
}

/* The load of a value of type t (a 1-8 byte integer, or a pointer), as C reads it. */
uint8_t dt_cg_load_op(struct dt_type t)
{
	if (t.kind == DT_TYPE_FLOAT)	/* its bits, as they are */
		t = dt_type_c_int(t.size, false, false);
	switch (t.kind == DT_TYPE_INT ? t.size : 8) {
	case 1: return t.is_signed ? DIF_OP_LDSB : DIF_OP_LDUB;
	case 2: return t.is_signed ? DIF_OP_LDSH : DIF_OP_LDUH;
	case 4: return t.is_signed ? DIF_OP_LDSW : DIF_OP_LDUW;
	default: return DIF_OP_LDX;
	}
}

/* && and ||: the right operand only when the left one does not decide. */
static int gen_short_circuit(struct dt_cg *cg, const struct dt_node *n)
{
	int a = dt_cg_expr(cg, n->left);
	dt_cg_emit_r3(cg, n, DIF_OP_SNE, a, a, 0);
	uint32_t decided = emit_branch(cg, n, n->op == DT_OP_LAND ? DIF_OP_BEQ : DIF_OP_BNE, a, 0);
	int b = dt_cg_expr(cg, n->right);
	dt_cg_emit_r3(cg, n, DIF_OP_SNE, a, b, 0);
	dt_cg_reg_free(cg, b);
	land_here(cg, decided);
	return a;
}

static int gen_binary(struct dt_cg *cg, const struct dt_node *n)
{
	if (n->op == DT_OP_LAND || n->op == DT_OP_LOR)
		return gen_short_circuit(cg, n);
	if ((n->op == DT_OP_ADD || n->op == DT_OP_SUB) &&
	    (n->left->type.kind == DT_TYPE_PTR || n->right->type.kind == DT_TYPE_PTR))
		return dt_cg_pointer_arith(cg, n);
	int a = dt_cg_expr(cg, n->left), b = dt_cg_expr(cg, n->right);
	if (n->op == DT_OP_LXOR) {
		dt_cg_emit_r3(cg, n, DIF_OP_SNE, a, a, 0);
		dt_cg_emit_r3(cg, n, DIF_OP_SNE, b, b, 0);
		dt_cg_emit_r3(cg, n, DIF_OP_XOR, a, a, b);
	} else if (n->op >= DT_OP_EQ && n->op <= DT_OP_GE) {
		gen_compare(cg, n, a, b);
	} else {
		gen_arith(cg, n, n->op, n->type, a, n->left->type, b, n->right->type);
	}
	dt_cg_reg_free(cg, b);
	return a;
}

static int gen_unary(struct dt_cg *cg, const struct dt_node *n)
{
	if (n->op == DT_OP_ADDROF)
		return dt_cg_field_address(cg, n->left);
	int a = dt_cg_expr(cg, n->left);
	if (n->op == DT_OP_DEREF) {
		/* The kernel reads through its fault-tolerant path: a bad address is an error. */
		dt_cg_emit(cg, n, dt_cg_load_op(n->type), a, a, 0, 0);
		return a;
	}
	switch (n->op) {
	case DT_OP_NEG: dt_cg_emit(cg, n, DIF_OP_NEG, a, a, 0, 0); break;
	case DT_OP_BNOT: dt_cg_emit(cg, n, DIF_OP_NOT, a, a, 0, 0); break;
	case DT_OP_LNOT: dt_cg_emit_r3(cg, n, DIF_OP_SEQ, a, a, 0); break;
	default: break;		/* unary +: the same value */
	}
	if (n->op == DT_OP_NEG || n->op == DT_OP_BNOT)	/* -INT_MIN, ~ of an unsigned char */
		narrow(cg, n, a, n->type);
	return a;
}

static int gen_ternary(struct dt_cg *cg, const struct dt_node *n)
{
	int r = dt_cg_expr(cg, n->cond);
	uint32_t to_else = emit_branch(cg, n, DIF_OP_BEQ, r, 0);
	int a = dt_cg_expr(cg, n->left);
	fit(cg, n, a, n->left->type, n->type);
	dt_cg_emit(cg, n, DIF_OP_MOV, r, a, 0, 0);
	dt_cg_reg_free(cg, a);
	uint32_t to_end = emit_branch(cg, n, DIF_OP_BA, 0, 0);
	land_here(cg, to_else);
	int b = dt_cg_expr(cg, n->right);
	fit(cg, n, b, n->right->type, n->type);
	dt_cg_emit(cg, n, DIF_OP_MOV, r, b, 0, 0);
	dt_cg_reg_free(cg, b);
	land_here(cg, to_end);
	return r;
}

/* left = right, left op= right: the value is left's afterwards. */
static int gen_assign(struct dt_cg *cg, const struct dt_node *n)
{
	struct lvalue lv;
	struct dt_type ltype = n->left->type;
	int v;

	lvalue_begin(cg, n->left, &lv);
	if (n->op == DT_OP_NONE && n->right->kind == DT_N_INT) {
		v = dt_cg_reg_alloc(cg, n);	/* a constant converts when compiled */
		dt_cg_load_const(cg, n, v, dt_type_normalize(ltype, n->right->value));
	} else if (n->op == DT_OP_NONE) {
		v = dt_cg_expr(cg, n->right);
		fit(cg, n, v, n->right->type, ltype);
	} else {
		v = dt_cg_reg_alloc(cg, n);
		lvalue_load(cg, &lv, v);
		int r = dt_cg_expr(cg, n->right);
		struct dt_type t = op_type(n->op, ltype, n->right->type);
		gen_arith(cg, n, n->op, t, v, ltype, r, n->right->type);
		dt_cg_reg_free(cg, r);
		fit(cg, n, v, t, ltype);
	}
	lvalue_store(cg, &lv, v);
	lvalue_end(cg, &lv);
	return v;
}

/* ++x, x++, --x, x--: the new value or the old one. */
static int gen_incdec(struct dt_cg *cg, const struct dt_node *n)
{
	struct lvalue lv;
	struct dt_type type = n->left->type;
	bool post = n->op == DT_OP_POSTINC || n->op == DT_OP_POSTDEC;
	bool inc = n->op == DT_OP_PREINC || n->op == DT_OP_POSTINC;

	lvalue_begin(cg, n->left, &lv);
	int old = dt_cg_reg_alloc(cg, n);
	lvalue_load(cg, &lv, old);
	int updated = dt_cg_reg_alloc(cg, n);
	dt_cg_load_const(cg, n, updated, 1);
	dt_cg_emit_r3(cg, n, inc ? DIF_OP_ADD : DIF_OP_SUB, updated, old, updated);
	narrow(cg, n, updated, type);
	lvalue_store(cg, &lv, updated);
	dt_cg_reg_free(cg, post ? updated : old);
	lvalue_end(cg, &lv);
	return post ? old : updated;
}

static int gen_call(struct dt_cg *cg, const struct dt_node *n)
{
	const struct dt_func *f = n->ref.func;
	if (f->id == DT_F_FUNC || f->id == DT_F_SYM || f->id == DT_F_STRINGOF)
		return dt_cg_expr(cg, n->args);		/* the type says how it prints */
	uint8_t subr = dt_cg_subroutine(f->id);
	if (subr == DIF_SUBR_LIMIT)
		dt_cg_fail(cg, n->loc, D_UNKNOWN, "internal error: %s( ) has no DIF subroutine",
			   f->name);
	struct keys args;
	eval_keys(cg, n->args, NULL, &args);
	push_keys(cg, n, &args);
	free_keys(cg, &args);
	int r = dt_cg_reg_alloc(cg, n);
	dt_cg_emit(cg, n, DIF_OP_CALL, r, 0, 0, subr);	/* it empties the tuple */
	if (f->result.kind != DT_TYPE_VOID)
		fit(cg, n, r, dt_type_uint64, f->result);	/* rand( ) is an int */
	return r;
}

int dt_cg_expr(struct dt_cg *cg, const struct dt_node *n)
{
	int r;
	switch (n->kind) {
	case DT_N_INT:
		r = dt_cg_reg_alloc(cg, n);
		dt_cg_load_const(cg, n, r, n->value);
		return r;
	case DT_N_STRING:
		r = dt_cg_reg_alloc(cg, n);
		dt_cg_emit(cg, n, DIF_OP_LDSTR, r, 0, 0, string_index(cg, n, n->str, n->len));
		return r;
	case DT_N_BUILTIN:
		return load_builtin(cg, n, dt_cg_builtin_var(n->ref.builtin->id));
	case DT_N_MEMBER:
		return gen_member(cg, n);
	case DT_N_FIELD:
		return dt_cg_field(cg, n);
	case DT_N_VAR:
	case DT_N_ARRAY:
		return gen_var_load(cg, n);
	case DT_N_UNARY:
		return gen_unary(cg, n);
	case DT_N_BINARY:
		return gen_binary(cg, n);
	case DT_N_TERNARY:
		return gen_ternary(cg, n);
	case DT_N_ASSIGN:
		return gen_assign(cg, n);
	case DT_N_INCDEC:
		return gen_incdec(cg, n);
	case DT_N_CAST:
		r = dt_cg_expr(cg, n->left);
		fit(cg, n, r, n->left->type, n->type);
		return r;
	case DT_N_CALL:
		return gen_call(cg, n);
	case DT_N_COMMA:
		dt_cg_reg_free(cg, dt_cg_expr(cg, n->left));
		return dt_cg_expr(cg, n->right);
	default:
		break;
	}
	dt_cg_fail(cg, n->loc, D_UNKNOWN, "internal error: expression node of kind %d has no "
		   "code", (int)n->kind);
}

int dt_cg_expr_as(struct dt_cg *cg, const struct dt_node *n, struct dt_type to)
{
	int r = dt_cg_expr(cg, n);
	if (n->type.kind == DT_TYPE_INT && to.kind == DT_TYPE_INT)
		fit(cg, n, r, n->type, to);
	return r;
}

/* A copy of bytes at src in the context's memory (NULL for none). */
static void *copy_out(struct dt_ctx *ctx, const void *src, size_t bytes)
{
	return bytes ? memcpy(dt_alloc(ctx, bytes), src, bytes) : NULL;
}

uint32_t dt_cg_prog_finish(struct dt_cg *cg, int reg, struct dt_type type, struct dt_loc loc)
{
	struct dt_node at = { .loc = loc };
	dt_cg_emit(cg, &at, DIF_OP_RET, 0, reg, 0, 0);

	struct dt_object *obj = cg->obj;
	if (obj->nprogs == DOF_MAX_PROGS)
		dt_cg_fail(cg, loc, D_CG_EXPR, "too many programs: the object holds at most %d "
			   "(predicates, recorded values, keys...)", DOF_MAX_PROGS);
	struct dt_ctx *ctx = cg->ctx;
	struct dif_insn *insns = copy_out(ctx, cg->insns, cg->ninsns * sizeof(*insns));
	uint64_t *ints = copy_out(ctx, cg->ints, cg->nints * sizeof(*ints));
	char *strtab = copy_out(ctx, cg->strtab, cg->strtab_len);
	struct dif_var *vars = copy_out(ctx, cg->vars, cg->nvars * sizeof(*vars));
	bool string = type.kind == DT_TYPE_STRING;
	bool object = type.kind == DT_TYPE_SOU || type.kind == DT_TYPE_ARRAY;	/* its address */
	struct dif_prog p = {
		.insns = insns, .ninsns = cg->ninsns, .ints = ints, .nints = cg->nints,
		.strtab = strtab, .strtab_len = cg->strtab_len, .vars = vars, .nvars = cg->nvars,
		.rtype = string ? DIF_TYPE_STRING : object ? DIF_TYPE_BYREF : DIF_TYPE_INT,
		.rsize = (uint16_t)(string ? cg->strsize : object ? type.size : 0),
		.strsize = cg->strsize,
	};
	char why[200];
	if (dif_verify(&p, why, sizeof(why)))
		dt_cg_fail(cg, loc, D_UNKNOWN, "internal error: generated code fails verification: %s",
			   why);
	if (obj->nprogs == cg->progs_cap) {
		uint32_t cap = cg->progs_cap ? 2 * cg->progs_cap : 64;
		struct dif_prog *bigger = dt_alloc(ctx, cap * sizeof(*bigger));
		if (obj->nprogs)
			memcpy(bigger, obj->progs, obj->nprogs * sizeof(*bigger));
		obj->progs = bigger;
		cg->progs_cap = cap;
	}
	obj->progs[obj->nprogs] = p;
	return obj->nprogs++;
}
