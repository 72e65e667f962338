// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host unit tests of the SPARC V9 decoder (arch/sparc64/insn_decode.c):
 * words assembled by sparc64-linux-gnu-as (the assembly is beside each
 * one; objdump agrees with every valid one, see check-sparc64-decoder)
 * and hand-made invalid words, each with everything the decoder should
 * say about it: status, mnemonic, control-flow class, delay slot, annul
 * bit, prediction, target, integer registers read and written, window
 * shift, memory access and ASI, condition codes, privilege. Fields a case
 * leaves out must be zero (asi: INSN_ASI_NONE). Independent of the cross
 * toolchain. One line per case, `ok NAME` or `FAIL NAME: why`; the last
 * line is `N passed, M failed`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arch/insn.h>
#include "sparc64_opcodes.h"

#define R(n) INSN_REG(INSN_##n)
#define BASE 0x10000ull		/* every case is decoded at this address */
#define NOPRED 0
#define PT 1
#define PN 2

struct expect {
	const char *asm_text;
	uint32_t word;
	uint8_t status;
	const char *mnemonic;
	uint8_t cf;
	bool delayed, annul;
	uint8_t pred;		/* NOPRED, PT, PN */
	int64_t target_off;	/* target - BASE when the insn has one */
	bool has_target;
	uint32_t reads, writes;
	uint8_t window, mem, mem_size;
	bool has_asi, asi_reg;
	uint16_t asi;
	bool priv;
	uint8_t ccr, ccw, state_r, state_w;
	int32_t imm;
};

