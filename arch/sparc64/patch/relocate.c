// SPDX-License-Identifier: BSD-2-Clause
/*
 * Relocating a displaced SPARC V9 instruction into a code patch (a
 * splice's), or copying it out of line (a breakpoint's), and the counter
 * patch the host test builds (arch/patch.h).
 *
 * Invariants: a CTI moves with its delay slot; a PC-relative branch keeps
 * its condition, annul bit and prediction and is pointed at a stub in the
 * patch (patch_emit_jump to the original target: ba,a, or a longer jump
 * from a far patch), so its own short field always reaches; the
 * fall-through path continues at the word after the delay slot. Refused,
 * with a one-line reason: an instruction in a delay slot (the splice
 * would make a CTI couple), a CTI whose delay slot is itself a branch
 * target or a CTI, and a target above 4 GB.
 * An out-of-line copy runs with TNPC where the trap left it, so a CTI's
 * delay slot runs in place and nothing branches back.
 * Freestanding: no libc.
 */
#include <arch/patch.h>

#include "../sparc64.h"

static uint32_t fn_word(const void *fn, uint64_t fn_start, uint64_t addr)
{
	return sparc_word_at((const uint8_t *)fn + (addr - fn_start));
}

static bool is_branch_target(const void *fn, uint64_t fn_start, size_t n, uint64_t addr)
{
	struct insn in;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = fn_start + 4 * i;
		if (insn_decode(&in, fn_word(fn, fn_start, a), a) == INSN_OK && in.disp_bits &&
		    in.target == addr)
			return true;
	}
	return false;
}

/* The word `w` with its PC-relative field set to reach `disp` bytes. */
static bool set_disp(uint32_t *w, unsigned bits, int64_t disp)
{
	uint32_t d = (uint32_t)(disp >> 2);

	if (!sparc_disp_fits(disp, bits))
		return false;
	switch (bits) {
	case 30:
		*w = (*w & ~(SPARC_F_DISP30_MASK << SPARC_F_DISP30_SHIFT)) | SPARC_PUT(DISP30, d);
		return true;
	case 22:
		*w = (*w & ~(SPARC_F_DISP22_MASK << SPARC_F_DISP22_SHIFT)) | SPARC_PUT(DISP22, d);
		return true;
	case 19:
		*w = (*w & ~(SPARC_F_DISP19_MASK << SPARC_F_DISP19_SHIFT)) | SPARC_PUT(DISP19, d);
		return true;
	case 16:
		*w = (*w & ~(SPARC_F_D16HI_MASK << SPARC_F_D16HI_SHIFT) &
		      ~(SPARC_F_D16LO_MASK << SPARC_F_D16LO_SHIFT)) |
			SPARC_PUT(D16HI, d >> 14) | SPARC_PUT(D16LO, d);
		return true;
	}
	return false;
}

static const char *emit_back(struct patch_buf *b, uint64_t to)
{
	patch_emit_jump(b, to);
	if (b->out_of_reach)
		return "the branch back goes above 4 GB";
	return b->overflow ? "the patch buffer is full" : NULL;
}

