// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SPARC V9 patch word encoders and the buffer (arch/patch.h): the
 * fixed bits of each form come from the generated header (SPARC_ENC_*),
 * the operands go in at the generated field positions. Freestanding: no
 * libc.
 *
 * Invariant: a displacement that does not fit its field is never written;
 * the buffer records out_of_reach and the distance instead.
 */
#include <arch/patch.h>

#include "../sparc64.h"

bool patch_ba_a(uint32_t *out, uint64_t from, uint64_t to)
{
	int64_t disp = (int64_t)(to - from);

	if (!sparc_disp_fits(disp, 22))
		return false;
	*out = SPARC_ENC_BA_3 | SPARC_PUT(A, 1) | SPARC_PUT(DISP22, (uint32_t)(disp >> 2));
	return true;
}

uint32_t sparc_enc_call(uint64_t from, uint64_t to)
{
	return SPARC_ENC_CALL | SPARC_PUT(DISP30, (uint32_t)((int64_t)(to - from) >> 2));
}

uint32_t sparc_enc_sethi(uint32_t imm, unsigned rd)
{
	return SPARC_ENC_SETHI | SPARC_PUT(RD, rd) | SPARC_PUT(IMM22, imm >> 10);
}

uint32_t sparc_enc_or_imm(unsigned rs1, int32_t simm13, unsigned rd)
{
	return SPARC_ENC_OR_2 | SPARC_PUT(RD, rd) | SPARC_PUT(RS1, rs1) | SPARC_PUT(SIMM13, simm13);
}

uint32_t sparc_enc_save_imm(unsigned rs1, int32_t simm13, unsigned rd)
{
	return SPARC_ENC_SAVE_2 | SPARC_PUT(RD, rd) | SPARC_PUT(RS1, rs1) | SPARC_PUT(SIMM13, simm13);
}

uint32_t sparc_enc_restore(void)
{
	return SPARC_ENC_RESTORE;
}

uint32_t sparc_enc_ldx(unsigned rs1, int32_t simm13, unsigned rd)
{
	return SPARC_ENC_LDX_2 | SPARC_PUT(RD, rd) | SPARC_PUT(RS1, rs1) | SPARC_PUT(SIMM13, simm13);
}

uint32_t sparc_enc_stx(unsigned rd, unsigned rs1, int32_t simm13)
{
	return SPARC_ENC_STX_2 | SPARC_PUT(RD, rd) | SPARC_PUT(RS1, rs1) | SPARC_PUT(SIMM13, simm13);
}

uint32_t patch_breakpoint_word(void)
{
	return SPARC_ENC_TA_2 | SPARC_PUT(SWTRAP, PATCH_BREAKPOINT_TRAP);
}

bool patch_is_breakpoint_word(uint32_t w)
{
	return w == patch_breakpoint_word();
}

bool sparc_reads_pc(uint32_t w)
{
	const uint32_t form = SPARC_PUT(OP, ~0u) | SPARC_PUT(OP3, ~0u) | SPARC_PUT(RS1, ~0u);

	return (w & form) == ((SPARC_ENC_RD | SPARC_PUT(RS1, SPARC_ASR_PC)) & form);
}

void patch_emit_word(struct patch_buf *b, uint32_t w)
{
	if (b->len + 4 > b->cap) {
		b->overflow = true;
		return;
	}
	sparc_word_put(b->code + b->len, w);
	b->len += 4;
}

void patch_emit_ba_a(struct patch_buf *b, uint64_t target)
{
	uint32_t w;

	if (!patch_ba_a(&w, patch_buf_pc(b), target)) {
		b->out_of_reach = true;
		b->reach_distance = (int64_t)(target - patch_buf_pc(b));
		return;
	}
	patch_emit_word(b, w);
}

void patch_emit_set32(struct patch_buf *b, uint64_t v, unsigned rd)
{
	if (v >> 32) {
		b->out_of_reach = true;
		b->reach_distance = (int64_t)v;
		return;
	}
	patch_emit_word(b, sparc_enc_sethi((uint32_t)v, rd));
	patch_emit_word(b, sparc_enc_or_imm(rd, (int32_t)(v & 0x3ff), rd));
}

void patch_emit_save(struct patch_buf *b, unsigned frame)
{
	patch_emit_word(b, sparc_enc_save_imm(INSN_SP, -(int32_t)frame, INSN_SP));
}

void patch_emit_restore(struct patch_buf *b)
{
	patch_emit_word(b, sparc_enc_restore());
}

void patch_emit_jump(struct patch_buf *b, uint64_t target)
{
	uint32_t w;

	if (patch_ba_a(&w, patch_buf_pc(b), target)) {
		patch_emit_word(b, w);
		for (int i = 1; i < PATCH_JUMP_WORDS; i++)
			patch_emit_word(b, SPARC_ENC_ILLTRAP);	/* never reached: ba,a left */
		return;
	}
	if (target >> 32) {
		b->out_of_reach = true;
		b->reach_distance = (int64_t)(target - patch_buf_pc(b));
		return;
	}
	patch_emit_save(b, MIN_FRAME);
	patch_emit_word(b, sparc_enc_sethi((uint32_t)target, INSN_L0));
	patch_emit_word(b, SPARC_ENC_JMPL_2 | SPARC_PUT(RD, INSN_G0) | SPARC_PUT(RS1, INSN_L0) |
			SPARC_PUT(SIMM13, target & 0x3ff));
	patch_emit_restore(b);
}

void patch_springboard(uint8_t out[PATCH_SPRINGBOARD_LEN], uint64_t slot, uint64_t patch)
{
	uint64_t at = slot + PATCH_SPRINGBOARD_TARGET;
	const uint32_t words[6] = {
		sparc_enc_save_imm(INSN_SP, -MIN_FRAME, INSN_SP),
		sparc_enc_sethi((uint32_t)at, INSN_L0),
		sparc_enc_ldx(INSN_L0, (int32_t)(at & 0x3ff), INSN_L0),
		SPARC_ENC_JMPL | SPARC_PUT(RD, INSN_G0) | SPARC_PUT(RS1, INSN_L0) |
			SPARC_PUT(RS2, INSN_G0),
		sparc_enc_restore(),
		SPARC_ENC_ILLTRAP,
	};

	for (int i = 0; i < 6; i++)
		sparc_word_put(out + 4 * i, words[i]);
	sparc_word_put(out + PATCH_SPRINGBOARD_TARGET, (uint32_t)(patch >> 32));
	sparc_word_put(out + PATCH_SPRINGBOARD_TARGET + 4, (uint32_t)patch);
}
