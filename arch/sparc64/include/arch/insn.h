/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SPARC V9 instruction decoder (arch/sparc64/insn_decode.c): for the
 * 32-bit word at an address, its validity, mnemonic, control-flow class
 * (with the annul bit, the prediction and the delay slot), its
 * PC-relative target, the integer registers it reads and writes, its
 * window shift, its memory access and ASI, the condition codes it reads
 * and writes, and whether it is privileged. Plain C with no kernel
 * dependencies: the host tools and tests build the same file, on a
 * little-endian host as on the big-endian target, because it decodes a
 * word (insn_decode) or big-endian bytes (insn_decode_bytes), never host
 * memory order.
 *
 * Registers are window-relative: bit n of a register set is r[n], with
 * g0-g7 = 0-7, o0-o7 = 8-15, l0-l7 = 16-23, i0-i7 = 24-31 (o6 = %sp,
 * i6 = %fp, o7 and i7 the return addresses). %g0 is never in a set: it
 * reads as zero and writes to it are discarded. For save and restore the
 * registers read are those of the window before the shift and the
 * registers written those of the window after it (rd names a register
 * of the new window); for return, everything it reads is in the window
 * before the shift (it writes none).
 *
 * For the structural analysis (scion/insn_summary.h): every class but
 * NONE, TRAP, TRAP_ALWAYS, DONE_RETRY and ILLTRAP has one delay slot
 * (in->delayed); insn_delay_slot_runs says on which paths it executes
 * (an annulled conditional branch runs it only when taken; ba,a and
 * bn,a never). ta and Tcc come back to the next instruction (system
 * calls, software traps); done, retry and illtrap end the path. A call's
 * effects on registers are the calling convention's, beyond %o7 (call)
 * or rd (jmpl) that this decoder reports as written.
 */
#ifndef ARCH_INSN_H
#define ARCH_INSN_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define INSN_MAX_LENGTH 4
#define INSN_NREGS      32
#define INSN_REG(n)     (1u << (n))
#define INSN_GPRS       0xfffffffeu	/* every register but %g0 */

enum insn_reg {
	INSN_G0, INSN_G1, INSN_G2, INSN_G3, INSN_G4, INSN_G5, INSN_G6, INSN_G7,
	INSN_O0, INSN_O1, INSN_O2, INSN_O3, INSN_O4, INSN_O5, INSN_O6, INSN_O7,
	INSN_L0, INSN_L1, INSN_L2, INSN_L3, INSN_L4, INSN_L5, INSN_L6, INSN_L7,
	INSN_I0, INSN_I1, INSN_I2, INSN_I3, INSN_I4, INSN_I5, INSN_I6, INSN_I7,
};
#define INSN_SP INSN_O6
#define INSN_FP INSN_I6
#define INSN_GLOBALS    0x000000feu
#define INSN_OUTS       0x0000ff00u
#define INSN_LOCALS     0x00ff0000u
#define INSN_INS        0xff000000u

enum insn_status {
	INSN_OK,
	INSN_INVALID,		/* no form of the map matches the word */
	INSN_TRUNCATED,		/* insn_decode_bytes: fewer than 4 bytes */
};

enum insn_cf {
	INSN_CF_NONE,		/* falls through (tn included) */
	INSN_CF_BRANCH,		/* Bicc/BPcc on a condition: target or fall through */
	INSN_CF_BRANCH_ALWAYS,	/* ba, fba (Bicc, BPcc, FBfcc, FBPfcc) */
	INSN_CF_BRANCH_NEVER,	/* bn, fbn: falls through (bn,a skips its delay slot) */
	INSN_CF_FBRANCH,	/* FBfcc/FBPfcc on a condition */
	INSN_CF_BRANCH_REG,	/* BPr: brz .. brgez on rs1 */
	INSN_CF_CALL,		/* call disp30 (link in %o7) */
	INSN_CF_CALL_INDIRECT,	/* jmpl with rd != %g0 (link in rd) */
	INSN_CF_JMP_INDIRECT,	/* jmpl with rd = %g0, not a return */
	INSN_CF_RET,		/* ret, retl: jmpl %i7/%o7 + 8 (or + 12), rd = %g0 */
	INSN_CF_RETURN,		/* return: jump and restore the window */
	INSN_CF_DONE_RETRY,	/* done, retry: leave a trap handler */
	INSN_CF_TRAP,		/* Tcc on a condition: trap or fall through */
	INSN_CF_TRAP_ALWAYS,	/* ta */
	INSN_CF_ILLTRAP,	/* illtrap: never falls through */
};
#define INSN_CF_COUNT (INSN_CF_ILLTRAP + 1)

