/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The arch half of graft transactions on sparc64 (arch_txn_call in arch/sparc64/switch.S):
 * a call an abort can abandon, and "only the timer" while a graft runs
 * where its caller had masked interrupts. Same contract as
 * arch/x86/include/arch/txn.h.
 *
 * arch_txn_call opens a register window and records its %sp in jmp;
 * arch_txn_unwind flushes the windows, returns to that window (reloading
 * its locals and ins from its save area) and leaves arch_txn_call with
 * 0. A trap redirects by making the interrupted code call
 * arch_txn_unwind(jmp) with interrupts masked. Timer-only mode is PIL 13:
 * the %tick_cmpr timer (level 14) and level 15 get through.
 */
#ifndef ARCH_TXN_H
#define ARCH_TXN_H

#include <stdint.h>
#include <arch/trap.h>

struct arch_txn_jmp {
	uint64_t sp;	/* arch_txn_call's biased %sp */
};

/* fn(args[0..5]); 0 when abandoned. */
uint64_t arch_txn_call(struct arch_txn_jmp *jmp, uintptr_t fn, const uint64_t args[6]);

/* Abandon the call that filled jmp: it returns 0, interrupts masked. */
__attribute__((noreturn)) void arch_txn_unwind(const struct arch_txn_jmp *jmp);

extern char arch_txn_resume[];

/* Make the trap return into arch_txn_unwind(jmp), interrupts masked (TSTATE.PSTATE.IE clear). */
static inline void arch_txn_redirect(struct trap_frame *frame, const struct arch_txn_jmp *jmp)
{
	frame->tpc = (uint64_t)(uintptr_t)arch_txn_unwind;
	frame->tnpc = frame->tpc + 4;
	frame->o[0] = (uint64_t)(uintptr_t)jmp;
	frame->tstate &= ~(0x002ull << 8);
}

/* PIL 13 and interrupts on: only level 14 (the timer) and 15 get through. */
static inline void arch_irq_timer_only_enter(void)
{
	__asm__ __volatile__("wrpr %%g0, 13, %%pil\n\t"
			     "rdpr %%pstate, %%g1\n\t"
			     "or %%g1, 0x002, %%g1\n\t"
			     "wrpr %%g1, 0, %%pstate" ::: "g1", "memory");
}

/* Interrupts masked, PIL 0 again. */
static inline void arch_irq_timer_only_exit(void)
{
	__asm__ __volatile__("rdpr %%pstate, %%g1\n\t"
			     "andn %%g1, 0x002, %%g1\n\t"
			     "wrpr %%g1, 0, %%pstate\n\t"
			     "wrpr %%g0, 0, %%pil" ::: "g1", "memory");
}

#endif
