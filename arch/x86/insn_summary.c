// SPDX-License-Identifier: BSD-2-Clause
/*
 * x86-64 instructions summarised for the structural analysis (the
 * contract is scion/insn_summary.h): the decoder's control-flow classes
 * folded into the machine-neutral ones, its register sets as they are
 * (arch/analysis.h numbers them), and calls summarised by the System V
 * calling convention (arch/abi.h): a call reads the argument registers,
 * rax (the vector count of varargs calls) and rsp, and clobbers every
 * caller-saved register and the status flags. x86 has no delay slots.
 *
 * Pure functions over the bytes they are given; no locks.
 */
#include <scion/insn_summary.h>
#include <scion/errno.h>
#include <arch/insn.h>
#include <arch/abi.h>

/*
 * The decoder's class (enum insn_cf) -> the analysis's (enum insn_class),
 * with what the summary needs besides: whether target is a branch
 * destination, whether the calling convention summarises it.
 */
#define HAS_TARGET 0x1
#define ABI_CALL   0x2
static const struct { uint8_t cls, flags; } class_of[] = {
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

static void summarise(struct insn_summary *s, const struct insn *in)
{
	unsigned cls = INSN_CLASS_LEAVE, flags = 0;

	if (in->cf < sizeof(class_of) / sizeof(class_of[0])) {
		cls = class_of[in->cf].cls;
		flags = class_of[in->cf].flags;
	}
	s->length = in->length;
	s->cls = (uint8_t)cls;
	s->delay_slots = 0;
	s->target = flags & HAS_TARGET ? in->target : 0;
	s->reads = in->regs_read;
	s->writes = in->regs_written;
	if (flags & ABI_CALL) {
		s->reads |= ABI_CALL_READS;
		s->writes |= ABI_CALLER_SAVED;
	}
}

int arch_insn_summarise(struct insn_summary *s, const uint8_t *code, size_t avail, uint64_t addr)
{
	struct insn in;

	insn_decode(&in, code, avail, addr);
	summarise(s, &in);
	return in.status == INSN_OK ? 0 : -EINVAL;
}

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
