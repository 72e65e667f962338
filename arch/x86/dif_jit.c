// SPDX-License-Identifier: BSD-2-Clause
/*
 * The DIF compiler for x86-64 (scion/dif_jit.h): a verified program into
 * position-independent code, one DIF instruction at a time. The caller
 * runs it twice: first without a buffer, which only counts bytes and
 * records where each instruction's code starts, then into the buffer,
 * where every branch finds its target's offset already known. Every
 * branch is a rel32, so both passes lay the code out alike (the second
 * checks that it does).
 *
 * While native code runs, %rbx holds the run state and %r12 where RET's
 * value goes; DIF registers stay in the state's r[], so the
 * interpreter's code for one instruction (abi->step), which the native
 * code calls for loads, stores, variables, subroutines, division and
 * string compares, sees every register as it is. %rax, %rcx, %rdx,
 * %rsi and %rdi are scratch; the stack is 16-byte aligned at each call.
 *
 * Opcode bytes come from opcodes.map's [encode] section
 * (x86_encodings.h); this file composes REX, ModRM and SIB bytes,
 * displacements and immediates around them. Plain C with no kernel
 * dependencies: the host tests run what it emits.
 */
#include <scion/dif_jit.h>
#include <scion/dif_exec.h>
#include <arch/insn.h>
#include "x86_encodings.h"

_Static_assert(sizeof(struct dif_tuple_item) == 16 &&
	       offsetof(struct dif_tuple_item, size) == 8,
	       "PUSHT's native code stores a tuple item as 8 bytes of value, then 4 of size");

#define REX_W 0x8
#define REX_R 0x4
#define REX_X 0x2
#define REX_B 0x1

#define MODRM(mod, reg, rm)  ((uint8_t)((mod) << 6 | ((reg) & 7) << 3 | ((rm) & 7)))
#define SIB(index, base)     ((uint8_t)(((index) & 7) << 3 | ((base) & 7)))	/* scale 1 */
#define MOD_INDIRECT  0
#define MOD_DISP8     1
#define MOD_DISP32    2
#define MOD_REGISTER  3
#define RM_NEEDS_SIB  4		/* rm 100: a SIB byte follows (%rsp, %r12 as base) */
#define RM_NO_DISP0   5		/* rm 101 with mod 00 is RIP-relative (%rbp, %r13 as base) */
#define NO_INDEX      INSN_RSP	/* SIB index 100: none */

/* Where things live while native code runs (see the header). */
#define STATE   INSN_RBX
#define RESULT  INSN_R12
#define ACC     INSN_RAX
#define COUNT   INSN_RCX
#define TMP     INSN_RDX
#define ARG0    INSN_RDI
#define ARG1    INSN_RSI

#define FRAME_PAD 8		/* after the two pushes: keeps calls 16-byte aligned */

struct jit {
	uint8_t *code;		/* NULL: the counting pass */
	size_t cap, len;
	const struct dif_jit_abi *abi;
	const uint32_t *at;	/* where each instruction's code starts; at[ninsns]: the fault exit */
	bool bad;		/* the layout differs from the counting pass's */
};

static void put(struct jit *j, uint8_t byte)
{
	if (j->code && j->len < j->cap)
		j->code[j->len] = byte;
	j->len++;
}

static void put_u32(struct jit *j, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		put(j, (uint8_t)(v >> (8 * i)));
}

static void put_bytes(struct jit *j, const uint8_t *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put(j, bytes[i]);
}

#define OPCODE(name) x86_enc_##name, sizeof(x86_enc_##name)
#define EXT(name)    X86_ENC_##name##_EXT

static void rex(struct jit *j, bool wide, unsigned reg, unsigned index, unsigned base)
{
	uint8_t bits = (uint8_t)((wide ? REX_W : 0) | (reg >= 8 ? REX_R : 0) |
				 (index >= 8 ? REX_X : 0) | (base >= 8 ? REX_B : 0));
	if (bits)
		put(j, (uint8_t)(x86_enc_rex[0] | bits));
}

