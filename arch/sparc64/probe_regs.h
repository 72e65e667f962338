/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The registers of code a probe interrupted, for the two files that read
 * or write them in probe context (probe_site.c resuming a ta probe,
 * probe_return.c finding a return value): its globals and outs are in the
 * trap frame; its locals and ins are in its register window, which
 * flushw writes to the window's save area at its %sp + STACK_BIAS (the
 * trap's return, or the patch's restore, fills them back from there, so a
 * write there is what the code sees). Inline: both callers run in
 * .text.noprobe, and a shared out-of-line copy would have to be too.
 */
#ifndef SPARC64_PROBE_REGS_H
#define SPARC64_PROBE_REGS_H

#include <arch/insn.h>
#include <arch/trap.h>

#include "sparc64.h"

/* Bytes of one register in a save area. */
#define SAVED_REG_BYTES 8

/* Every window but the current one written to its save area. */
static inline void sparc64_flushw(void)
{
	__asm__ __volatile__("flushw" ::: "memory");
}

/*
 * A local or an in (INSN_L0 .. INSN_I7) of the window whose (biased) %sp
 * is sp, in its save area: valid after flushw (or once the window has
 * spilled).
 */
static inline uint64_t *sparc64_saved_reg(uint64_t sp, unsigned r)
{
	return (uint64_t *)(uintptr_t)(sp + STACK_BIAS + SAVED_REG_BYTES * (r - INSN_L0));
}

/* Register r of the interrupted code (%g0 reads frame->g[0], which callers skip). */
static inline uint64_t *sparc64_interrupted_reg(struct trap_frame *frame, unsigned r)
{
	if (r < INSN_O0)
		return &frame->g[r];
	if (r < INSN_L0)
		return &frame->o[r - INSN_O0];
	sparc64_flushw();
	return sparc64_saved_reg(frame->sp, r);
}

#endif
