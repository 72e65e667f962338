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