/* opcode with ModRM.reg = reg and the memory operand [base + index + disp] (NO_INDEX: none). */
static void op_mem(struct jit *j, bool wide, const uint8_t *op, size_t oplen, unsigned reg,
		   unsigned base, unsigned index, int32_t disp)
{
	rex(j, wide, reg, index == NO_INDEX ? 0 : index, base);
	put_bytes(j, op, oplen);
	bool sib = index != NO_INDEX || (base & 7) == RM_NEEDS_SIB;
	unsigned mod = disp == 0 && (base & 7) != RM_NO_DISP0 ? MOD_INDIRECT :
		       disp == (int8_t)disp ? MOD_DISP8 : MOD_DISP32;
	put(j, MODRM(mod, reg, sib ? RM_NEEDS_SIB : base));
	if (sib)
		put(j, SIB(index, base));
	if (mod == MOD_DISP8)
		put(j, (uint8_t)disp);
	else if (mod == MOD_DISP32)
		put_u32(j, (uint32_t)disp);
}

/* opcode with ModRM.reg = reg and register operand rm. */
static void op_reg(struct jit *j, bool wide, const uint8_t *op, size_t oplen, unsigned reg,
		   unsigned rm)
{
	rex(j, wide, reg, 0, rm);
	put_bytes(j, op, oplen);
	put(j, MODRM(MOD_REGISTER, reg, rm));
}

static int32_t reg_slot(const struct jit *j, unsigned dif_reg)
{
	return (int32_t)(j->abi->regs + 8 * dif_reg);
}

/* host = DIF register r */
static void load_reg(struct jit *j, unsigned host, unsigned r)
{
	op_mem(j, true, OPCODE(mov_r_rm), host, STATE, NO_INDEX, reg_slot(j, r));
}

/* DIF register r = host */
static void store_reg(struct jit *j, unsigned r, unsigned host)
{
	op_mem(j, true, OPCODE(mov_rm_r), host, STATE, NO_INDEX, reg_slot(j, r));
}

/* A rel32 branch (opcode op) to where instruction target's code starts. */
static void branch_to(struct jit *j, const uint8_t *op, size_t oplen, uint32_t target)
{
	put_bytes(j, op, oplen);
	uint32_t from = (uint32_t)j->len + 4;
	put_u32(j, j->code ? j->at[target] - from : 0);
}

/* A rel32 branch to a label later in this instruction's code: returns where to fill it in. */
static size_t branch_ahead(struct jit *j, const uint8_t *op, size_t oplen)
{
	put_bytes(j, op, oplen);
	size_t field = j->len;
	put_u32(j, 0);
	return field;
}

/* The label of branch_ahead's field is here. */
static void label_here(struct jit *j, size_t field)
{
	uint32_t rel = (uint32_t)(j->len - (field + 4));
	for (unsigned i = 0; i < 4; i++)
		if (j->code && field + i < j->cap)
			j->code[field + i] = (uint8_t)(rel >> (8 * i));
}

static void mov_imm64(struct jit *j, unsigned host, uint64_t v)
{
	put(j, (uint8_t)(x86_enc_mov_r_imm64[0] | (host >= 8 ? REX_B : 0)));
	put(j, (uint8_t)(x86_enc_mov_r_imm64[1] + (host & 7)));
	put_u32(j, (uint32_t)v);
	put_u32(j, (uint32_t)(v >> 32));
}

/* 32-bit mov of an immediate into a register (zero-extended). */
static void mov_imm32(struct jit *j, unsigned host, uint32_t v)
{
	rex(j, false, 0, 0, host);
	put(j, (uint8_t)(x86_enc_mov_r32_imm32[0] + (host & 7)));
	put_u32(j, v);
}

/* 32-bit store of an immediate at [STATE + disp]. */
static void store_imm32(struct jit *j, int32_t disp, uint32_t v)
{
	op_mem(j, false, OPCODE(mov_rm_imm32), EXT(MOV_RM_IMM32), STATE, NO_INDEX, disp);
	put_u32(j, v);
}

/* The instruction at pc run by the interpreter's own code; a fault leaves through the exit. */
static void interpret(struct jit *j, uint32_t pc, uint32_t ninsns)
{
	store_imm32(j, (int32_t)j->abi->pc, pc);
	op_reg(j, true, OPCODE(mov_rm_r), STATE, ARG0);
	mov_imm64(j, ACC, j->abi->step);
	op_reg(j, false, OPCODE(call_rm), EXT(CALL_RM), ACC);
	op_reg(j, false, OPCODE(test_rm_r), ACC, ACC);
	branch_to(j, OPCODE(jne_rel32), ninsns);
}

