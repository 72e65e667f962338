/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The arch half of graft transactions (kernel/graft/txn.c): calling a
 * graft so that an abort can unwind to the call, from a trap or from C,
 * and letting only the timer interrupt through while a graft runs where
 * its caller had masked interrupts.
 */
#ifndef ARCH_TXN_H
#define ARCH_TXN_H

#include <stdint.h>
#include <arch/trap.h>
#include <arch/x86.h>

/*
 * CR8 (the task priority's class) that blocks interrupt classes 0..14:
 * only the timer, alone in class 15 (arch/x86/vectors.h), gets through.
 */
#define ARCH_TPR_TIMER_ONLY 0xeull

/* Where an abort resumes: the stack pointer inside arch_txn_call. */
struct arch_txn_jmp {
	uint64_t sp;
};

/*
 * arch_txn_call - Overview: call fn(args[0] .. args[5]) and remember
 *   where to resume if the call is abandoned.
 * Arguments: jmp, filled before fn runs; fn, the graft's entry.
 * Return value: fn's return value, or 0 when the call was abandoned by
 *   arch_txn_unwind or arch_txn_redirect (the caller tells the two
 *   apart by its own abort flag).
 * Caller's context: any; the callee-saved registers are restored from
 *   the stack on both paths.
 */
uint64_t arch_txn_call(struct arch_txn_jmp *jmp, uintptr_t fn, const uint64_t args[6]);

/*
 * arch_txn_unwind - abandon the call that filled jmp: discard every frame
 *   below it and return 0 from that arch_txn_call, interrupts masked.
 * Caller's context: code called (directly or not) by the abandoned
 *   function on the same stack, holding no lock it would leave held.
 */
__attribute__((noreturn)) void arch_txn_unwind(const struct arch_txn_jmp *jmp);

/* The instruction where an abandoned arch_txn_call resumes. */
extern char arch_txn_resume[];

/*
 * arch_txn_redirect - make the trap that frame describes return into the
 *   abandoned arch_txn_call (jmp) instead of the faulting code, with
 *   interrupts masked and the direction flag clear.
 * Caller's context: the trap handler that owns frame.
 */
static inline void arch_txn_redirect(struct trap_frame *frame, const struct arch_txn_jmp *jmp)
{
	frame->rip = (uint64_t)(uintptr_t)arch_txn_resume;
	frame->rsp = jmp->sp;
	frame->rax = 0;
	frame->rflags = RFLAGS_RESERVED;
}

/*
 * arch_irq_timer_only_enter / _exit - Overview: let only the timer
 *   interrupt through (task priority just below the timer's class) and
 *   unmask interrupts; _exit masks them and lowers the priority again.
 * Caller's context: interrupts masked, on the CPU that stays in the
 *   graft until _exit; every other vector stays pending meanwhile.
 */
static inline void arch_irq_timer_only_enter(void)
{
	uint64_t tpr = ARCH_TPR_TIMER_ONLY;
	__asm__ __volatile__("mov %0, %%cr8; sti" : : "r"(tpr) : "memory");
}

static inline void arch_irq_timer_only_exit(void)
{
	__asm__ __volatile__("cli; mov %0, %%cr8" : : "r"(0ull) : "memory");
}

#endif
