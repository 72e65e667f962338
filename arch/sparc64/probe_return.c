// SPDX-License-Identifier: BSD-2-Clause
/*
 * The value a function returns, seen at its fbt return probe on SPARC V9
 * (arch_probe_return_value, scion/probe_arch.h). The probe fires at the
 * return instruction, before its delay slot, and on SPARC the value is
 * often not in the caller's %o0 yet:
 *   - `retl; <op> ..., %o0` (a leaf): the slot computes %o0;
 *   - `ret; restore` (rd %g0): the value is the callee's %i0, which the
 *     restore makes the caller's %o0;
 *   - `ret; restore %rs1, src2, %o0`: rs1 + src2, read in the callee's
 *     window, lands in the caller's %o0;
 *   - `return %i7 + 8; <op> ..., %o0` (V9): the window is restored first,
 *     so the slot runs in the caller's window (its %o regs are the
 *     callee's %i regs) and may compute %o0; else it is the callee's %i0.
 * So this emulates the slot, reading the site and its slot from the text
 * as booted (the live site holds the probe's ba,a or ta). The slot forms
 * emulated are those gcc puts there for a return value: sethi and the
 * integer ALU operations add, sub, and, or, xor, andn, orn (and their cc
 * forms: the condition codes are not wanted) and the shifts, with a
 * register or simm13 operand; restore adds as add does.
 *
 * Best guesses, where the value cannot be known here:
 *   - a slot that writes %o0 some other way (a load, a conditional move):
 *     %o0 as the slot finds it (retl) or the callee's %i0 (return);
 *     a load is not emulated because reading memory from probe context
 *     could fault, and arch_safe_read is probe-able;
 *   - a tail call (call, or jmpl to another function, with its restore):
 *     the callee computes the value later; this answers what the
 *     computation above gives, the value leaving in %o0 (the tail callee's
 *     first argument), as x86's %rax at a tail call's jmp is a guess too.
 *
 * Probe context (a consumer's handler, interrupts masked): in
 * .text.noprobe (arch.mk), calls nothing probe-able (no insn_decode: the
 * few forms are matched with the generated field macros, as
 * arch_probe_resume does), and reads only the booted text image, the
 * frame and the register save areas of the interrupted window and its
 * caller (after flushw), which arch_probe_resume reads as well.
 */
#include <scion/probe_arch.h>
#include <scion/textimage.h>
#include <arch/insn.h>
#include <arch/patch.h>

#include "sparc64.h"
#include "probe_regs.h"

extern char __text_start[], __text_end[];

#define INSN_BYTES	4
#define SIMM13_BITS	13
#define SETHI_SHIFT	10	/* sethi writes imm22 into bits 31..10 */
#define SHIFT32_COUNT	0x1f	/* sll, srl, sra: a 5-bit count */
#define SHIFT64_COUNT	0x3f	/* sllx, srlx, srax: a 6-bit count */
#define REG_BITS	64	/* a V9 integer register */

/* An arithmetic-format instruction's opcode: op and op3. */
#define OP3_KEY(w)	((w) & (SPARC_PUT(OP, ~0u) | SPARC_PUT(OP3, ~0u)))
/* A branch/sethi-format instruction's opcode: op and op2. */
#define OP2_KEY(w)	((w) & (SPARC_PUT(OP, ~0u) | SPARC_PUT(OP2, ~0u)))

/* The window a delay slot's register numbers name. */
enum window {
	WINDOW_CALLEE,	/* the probed function's (the interrupted one) */
	WINDOW_CALLER,	/* its caller's, after a return's restore */
};

struct regs_view {
	const struct trap_frame *frame;
	enum window window;
};

/*
 * Register r in the view. The frame is only read here: the cast lets the
 * shared accessor (which arch_probe_resume also writes through) serve.
 */
static uint64_t reg(const struct regs_view *v, unsigned r)
{
	struct trap_frame *f = (struct trap_frame *)v->frame;

	if (r == INSN_G0)
		return 0;
	if (v->window == WINDOW_CALLEE || r < INSN_O0)
		return *sparc64_interrupted_reg(f, r);
	/* The caller's outs are the callee's ins; its locals and ins are in its
	   own save area, at its %sp: the callee's %i6. */
	if (r < INSN_L0)
		return *sparc64_interrupted_reg(f, r - INSN_O0 + INSN_I0);
	return *sparc64_saved_reg(*sparc64_interrupted_reg(f, INSN_I6), r);
}

/* The second operand of an arithmetic-format instruction: simm13 or rs2. */
static uint64_t src2(uint32_t w, const struct regs_view *v)
{
	const unsigned unused_bits = REG_BITS - SIMM13_BITS;

	if (SPARC_FIELD(w, I))
		return (uint64_t)((int64_t)((uint64_t)SPARC_FIELD(w, SIMM13) << unused_bits) >>
				  unused_bits);
	return reg(v, SPARC_FIELD(w, RS2));
}

/* The operations emulated, whatever the form (register or simm13, cc or not). */
enum alu_op { ALU_ADD, ALU_SUB, ALU_AND, ALU_OR, ALU_XOR, ALU_ANDN, ALU_ORN, ALU_SLL, ALU_SRL, ALU_SRA };