static void epilogue(struct jit *j)
{
	op_reg(j, true, OPCODE(add_rm_imm8), EXT(ADD_RM_IMM8), INSN_RSP);
	put(j, FRAME_PAD);
	rex(j, false, 0, 0, RESULT);
	put(j, (uint8_t)(x86_enc_pop_r[0] + (RESULT & 7)));
	put(j, (uint8_t)(x86_enc_pop_r[0] + STATE));
	put_bytes(j, OPCODE(ret));
}

/* Registers start at zero (a program may read one it never wrote): those p names. */
static void clear_registers(struct jit *j, const struct dif_prog *p)
{
	uint32_t named = 0;
	for (uint32_t pc = 0; pc < p->ninsns; pc++)
		named |= 1u << p->insns[pc].rd | 1u << p->insns[pc].r1 | 1u << p->insns[pc].r2;
	op_reg(j, false, OPCODE(xor_r_rm), ACC, ACC);
	for (unsigned r = 0; r < DIF_NREGS; r++)
		if (named & (1u << r))
			store_reg(j, r, ACC);
}

static void prologue(struct jit *j, const struct dif_prog *p)
{
	put(j, (uint8_t)(x86_enc_push_r[0] + STATE));
	rex(j, false, 0, 0, RESULT);
	put(j, (uint8_t)(x86_enc_push_r[0] + (RESULT & 7)));
	op_reg(j, true, OPCODE(sub_rm_imm8), EXT(SUB_RM_IMM8), INSN_RSP);
	put(j, FRAME_PAD);
	op_reg(j, true, OPCODE(mov_rm_r), ARG0, STATE);
	op_reg(j, true, OPCODE(mov_rm_r), ARG1, RESULT);
	clear_registers(j, p);
}

/* rd = r1 OP r2 for the operations x86 does on a register and memory. */
static bool arith(struct jit *j, const struct dif_insn *in)
{
	static const struct { const uint8_t *op; uint8_t len; } ops[DIF_OP_LIMIT] = {
		[DIF_OP_ADD] = { OPCODE(add_r_rm) }, [DIF_OP_SUB] = { OPCODE(sub_r_rm) },
		[DIF_OP_MUL] = { OPCODE(imul_r_rm) }, [DIF_OP_AND] = { OPCODE(and_r_rm) },
		[DIF_OP_OR] = { OPCODE(or_r_rm) }, [DIF_OP_XOR] = { OPCODE(xor_r_rm) },
	};
	if (!ops[in->op].op)
		return false;
	load_reg(j, ACC, in->r1);
	op_mem(j, true, ops[in->op].op, ops[in->op].len, ACC, STATE, NO_INDEX, reg_slot(j, in->r2));
	store_reg(j, in->rd, ACC);
	return true;
}

/* rd = r1 << r2 and the others: x86 masks the count to 63, as DIF does. */
static bool shift(struct jit *j, const struct dif_insn *in)
{
	static const uint8_t ext[DIF_OP_LIMIT] = {
		[DIF_OP_SHL] = EXT(SHL_RM_CL) + 1, [DIF_OP_SHR] = EXT(SHR_RM_CL) + 1,
		[DIF_OP_SAR] = EXT(SAR_RM_CL) + 1,
	};
	if (!ext[in->op])
		return false;
	load_reg(j, COUNT, in->r2);
	load_reg(j, ACC, in->r1);
	op_reg(j, true, OPCODE(shl_rm_cl), ext[in->op] - 1u, ACC);
	store_reg(j, in->rd, ACC);
	return true;
}

/* rd = (r1 CMP r2) ? 1 : 0, and the branches on the same conditions. */
static const struct { const uint8_t *set, *jump; } conditions[DIF_OP_LIMIT] = {
	[DIF_OP_SEQ] = { .set = x86_enc_sete }, [DIF_OP_SNE] = { .set = x86_enc_setne },
	[DIF_OP_SLT] = { .set = x86_enc_setl }, [DIF_OP_SLE] = { .set = x86_enc_setle },
	[DIF_OP_SLTU] = { .set = x86_enc_setb }, [DIF_OP_SLEU] = { .set = x86_enc_setbe },
	[DIF_OP_BEQ] = { .jump = x86_enc_je_rel32 }, [DIF_OP_BNE] = { .jump = x86_enc_jne_rel32 },
	[DIF_OP_BLT] = { .jump = x86_enc_jl_rel32 }, [DIF_OP_BLE] = { .jump = x86_enc_jle_rel32 },
	[DIF_OP_BLTU] = { .jump = x86_enc_jb_rel32 }, [DIF_OP_BLEU] = { .jump = x86_enc_jbe_rel32 },
};
_Static_assert(sizeof(x86_enc_sete) == 2 && sizeof(x86_enc_je_rel32) == 2,
	       "every set and conditional branch has a two-byte opcode");

