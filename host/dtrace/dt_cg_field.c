// SPDX-License-Identifier: BSD-2-Clause
/*
 * Code for addresses: objects of C types (DT_N_FIELD, dt_check_ctype.c):
 * a member, an array element, a kernel variable, *p of a struct pointer;
 * and pointer arithmetic, scaled by the element's size as in C.
 *
 * The address is the base pointer's register plus the folded offset; a
 * scalar member is one load with that offset as the load's immediate
 * (LDSB..LDX, sign- or zero-extended as C converts the member), read
 * through the kernel's fault-tolerant path like any D load. A bit-field
 * loads its whole unit (the width of its declared type, aligned), then
 * shifts and masks (or sign-extends) its bits out; the checker computed
 * the shift for the kernel's byte order. A store to a member, element or
 * *p is one ST at the same address (the kernel lets it write only
 * alloca's scratch).
 */
#include "dt_cg.h"

/* r = r OP k for a constant k (nothing when k is op's identity: 1 for * and /, else 0). */
static void op_const(struct dt_cg *cg, const struct dt_node *n, uint8_t op, int r, uint64_t k)
{
	if (k == (op == DIF_OP_MUL || op == DIF_OP_SDIV ? 1u : 0u))
		return;
	int reg = dt_cg_reg_alloc(cg, n);
	dt_cg_load_const(cg, n, reg, k);
	dt_cg_emit_r3(cg, n, op, r, r, reg);
	dt_cg_reg_free(cg, reg);
}

/* reg + imm as a load can address it: the offset if it fits the immediate, else added now. */
static int32_t fold_offset(struct dt_cg *cg, const struct dt_node *n, int reg, uint64_t offset)
{
	if ((int64_t)offset == (int32_t)offset)
		return (int32_t)offset;
	op_const(cg, n, DIF_OP_ADD, reg, offset);
	return 0;
}

/* The base address in a register (0 for a kernel variable, whose address is the offset). */
static int base_register(struct dt_cg *cg, const struct dt_node *n)
{
	if (n->left)
		return dt_cg_expr(cg, n->left);
	int r = dt_cg_reg_alloc(cg, n);
	dt_cg_load_const(cg, n, r, 0);
	return r;
}

int dt_cg_field_address(struct dt_cg *cg, const struct dt_node *n)
{
	if (n->kind != DT_N_FIELD)
		dt_cg_fail(cg, n->loc, D_UNKNOWN, "internal error: & of something not in memory");
	int r = base_register(cg, n);
	op_const(cg, n, DIF_OP_ADD, r, n->value);
	return r;
}


int dt_cg_memory_address(struct dt_cg *cg, const struct dt_node *n, int32_t *imm)
{
	if (n->kind == DT_N_UNARY) {	/* *p */
		*imm = 0;
		return dt_cg_expr(cg, n->left);
	}
	int r = base_register(cg, n);
	*imm = fold_offset(cg, n, r, n->value);
	return r;
}

uint8_t dt_cg_store_op(struct dt_type t)
{
	switch (t.kind == DT_TYPE_INT ? t.size : 8) {
	case 1: return DIF_OP_STB;
	case 2: return DIF_OP_STH;
	case 4: return DIF_OP_STW;
	default: return DIF_OP_STX;
	}
}

int dt_cg_field(struct dt_cg *cg, const struct dt_node *n)
{
	struct dt_type t = n->type;
	if (t.kind != DT_TYPE_INT && t.kind != DT_TYPE_PTR && t.kind != DT_TYPE_FLOAT)
		return dt_cg_field_address(cg, n);	/* a struct or array: where it is */
	int r = base_register(cg, n);
	int32_t imm = fold_offset(cg, n, r, n->value);
	if (!n->bits) {
		dt_cg_emit(cg, n, dt_cg_load_op(t), r, r, 0, imm);
		return r;
	}
	/* A bit-field: the unit, its bits moved to the top, then down with or without sign. */
	struct dt_type unit = t;
	unit.is_signed = false;
	dt_cg_emit(cg, n, dt_cg_load_op(unit), r, r, 0, imm);
	op_const(cg, n, DIF_OP_SHL, r, 64u - n->shift - n->bits);
	op_const(cg, n, t.is_signed ? DIF_OP_SAR : DIF_OP_SHR, r, 64u - n->bits);
	return r;
}

/*
 * p + i, i + p, p - i: the integer scaled by the element size; p - q:
 * the byte distance divided by it (signed, as C's ptrdiff_t).
 */
int dt_cg_pointer_arith(struct dt_cg *cg, const struct dt_node *n)
{
	int a = dt_cg_expr(cg, n->left), b = dt_cg_expr(cg, n->right);
	bool left_ptr = n->left->type.kind == DT_TYPE_PTR;
	bool right_ptr = n->right->type.kind == DT_TYPE_PTR;
	unsigned size = dt_type_pointee_size(left_ptr ? n->left->type : n->right->type);

	if (left_ptr && right_ptr) {
		dt_cg_emit_r3(cg, n, DIF_OP_SUB, a, a, b);
		op_const(cg, n, DIF_OP_SDIV, a, size);
	} else {
		if (n->bound)	/* an index into a D array variable */
			dt_cg_emit(cg, n, DIF_OP_BND, 0, left_ptr ? b : a, 0, (int32_t)n->bound);
		op_const(cg, n, DIF_OP_MUL, left_ptr ? b : a, size);
		dt_cg_emit_r3(cg, n, n->op == DT_OP_ADD ? DIF_OP_ADD : DIF_OP_SUB, a, a, b);
	}
	dt_cg_reg_free(cg, b);
	return a;
}
