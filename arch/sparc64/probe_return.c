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
#define WORD_BITS	32

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
	const unsigned unused_bits = 64 - SIMM13_BITS;

	if (SPARC_FIELD(w, I))
		return (uint64_t)((int64_t)((uint64_t)SPARC_FIELD(w, SIMM13) << unused_bits) >>
				  unused_bits);
	return reg(v, SPARC_FIELD(w, RS2));
}

/* A shift: X picks 64 bits and a 6-bit count, else 32 bits and 5. */
static uint64_t shift(uint32_t w, uint64_t a, uint64_t b)
{
	bool x = SPARC_FIELD(w, X);
	unsigned n = b & (x ? SHIFT64_COUNT : SHIFT32_COUNT);

	switch (OP3_KEY(w)) {
	case OP3_KEY(SPARC_ENC_SLL):
		return a << n;	/* both widths shift all 64 bits left (V9 A.49) */
	case OP3_KEY(SPARC_ENC_SRL):
		return (x ? a : (uint32_t)a) >> n;
	default:		/* SRA */
		return (uint64_t)((x ? (int64_t)a : (int64_t)(int32_t)a) >> n);
	}
}

/*
 * Emulate w, if it is one of the forms above, in view v: its destination
 * in *rd and the value it writes in *val.
 * Return value: false for anything else (nothing set).
 */
static bool emulate(uint32_t w, const struct regs_view *v, unsigned *rd, uint64_t *val)
{
	if (OP2_KEY(w) == OP2_KEY(SPARC_ENC_SETHI)) {
		*rd = SPARC_FIELD(w, RD);
		*val = (uint64_t)SPARC_FIELD(w, IMM22) << SETHI_SHIFT;
		return true;
	}

	uint32_t key = OP3_KEY(w);
	if (SPARC_FIELD(w, OP) != SPARC_FIELD(SPARC_ENC_ADD, OP))
		return false;
	uint64_t a = reg(v, SPARC_FIELD(w, RS1)), b = src2(w, v);
	switch (key) {
	case OP3_KEY(SPARC_ENC_ADD):
	case OP3_KEY(SPARC_ENC_ADDCC):
	case OP3_KEY(SPARC_ENC_RESTORE):	/* restore adds in the old window */
		*val = a + b;
		break;
	case OP3_KEY(SPARC_ENC_SUB):
	case OP3_KEY(SPARC_ENC_SUBCC):
		*val = a - b;
		break;
	case OP3_KEY(SPARC_ENC_AND):
	case OP3_KEY(SPARC_ENC_ANDCC):
		*val = a & b;
		break;
	case OP3_KEY(SPARC_ENC_OR):
	case OP3_KEY(SPARC_ENC_ORCC):
		*val = a | b;
		break;
	case OP3_KEY(SPARC_ENC_XOR):
	case OP3_KEY(SPARC_ENC_XORCC):
		*val = a ^ b;
		break;
	case OP3_KEY(SPARC_ENC_ANDN):
	case OP3_KEY(SPARC_ENC_ANDNCC):
		*val = a & ~b;
		break;
	case OP3_KEY(SPARC_ENC_ORN):
	case OP3_KEY(SPARC_ENC_ORNCC):
		*val = a | ~b;
		break;
	case OP3_KEY(SPARC_ENC_SLL):
	case OP3_KEY(SPARC_ENC_SRL):
	case OP3_KEY(SPARC_ENC_SRA):
		*val = shift(w, a, b);
		break;
	default:
		return false;
	}
	*rd = SPARC_FIELD(w, RD);
	return true;
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
