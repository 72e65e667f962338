/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Thread contexts: the saved state of a thread that is not running, and
 * the switch between two threads.
 */
#ifndef ARCH_CONTEXT_H
#define ARCH_CONTEXT_H

#include <stdint.h>
#include <stddef.h>

/*
 * Saved state of a thread that is switched out: only its stack pointer.
 * Callee-saved registers and the resume address sit on its stack.
 * struct thread embeds this as its first member (switch.S relies on it).
 */
struct arch_as;
struct fpu_state;

struct arch_thread {
	uintptr_t saved_sp;
	struct arch_as *as;		/* set while the thread is not running elsewhere:
					   its user address space, NULL for the kernel's */
	struct fpu_state *fpu;		/* user threads only (arch/user.h) */
	uintptr_t fs_base;		/* own thread: the user thread pointer */
};

struct thread;

/* switch.S: the switch itself, for arch_context_switch's asm statement only. */
void arch_switch_stacks(void);

/*
 * arch_context_switch - hand this CPU's per-thread machine state from
 *   prev to next (the FPU/SSE registers of user threads, the FS base,
 *   the address space, and the kernel stack an entry from user mode
 *   lands on), save prev's callee-saved state, resume next.
 * Arguments: prev, the running thread; next, a thread switched out by
 *   this function earlier or laid out by arch_context_init.
 * Return value: in the resumed thread, the thread that was switched
 *   away from (which may differ from the prev it passed when it
 *   switched out).
 * Caller's context: the scheduler only; interrupts masked, sched_lock held.
 *
 * Inline: the call into switch.S stores the kernel stack's top, and when
 * neither thread has FPU state and next's address space is this CPU's
 * already (every switch between kernel threads) does nothing else
 * before switching stacks; otherwise it calls arch_thread_switch_state
 * (context.c). It saves %rbp and the stack pointer only.
 * The asm statement declares every other register clobbered, as it is
 * when the thread resumes (they hold what the thread switching back had),
 * so the compiler keeps nothing in them across the switch and the
 * caller's own prologue and epilogue are the one save and restore of the
 * callee-saved registers its caller expects kept. The flags are declared
 * clobbered too; the interrupt flag is masked on both sides of a switch.
 */
static inline __attribute__((always_inline)) struct thread *
arch_context_switch(struct thread *prev, struct thread *next)
{
	struct thread *from;

	__asm__ __volatile__("call arch_switch_stacks"
			     : "=a"(from), "+D"(prev), "+S"(next)
			     :
			     : "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13",
			       "r14", "r15", "memory", "cc");
	return from;
}

/*
 * arch_context_init - lay out a new thread's stack so that the first
 * switch to it calls thread_first_run(prev) (kernel/sched/sched.c).
 * Arguments: t, the new thread; stack_top, 16-byte aligned end of its stack.
 * Return value: none. Caller's context: thread creation; no locks needed.
 */
void arch_context_init(struct thread *t, uintptr_t stack_top);

#endif