static void compare(struct jit *j, const struct dif_insn *in)
{
	load_reg(j, ACC, in->r1);
	op_mem(j, true, OPCODE(cmp_r_rm), ACC, STATE, NO_INDEX, reg_slot(j, in->r2));
}

static bool set_or_branch(struct jit *j, const struct dif_insn *in, uint32_t pc)
{
	if (conditions[in->op].set) {
		op_reg(j, false, OPCODE(xor_r_rm), COUNT, COUNT);	/* before cmp: it sets flags */
		compare(j, in);
		op_reg(j, false, conditions[in->op].set, 2, 0, COUNT);
		store_reg(j, in->rd, COUNT);
		return true;
	}
	if (conditions[in->op].jump) {
		compare(j, in);
		branch_to(j, conditions[in->op].jump, 2, pc + 1 + (uint32_t)in->imm);
		return true;
	}
	return false;
}

/* Push r1 (imm: 0, an integer; else a string's most bytes) onto the tuple, if there is room. */
static void push_tuple(struct jit *j, const struct dif_insn *in, uint32_t pc, uint32_t ninsns)
{
	const struct dif_jit_abi *abi = j->abi;
	op_mem(j, false, OPCODE(mov_r_rm), ACC, STATE, NO_INDEX, (int32_t)abi->ntuple);
	op_reg(j, false, OPCODE(cmp_rm_imm8), EXT(CMP_RM_IMM8), ACC);
	put(j, DIF_MAX_TUPLE);
	size_t full = branch_ahead(j, OPCODE(jae_rel32));
	op_reg(j, true, OPCODE(mov_rm_r), ACC, COUNT);
	op_reg(j, true, OPCODE(shl_rm_imm8), EXT(SHL_RM_IMM8), COUNT);
	put(j, 4);						/* 16 bytes an item */
	load_reg(j, TMP, in->r1);
	op_mem(j, true, OPCODE(mov_rm_r), TMP, STATE, COUNT, (int32_t)abi->tuple);
	op_mem(j, false, OPCODE(mov_rm_imm32), EXT(MOV_RM_IMM32), STATE, COUNT,
	       (int32_t)abi->tuple + 8);
	put_u32(j, (uint32_t)in->imm);
	op_reg(j, false, OPCODE(inc_rm), EXT(INC_RM), ACC);
	op_mem(j, false, OPCODE(mov_rm_r), ACC, STATE, NO_INDEX, (int32_t)abi->ntuple);
	branch_to(j, OPCODE(jmp_rel32), pc + 1);
	label_here(j, full);
	interpret(j, pc, ninsns);	/* the interpreter reports the overflow */
}

/* rd = the built-in variable imm: ops->builtin(env, imm). */
static void builtin(struct jit *j, const struct dif_insn *in)
{
	op_mem(j, true, OPCODE(mov_r_rm), ARG0, STATE, NO_INDEX, (int32_t)j->abi->env);
	mov_imm32(j, ARG1, (uint32_t)in->imm);
	op_mem(j, true, OPCODE(mov_r_rm), ACC, STATE, NO_INDEX, (int32_t)j->abi->ops);
	op_mem(j, false, OPCODE(call_rm), EXT(CALL_RM), ACC, NO_INDEX, (int32_t)j->abi->builtin);
	store_reg(j, in->rd, ACC);
}

