// SPDX-License-Identifier: BSD-2-Clause
/*
 * x86-64 instructions summarised for the structural analysis (the
 * contract is scion/insn_summary.h): the table that folds the decoder's
 * control-flow classes into the machine-neutral ones (the summariser
 * that applies it is inline, arch/insn_summary.h), jump tables, and
 * register names.
 *
 * Pure functions over the bytes they are given; no locks.
 */
#include <scion/insn_summary.h>
#include <arch/insn_summary.h>
#include <arch/insn.h>

/*
 * The decoder's class (enum insn_cf) -> the analysis's (enum insn_class),
 * with what the summary needs besides: whether target is a branch
 * destination, whether the calling convention summarises it
 * (arch_insn_summary_of, inline in arch/insn_summary.h, applies them).
 */
#define HAS_TARGET ARCH_INSN_HAS_TARGET
#define ABI_CALL   ARCH_INSN_ABI_CALL
const struct arch_insn_class arch_insn_classes[ARCH_INSN_CLASSES] = {
	[INSN_CF_NONE] = { INSN_CLASS_SEQ, 0 },
	[INSN_CF_JMP] = { INSN_CLASS_JUMP, HAS_TARGET },
	[INSN_CF_JCC] = { INSN_CLASS_BRANCH, HAS_TARGET },
	[INSN_CF_LOOP] = { INSN_CLASS_BRANCH, HAS_TARGET },
	[INSN_CF_XBEGIN] = { INSN_CLASS_BRANCH, HAS_TARGET },	/* to the abort handler, or on */
	[INSN_CF_CALL] = { INSN_CLASS_CALL, HAS_TARGET | ABI_CALL },
	[INSN_CF_JMP_INDIRECT] = { INSN_CLASS_JUMP_INDIRECT, 0 },
	[INSN_CF_CALL_INDIRECT] = { INSN_CLASS_CALL_INDIRECT, ABI_CALL },
	[INSN_CF_RET] = { INSN_CLASS_RETURN, 0 },
	[INSN_CF_RET_FAR] = { INSN_CLASS_LEAVE, 0 },
	[INSN_CF_JMP_FAR] = { INSN_CLASS_LEAVE, 0 },
	[INSN_CF_CALL_FAR] = { INSN_CLASS_SEQ, ABI_CALL },	/* a call site the analysis does not list */
	[INSN_CF_IRET] = { INSN_CLASS_STOP, 0 },
	[INSN_CF_SYSCALL] = { INSN_CLASS_SEQ, 0 },		/* returns to the next instruction */
	[INSN_CF_SYSRET] = { INSN_CLASS_STOP, 0 },
	[INSN_CF_INT] = { INSN_CLASS_SEQ, 0 },
	[INSN_CF_INT3] = { INSN_CLASS_SEQ, 0 },
	[INSN_CF_HLT] = { INSN_CLASS_SEQ, 0 },			/* until an interrupt, then on */
	[INSN_CF_UD] = { INSN_CLASS_STOP, 0 },
};

#define SLICE 16	/* instructions the slice looks back over (jump_table.c's limit) */

bool arch_insn_jump_table(const uint8_t *fn, uint64_t fn_addr, uint64_t fn_size,
			  const uint32_t *before, unsigned n, uint32_t jump,
			  struct insn_jump_table_summary *jt)
{
	struct insn in[SLICE], j;
	struct insn_jump_table t;

	if (n > SLICE)
		n = SLICE;
	for (unsigned i = 0; i < n; i++)
		insn_decode(&in[i], fn + before[i], fn_size - before[i], fn_addr + before[i]);
	insn_decode(&j, fn + jump, fn_size - jump, fn_addr + jump);
	if (!insn_find_jump_table(&j, in, n, &t))
		return false;
	*jt = (struct insn_jump_table_summary){ t.table, t.entry_size, t.entries, t.relative, t.base };
	return true;
}

const char *arch_reg_name(unsigned n)
{
	return insn_reg_name(n);
}