static const struct alu_form {
	uint32_t key;		/* OP3_KEY of the opcode */
	uint8_t op;		/* enum alu_op */
} alu_forms[] = {
	{ OP3_KEY(SPARC_ENC_ADD), ALU_ADD },	 { OP3_KEY(SPARC_ENC_ADDCC), ALU_ADD },
	{ OP3_KEY(SPARC_ENC_RESTORE), ALU_ADD },	/* restore adds in the old window */
	{ OP3_KEY(SPARC_ENC_SUB), ALU_SUB },	 { OP3_KEY(SPARC_ENC_SUBCC), ALU_SUB },
	{ OP3_KEY(SPARC_ENC_AND), ALU_AND },	 { OP3_KEY(SPARC_ENC_ANDCC), ALU_AND },
	{ OP3_KEY(SPARC_ENC_OR), ALU_OR },	 { OP3_KEY(SPARC_ENC_ORCC), ALU_OR },
	{ OP3_KEY(SPARC_ENC_XOR), ALU_XOR },	 { OP3_KEY(SPARC_ENC_XORCC), ALU_XOR },
	{ OP3_KEY(SPARC_ENC_ANDN), ALU_ANDN },	 { OP3_KEY(SPARC_ENC_ANDNCC), ALU_ANDN },
	{ OP3_KEY(SPARC_ENC_ORN), ALU_ORN },	 { OP3_KEY(SPARC_ENC_ORNCC), ALU_ORN },
	/* One opcode each for both widths (the X bit picks). */
	{ OP3_KEY(SPARC_ENC_SLL), ALU_SLL },	 { OP3_KEY(SPARC_ENC_SRL), ALU_SRL },
	{ OP3_KEY(SPARC_ENC_SRA), ALU_SRA },
};

/* op on a and b; a shift's X bit picks 64 bits and a 6-bit count, else 32 bits and 5. */
static uint64_t alu(unsigned op, uint32_t w, uint64_t a, uint64_t b)
{
	bool x = SPARC_FIELD(w, X);
	unsigned n = b & (x ? SHIFT64_COUNT : SHIFT32_COUNT);

	switch (op) {
	case ALU_ADD:
		return a + b;
	case ALU_SUB:
		return a - b;
	case ALU_AND:
		return a & b;
	case ALU_OR:
		return a | b;
	case ALU_XOR:
		return a ^ b;
	case ALU_ANDN:
		return a & ~b;
	case ALU_ORN:
		return a | ~b;
	case ALU_SLL:
		return a << n;	/* both widths shift all 64 bits left (V9 A.49) */
	case ALU_SRL:
		return (x ? a : (uint32_t)a) >> n;
	default:		/* ALU_SRA */
		return (uint64_t)((x ? (int64_t)a : (int64_t)(int32_t)a) >> n);
	}
}

/*
 * Emulate w, if it is one of the forms above, in view v: its destination
 * in *rd and the value it writes in *val.
 * Return value: false for anything else (*val not set).
 */
static bool emulate(uint32_t w, const struct regs_view *v, unsigned *rd, uint64_t *val)
{
	*rd = SPARC_FIELD(w, RD);
	if (OP2_KEY(w) == OP2_KEY(SPARC_ENC_SETHI)) {
		*val = (uint64_t)SPARC_FIELD(w, IMM22) << SETHI_SHIFT;
		return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(alu_forms); i++) {
		if (OP3_KEY(w) == alu_forms[i].key) {
			*val = alu(alu_forms[i].op, w, reg(v, SPARC_FIELD(w, RS1)), src2(w, v));
			return true;
		}
	}
	return false;
}

/* The booted word at addr (the live one may be the probe's). */
static uint32_t booted_word(uint64_t addr)
{
	return sparc_word_at(text_image_bytes(addr));
}

uint64_t arch_probe_return_value(const struct trap_frame *frame, uint64_t site)
{
	const struct regs_view callee = { frame, WINDOW_CALLEE }, caller = { frame, WINDOW_CALLER };
	uint64_t val;
	unsigned rd;

	/* Not a site whose two words are text: %o0 is all there is. */
	if (!text_image_ready() || site % INSN_BYTES || site < (uintptr_t)__text_start ||
	    site + 2 * INSN_BYTES > (uintptr_t)__text_end)
		return frame->o[0];
	uint32_t cti = booted_word(site), slot = booted_word(site + INSN_BYTES);
	/* A branch to another function (a tail call) may annul its slot: no guess from it. */
	if (SPARC_FIELD(cti, OP) == SPARC_FIELD(SPARC_ENC_SETHI, OP))
		return frame->o[0];

	if (OP3_KEY(cti) == OP3_KEY(SPARC_ENC_RETURN)) {
		/* Restored first: the slot runs in the caller's window. */
		if (emulate(slot, &caller, &rd, &val) && rd == INSN_O0)
			return val;
		return reg(&callee, INSN_I0);
	}
	if (OP3_KEY(slot) == OP3_KEY(SPARC_ENC_RESTORE)) {
		/* ret (or a tail call); restore: rd names a register of the caller's window. */
		if (emulate(slot, &callee, &rd, &val) && rd == INSN_O0)
			return val;
		return reg(&callee, INSN_I0);
	}
	/* retl (or a leaf's tail call): the slot runs in this window. */
	if (emulate(slot, &callee, &rd, &val) && rd == INSN_O0)
		return val;
	return frame->o[0];
}
