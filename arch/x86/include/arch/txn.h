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

/*
 * Where an abort resumes, filled before the graft runs (the offsets are
 * txn_call.S's): the resume address and the stack and frame pointers
 * there, struct cpu's sandbox_sp as it was, and the callee-saved
 * registers the resumed code expects back. arch_txn_abandon loads them.
 */
struct arch_txn_jmp {
	uint64_t pc, sp, rbp;		/* 0, 8, 16 */
	uint64_t sandbox_sp;		/* 24 */
	uint64_t rbx, r12, r13, r14, r15;	/* 32 .. 64 */
};

/*
 * arch_txn_call - Overview: call fn(args[0] .. args[5]) and remember
 *   where to resume if the call is abandoned.
 * Arguments: jmp, filled before fn runs; fn, the graft's entry.
 * Return value: fn's return value, or 0 when the call was abandoned by
 *   arch_txn_unwind or arch_txn_redirect (the caller tells the two
 *   apart by its own abort flag).
 * Caller's context: any.
 *
 * setjmp's way, inline: the state is stored into jmp (and the resume
 * address is the instruction after the call), and nothing is reloaded
 * on a normal return: fn, a trusted graft, keeps the ABI's
 * callee-saved registers and returns with sandbox_sp as it found it
 * (every call inside it restores sandbox_sp, normal or abandoned). The
 * caller-saved registers are the asm's outputs or clobbers, as the
 * call's are. The compiler keeps %rsp 16-byte aligned inside a function
 * that calls (txn_run), so fn gets the ABI's alignment.
 */
static __attribute__((always_inline)) inline uint64_t arch_txn_call(struct arch_txn_jmp *jmp,
								    uintptr_t fn,
								    const uint64_t args[6])
{
	register uint64_t a0 __asm__("rdi") = args[0];
	register uint64_t a1 __asm__("rsi") = args[1];
	register uint64_t a2 __asm__("rdx") = args[2];
	register uint64_t a3 __asm__("rcx") = args[3];
	register uint64_t a4 __asm__("r8") = args[4];
	register uint64_t a5 __asm__("r9") = args[5];
	register uint64_t j __asm__("r10") = (uint64_t)(uintptr_t)jmp;
	register uint64_t f __asm__("r11") = fn;
	uint64_t r;

	__asm__ __volatile__("leaq 1f(%%rip), %%rax\n\t"
			     "movq %%rax, 0(%%r10)\n\t"
			     "movq %%rsp, 8(%%r10)\n\t"
			     "movq %%rbp, 16(%%r10)\n\t"
			     "movq %%gs:8, %%rax\n\t"
			     "movq %%rax, 24(%%r10)\n\t"
			     "movq %%rbx, 32(%%r10)\n\t"
			     "movq %%r12, 40(%%r10)\n\t"
			     "movq %%r13, 48(%%r10)\n\t"
			     "movq %%r14, 56(%%r10)\n\t"
			     "movq %%r15, 64(%%r10)\n\t"
			     "call *%%r11\n"
			     "1:"
			     : "=a"(r), "+r"(a0), "+r"(a1), "+r"(a2), "+r"(a3), "+r"(a4), "+r"(a5),
			       "+r"(j), "+r"(f)
			     :
			     : "memory", "cc");
	return r;
}

/*
 * arch_txn_unwind - abandon the call that filled jmp: discard every frame
 *   below it and return 0 from that arch_txn_call, interrupts masked.
 * Caller's context: code called (directly or not) by the abandoned
 *   function on the same stack, holding no lock it would leave held.
 */
__attribute__((noreturn)) void arch_txn_unwind(const struct arch_txn_jmp *jmp);

/* Resume the call that filled jmp (in %rdi) with 0: interrupts masked (txn_call.S). */
extern char arch_txn_abandon[];

/*
 * arch_txn_redirect - make the trap that frame describes return into the
 *   abandoned arch_txn_call (jmp) instead of the faulting code, with
 *   interrupts masked and the direction flag clear.
 * Caller's context: the trap handler that owns frame.
 */
static inline void arch_txn_redirect(struct trap_frame *frame, const struct arch_txn_jmp *jmp)
{
	frame->rip = (uint64_t)(uintptr_t)arch_txn_abandon;
	frame->rdi = (uint64_t)(uintptr_t)jmp;
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
