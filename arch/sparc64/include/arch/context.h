/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Thread contexts on sparc64 (arch/sparc64/switch.S, context.c). Same
 * contract as arch/x86/include/arch/context.h.
 *
 * A switched-out thread is its biased %sp: arch_context_switch flushes
 * every register window to its stack (flushw), writes its own window to
 * its save area, and records %sp; resuming loads the next thread's %sp,
 * reloads that window's locals and ins (%fp = %i6 and the return address
 * %i7 among them) from its save area, and returns; the callers' windows
 * fill from that stack as the thread returns through them.
 * Invariant: saved_sp is the first member (switch.S).
 */
#ifndef ARCH_CONTEXT_H
#define ARCH_CONTEXT_H

#include <stdint.h>
#include <stddef.h>

struct arch_as;

struct arch_thread {
	uintptr_t saved_sp;	/* biased %sp of a switched-out thread */
	struct arch_as *as;	/* always NULL: no user address spaces yet */
};

struct thread;

/*
 * arch_context_switch - flush prev's windows, resume next. Nothing else is
 *   handed over per thread (no FPU in the kernel, no user state).
 * Return value: in the resumed thread, the thread switched away from.
 * Caller's context: the scheduler; interrupts masked, sched_lock held.
 */
struct thread *arch_context_switch(struct thread *prev, struct thread *next);

/*
 * arch_context_init - lay out a new thread's stack so that the first
 * switch to it calls thread_first_run(prev) (kernel/sched/sched.c), from
 * a frame whose %fp and return address are 0 (backtraces end there).
 * Arguments: t; stack_top, 16-byte aligned end of its stack.
 */
void arch_context_init(struct thread *t, uintptr_t stack_top);

#endif
