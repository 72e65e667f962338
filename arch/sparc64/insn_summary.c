// SPDX-License-Identifier: BSD-2-Clause
/*
 * SPARC V9 instructions summarised for the structural analysis (the
 * contract is scion/insn_summary.h): the table that folds the decoder's
 * control-flow classes into the machine-neutral ones (the summariser
 * that applies it, with the delay slot, the annul bit and the window
 * shift, is inline: arch/insn_summary.h) and register names; jump
 * tables are arch/sparc64/analysis/jump_table.c's (it needs the decoder,
 * which the kernel does not link yet).
 *
 * Pure functions over the bytes they are given; no locks.
 */
#include <scion/insn_summary.h>
#include <arch/insn_summary.h>
#include <arch/insn.h>

/*
 * The decoder's class (enum insn_cf) -> the analysis's (enum insn_class),
 * with what the summary needs besides: whether target is a branch
 * destination, whether the calling convention summarises it, whether the
 * a bit restricts the slot to the taken path (arch_insn_summarise, inline
 * in arch/insn_summary.h, applies them, and rewrites ba,a, bn,a and a
 * call that restores in its slot).
 */
#define HAS_TARGET ARCH_INSN_HAS_TARGET
#define ABI_CALL   ARCH_INSN_ABI_CALL
#define ANNUL      ARCH_INSN_ANNUL_SLOT
const struct arch_insn_class arch_insn_classes[INSN_CF_COUNT] = {
	[INSN_CF_NONE] = { INSN_CLASS_SEQ, 0 },
	[INSN_CF_BRANCH] = { INSN_CLASS_BRANCH, HAS_TARGET | ANNUL },
	[INSN_CF_BRANCH_ALWAYS] = { INSN_CLASS_JUMP, HAS_TARGET },
	[INSN_CF_BRANCH_NEVER] = { INSN_CLASS_SEQ, 0 },		/* the slot, then on */
	[INSN_CF_FBRANCH] = { INSN_CLASS_BRANCH, HAS_TARGET | ANNUL },
	[INSN_CF_BRANCH_REG] = { INSN_CLASS_BRANCH, HAS_TARGET | ANNUL },
	[INSN_CF_CALL] = { INSN_CLASS_CALL, HAS_TARGET | ABI_CALL },
	[INSN_CF_CALL_INDIRECT] = { INSN_CLASS_CALL_INDIRECT, ABI_CALL },
	[INSN_CF_JMP_INDIRECT] = { INSN_CLASS_JUMP_INDIRECT, 0 },
	[INSN_CF_RET] = { INSN_CLASS_RETURN, 0 },
	[INSN_CF_RETURN] = { INSN_CLASS_RETURN, 0 },		/* restores, then jumps */
	[INSN_CF_DONE_RETRY] = { INSN_CLASS_STOP, 0 },		/* leaves a trap handler */
	[INSN_CF_TRAP] = { INSN_CLASS_SEQ, 0 },			/* a software trap comes back */
	[INSN_CF_TRAP_ALWAYS] = { INSN_CLASS_SEQ, 0 },		/* a system call comes back */
	[INSN_CF_ILLTRAP] = { INSN_CLASS_STOP, 0 },
};

const char *arch_reg_name(unsigned n)
{
	return insn_reg_name(n);
}