static const struct expect cases[] = {
	/* arithmetic, %g0 destinations, immediates */
	{ "add %o0, %o1, %o2", 0x94020009, .mnemonic = "add", .reads = R(O0) | R(O1), .writes = R(O2) },
	{ "add %o0, -1, %g0", 0x80023fff, .mnemonic = "add", .reads = R(O0), .imm = -1 },
	{ "mov 5, %o0", 0x90102005, .mnemonic = "or", .writes = R(O0), .imm = 5 },
	{ "cmp %o1, %o2", 0x80a2400a, .mnemonic = "subcc", .reads = R(O1) | R(O2),
	  .ccw = INSN_CC_ICC | INSN_CC_XCC },
	{ "or %o0, 1, %g0", 0x80122001, .mnemonic = "or", .reads = R(O0), .imm = 1 },
	{ "sllx %o0, 63, %o1", 0x932a303f, .mnemonic = "sllx", .reads = R(O0), .writes = R(O1), .imm = 63 },
	{ "srl %o0, 31, %o1", 0x9332201f, .mnemonic = "srl", .reads = R(O0), .writes = R(O1), .imm = 31 },
	{ "umul %o0, %o1, %o2", 0x94520009, .mnemonic = "umul", .reads = R(O0) | R(O1), .writes = R(O2),
	  .state_w = INSN_STATE_Y },
	{ "rd %y, %g3", 0x87400000, .mnemonic = "rd", .writes = R(G3), .state_r = INSN_STATE_Y },
	{ "wr %g0, 0x82, %asi", 0x87802082, .mnemonic = "wr", .state_w = INSN_STATE_ASI, .imm = 0x82 },
	{ "rd %asi, %g1", 0x8340c000, .mnemonic = "rd", .writes = R(G1), .state_r = INSN_STATE_ASI },
	{ "sethi %hi(0x12345000), %g1", 0x03048d14, .mnemonic = "sethi", .writes = R(G1), .imm = 0x12345000 },
	{ "nop", 0x01000000, .mnemonic = "nop" },
	{ "movne %icc, %o1, %o2", 0x95664009, .mnemonic = "movne", .reads = R(O1) | R(O2), .writes = R(O2),
	  .ccr = INSN_CC_ICC },
	{ "movrz %o0, 5, %o1", 0x937a2405, .mnemonic = "movre", .reads = R(O0) | R(O1), .writes = R(O1),
	  .imm = 5 },
	{ "fcmped %fcc3, %f0, %f2", 0x87a80ac2, .mnemonic = "fcmped", .ccw = INSN_CC_FCC(3) },
	/* branches: annul, prediction, negative displacements */
	{ "be,a,pn %xcc, .-16", 0x2267fffc, .mnemonic = "be", .cf = INSN_CF_BRANCH, .delayed = true,
	  .annul = true, .pred = PN, .has_target = true, .target_off = -16, .ccr = INSN_CC_XCC },
	{ "ba,a .+64", 0x30800010, .mnemonic = "ba", .cf = INSN_CF_BRANCH_ALWAYS, .delayed = true,
	  .annul = true, .has_target = true, .target_off = 64, .ccr = INSN_CC_ICC },
	{ "bn .+8", 0x00800002, .mnemonic = "bn", .cf = INSN_CF_BRANCH_NEVER, .delayed = true,
	  .has_target = true, .target_off = 8, .ccr = INSN_CC_ICC },
	{ "bne .+8", 0x12800002, .mnemonic = "bne", .cf = INSN_CF_BRANCH, .delayed = true,
	  .has_target = true, .target_off = 8, .ccr = INSN_CC_ICC },
	{ "bpos,pt %icc, .+0xffffc", 0x1c4bffff, .mnemonic = "bpos", .cf = INSN_CF_BRANCH, .delayed = true,
	  .pred = PT, .has_target = true, .target_off = 0xffffc, .ccr = INSN_CC_ICC },
	{ "brz,pt %o1, .-32", 0x02fa7ff8, .mnemonic = "brz", .cf = INSN_CF_BRANCH_REG, .delayed = true,
	  .pred = PT, .has_target = true, .target_off = -32, .reads = R(O1) },
	{ "fbne,a,pt %fcc2, .+12", 0x23680003, .mnemonic = "fbne", .cf = INSN_CF_FBRANCH, .delayed = true,
	  .annul = true, .pred = PT, .has_target = true, .target_off = 12, .ccr = INSN_CC_FCC(2) },
	{ "fbl .+16", 0x09800004, .mnemonic = "fbl", .cf = INSN_CF_FBRANCH, .delayed = true,
	  .has_target = true, .target_off = 16, .ccr = INSN_CC_FCC(0) },
	/* calls, returns, indirect jumps */
	{ "call .-0x400000", 0x7ff00000, .mnemonic = "call", .cf = INSN_CF_CALL, .delayed = true,
	  .has_target = true, .target_off = -0x400000, .writes = R(O7) },
	{ "call .+0x7fffffc", 0x41ffffff, .mnemonic = "call", .cf = INSN_CF_CALL, .delayed = true,
	  .has_target = true, .target_off = 0x7fffffc, .writes = R(O7) },
	{ "jmpl %g1+%g2, %o7", 0x9fc04002, .mnemonic = "jmpl", .cf = INSN_CF_CALL_INDIRECT, .delayed = true,
	  .reads = R(G1) | R(G2), .writes = R(O7) },
	{ "ret", 0x81c7e008, .mnemonic = "ret", .cf = INSN_CF_RET, .delayed = true, .reads = R(I7), .imm = 8 },
	{ "retl", 0x81c3e008, .mnemonic = "retl", .cf = INSN_CF_RET, .delayed = true, .reads = R(O7), .imm = 8 },
	{ "jmp %g1", 0x81c04000, .mnemonic = "jmp", .cf = INSN_CF_JMP_INDIRECT, .delayed = true, .reads = R(G1) },
	{ "jmpl %o0, %g0", 0x81c20000, .mnemonic = "jmp", .cf = INSN_CF_JMP_INDIRECT, .delayed = true,
	  .reads = R(O0) },
	{ "return %i7+8", 0x81cfe008, .mnemonic = "return", .cf = INSN_CF_RETURN, .delayed = true,
	  .reads = R(I7), .window = INSN_WIN_RETURN, .imm = 8 },
	/* the window */
	{ "save %sp, -192, %sp", 0x9de3bf40, .mnemonic = "save", .reads = R(SP), .writes = R(SP),
	  .window = INSN_WIN_SAVE, .imm = -192 },
	{ "restore %o0, 1, %o0", 0x91ea2001, .mnemonic = "restore", .reads = R(O0), .writes = R(O0),
	  .window = INSN_WIN_RESTORE, .imm = 1 },
	{ "restore", 0x81e80000, .mnemonic = "restore", .window = INSN_WIN_RESTORE },
	{ "flushw", 0x81580000, .mnemonic = "flushw", .window = INSN_WIN_FLUSHW },
	/* traps and trap returns */
	{ "done", 0x81f00000, .mnemonic = "done", .cf = INSN_CF_DONE_RETRY, .priv = true },
	{ "retry", 0x83f00000, .mnemonic = "retry", .cf = INSN_CF_DONE_RETRY, .priv = true },
	{ "ta 0x6d", 0x91d0206d, .mnemonic = "ta", .cf = INSN_CF_TRAP_ALWAYS, .ccr = INSN_CC_ICC, .imm = 0x6d },
	{ "tne %xcc, 5", 0x93d03005, .mnemonic = "tne", .cf = INSN_CF_TRAP, .ccr = INSN_CC_XCC, .imm = 5 },
	{ "tn 3", 0x81d02003, .mnemonic = "tn", .cf = INSN_CF_NONE, .ccr = INSN_CC_ICC, .imm = 3 },
	{ "illtrap 0", 0x00000000, .mnemonic = "illtrap", .cf = INSN_CF_ILLTRAP },
	{ "illtrap 0x1234", 0x00001234, .mnemonic = "illtrap", .cf = INSN_CF_ILLTRAP, .imm = 0x1234 },
	/* memory */
	{ "ldx [%o0+8], %g1", 0xc25a2008, .mnemonic = "ldx", .reads = R(O0), .writes = R(G1),
	  .mem = INSN_MEM_LOAD, .mem_size = 8, .imm = 8 },
	{ "stx %g1, [%sp+2047]", 0xc273a7ff, .mnemonic = "stx", .reads = R(G1) | R(SP),
	  .mem = INSN_MEM_STORE, .mem_size = 8, .imm = 2047 },
	{ "ld [%o0], %g0", 0xc0020000, .mnemonic = "lduw", .reads = R(O0), .mem = INSN_MEM_LOAD, .mem_size = 4 },
	{ "ldd [%o0], %o2", 0xd41a0000, .mnemonic = "ldd", .reads = R(O0), .writes = R(O2) | R(O3),
	  .mem = INSN_MEM_LOAD, .mem_size = 8 },
	{ "std %o4, [%o1+16]", 0xd83a6010, .mnemonic = "std", .reads = R(O1) | R(O4) | R(O5),
	  .mem = INSN_MEM_STORE, .mem_size = 8, .imm = 16 },
	{ "ldstub [%o0+1], %o1", 0xd26a2001, .mnemonic = "ldstub", .reads = R(O0), .writes = R(O1),
	  .mem = INSN_MEM_ATOMIC, .mem_size = 1, .imm = 1 },
	{ "ldxa [%o0] 0x58, %g1", 0xc2da0b00, .mnemonic = "ldxa", .reads = R(O0), .writes = R(G1),
	  .mem = INSN_MEM_LOAD, .mem_size = 8, .has_asi = true, .asi = 0x58, .priv = true },
	{ "ldxa [%o0+8] %asi, %g1", 0xc2da2008, .mnemonic = "ldxa", .reads = R(O0), .writes = R(G1),
	  .mem = INSN_MEM_LOAD, .mem_size = 8, .asi_reg = true, .state_r = INSN_STATE_ASI, .imm = 8 },
	{ "lduba [%o1] 0x82, %o3", 0xd68a5040, .mnemonic = "lduba", .reads = R(O1), .writes = R(O3),
	  .mem = INSN_MEM_LOAD, .mem_size = 1, .has_asi = true, .asi = 0x82 },
	{ "ldda [%o0] 0xf0, %f0", 0xc19a1e00, .mnemonic = "lddfa", .reads = R(O0), .mem = INSN_MEM_LOAD,
	  .mem_size = 64, .has_asi = true, .asi = 0xf0 },
	{ "stda %f0, [%o0] 0xf0", 0xc1ba1e00, .mnemonic = "stdfa", .reads = R(O0), .mem = INSN_MEM_STORE,
	  .mem_size = 64, .has_asi = true, .asi = 0xf0 },
	{ "ldda [%o0] 0x24, %o2", 0xd49a0480, .mnemonic = "ldda", .reads = R(O0), .writes = R(O2) | R(O3),
	  .mem = INSN_MEM_LOAD, .mem_size = 16, .has_asi = true, .asi = 0x24, .priv = true },
	{ "ldda [%o0] 0xf0, %o2 (integer: not a block load)", 0xd49a1e00, .mnemonic = "ldda", .reads = R(O0),
	  .writes = R(O2) | R(O3), .mem = INSN_MEM_LOAD, .mem_size = 8, .has_asi = true, .asi = 0xf0 },
	{ "casx [%o0], %o1, %o2", 0xd5f21009, .mnemonic = "casx", .reads = R(O0) | R(O1) | R(O2),
	  .writes = R(O2), .mem = INSN_MEM_ATOMIC, .mem_size = 8, .has_asi = true, .asi = 0x80 },
	{ "membar #StoreLoad", 0x8143e002, .mnemonic = "membar" },
	{ "prefetch [%o0], 1", 0xc36a0000, .mnemonic = "prefetch", .reads = R(O0), .mem = INSN_MEM_PREFETCH },
	{ "flush %o1", 0x81da4000, .mnemonic = "flush", .reads = R(O1), .mem = INSN_MEM_FLUSH },
	{ "casxa [%o0] 0x88, %o1, %o2", 0xd5f21109, .mnemonic = "casxl", .reads = R(O0) | R(O1) | R(O2),
	  .writes = R(O2), .mem = INSN_MEM_ATOMIC, .mem_size = 8, .has_asi = true, .asi = 0x88 },
	{ "casa [%o0] %asi, %o1, %o2", 0xd5e22009, .mnemonic = "casa", .reads = R(O0) | R(O1) | R(O2),
	  .writes = R(O2), .mem = INSN_MEM_ATOMIC, .mem_size = 4, .asi_reg = true,
	  .state_r = INSN_STATE_ASI },
	/* privileged registers */
	{ "wrpr %g1, 2, %pstate", 0x8d906002, .mnemonic = "wrpr", .reads = R(G1), .priv = true, .imm = 2 },
	{ "rdpr %tick, %g2", 0x85510000, .mnemonic = "rdpr", .writes = R(G2), .priv = true },
	/* invalid words */
	{ "op=0 op2=7", 0x01c00000, .status = INSN_INVALID },
	{ "op=2 op3=0x19", 0x80c80000, .status = INSN_INVALID },
	{ "op=2 op3=0x3f", 0x81f80000, .status = INSN_INVALID },
	{ "op=3 op3=0x0c", 0xc0600000, .status = INSN_INVALID },
	{ "add with reserved bits 5-12 set", 0x94020029, .status = INSN_INVALID },
	{ "BPr with rcond 0", 0x00fa7ff8, .status = INSN_INVALID },
	{ "BPcc with cc 3", 0x2277fffc, .status = INSN_INVALID },
	{ "flushw with rd 1", 0x83580000, .status = INSN_INVALID },
	{ "done/retry with rd 2", 0x85f00000, .status = INSN_INVALID },
	{ "sll with a 6-bit count", 0x932a203f, .status = INSN_INVALID },
	{ "movcc with cc 1 (cc2=1)", 0x95664809, .status = INSN_INVALID },
};

