/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dt_cg.h - what the code generator's pieces share: the state of one
 * generation (the DIF program being built, its registers and tables,
 * the programs made so far), expression code (dt_cg.c), and the object
 * writer (dt_dof.c). dt_cg_clause.c drives them per clause.
 *
 * Invariants:
 * - A register returned by dt_cg_expr holds the node's value as its type
 *   says: integers narrower than 64 bits sign- or zero-extended, strings
 *   and curthread as addresses; the caller frees it.
 * - The tuple (PUSHT) is empty between expressions: keys and arguments
 *   are evaluated into registers first and pushed right before the
 *   instruction that consumes them, since any subexpression (a nested
 *   array element, a call) empties the tuple itself.
 * - Branches only go forward and every program ends in RET; every
 *   finished program has passed dif_verify.
 * - A failure inside one program is reported (dt_error) and longjmps to
 *   cg->fail; generation goes on with the next program, so one run
 *   reports every problem.
 */
#ifndef SCION_DT_CG_H
#define SCION_DT_CG_H

#include "dt_impl.h"

#define DT_CG_DATUM_ALIGN 8	/* record data and aggregation key items start at multiples of 8 */

struct dt_cg {
	struct dt_ctx *ctx;
	struct dt_object *obj;
	uint16_t strsize;		/* of every string value, NUL included */
	jmp_buf fail;			/* the current program failed (reported) */
	uint32_t progs_cap;		/* of obj->progs */

	/* The program being built. */
	uint16_t busy;			/* bit r: register r holds a value */
	uint32_t ninsns, nints, strtab_len, nvars;
	struct dif_insn insns[DIF_MAX_INSNS];
	uint64_t ints[DIF_MAX_INTS];
	char strtab[DIF_MAX_STRTAB];
	struct dif_var vars[DIF_MAX_VARS];
};

/* Report an error at loc and abandon the current program (longjmp to cg->fail). */
_Noreturn void dt_cg_fail(struct dt_cg *cg, struct dt_loc loc, enum dt_errtag tag,
			  const char *fmt, ...) DT_PRINTF_LIKE(4, 5);

/* Start a new program: no instructions, empty tables, every register free. */
void dt_cg_prog_reset(struct dt_cg *cg);

/*
 * Evaluate n into a register (see the invariants above). Fails (longjmp)
 * when the expression needs more registers or instructions than DIF has.
 */
int dt_cg_expr(struct dt_cg *cg, const struct dt_node *n);
void dt_cg_reg_free(struct dt_cg *cg, int reg);
/* Instructions and registers, for the parts of code generation in other files. */
int dt_cg_reg_alloc(struct dt_cg *cg, const struct dt_node *at);
uint32_t dt_cg_emit(struct dt_cg *cg, const struct dt_node *at, uint8_t op, int rd, int r1,
		    int r2, int32_t imm);
void dt_cg_emit_r3(struct dt_cg *cg, const struct dt_node *at, uint8_t op, int rd, int r1,
		   int r2);
void dt_cg_load_const(struct dt_cg *cg, const struct dt_node *at, int rd, uint64_t v);
/* The load instruction reading a value of type t (its width and sign). */
uint8_t dt_cg_load_op(struct dt_type t);
/* A DT_N_FIELD: its value (a load; a bit-field extracted) and its address (dt_cg_field.c). */
int dt_cg_field(struct dt_cg *cg, const struct dt_node *n);
int dt_cg_field_address(struct dt_cg *cg, const struct dt_node *n);
/*
 * An object in memory written by = ++ -- op= (a DT_N_FIELD or *p): its
 * address as a register plus *imm, and the store for its type.
 */
int dt_cg_memory_address(struct dt_cg *cg, const struct dt_node *n, int32_t *imm);
uint8_t dt_cg_store_op(struct dt_type t);
/* p + i, i + p, p - i and p - q, scaled by the element's size (dt_cg_field.c). */
int dt_cg_pointer_arith(struct dt_cg *cg, const struct dt_node *n);
/*
 * dt_cg_expr, then an integer value converted to integer type `to` as C
 * converts it (truncated to its width, re-extended); other values as
 * they are. For keys, which take the type of their array's or
 * aggregation's signature.
 */
int dt_cg_expr_as(struct dt_cg *cg, const struct dt_node *n, struct dt_type to);

/*
 * End the program with RET reg (0: r0, the value 0) returning a value of
 * type, verify it and add it to obj->progs. Returns its index.
 */
uint32_t dt_cg_prog_finish(struct dt_cg *cg, int reg, struct dt_type type, struct dt_loc loc);

/* The DIF_VAR_* / DIF_SUBR_* of a D name (dt_cg_names.c); *_LIMIT when it has none. */
uint8_t dt_cg_builtin_var(enum dt_builtin_id id);
uint8_t dt_cg_member_var(enum dt_member_id id);
uint8_t dt_cg_subroutine(enum dt_func_id id);

/* DIF_TYPE_* of a D type: strings are strings, everything else an integer. */
uint8_t dt_cg_dif_type(struct dt_type t);

/*
 * Serialize obj (its programs, clauses, aggregations and options) into
 * obj->bytes as scion/dof.h lays it out. Returns 0, or -1 after
 * reporting that the object is larger than DOF_MAX_OBJECT.
 */
int dt_dof_write(struct dt_ctx *ctx, struct dt_object *obj);

#endif
