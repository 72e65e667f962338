// SPDX-License-Identifier: BSD-2-Clause
/*
 * Running an instruction somewhere else (see arch/patch.h).
 *
 *   - no dependence on where it is: copied;
 *   - RIP-relative operand: copied with the displacement re-aimed;
 *   - jmp/jcc rel8 or rel32: re-encoded as rel32 to the same target;
 *   - call rel32: push of the original return address, jmp to the target;
 *   - call *operand: push of the original return address, jmp *operand
 *     (refused when the operand uses rsp, which the push moves);
 *   - loop/jrcxz (rel8 only): the short branch over a jmp to the target;
 *   - refused: 16-bit branches, xbegin, syscall and the far transfers,
 *     and int3 (a breakpoint that is not ours).
 */
#include <arch/patch.h>
#include <scion/errno.h>
#include "x86_encodings.h"

#define REX_B 0x1
#define RM_SIB 4
#define MOD_REGISTER 3

static void put(struct patch_buf *b, const uint8_t *bytes, size_t n)
{
	if (b->len + n > b->cap) {
		b->overflow = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		b->code[b->len++] = bytes[i];
}

static void put_u8(struct patch_buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void put_rel32(struct patch_buf *b, uint64_t target)
{
	int64_t rel = (int64_t)(target - (patch_buf_pc(b) + 4));
	uint32_t v = (uint32_t)rel;
	uint8_t le[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	if (rel != (int32_t)rel)
		b->out_of_reach = true;
	put(b, le, 4);
}

/* Copy the instruction, re-aiming a RIP-relative displacement. */
void patch_copy_insn(struct patch_buf *b, const struct insn *in, const uint8_t *orig)
{
	size_t start = b->len;
	uint64_t new_next = patch_buf_pc(b) + in->length;

	put(b, orig, in->length);
	if (!in->rip_relative || b->overflow)
		return;
	int64_t disp = (int64_t)(in->target - new_next);
	if (disp != (int32_t)disp) {
		b->out_of_reach = true;
		return;
	}
	uint32_t v = (uint32_t)disp;
	for (unsigned i = 0; i < 4; i++)
		b->code[start + in->disp_offset + i] = (uint8_t)(v >> (8 * i));
}

/* Push a 64-bit return address without a scratch register. */
static void push_return_address(struct patch_buf *b, uint64_t ret)
{
	put(b, x86_enc_push_imm32, sizeof(x86_enc_push_imm32));
	put(b, (const uint8_t[]){ (uint8_t)ret, (uint8_t)(ret >> 8), (uint8_t)(ret >> 16),
				  (uint8_t)(ret >> 24) }, 4);
	if ((int64_t)ret != (int32_t)ret) {
		/* movl $high, 4(%rsp) */
		uint32_t hi = (uint32_t)(ret >> 32);
		put(b, x86_enc_mov_rm_imm32, sizeof(x86_enc_mov_rm_imm32));
		put(b, (const uint8_t[]){ (uint8_t)(0x40 | X86_ENC_MOV_RM_IMM32_EXT << 3 | RM_SIB),
					  0x24, 4, (uint8_t)hi, (uint8_t)(hi >> 8),
					  (uint8_t)(hi >> 16), (uint8_t)(hi >> 24) }, 7);
	}
}

/* Does the memory operand (or register) of call *operand involve rsp? */
static bool operand_uses_rsp(const struct insn *in)
{
	unsigned mod = in->modrm >> 6, rm = in->modrm & 7;
	if (mod == MOD_REGISTER)
		return rm == 4 && !(in->rex & REX_B);
	if (rm == RM_SIB)
		return (in->sib & 7) == 4 && !(in->rex & REX_B);
	return false;
}

/* call *operand -> push return address; jmp *operand (the same operand). */
static int relocate_indirect_call(struct patch_buf *b, const struct insn *in, const uint8_t *orig,
				  const char **why)
{
	if (in->encoding != INSN_LEGACY || operand_uses_rsp(in)) {
		*why = "an indirect call through rsp cannot move (the return address push moves rsp)";
		return -EINVAL;
	}
	push_return_address(b, in->addr + in->length);
	size_t start = b->len;
	patch_copy_insn(b, in, orig);
	if (b->overflow)
		return 0;
	uint8_t *modrm = &b->code[start + in->modrm_offset];
	*modrm = (uint8_t)((*modrm & ~0x38) | X86_ENC_JMP_RM_EXT << 3);	/* /2 -> /4 */
	return 0;
}

int patch_relocate(struct patch_buf *b, const struct insn *in, const uint8_t *orig,
		   const char **why)
{
	if (in->status != INSN_OK) {
		*why = "not a valid instruction";
		return -EINVAL;
	}
	if (in->vendor_specific || (insn_has_branch_target(in) && in->imm_size == 2)) {
		*why = "a 16-bit branch (its meaning depends on the CPU vendor)";
		return -EINVAL;
	}
	switch (in->cf) {
	case INSN_CF_JMP:
		put(b, x86_enc_jmp_rel32, sizeof(x86_enc_jmp_rel32));
		put_rel32(b, in->target);
		return 0;
	case INSN_CF_JCC:
		put_u8(b, x86_enc_jcc_rel32[0]);
		put_u8(b, (uint8_t)(x86_enc_jcc_rel32[1] | (in->opcode & 15)));
		put_rel32(b, in->target);
		return 0;
	case INSN_CF_CALL:
		push_return_address(b, in->addr + in->length);
		put(b, x86_enc_jmp_rel32, sizeof(x86_enc_jmp_rel32));
		put_rel32(b, in->target);
		return 0;
	case INSN_CF_CALL_INDIRECT:
		return relocate_indirect_call(b, in, orig, why);
	case INSN_CF_LOOP: {
		/* [67] op +2 ; jmp short +5 ; jmp target */
		put(b, orig, in->opcode_offset + 1u);
		put_u8(b, 2);
		put(b, x86_enc_jmp_rel8, sizeof(x86_enc_jmp_rel8));
		put_u8(b, 5);
		put(b, x86_enc_jmp_rel32, sizeof(x86_enc_jmp_rel32));
		put_rel32(b, in->target);
		return 0;
	}
	case INSN_CF_XBEGIN:
		*why = "xbegin (its abort address is relative)";
		return -EINVAL;
	case INSN_CF_SYSCALL: case INSN_CF_SYSRET: case INSN_CF_IRET:
	case INSN_CF_JMP_FAR: case INSN_CF_CALL_FAR: case INSN_CF_RET_FAR:
		*why = "a system or far control transfer";
		return -EINVAL;
	case INSN_CF_INT3:
		*why = "a breakpoint that belongs to someone else";
		return -EINVAL;
	default:
		patch_copy_insn(b, in, orig);
		return 0;
	}
}