static unsigned passed, failed;

static void result(const char *name, bool ok, const char *why)
{
	if (ok) {
		passed++;
		printf("ok %s\n", name);
	} else {
		failed++;
		printf("FAIL %s: %s\n", name, why);
	}
}

#define EXPECT(field, want) do { \
		if ((uint64_t)(in.field) != (uint64_t)(want)) { \
			snprintf(why, sizeof(why), #field " is 0x%llx, want 0x%llx", \
				 (unsigned long long)(in.field), (unsigned long long)(want)); \
			goto out; \
		} \
	} while (0)

static void check_case(const struct expect *e)
{
	struct insn in;
	char why[160] = "";
	insn_decode(&in, e->word, BASE);
	EXPECT(status, e->status);
	EXPECT(length, 4);
	EXPECT(word, e->word);
	if (e->status != INSN_OK) {
		if (strcmp(insn_mnemonic(&in), "(bad)"))
			snprintf(why, sizeof(why), "an invalid word is named %s", insn_mnemonic(&in));
		goto out;
	}
	if (strcmp(insn_mnemonic(&in), e->mnemonic)) {
		snprintf(why, sizeof(why), "mnemonic %s, want %s", insn_mnemonic(&in), e->mnemonic);
		goto out;
	}
	EXPECT(cf, e->cf);
	EXPECT(delayed, e->delayed);
	EXPECT(annul, e->annul);
	EXPECT(has_prediction, e->pred != NOPRED);
	EXPECT(predict_taken, e->pred == PT);
	EXPECT(disp_bits != 0, e->has_target);
	if (e->has_target)
		EXPECT(target, BASE + (uint64_t)e->target_off);
	EXPECT(regs_read, e->reads);
	EXPECT(regs_written, e->writes);
	EXPECT(window, e->window);
	EXPECT(mem, e->mem);
	EXPECT(mem_size, e->mem_size);
	EXPECT(asi, e->has_asi ? e->asi : INSN_ASI_NONE);
	EXPECT(asi_reg, e->asi_reg);
	EXPECT(privileged, e->priv);
	EXPECT(cc_read, e->ccr);
	EXPECT(cc_written, e->ccw);
	EXPECT(state_read, e->state_r);
	EXPECT(state_written, e->state_w);
	EXPECT(imm, e->imm);
out:
	result(e->asm_text, !why[0], why);
}

