// SPDX-License-Identifier: BSD-2-Clause
/*
 * The code a patch inserts before the relocated instruction
 * (arch/patch.h): the casx counter, the accumulator step and the call of
 * the frame trampoline (probe_frame.S). Each runs in a register window
 * of its own, so the probed code's registers are never touched; what the
 * window does not cover (globals, %y, the condition codes, PSTATE) is
 * left as it was found.
 * Freestanding: no libc.
 *
 * Invariant: the code is a pure function of its arguments and of where
 * it runs, and its length does not depend on where it runs (the
 * portable code sizes a patch at PATCH_CODE_BASE, then builds it in
 * place).
 */
#include <arch/patch.h>

#include "../sparc64.h"

#define TSTATE_CCR_SHIFT 32
#define TSTATE_PSTATE_SHIFT 8

static uint32_t op3_rr(uint32_t enc, unsigned rd, unsigned rs1, unsigned rs2)
{
	return enc | SPARC_PUT(RD, rd) | SPARC_PUT(RS1, rs1) | SPARC_PUT(RS2, rs2);
}

static uint32_t op3_ri(uint32_t enc, unsigned rd, unsigned rs1, int32_t simm13)
{
	return enc | SPARC_PUT(RD, rd) | SPARC_PUT(RS1, rs1) | SPARC_PUT(SIMM13, simm13);
}

static uint32_t shift_i(uint32_t enc, unsigned rd, unsigned rs1, unsigned count)
{
	return enc | SPARC_PUT(RD, rd) | SPARC_PUT(RS1, rs1) | SPARC_PUT(SHCNT, count);
}

/* rd %asr, rd and wr rs, %g0, %asr. */
static uint32_t rd_asr(unsigned asr, unsigned rd)
{
	return SPARC_ENC_RD | SPARC_PUT(RS1, asr) | SPARC_PUT(RD, rd);
}

static uint32_t rdpr(unsigned pr, unsigned rd)
{
	return SPARC_ENC_RDPR | SPARC_PUT(RS1, pr) | SPARC_PUT(RD, rd);
}

static uint32_t wrpr(unsigned rs, unsigned pr)
{
	return SPARC_ENC_WRPR | SPARC_PUT(RD, pr) | SPARC_PUT(RS1, rs) | SPARC_PUT(RS2, INSN_G0);
}

static bool simm13_fits(int64_t v)
{
	return v >= -4096 && v < 4096;
}

/* A 64-bit constant in rd (tmp is overwritten): sethi/or of each half, shift, or. */
static void emit_set64(struct patch_buf *b, uint64_t v, unsigned rd, unsigned tmp)
{
	uint32_t hi = (uint32_t)(v >> 32), lo = (uint32_t)v;

	patch_emit_word(b, sparc_enc_sethi(hi, rd));
	patch_emit_word(b, sparc_enc_or_imm(rd, (int32_t)(hi & 0x3ff), rd));
	patch_emit_word(b, shift_i(SPARC_ENC_SLLX_2, rd, rd, 32));
	patch_emit_word(b, sparc_enc_sethi(lo, tmp));
	patch_emit_word(b, sparc_enc_or_imm(tmp, (int32_t)(lo & 0x3ff), tmp));
	patch_emit_word(b, op3_rr(SPARC_ENC_OR, rd, rd, tmp));
}

void patch_emit_counter(struct patch_buf *b, uint64_t counter)
{
	/* %l0 the counter; %l1 the value seen; %l2 the new value, then what casx found. */
	patch_emit_set32(b, counter, INSN_L0);
	patch_emit_word(b, sparc_enc_ldx(INSN_L0, 0, INSN_L1));
	uint64_t again = patch_buf_pc(b);
	patch_emit_word(b, op3_ri(SPARC_ENC_ADD_2, INSN_L2, INSN_L1, 1));
	patch_emit_word(b, op3_rr(SPARC_ENC_CASX, INSN_L2, INSN_L0, INSN_L1));
	patch_emit_word(b, op3_rr(SPARC_ENC_XOR, INSN_L3, INSN_L1, INSN_L2));
	/* Another update came between: try again from what casx found (the delay slot). */
	uint32_t d = (uint32_t)((int64_t)(again - patch_buf_pc(b)) >> 2);
	patch_emit_word(b, SPARC_ENC_BRNZ | SPARC_PUT(RS1, INSN_L3) | SPARC_PUT(D16HI, d >> 14) |
			SPARC_PUT(D16LO, d));
	patch_emit_word(b, op3_rr(SPARC_ENC_OR, INSN_L1, INSN_G0, INSN_L2));
}