enum insn_mem {
	INSN_MEM_NONE,
	INSN_MEM_LOAD,
	INSN_MEM_STORE,
	INSN_MEM_ATOMIC,	/* ldstub, swap, cas: read and written */
	INSN_MEM_PREFETCH,	/* an address, no access */
	INSN_MEM_FLUSH,		/* flush: an address, no access */
};

enum insn_window {
	INSN_WIN_NONE,
	INSN_WIN_SAVE,		/* CWP + 1: outs become ins */
	INSN_WIN_RESTORE,	/* CWP - 1 */
	INSN_WIN_RETURN,	/* return: CWP - 1, then the jump */
	INSN_WIN_FLUSHW,	/* spills every other window: no register changes */
	INSN_WIN_SAVED,		/* window bookkeeping of a spill handler */
	INSN_WIN_RESTORED,	/* ... of a fill handler */
};

/* How a form uses its register fields (struct insn.operands). */
#define INSN_OPD_RD_W     0x0001	/* integer rd written */
#define INSN_OPD_RD_R     0x0002	/* integer rd read */
#define INSN_OPD_PAIR     0x0004	/* rd names the pair rd, rd+1 */
#define INSN_OPD_RS1      0x0008	/* integer rs1 read */
#define INSN_OPD_RS2      0x0010	/* integer rs2 read */
#define INSN_OPD_ADDR     0x0020	/* a memory or jump address [rs1 + rs2/simm13] */
#define INSN_OPD_ASI      0x0040	/* alternate space: imm_asi (i=0) or %asi (i=1) */
#define INSN_OPD_ADDR_RS1 0x0080	/* a memory address [rs1] (cas) */
#define INSN_OPD_IMM22    0x0100	/* sethi's constant */
#define INSN_OPD_SIMM13   0x0200	/* a 13-bit immediate operand (sir, siam) */
#define INSN_OPD_CONST22  0x0400	/* illtrap's 22-bit constant */

/* Condition codes (cc_read, cc_written). */
#define INSN_CC_ICC  0x01
#define INSN_CC_XCC  0x02
#define INSN_CC_FCC(n) (0x04u << (n))

/* Other state (state_read, state_written). */
#define INSN_STATE_Y   0x01	/* the Y register */
#define INSN_STATE_ASI 0x02	/* the %asi register (an i=1 alternate-space access, rd/wr %asi) */

#define INSN_ASI_NONE  0xffff	/* in->asi when the access has no ASI or uses %asi */
#define INSN_ASI_UNRESTRICTED 0x80	/* explicit ASIs below this are privileged */

