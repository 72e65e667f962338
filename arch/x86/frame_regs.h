/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The general registers of struct trap_frame (arch/trap.h), pushed and
 * popped in its order: one sequence for trap_entry.S and
 * syscall_entry.S, which build the same frame.
 */
#ifndef X86_FRAME_REGS_H
#define X86_FRAME_REGS_H

	.macro PUSH_FRAME_REGS
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	.endm

	.macro POP_FRAME_REGS
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	.endm

#endif
