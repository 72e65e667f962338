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

/*
 * arch_thread_switch - hand this CPU's per-thread machine state from
 *   prev to next: the FPU/SSE registers of user threads, the FS base,
 *   the address space, and the kernel stack an entry from user mode
 *   lands on.
 * Caller's context: the scheduler, just before arch_context_switch;
 *   interrupts masked, sched_lock held.
 */
void arch_thread_switch(struct thread *prev, struct thread *next);

/*
 * arch_context_switch - save prev's callee-saved state, resume next.
 * Arguments: prev, the running thread; next, a thread switched out by
 *   this function earlier or laid out by arch_context_init.
 * Return value: in the resumed thread, the thread that was switched
 *   away from (which may differ from the prev it passed when it
 *   switched out).
 * Caller's context: the scheduler only; interrupts masked, sched_lock held.
 */
struct thread *arch_context_switch(struct thread *prev, struct thread *next);

/*
 * arch_context_init - lay out a new thread's stack so that the first
 * switch to it calls thread_first_run(prev) (kernel/sched/sched.c).
 * Arguments: t, the new thread; stack_top, 16-byte aligned end of its stack.
 * Return value: none. Caller's context: thread creation; no locks needed.
 */
void arch_context_init(struct thread *t, uintptr_t stack_top);

#endif