const char *patch_relocate(struct patch_buf *b, const void *fn, uint64_t fn_start,
			   size_t fn_words, uint64_t site)
{
	struct insn in, prev, ds;
	uint64_t end = fn_start + 4 * fn_words;

	if (site < fn_start || site >= end || (site & 3))
		return "the site is not an instruction of the function";
	if (insn_decode(&in, fn_word(fn, fn_start, site), site) != INSN_OK)
		return "the instruction does not decode";
	if (site > fn_start && insn_decode(&prev, fn_word(fn, fn_start, site - 4), site - 4) == INSN_OK &&
	    prev.delayed)
		return "in the delay slot of the CTI before it: splice the CTI instead";
	if (!in.delayed) {
		/* 1. A plain instruction (or a trap, which comes back to the next word);
		 *    rd %pc becomes the constant it would have read. */
		if (sparc_reads_pc(in.word))
			patch_emit_set32(b, site, in.rd);
		else
			patch_emit_word(b, in.word);
		if (b->out_of_reach)
			return "rd %pc at an address above 4 GB cannot be rewritten";
		return emit_back(b, site + 4);
	}
	if (site + 4 >= end)
		return "the delay slot is outside the function";
	if (insn_decode(&ds, fn_word(fn, fn_start, site + 4), site + 4) != INSN_OK)
		return "the delay slot does not decode";
	if (ds.delayed)
		return "the delay slot holds a CTI (a CTI couple)";
	if (is_branch_target(fn, fn_start, fn_words, site + 4))
		return "the delay slot is itself a branch target";
	if (!in.disp_bits) {
		/* 2. jmpl, ret, return: absolute; a jmpl call comes back to here + 8. */
		patch_emit_word(b, in.word);
		patch_emit_word(b, ds.word);
		return emit_back(b, site + 8);
	}
	if (in.cf == INSN_CF_CALL) {
		/* 3. call: the callee returns to the patch's word after the delay slot. */
		uint32_t w = in.word;
		if (!set_disp(&w, 30, (int64_t)(in.target - patch_buf_pc(b))))
			return "the call's target is beyond disp30 reach";
		patch_emit_word(b, w);
		patch_emit_word(b, ds.word);
		return emit_back(b, site + 8);
	}
	/*
	 * 4. A branch: [B -> stub][delay slot][jump to site + 8][stub: jump to
	 * target]. Its annul bit keeps its meaning: untaken and annulled skips
	 * the delay slot straight to the jump back.
	 */
	uint32_t w = in.word;
	if (!set_disp(&w, in.disp_bits, 8 + 4 * PATCH_JUMP_WORDS))
		return "the branch's field cannot reach its stub";
	patch_emit_word(b, w);
	patch_emit_word(b, ds.word);
	const char *why = emit_back(b, site + 8);
	if (why)
		return why;
	patch_emit_jump(b, in.target);
	if (b->out_of_reach)
		return "the branch's target lies above 4 GB";
	return b->overflow ? "the patch buffer is full" : NULL;
}

/* A CTI's copy that runs with TNPC at its delay slot in the text (patch_out_of_line). */
static const char *out_of_line_cti(struct patch_buf *b, const struct insn *in)
{
	if (!in->disp_bits || in->cf == INSN_CF_CALL) {
		/* jmp, return: absolute; call, jmpl with a link: done by the resume. */
		patch_emit_word(b, in->word);
		return NULL;
	}
	/* [B -> stub][stub: jump to target]: taken, the delay slot runs in place, then the stub. */
	uint32_t w = in->word;
	if (!set_disp(&w, in->disp_bits, 4))
		return "the branch's field cannot reach its stub";
	patch_emit_word(b, w);
	patch_emit_jump(b, in->target);
	if (b->out_of_reach)
		return "the branch's target lies above 4 GB";
	return NULL;
}

const char *patch_out_of_line(struct patch_buf *b, const void *fn, uint64_t fn_start,
			      size_t fn_words, uint64_t site)
{
	struct insn in, prev;
	const char *why = NULL;

	if (site < fn_start || site >= fn_start + 4 * fn_words || (site & 3))
		return "the site is not an instruction of the function";
	if (insn_decode(&in, fn_word(fn, fn_start, site), site) != INSN_OK)
		return "the instruction does not decode";
	bool in_slot = site > fn_start &&
		insn_decode(&prev, fn_word(fn, fn_start, site - 4), site - 4) == INSN_OK && prev.delayed;
	if (in.delayed && in_slot)
		return "a CTI in a delay slot (a CTI couple)";
	if (in.delayed)
		why = out_of_line_cti(b, &in);
	else
		patch_emit_word(b, in.word);
	if (!why && b->overflow)
		why = "the patch buffer is full";
	return why;
}

const char *patch_build_counter(struct patch_buf *b, const void *fn, uint64_t fn_start,
				size_t fn_words, uint64_t site, uint64_t counter)
{
	patch_emit_save(b, MIN_FRAME);
	patch_emit_counter(b, counter);
	patch_emit_restore(b);
	if (b->out_of_reach)
		return "the counter lies above 4 GB";
	return patch_relocate(b, fn, fn_start, fn_words, site);
}
