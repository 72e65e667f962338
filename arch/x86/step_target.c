// SPDX-License-Identifier: BSD-2-Clause
/*
 * Where a paused thread's next instruction goes, from its registers and
 * memory, for single steps (kernel/debug/step.c; arch/stack.h): a ret's
 * return address on top of the stack, and an indirect call's or jump's
 * target (ff /2, ff /4) from its register, or from the memory its ModRM
 * operand names (base + index * scale + displacement, or RIP-relative).
 * Every word is read through arch_safe_read, so a bad address only makes
 * the answer unknown. A segment override, a 32-bit address or a
 * narrower operand is not worked out (unknown). The frame holds the
 * registers before the instruction runs; memory is read now, so a
 * pointer another thread changes before the instruction runs is missed
 * (the step then waits in vain and lets the thread run on).
 */
#include <arch/stack.h>
#include <arch/safe_read.h>
#include <arch/insn.h>

#define REX_B 0x1
#define REX_X 0x2

/* General register n (enum insn_reg) of f. */
static uint64_t frame_reg(const struct trap_frame *f, unsigned n)
{
	switch (n) {
	case INSN_RAX: return f->rax;
	case INSN_RCX: return f->rcx;
	case INSN_RDX: return f->rdx;
	case INSN_RBX: return f->rbx;
	case INSN_RSP: return f->rsp;
	case INSN_RBP: return f->rbp;
	case INSN_RSI: return f->rsi;
	case INSN_RDI: return f->rdi;
	case INSN_R8: return f->r8;
	case INSN_R9: return f->r9;
	case INSN_R10: return f->r10;
	case INSN_R11: return f->r11;
	case INSN_R12: return f->r12;
	case INSN_R13: return f->r13;
	case INSN_R14: return f->r14;
	default: return f->r15;
	}
}

/* ret (and ret imm16) pops its return address from the top of the stack. */
bool arch_return_target(const struct trap_frame *f, uint64_t *to)
{
	return !arch_safe_read(to, trap_frame_sp(f), sizeof(*to)) && *to;
}

/* The address of in's ModRM memory operand with f's registers. */
static uint64_t operand_address(const struct insn *in, const struct trap_frame *f)
{
	unsigned mod = in->modrm >> 6, rm = in->modrm & 7;
	uint64_t ea = (uint64_t)in->disp;

	if (in->rip_relative)
		return in->target;
	if (!in->has_sib)
		return ea + frame_reg(f, rm | (in->rex & REX_B ? 8 : 0));
	unsigned base = in->sib & 7, index = ((in->sib >> 3) & 7) | (in->rex & REX_X ? 8 : 0);
	if (!(base == 5 && mod == 0))		/* mod 0 with base 101: no base, disp32 */
		ea += frame_reg(f, base | (in->rex & REX_B ? 8 : 0));
	if (index != INSN_RSP)			/* index 100 without REX.X: none */
		ea += frame_reg(f, index) << (in->sib >> 6);
	return ea;
}

bool arch_indirect_target(const struct trap_frame *f, uint64_t addr, const uint8_t *code,
			  size_t avail, uint64_t *to)
{
	struct insn in;

	if (insn_decode(&in, code, avail, addr) != INSN_OK ||
	    (in.cf != INSN_CF_CALL_INDIRECT && in.cf != INSN_CF_JMP_INDIRECT) ||
	    in.encoding != INSN_LEGACY || in.map != INSN_MAP_ONE || in.opcode != 0xff ||
	    !in.has_modrm || in.segment || in.address_size != 8 || in.operand_size != 8)
		return false;
	if (in.modrm >> 6 == 3)
		*to = frame_reg(f, (in.modrm & 7) | (in.rex & REX_B ? 8 : 0));
	else if (arch_safe_read(to, operand_address(&in, f), sizeof(*to)))
		return false;
	return *to != 0;
}