uint32_t patch_accumulate_clobbers(void)
{
	return 0;
}

void patch_emit_accumulate(struct patch_buf *b, const struct patch_accumulator *acc, int delta,
			   uint64_t cpu_pointer)
{
	if (!simm13_fits(acc->last) || !simm13_fits(acc->inside) || !simm13_fits(acc->area)) {
		b->overflow = true;	/* the slots lie beyond a 13-bit offset: a build error */
		return;
	}
	/* 1. Interrupts masked (%l6 keeps PSTATE). */
	patch_emit_word(b, rdpr(SPARC_PR_PSTATE, INSN_L6));
	patch_emit_word(b, op3_ri(SPARC_ENC_ANDN_2, INSN_L5, INSN_L6, PSTATE_IE));
	patch_emit_word(b, wrpr(INSN_L5, SPARC_PR_PSTATE));
	/* 2. %l0 = now (%tick without its NPT bit), %l1 = this CPU. */
	patch_emit_word(b, rd_asr(SPARC_ASR_TICK, INSN_L0));
	patch_emit_word(b, shift_i(SPARC_ENC_SLLX_2, INSN_L0, INSN_L0, 1));
	patch_emit_word(b, shift_i(SPARC_ENC_SRLX_2, INSN_L0, INSN_L0, 1));
	patch_emit_set32(b, cpu_pointer, INSN_L1);
	patch_emit_word(b, sparc_enc_ldx(INSN_L1, 0, INSN_L1));
	/* 3. area += inside * (now - last); last = now; inside += delta. */
	patch_emit_word(b, sparc_enc_ldx(INSN_L1, (int32_t)acc->last, INSN_L2));
	patch_emit_word(b, op3_rr(SPARC_ENC_SUB, INSN_L2, INSN_L0, INSN_L2));
	patch_emit_word(b, sparc_enc_ldx(INSN_L1, (int32_t)acc->inside, INSN_L3));
	patch_emit_word(b, op3_rr(SPARC_ENC_MULX, INSN_L2, INSN_L3, INSN_L2));
	patch_emit_word(b, sparc_enc_ldx(INSN_L1, (int32_t)acc->area, INSN_L4));
	patch_emit_word(b, op3_rr(SPARC_ENC_ADD, INSN_L4, INSN_L4, INSN_L2));
	patch_emit_word(b, sparc_enc_stx(INSN_L4, INSN_L1, (int32_t)acc->area));
	patch_emit_word(b, sparc_enc_stx(INSN_L0, INSN_L1, (int32_t)acc->last));
	patch_emit_word(b, op3_ri(SPARC_ENC_ADD_2, INSN_L3, INSN_L3, delta));
	patch_emit_word(b, sparc_enc_stx(INSN_L3, INSN_L1, (int32_t)acc->inside));
	/* 4. PSTATE as it was. */
	patch_emit_word(b, wrpr(INSN_L6, SPARC_PR_PSTATE));
}

void patch_emit_frame_call(struct patch_buf *b, uint64_t pc, uint64_t fn, uint64_t cookie,
			   uint64_t trampoline)
{
	patch_emit_save(b, MIN_FRAME + TF_SIZE);
	patch_emit_set32(b, pc, INSN_L0);
	patch_emit_set32(b, fn, INSN_L1);
	emit_set64(b, cookie, INSN_L2, INSN_L3);
	if (!sparc_disp_fits((int64_t)(trampoline - patch_buf_pc(b)), 30)) {
		b->out_of_reach = true;
		b->reach_distance = (int64_t)(trampoline - patch_buf_pc(b));
	}
	patch_emit_word(b, sparc_enc_call(patch_buf_pc(b), trampoline));
	patch_emit_word(b, sparc_enc_nop());
	patch_emit_restore(b);
}
