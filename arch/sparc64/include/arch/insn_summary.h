/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch_insn_summarise on SPARC V9 (the contract is scion/insn_summary.h),
 * inline like x86's: the analysis summarises every instruction it builds.
 * The decoder's control-flow class (arch/insn.h) is folded into the
 * machine-neutral one by a table (arch/sparc64/insn_summary.c says why
 * each is what it is); the delay slot and the annul bit become the
 * summary's delay_slots and INSN_SLOTS_TAKEN_ONLY:
 *  - a conditional branch (Bicc, BPcc, FBfcc, BPr) has one slot; with the
 *    a bit it runs only when the branch is taken;
 *  - ba has one slot, ba,a none (it never runs); bn is an ordinary
 *    instruction and bn,a a jump over the next one;
 *  - call and jmpl have one slot, and the calling convention (arch/abi.h)
 *    happens when the callee runs, after it: it is the summary's late
 *    effects. A call whose slot is a `restore` never comes back (it is
 *    the V9 tail call: the callee returns to this function's caller), so
 *    it is a jump (to its target, or indirect); that needs the slot, the
 *    next word, which the summariser reads when avail allows.
 * save, restore and return shift the register window: window is
 * SPARC_WINDOW_SAVE or SPARC_WINDOW_RESTORE, and arch_window_live_before
 * maps a live set back across the shift with the decoder's helpers, plus
 * the caller's locals and ins, which a save hides but which stay live,
 * and the %sp of the window a restore leaves (a window spill before the
 * restore stores there: never a free register).
 * Pure functions of the bytes; no locks.
 */
#ifndef ARCH_INSN_SUMMARY_H
#define ARCH_INSN_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include <scion/insn_summary.h>
#include <scion/errno.h>
#include <arch/insn.h>
#include <arch/abi.h>

/* insn_summary.window */
#define SPARC_WINDOW_SAVE	1	/* CWP + 1: the old outs are the new ins */
#define SPARC_WINDOW_RESTORE	2	/* CWP - 1 (restore, return): the old ins are the new outs */

/* One decoder class (enum insn_cf) as the summary has it. */
struct arch_insn_class {
	uint8_t cls;			/* enum insn_class */
	uint8_t flags;			/* ARCH_INSN_* */
};
#define ARCH_INSN_HAS_TARGET	0x1	/* the decoder's target is a branch destination */
#define ARCH_INSN_ABI_CALL	0x2	/* the calling convention runs after the slot */
#define ARCH_INSN_ANNUL_SLOT	0x4	/* with the a bit, the slot runs only when taken */

/* Indexed by enum insn_cf (arch/sparc64/insn_summary.c). */
extern const struct arch_insn_class arch_insn_classes[INSN_CF_COUNT];

static inline uint32_t arch_window_live_before(const struct insn_summary *s, uint32_t after)
{
	if (s->window == SPARC_WINDOW_SAVE)
		return insn_regs_before_save(after) | ABI_CALLER_WINDOW;
	if (s->window == SPARC_WINDOW_RESTORE)	/* this window's %sp: spills use it until then */
		return insn_regs_before_restore(after) | ABI_STACK_POINTER;
	return after;
}

/* A call's slot that restores the window makes it a tail call. */
static inline bool sparc_slot_restores(const uint8_t *code, size_t avail, uint64_t addr)
{
	struct insn slot;

	if (avail < 2 * INSN_MAX_LENGTH)
		return false;
	insn_decode_bytes(&slot, code + INSN_MAX_LENGTH, avail - INSN_MAX_LENGTH,
			  addr + INSN_MAX_LENGTH);
	return slot.status == INSN_OK && slot.window == INSN_WIN_RESTORE;
}

static inline int arch_insn_summarise(struct insn_summary *s, const uint8_t *code, size_t avail,
				      uint64_t addr)
{
	struct insn in;
	int status = insn_decode_bytes(&in, code, avail, addr);
	struct arch_insn_class c = arch_insn_classes[in.cf < INSN_CF_COUNT ? in.cf : 0];

	s->length = INSN_MAX_LENGTH;
	s->cls = c.cls;
	s->delay_slots = in.delayed;
	s->flags = 0;
	s->window = in.window == INSN_WIN_SAVE ? SPARC_WINDOW_SAVE :
		    in.window == INSN_WIN_RESTORE || in.window == INSN_WIN_RETURN ?
		    SPARC_WINDOW_RESTORE : 0;
	s->target = c.flags & ARCH_INSN_HAS_TARGET ? in.target : 0;
	s->reads = in.regs_read;
	s->writes = in.regs_written;
	s->late_reads = 0;
	s->late_writes = 0;
	if (in.cf == INSN_CF_BRANCH_NEVER)
		s->delay_slots = 0;			/* bn: an ordinary instruction */
	if (in.annul) {
		if (c.flags & ARCH_INSN_ANNUL_SLOT)
			s->flags = INSN_SLOTS_TAKEN_ONLY;
		else if (in.cf == INSN_CF_BRANCH_ALWAYS)
			s->delay_slots = 0;		/* ba,a: the slot never runs */
		else if (in.cf == INSN_CF_BRANCH_NEVER) {
			s->cls = INSN_CLASS_JUMP;	/* bn,a: over the slot */
			s->delay_slots = 0;
			s->target = addr + 2 * INSN_MAX_LENGTH;
		}
	}
	if (c.flags & ARCH_INSN_ABI_CALL) {
		if (sparc_slot_restores(code, avail, addr)) {
			s->cls = s->cls == INSN_CLASS_CALL ? INSN_CLASS_JUMP : INSN_CLASS_JUMP_INDIRECT;
		} else {
			s->late_reads = ABI_CALL_READS;
			s->late_writes = ABI_CALLER_SAVED;
		}
	}
	return status == INSN_OK ? 0 : -EINVAL;
}

#endif
