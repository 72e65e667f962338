// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SPARC V9 patch word encoders (arch/patch.h): the fixed bits of each
 * form come from the generated header (SPARC_ENC_*), the operands go in at
 * the generated field positions. Freestanding: no libc.
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
	*out = SPARC_ENC_BA_3 | SPARC_PUT(A, 1) | ((uint32_t)(disp >> 2) & 0x3fffffu);
	return true;
}

uint32_t sparc_enc_call(uint64_t from, uint64_t to)
{
	return SPARC_ENC_CALL | ((uint32_t)((int64_t)(to - from) >> 2) & 0x3fffffffu);
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

void patch_emit_word(struct patch_buf *b, uint32_t w)
{
	if (b->len >= b->cap) {
		b->overflow = true;
		return;
	}
	b->code[b->len++] = w;
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