struct insn {
	uint64_t addr;		/* where it was decoded */
	uint32_t word;		/* the instruction */
	uint8_t status;		/* enum insn_status */
	uint8_t length;		/* 4 */
	const char *invalid_why;	/* INSN_INVALID: the reserved encoding it is, or NULL */
	uint8_t cf;		/* enum insn_cf */
	bool delayed;		/* has a delay slot */
	bool annul;		/* the a bit of a branch */
	bool has_prediction;	/* BPcc, FBPfcc, BPr */
	bool predict_taken;	/* their p bit */
	uint8_t disp_bits;	/* 30, 22, 19 or 16 for PC-relative targets, else 0 */
	int64_t disp;		/* the byte displacement (sign-extended, times 4) */
	uint64_t target;	/* addr + disp, when disp_bits */
	uint8_t rd, rs1, rs2;	/* the register fields as encoded */
	bool imm_form;		/* i = 1: the second operand is an immediate */
	int32_t imm;		/* that immediate (simm13/11/10 sign-extended, shift count,
				 * trap number), sethi's imm22 << 10 or illtrap's constant */
	uint8_t window;		/* enum insn_window */
	uint8_t mem;		/* enum insn_mem */
	uint8_t mem_size;	/* bytes accessed (64 for a block load/store through a block ASI) */
	uint16_t asi;		/* explicit ASI, or INSN_ASI_NONE */
	bool asi_reg;		/* the access uses the %asi register (i = 1) */
	uint8_t cc_read, cc_written;	/* INSN_CC_* */
	uint8_t state_read, state_written;	/* INSN_STATE_* */
	bool privileged;	/* traps outside privileged mode: by opcode, or an explicit ASI
				 * below 0x80 (through %asi it depends on %asi at run time) */
	uint16_t mnemonic;	/* enum sparc_mnemonic (build/gen/sparc64_opcodes.h) */
	uint16_t operands;	/* INSN_OPD_* of its form (how rd, rs1, rs2 are used) */
	uint32_t regs_read;	/* INSN_REG(n), %g0 excluded */
	uint32_t regs_written;
};

/*
 * insn_decode - decode one instruction word.
 * Arguments: in, filled in; word, the instruction; addr, its address
 *   (for PC-relative targets).
 * Return value: in->status. Caller's context: any; pure function.
 */
int insn_decode(struct insn *in, uint32_t word, uint64_t addr);

/* The same from code[0..avail-1], big-endian; INSN_TRUNCATED when avail < 4. */
int insn_decode_bytes(struct insn *in, const uint8_t *code, size_t avail, uint64_t addr);

/* The instruction's name ("add", "bne", "ldxa"...), "(bad)" when invalid. */
const char *insn_mnemonic(const struct insn *in);

/* Name of register n (0-31): "g0" .. "i7". */
const char *insn_reg_name(unsigned n);

/* Whether execution can continue after the instruction (and its delay slot). */
static inline bool insn_cf_falls_through(uint8_t cf)
{
	switch (cf) {
	case INSN_CF_BRANCH_ALWAYS: case INSN_CF_JMP_INDIRECT: case INSN_CF_RET:
	case INSN_CF_RETURN: case INSN_CF_DONE_RETRY: case INSN_CF_TRAP_ALWAYS:
	case INSN_CF_ILLTRAP:
		return false;
	default:
		return true;
	}
}

static inline bool insn_falls_through(const struct insn *in)
{
	return insn_cf_falls_through(in->cf);
}

/* Whether in->target is a branch destination (a direct branch or call). */
static inline bool insn_has_branch_target(const struct insn *in)
{
	return in->disp_bits != 0;
}

/*
 * Whether the delay slot runs on the path where the branch is taken
 * (taken = true) or falls through (taken = false). Without the a bit it
 * always runs; with it, a conditional branch runs it only when taken, and
 * ba,a / bn,a never do. Only meaningful when in->delayed.
 */
static inline bool insn_delay_slot_runs(const struct insn *in, bool taken)
{
	if (!in->annul)
		return true;
	if (in->cf == INSN_CF_BRANCH_ALWAYS || in->cf == INSN_CF_BRANCH_NEVER)
		return false;
	return taken;
}

/*
 * The window shift, for liveness across save and restore: a register set
 * of the window after the instruction, seen from the window before it.
 * After save the new ins are the old outs, the new locals and outs are
 * fresh (nothing before the save can feed them) and the globals are
 * shared; after restore (or return) the new outs are the old ins, and the
 * caller's locals and ins are the caller's own (the callee cannot reach
 * them). Apply to live-after sets to get their contribution before.
 */
static inline uint32_t insn_regs_before_save(uint32_t after)
{
	return (after & INSN_GLOBALS) | (after & INSN_INS) >> 16;
}

static inline uint32_t insn_regs_before_restore(uint32_t after)
{
	return (after & INSN_GLOBALS) | (after & INSN_OUTS) << 16;
}

#endif