/* Reserved encodings say why they are invalid ([reserved] in opcodes.map). */
static void check_reasons(void)
{
	static const struct { uint32_t word; const char *has; } words[] = {
		{ 0x01c00000, "coprocessor" },	/* op2=7: cb */
		{ 0x2277fffc, "cc=11" },	/* BPcc with cc=11 */
		{ 0x85880000, "UA2005" },	/* allclean */
		{ 0x81c00000 | 1u << 5, NULL },	/* jmp %g0 with a reserved bit: no special reason */
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		struct insn in;
		char name[64];
		insn_decode(&in, words[i].word, BASE);
		snprintf(name, sizeof(name), "reason for %08x", words[i].word);
		bool ok = in.status == INSN_INVALID &&
			  (words[i].has ? in.invalid_why && strstr(in.invalid_why, words[i].has) :
			   !in.invalid_why);
		result(name, ok, in.invalid_why ? in.invalid_why : "no reason");
	}
}

/* The window shift helpers: live sets across save and restore. */
static void check_window_shift(void)
{
	/* after save: %i0 (the old %o0), %l0 (fresh), %g1 (shared) */
	result("live across save", insn_regs_before_save(R(I0) | R(L0) | R(G1) | R(O3)) == (R(O0) | R(G1)),
	       "wrong set");
	/* after restore: %o0 (the callee's %i0), %l1 (the caller's), %g2 */
	result("live across restore", insn_regs_before_restore(R(O0) | R(L1) | R(G2) | R(I5)) ==
	       (R(I0) | R(G2)), "wrong set");
}

