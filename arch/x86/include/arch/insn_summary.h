/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch_insn_summarise on x86-64 (the contract is scion/insn_summary.h),
 * inline: the structural analysis summarises every instruction of every
 * function it builds, and a call per instruction cost the analysis about
 * 27 guest instructions per instruction (issue 21: 719 -> 746) over the
 * decoder's fields read in place. The decoder's control-flow class is
 * folded into the machine-neutral one by a table (arch/x86/insn_summary.c
 * says why each is what it is); registers are the decoder's sets
 * (arch/analysis.h numbers them); a call is summarised by the System V
 * calling convention (arch/abi.h): it reads the argument registers, rax
 * (the vector count of varargs calls) and rsp, and clobbers every
 * caller-saved register and the status flags, in reads and writes (no
 * late effects: x86 has no delay slots), and nothing shifts a window.
 */
#ifndef ARCH_INSN_SUMMARY_H
#define ARCH_INSN_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include <scion/insn_summary.h>
#include <scion/errno.h>
#include <arch/insn.h>
#include <arch/abi.h>

/* One decoder class (enum insn_cf) as the summary has it. */
struct arch_insn_class {
	uint8_t cls;			/* enum insn_class */
	uint8_t flags;			/* ARCH_INSN_* */
};
#define ARCH_INSN_HAS_TARGET	0x1	/* the decoder's target is a branch destination */
#define ARCH_INSN_ABI_CALL	0x2	/* summarised by the calling convention */
#define ARCH_INSN_CLASSES	(INSN_CF_UD + 1)

/* Indexed by enum insn_cf (arch/x86/insn_summary.c). */
extern const struct arch_insn_class arch_insn_classes[ARCH_INSN_CLASSES];

/* The summary of a decoded instruction. */
static inline void arch_insn_summary_of(struct insn_summary *s, const struct insn *in)
{
	struct arch_insn_class c = { INSN_CLASS_LEAVE, 0 };

	if (in->cf < ARCH_INSN_CLASSES)
		c = arch_insn_classes[in->cf];
	s->length = in->length;
	s->cls = c.cls;
	s->delay_slots = 0;
	s->flags = 0;
	s->window = 0;
	s->target = c.flags & ARCH_INSN_HAS_TARGET ? in->target : 0;
	s->reads = in->regs_read;
	s->writes = in->regs_written;
	s->late_reads = 0;
	s->late_writes = 0;
	if (c.flags & ARCH_INSN_ABI_CALL) {
		s->reads |= ABI_CALL_READS;
		s->writes |= ABI_CALLER_SAVED;
	}
}

/* x86 has no register windows: no summary has a window shift. */
static inline uint32_t arch_window_live_before(const struct insn_summary *s, uint32_t after)
{
	(void)s;
	return after;
}

static inline int arch_insn_summarise(struct insn_summary *s, const uint8_t *code, size_t avail,
				      uint64_t addr)
{
	struct insn in;

	insn_decode(&in, code, avail, addr);
	arch_insn_summary_of(s, &in);
	return in.status == INSN_OK ? 0 : -EINVAL;
}

#endif
