// SPDX-License-Identifier: BSD-2-Clause
/*
 * Jump tables behind indirect jumps, by a backward slice over the
 * instructions before the jump (pure code: the host tests build it too).
 *
 * GCC's non-PIC switch dispatch in the kernel's code model is
 *     cmp  $N, %idx         (or a narrower form of idx)
 *     ja   default
 *     [mov %src, %idx | movzx %src, %idx]...
 *     jmp  *TABLE(, %idx, 8)
 * with 8-byte absolute entries: the table has N + 1 of them. The slice
 * follows the index back through register moves and zero extensions and
 * stops at anything else that writes it.
 */
#include <arch/insn.h>

#define MAX_SLICE 16

#define OP_CMP_EB_IB   0x80	/* /7 */
#define OP_CMP_EV_IZ   0x81	/* /7 */
#define OP_CMP_EV_IB   0x83	/* /7 */
#define OP_CMP_AL_IB   0x3c
#define OP_CMP_RAX_IZ  0x3d
#define OP_MOV_EV_GV   0x89
#define OP_MOV_GV_EV   0x8b
#define OP_MOVZX_GV_EB 0xb6	/* 0f map */
#define OP_MOVZX_GV_EW 0xb7	/* 0f map */
#define OP_JMP_GROUP   0xff	/* /4: jmp Ev */
#define OP_JA_REL8     0x77
#define OP_JAE_REL8    0x73
#define OP_JA_REL32    0x87	/* 0f map */
#define OP_JAE_REL32   0x83	/* 0f map */
#define REG_CMP        7
#define REG_JMP        4
#define SIB_SCALE_8    3
#define SIB_NO_INDEX   4
#define SIB_NO_BASE    5

static unsigned modrm_reg(const struct insn *in)
{
	return ((in->modrm >> 3) & 7) | ((in->rex & 4) ? 8 : 0);
}

static unsigned modrm_rm(const struct insn *in)
{
	return (in->modrm & 7) | ((in->rex & 1) ? 8 : 0);
}

static bool register_form(const struct insn *in)
{
	return in->has_modrm && (in->modrm >> 6) == 3;
}

/* An unsigned "above" test: ja (index <= N passes) or jae (index < N passes). */
static int bound_branch(const struct insn *in)
{
	bool legacy = in->encoding == INSN_LEGACY && in->cf == INSN_CF_JCC;
	if (legacy && ((in->map == INSN_MAP_ONE && in->opcode == OP_JA_REL8) ||
		       (in->map == INSN_MAP_0F && in->opcode == OP_JA_REL32)))
		return 1;
	if (legacy && ((in->map == INSN_MAP_ONE && in->opcode == OP_JAE_REL8) ||
		       (in->map == INSN_MAP_0F && in->opcode == OP_JAE_REL32)))
		return 0;
	return -1;
}

/* cmp $imm, %reg: the register compared, or -1. */
static int compared_register(const struct insn *in)
{
	if (in->encoding != INSN_LEGACY || in->map != INSN_MAP_ONE)
		return -1;
	if ((in->opcode == OP_CMP_EB_IB || in->opcode == OP_CMP_EV_IZ ||
	     in->opcode == OP_CMP_EV_IB) && register_form(in) && ((in->modrm >> 3) & 7) == REG_CMP)
		return (int)modrm_rm(in);
	if (in->opcode == OP_CMP_AL_IB || in->opcode == OP_CMP_RAX_IZ)
		return INSN_RAX;
	return -1;
}

/* A register-to-register copy into dst (mov, movzx): the source, or -1. */
static int copy_source(const struct insn *in, unsigned dst)
{
	if (in->encoding != INSN_LEGACY || !register_form(in))
		return -1;
	if (in->map == INSN_MAP_ONE && in->opcode == OP_MOV_EV_GV && modrm_rm(in) == dst)
		return (int)modrm_reg(in);
	if (in->map == INSN_MAP_ONE && in->opcode == OP_MOV_GV_EV && modrm_reg(in) == dst)
		return (int)modrm_rm(in);
	if (in->map == INSN_MAP_0F && (in->opcode == OP_MOVZX_GV_EB || in->opcode == OP_MOVZX_GV_EW) &&
	    modrm_reg(in) == dst)
		return (int)modrm_rm(in);
	return -1;
}

bool insn_find_jump_table(const struct insn *jump, const struct insn *before, unsigned n,
			  struct insn_jump_table *jt)
{
	if (jump->encoding != INSN_LEGACY || jump->map != INSN_MAP_ONE ||
	    jump->opcode != OP_JMP_GROUP || ((jump->modrm >> 3) & 7) != REG_JMP ||
	    !jump->has_sib || (jump->modrm >> 6) != 0 || (jump->sib & 7) != SIB_NO_BASE ||
	    (jump->sib >> 6) != SIB_SCALE_8 || (jump->prefixes & INSN_PFX_ADSIZE))
		return false;
	unsigned index = ((jump->sib >> 3) & 7) | ((jump->rex & 2) ? 8 : 0);
	if (index == SIB_NO_INDEX)
		return false;

	int above = -1;
	for (unsigned k = 0; k < n && k < MAX_SLICE; k++) {
		const struct insn *in = &before[n - 1 - k];
		if (in->status != INSN_OK)
			return false;
		if (above < 0) {
			above = bound_branch(in);
			if (above >= 0)
				continue;
			if (in->regs_written & INSN_REG(index)) {
				int src = copy_source(in, index);
				if (src < 0)
					return false;
				index = (unsigned)src;
			}
			continue;
		}
		/* After the bounds branch, the compare that feeds it. */
		if (compared_register(in) == (int)index && in->imm >= 0) {
			jt->table = (uint64_t)jump->disp;
			jt->entry_size = 8;
			jt->entries = (unsigned)in->imm + (above ? 1u : 0u);
			jt->relative = false;
			jt->base = 0;
			return jt->entries > 0;
		}
		if (in->regs_written & (INSN_REG(index) | INSN_STATUS_FLAGS))
			return false;
	}
	return false;
}