/* Delay-slot semantics of the annul bit (insn_delay_slot_runs). */
static void check_delay_slots(void)
{
	static const struct { uint32_t word; bool taken, not_taken; const char *name; } slots[] = {
		{ 0x12800002, true, true, "bne runs its slot on both paths" },
		{ 0x2267fffc, true, false, "be,a runs its slot only when taken" },
		{ 0x30800010, false, false, "ba,a never runs its slot" },
		{ 0x20800002, false, false, "bn,a never runs its slot" },
		{ 0x10800002, true, true, "ba runs its slot" },
	};
	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++) {
		struct insn in;
		insn_decode(&in, slots[i].word, BASE);
		result(slots[i].name, in.status == INSN_OK && in.delayed &&
		       insn_delay_slot_runs(&in, true) == slots[i].taken &&
		       insn_delay_slot_runs(&in, false) == slots[i].not_taken, "delay slot");
	}
}

/* Big-endian bytes, whatever the host's order, and a short buffer. */
static void check_bytes(void)
{
	static const uint8_t save[] = { 0x9d, 0xe3, 0xbf, 0x40 };
	struct insn in;
	insn_decode_bytes(&in, save, sizeof(save), BASE);
	result("insn_decode_bytes reads big-endian", in.status == INSN_OK && in.word == 0x9de3bf40 &&
	       in.window == INSN_WIN_SAVE, "save %sp, -192, %sp not decoded from its bytes");
	insn_decode_bytes(&in, save, 3, BASE);
	result("insn_decode_bytes refuses 3 bytes", in.status == INSN_TRUNCATED, "3 bytes accepted");
}

