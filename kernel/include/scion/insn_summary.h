/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The arch contract for the structural analysis (kernel/analysis/, and
 * the probe code that asks where instructions are): one machine
 * instruction as the control-flow graph and the liveness analysis need
 * it, in terms every machine shares, and the hooks that produce it. The
 * port implements them over its decoder (x86-64: arch/x86/insn_summary.c
 * and arch/insn_summary.h, over arch/x86/insn_decode.c); the analysis
 * never sees a decoded instruction, an opcode or a register name. A
 * hook the analysis calls per instruction may be inline in the arch's
 * header, which this file includes last.
 *
 * Register sets are bitmasks of the arch's register numbers, general
 * registers and condition flags alike (arch/analysis.h: ARCH_NREGS,
 * ARCH_REGS_ALL, and the calling convention's sets); arch_reg_name
 * names a number for people.
 *
 * A summary is a pure function of the instruction's bytes and address:
 * the hooks take no lock and touch no state, so they may run anywhere.
 */
#ifndef SCION_INSN_SUMMARY_H
#define SCION_INSN_SUMMARY_H

#include <scion/compiler.h>

/*
 * Where control goes after an instruction. "Direct" transfers carry
 * their target; a delayed transfer (SPARC) takes effect after the
 * delay_slots instructions that follow it, which the analysis keeps in
 * its block when they run on every path out of it. When they do not (an
 * annulled conditional branch runs them only when taken:
 * INSN_SLOTS_TAKEN_ONLY), or when a slot is itself a branch target, the
 * block ends at the transfer and its slots are a block of their own,
 * whose successors are the transfer's destinations (cfg_build.c). A
 * transfer whose slots never run (SPARC's ba,a) is summarised with none.
 * Traps that come back to the next instruction (a system call, a
 * breakpoint, a halt until the next interrupt) are sequential: nothing in
 * the function branches there.
 */
enum insn_class {
	INSN_CLASS_SEQ,			/* goes on at the next instruction */
	INSN_CLASS_JUMP,		/* direct and unconditional: to target only */
	INSN_CLASS_BRANCH,		/* direct and conditional: to target or the next */
	INSN_CLASS_CALL,		/* direct call of target; comes back to the next */
	INSN_CLASS_CALL_INDIRECT,	/* call through a register or memory */
	INSN_CLASS_JUMP_INDIRECT,	/* through a register or memory: a jump table, or unknown */
	INSN_CLASS_RETURN,		/* returns from the function */
	INSN_CLASS_LEAVE,		/* leaves for where the analysis cannot follow (far
					   transfers): everything is live there */
	INSN_CLASS_STOP,		/* nothing follows (an undefined opcode, a return from
					   an interrupt) */
};

/*
 * The most delay slots a transfer has on any machine (SPARC: 1); each
 * arch's own most is ARCH_DELAY_SLOTS_MAX (arch/analysis.h).
 */
#define INSN_DELAY_SLOTS_MAX 2

/* insn_summary.flags */
#define INSN_SLOTS_TAKEN_ONLY 0x1	/* the delay slots run only when the branch is taken */

struct insn_summary {
	uint8_t length;			/* bytes */
	uint8_t cls;			/* enum insn_class */
	uint8_t delay_slots;		/* instructions executed before a transfer takes effect
					   (at most INSN_DELAY_SLOTS_MAX) */
	uint8_t flags;			/* INSN_SLOTS_* */
	uint8_t window;			/* 0, or a register-window shift (SPARC's save, restore,
					   return): the registers after the instruction are not
					   those before; arch_window_live_before maps a live set
					   back across it */
	uint64_t target;		/* JUMP, BRANCH, CALL: where to; otherwise 0 */
	uint32_t reads, writes;		/* registers, in program order; a call's are its calling
					   convention's (arguments and stack read, caller-saved
					   written) on a machine without delay slots */
	uint32_t late_reads, late_writes;	/* what happens when a delayed transfer takes
					   effect, after its slots: a delayed call's calling
					   convention (a slot may set an argument) */
};

/*
 * The registers live before the instruction s summarises, given those
 * live after it: what it reads, and what it does not write, across its
 * window shift if it has one (writes name registers of the new window).
 * Its late effects are not included (the caller applies them after the
 * last delay slot).
 */
static inline uint32_t insn_live_before(const struct insn_summary *s, uint32_t after);

/* Whether execution may go on at the next instruction (after the delay slots). */
static inline bool insn_class_falls_through(uint8_t cls)
{
	return cls != INSN_CLASS_JUMP && cls != INSN_CLASS_JUMP_INDIRECT &&
	       cls != INSN_CLASS_RETURN && cls != INSN_CLASS_LEAVE && cls != INSN_CLASS_STOP;
}

/* Whether the instruction ends a basic block (calls do not: their sites are kept apart). */
static inline bool insn_class_ends_block(uint8_t cls)
{
	return cls != INSN_CLASS_SEQ && cls != INSN_CLASS_CALL && cls != INSN_CLASS_CALL_INDIRECT;
}

/* Whether target holds a destination inside the code (direct jumps, branches, calls). */
static inline bool insn_class_has_target(uint8_t cls)
{
	return cls == INSN_CLASS_JUMP || cls == INSN_CLASS_BRANCH || cls == INSN_CLASS_CALL;
}

static inline bool insn_class_is_call(uint8_t cls)
{
	return cls == INSN_CLASS_CALL || cls == INSN_CLASS_CALL_INDIRECT;
}

/*
 * A table an indirect jump dispatches through: entries absolute
 * addresses, or offsets from base when relative.
 */
struct insn_jump_table_summary {
	uint64_t table;			/* address of entry 0 */
	unsigned entry_size;		/* bytes per entry */
	unsigned entries;		/* how many, from the bounds check before the jump */
	bool relative;
	uint64_t base;
};

/*
 * arch_insn_summarise (inline, arch/insn_summary.h, included at the end
 *   of this file: the analysis calls it for every instruction) -
 *   Overview: the summary of the instruction at code[0].
 * Arguments: s, filled in; code, the bytes; avail, how many may be read
 *   (never more are touched); addr, the address of code[0] (for
 *   targets).
 * Return value: 0; -EINVAL when the bytes are not a valid instruction or
 *   it runs past avail (s->length is then unreliable).
 * Caller's context: any; pure.
 *   int arch_insn_summarise(struct insn_summary *s, const uint8_t *code,
 *                           size_t avail, uint64_t addr);
 */

/*
 * arch_insn_jump_table - Overview: recognise the jump table the indirect
 *   jump at fn + jump dispatches through, by a slice over the
 *   instructions before it (the forms the kernel's compiler emits).
 * Arguments: fn, fn_addr, fn_size: the function's bytes and where they
 *   are; before[0 .. n-1]: offsets from fn of the instructions that
 *   precede the jump in address order, nearest last (at most 16); jump,
 *   the jump's offset; jt, filled in on success.
 * Return value: true with *jt, false when no table is recognised (the
 *   jump is then unanalysable). The entries are not checked here.
 * Caller's context: any; pure.
 */
bool arch_insn_jump_table(const uint8_t *fn, uint64_t fn_addr, uint64_t fn_size,
			  const uint32_t *before, unsigned n, uint32_t jump,
			  struct insn_jump_table_summary *jt);

/*
 * arch_reg_name - Overview: the name of register number n (a general
 *   register or a flag) as people write it.
 * Arguments: n < ARCH_NREGS.
 * Return value: a static string; "?" for a number out of range.
 * Caller's context: any.
 */
const char *arch_reg_name(unsigned n);

/*
 * arch_insn_describe - Overview: the `insn` shell command's account of
 *   the instruction at addr as the decoder sees it: a line with its
 *   address, symbol and bytes, then its fields (prefixes, opcode,
 *   operands, immediates, target), its control flow and the registers
 *   it reads and writes. The command adds the registers live around it.
 * Arguments: addr, in kernel text; avail, bytes that may be read there
 *   (to the end of its function).
 * Return value: 0; -EINVAL when the bytes do not decode (said on the
 *   console).
 * Caller's context: thread (the shell), prints with printk.
 */
int arch_insn_describe(uint64_t addr, uint64_t avail);

/*
 * arch_window_live_before (inline, arch/insn_summary.h) - Overview: a
 *   set of registers live after a window shift (s->window != 0) as the
 *   registers of the window before it: those it carries over, and those
 *   the shift hides but which stay live (the caller's, under a save).
 * Caller's context: any; pure. A machine without windows returns after.
 *   uint32_t arch_window_live_before(const struct insn_summary *s, uint32_t after);
 */

/* The arch's inline hooks, which need the types above. */
#include <arch/insn_summary.h>

static inline uint32_t insn_live_before(const struct insn_summary *s, uint32_t after)
{
	uint32_t kept = after & ~s->writes;
	if (s->window)
		kept = arch_window_live_before(s, kept);
	return s->reads | kept;
}

#endif
