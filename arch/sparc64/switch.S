/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Code that moves between register windows and stacks (arch/context.h,
 * arch/txn.h, arch/safe_read.h):
 *  - arch_context_switch(prev, next): flushw writes every window of prev's
 *    stack to its save area; this function's own window (flushw leaves the
 *    current one) is stored by hand; prev->arch.saved_sp := %sp; then
 *    %sp := next->arch.saved_sp and this window's locals and ins (next's
 *    %fp and return address among them) are reloaded from next's save
 *    area; `ret; restore` returns into next, whose callers' windows fill
 *    from its stack as it returns. prev travels in %g1 and comes back
 *    as the return value.
 *  - thread_trampoline: where a new thread's first switch returns
 *    (arch_context_init lays the frame out): thread_first_run(prev).
 *  - sparc64_flush_windows: a call whose own window makes flushw write
 *    every caller's window (backtraces read save areas after it).
 *  - arch_txn_call / arch_txn_unwind: a call an abort abandons.
 *  - arch_safe_read: a byte copy whose faults resume at its error exit.
 * Invariants: interrupts are masked around a switch (the scheduler holds
 * sched_lock); %g1 is the only register used across the window change
 * (the V9 ABI leaves it volatile; trap handlers use the alternate set).
 */
#include "sparc64.h"

#define SAVE_AREA(r)	[%sp + STACK_BIAS + (r) * 8]

/* Store / load this window's 16 locals and ins to / from its save area. */
.macro WINDOW_OUT
	stx	%l0, SAVE_AREA(0)
	stx	%l1, SAVE_AREA(1)
	stx	%l2, SAVE_AREA(2)
	stx	%l3, SAVE_AREA(3)
	stx	%l4, SAVE_AREA(4)
	stx	%l5, SAVE_AREA(5)
	stx	%l6, SAVE_AREA(6)
	stx	%l7, SAVE_AREA(7)
	stx	%i0, SAVE_AREA(8)
	stx	%i1, SAVE_AREA(9)
	stx	%i2, SAVE_AREA(10)
	stx	%i3, SAVE_AREA(11)
	stx	%i4, SAVE_AREA(12)
	stx	%i5, SAVE_AREA(13)
	stx	%i6, SAVE_AREA(14)
	stx	%i7, SAVE_AREA(15)
.endm

.macro WINDOW_IN
	ldx	SAVE_AREA(0), %l0
	ldx	SAVE_AREA(1), %l1
	ldx	SAVE_AREA(2), %l2
	ldx	SAVE_AREA(3), %l3
	ldx	SAVE_AREA(4), %l4
	ldx	SAVE_AREA(5), %l5
	ldx	SAVE_AREA(6), %l6
	ldx	SAVE_AREA(7), %l7
	ldx	SAVE_AREA(8), %i0
	ldx	SAVE_AREA(9), %i1
	ldx	SAVE_AREA(10), %i2
	ldx	SAVE_AREA(11), %i3
	ldx	SAVE_AREA(12), %i4
	ldx	SAVE_AREA(13), %i5
	ldx	SAVE_AREA(14), %i6
	ldx	SAVE_AREA(15), %i7
.endm

	.text

/* struct thread *arch_context_switch(struct thread *prev, struct thread *next) */
	.globl	arch_context_switch
	.type	arch_context_switch, @function
arch_context_switch:
	save	%sp, -MIN_FRAME, %sp
	flushw
	WINDOW_OUT
	stx	%sp, [%i0]			/* prev->arch.saved_sp (first member) */
	mov	%i0, %g1
	ldx	[%i1], %sp			/* next's stack */
	WINDOW_IN
	ret
	 restore %g1, %g0, %o0			/* returns prev, in next */
	.size	arch_context_switch, . - arch_context_switch

/* A new thread: arch_context_switch returned here with prev in %o0. */
	.globl	thread_trampoline
	.type	thread_trampoline, @function
thread_trampoline:
	call	thread_first_run
	 nop
	illtrap	0
	.size	thread_trampoline, . - thread_trampoline

	.globl	sparc64_flush_windows
	.type	sparc64_flush_windows, @function
sparc64_flush_windows:
	save	%sp, -MIN_FRAME, %sp
	flushw
	ret
	 restore
	.size	sparc64_flush_windows, . - sparc64_flush_windows

/*
 * uint64_t arch_txn_call(struct arch_txn_jmp *jmp, uintptr_t fn, const uint64_t args[6])
 * A window of its own, whose %sp goes to jmp->sp; fn(args) from it.
 */
	.globl	arch_txn_call
	.type	arch_txn_call, @function
arch_txn_call:
	save	%sp, -MIN_FRAME, %sp
	stx	%sp, [%i0]
	ldx	[%i2 + 0], %o0
	ldx	[%i2 + 8], %o1
	ldx	[%i2 + 16], %o2
	ldx	[%i2 + 24], %o3
	ldx	[%i2 + 32], %o4
	call	%i1
	 ldx	[%i2 + 40], %o5
	mov	%o0, %i0
	.globl	arch_txn_resume
arch_txn_resume:
	ret
	 restore
	.size	arch_txn_call, . - arch_txn_call

/*
 * void arch_txn_unwind(const struct arch_txn_jmp *jmp): flush the windows,
 * go back to arch_txn_call's window (its save area at jmp->sp) and
 * return 0 from it, interrupts masked.
 */
	.globl	arch_txn_unwind
	.type	arch_txn_unwind, @function
arch_txn_unwind:
	save	%sp, -MIN_FRAME, %sp
	rdpr	%pstate, %g1
	andn	%g1, PSTATE_IE, %g1
	wrpr	%g1, 0, %pstate
	flushw
	ldx	[%i0], %sp
	WINDOW_IN
	ba,pt	%xcc, arch_txn_resume
	 mov	0, %i0
	.size	arch_txn_unwind, . - arch_txn_unwind

/*
 * int arch_safe_read(void *dst, uint64_t src, size_t n): a leaf (no
 * window); a fault at safe_read_load resumes at safe_read_fault (trap.c:
 * arch_safe_read_fixup). In .text.noprobe: the fixup knows the load by
 * its address, which a probe would move, and probe context (D's loads)
 * calls it.
 */
	.section .text.noprobe, "ax"
	.globl	arch_safe_read
	.type	arch_safe_read, @function
arch_safe_read:
	brz,pn	%o2, 2f
	 nop
1:
	.globl	safe_read_load
safe_read_load:
	ldub	[%o1], %o3
	stb	%o3, [%o0]
	add	%o1, 1, %o1
	subcc	%o2, 1, %o2
	bne,pt	%xcc, 1b
	 add	%o0, 1, %o0
2:	retl
	 clr	%o0
	.globl	safe_read_fault
safe_read_fault:
	retl
	 mov	-14, %o0			/* -EFAULT */
	.size	arch_safe_read, . - arch_safe_read

	.section .note.GNU-stack, "", @progbits