static void one(struct jit *j, const struct dif_prog *p, uint32_t pc)
{
	const struct dif_insn *in = &p->insns[pc];
	if (arith(j, in) || shift(j, in) || set_or_branch(j, in, pc))
		return;
	switch (in->op) {
	case DIF_OP_NOP:
		break;
	case DIF_OP_NOT: case DIF_OP_NEG:
		load_reg(j, ACC, in->r1);
		op_reg(j, true, OPCODE(not_rm),
		       in->op == DIF_OP_NOT ? EXT(NOT_RM) : EXT(NEG_RM), ACC);
		store_reg(j, in->rd, ACC);
		break;
	case DIF_OP_MOV:
		load_reg(j, ACC, in->r1);
		store_reg(j, in->rd, ACC);
		break;
	case DIF_OP_LDI:
		op_mem(j, true, OPCODE(mov_rm_imm32), EXT(MOV_RM_IMM32), STATE, NO_INDEX,
		       reg_slot(j, in->rd));
		put_u32(j, (uint32_t)in->imm);			/* sign-extended, as LDI is */
		break;
	case DIF_OP_LDC: case DIF_OP_LDSTR:
		mov_imm64(j, ACC, in->op == DIF_OP_LDC ? p->ints[in->imm] :
			  (uint64_t)(uintptr_t)(p->strtab + in->imm));
		store_reg(j, in->rd, ACC);
		break;
	case DIF_OP_BA:
		branch_to(j, OPCODE(jmp_rel32), pc + 1 + (uint32_t)in->imm);
		break;
	case DIF_OP_BND: {
		load_reg(j, ACC, in->r1);
		op_reg(j, true, OPCODE(cmp_rm_imm32), EXT(CMP_RM_IMM32), ACC);
		put_u32(j, (uint32_t)in->imm);		/* imm > 0: sign extension keeps it */
		branch_to(j, OPCODE(jb_rel32), pc + 1);
		interpret(j, pc, p->ninsns);		/* the interpreter reports the index */
		break;
	}
	case DIF_OP_PUSHT:
		push_tuple(j, in, pc, p->ninsns);
		break;
	case DIF_OP_POPT:
		store_imm32(j, (int32_t)j->abi->ntuple, 0);
		break;
	case DIF_OP_LDB:
		builtin(j, in);
		break;
	case DIF_OP_RET:
		load_reg(j, ACC, in->r1);
		op_mem(j, true, OPCODE(mov_rm_r), ACC, RESULT, NO_INDEX, 0);
		op_reg(j, false, OPCODE(xor_r_rm), ACC, ACC);
		epilogue(j);
		break;
	default:	/* loads, stores, variables, calls, division, string compares */
		interpret(j, pc, p->ninsns);
		break;
	}
}

/* Only what dif_verify accepted, checked again where a mistake would emit a wild branch. */
static bool compilable(const struct dif_prog *p)
{
	if (!p->ninsns || p->insns[p->ninsns - 1].op != DIF_OP_RET)
		return false;
	for (uint32_t pc = 0; pc < p->ninsns; pc++) {
		const struct dif_insn *in = &p->insns[pc];
		if (in->op >= DIF_OP_LIMIT || in->rd >= DIF_NREGS || in->r1 >= DIF_NREGS ||
		    in->r2 >= DIF_NREGS)
			return false;
		enum dif_format f = dif_op_format(in->op);
		if ((f == DIF_FMT_BR || f == DIF_FMT_BA) &&
		    (in->imm < 0 || (uint64_t)pc + 1 + (uint64_t)in->imm >= p->ninsns))
			return false;
		if (f == DIF_FMT_CHK && in->imm <= 0)
			return false;
		if (in->op == DIF_OP_LDC && (in->imm < 0 || (uint32_t)in->imm >= p->nints))
			return false;
		if (in->op == DIF_OP_LDSTR && (in->imm < 0 || (uint32_t)in->imm >= p->strtab_len))
			return false;
	}
	return true;
}

size_t arch_dif_jit_emit(const struct dif_prog *p, const struct dif_jit_abi *abi, uint8_t *code,
			 size_t cap, uint32_t *at)
{
	if (!compilable(p))
		return 0;
	struct jit j = { .code = code, .cap = cap, .abi = abi, .at = at };
	prologue(&j, p);
	for (uint32_t pc = 0; pc < p->ninsns; pc++) {
		if (code && at[pc] != j.len)
			j.bad = true;
		at[pc] = (uint32_t)j.len;
		one(&j, p, pc);
	}
	if (code && at[p->ninsns] != j.len)
		j.bad = true;
	at[p->ninsns] = (uint32_t)j.len;	/* the fault exit */
	mov_imm32(&j, ACC, (uint32_t)-1);
	epilogue(&j);
	if (j.bad)
		return 0;
	return j.len;
}
