// SPDX-License-Identifier: BSD-2-Clause
/*
 * Code for objects of C types (DT_N_FIELD, dt_check_ctype.c): a member,
 * an array element, a kernel variable, *p of a struct pointer.
 *
 * The address is the base pointer's register plus the folded offset; a
 * scalar member is one load with that offset as the load's immediate
 * (LDSB..LDX, sign- or zero-extended as C converts the member), read
 * through the kernel's fault-tolerant path like any D load. A bit-field
 * loads its whole unit (the width of its declared type, aligned), then
 * shifts and masks (or sign-extends) its bits out; the checker computed
 * the shift for the kernel's byte order.
 */
#include "dt_cg.h"

/* reg + imm as a load can address it: the offset if it fits the immediate, else added now. */
static int32_t fold_offset(struct dt_cg *cg, const struct dt_node *n, int reg, uint64_t offset)
{
	if ((int64_t)offset == (int32_t)offset)
		return (int32_t)offset;
	int k = dt_cg_reg_alloc(cg, n);
	dt_cg_load_const(cg, n, k, offset);
	dt_cg_emit_r3(cg, n, DIF_OP_ADD, reg, reg, k);
	dt_cg_reg_free(cg, k);
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
	int32_t imm = fold_offset(cg, n, r, n->value);
	if (imm) {
		int k = dt_cg_reg_alloc(cg, n);
		dt_cg_load_const(cg, n, k, (uint64_t)(int64_t)imm);
		dt_cg_emit_r3(cg, n, DIF_OP_ADD, r, r, k);
		dt_cg_reg_free(cg, k);
	}
	return r;
}

/* r >>= shift (logical), r <<= bits: one shift by a constant. */
static void shift_by(struct dt_cg *cg, const struct dt_node *n, uint8_t op, int r, unsigned by)
{
	if (!by)
		return;
	int k = dt_cg_reg_alloc(cg, n);
	dt_cg_load_const(cg, n, k, by);
	dt_cg_emit_r3(cg, n, op, r, r, k);
	dt_cg_reg_free(cg, k);
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
	shift_by(cg, n, DIF_OP_SHL, r, 64u - n->shift - n->bits);
	shift_by(cg, n, t.is_signed ? DIF_OP_SAR : DIF_OP_SHR, r, 64u - n->bits);
	return r;
}