/* Falls-through and branch-target helpers, and register names. */
static void check_helpers(void)
{
	struct insn in;
	insn_decode(&in, 0x00000000, BASE);
	result("illtrap does not fall through", !insn_falls_through(&in), "it does");
	insn_decode(&in, 0x81c7e008, BASE);
	result("ret does not fall through", !insn_falls_through(&in) && !insn_has_branch_target(&in),
	       "it does, or has a target");
	insn_decode(&in, 0x00800002, BASE);
	result("bn falls through", insn_falls_through(&in), "it does not");
	result("register names", !strcmp(insn_reg_name(0), "g0") && !strcmp(insn_reg_name(14), "o6") &&
	       !strcmp(insn_reg_name(23), "l7") && !strcmp(insn_reg_name(31), "i7"), "wrong names");
}

/* What must hold for every word, valid or not; "" when it does. */
static const char *invariant_broken(const struct insn *in)
{
	if (in->length != 4)
		return "length is not 4";
	if (in->status == INSN_INVALID)
		return in->regs_read || in->regs_written || in->cf || in->delayed || in->mem ||
		       strcmp(insn_mnemonic(in), "(bad)") ? "an invalid word has effects" : "";
	if (in->status != INSN_OK || in->mnemonic >= SPARC_MN_COUNT)
		return "bad status or mnemonic";
	if ((in->regs_read | in->regs_written) & INSN_REG(INSN_G0))
		return "%g0 in a register set";
	bool cti = in->cf != INSN_CF_NONE && in->cf != INSN_CF_TRAP && in->cf != INSN_CF_TRAP_ALWAYS &&
		   in->cf != INSN_CF_DONE_RETRY && in->cf != INSN_CF_ILLTRAP;
	if (in->delayed != cti)
		return "delay slot and class disagree";
	if ((in->annul || in->has_prediction) && !(in->cf >= INSN_CF_BRANCH && in->cf <= INSN_CF_BRANCH_REG))
		return "annul or prediction outside a branch";
	if (in->disp_bits && in->target != in->addr + (uint64_t)in->disp)
		return "target is not addr + disp";
	if (in->disp_bits && (in->disp & 3))
		return "displacement not a multiple of 4";
	if ((in->mem == INSN_MEM_LOAD || in->mem == INSN_MEM_STORE || in->mem == INSN_MEM_ATOMIC) &&
	    !in->mem_size)
		return "an access without a size";
	if (in->asi != INSN_ASI_NONE && (in->asi > 0xff || in->mem == INSN_MEM_NONE))
		return "an ASI without an access";
	if (in->asi_reg && in->asi != INSN_ASI_NONE)
		return "both %asi and an explicit ASI";
	if (in->cf == INSN_CF_CALL && !(in->regs_written & INSN_REG(INSN_O7)))
		return "call does not write %o7";
	return "";
}

/* Every STRIDE-th word (all 2^32 with stride 1): the invariants, and no sanitizer report. */
static void check_words(uint64_t stride)
{
	uint64_t checked = 0, broken = 0;
	char name[96], why[96] = "";
	for (uint64_t w = 0; w < 1ull << 32; w += stride) {
		struct insn in;
		insn_decode(&in, (uint32_t)w, BASE);
		const char *b = invariant_broken(&in);
		checked++;
		if (*b && !broken++)
			snprintf(why, sizeof(why), "%08llx: %s", (unsigned long long)w, b);
	}
	snprintf(name, sizeof(name), "invariants over %llu words (stride %llu)",
		 (unsigned long long)checked, (unsigned long long)stride);
	result(name, !broken, why);
}

int main(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i]);
	check_reasons();
	check_window_shift();
	check_delay_slots();
	check_bytes();
	check_helpers();
	/* --stride N: every Nth word of the 2^32 (1: all of them; the default samples) */
	check_words(argc == 3 && !strcmp(argv[1], "--stride") ? strtoull(argv[2], NULL, 0) : 101);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
