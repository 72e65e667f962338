/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Entry stubs for all 256 vectors and the common path into C.
 *
 * Stub n is 16 bytes at trap_stubs + 16 * n. It pushes a zero where the
 * CPU pushes no error code, then the vector number, so every trap
 * reaches trap_common with the same frame (struct trap_frame in
 * arch/trap.h). This is trap entry: it lives in .text.noprobe.
 */

	.section .text.noprobe, "ax"
	.balign 16
	.globl trap_stubs
	.type trap_stubs, @function
trap_stubs:
	vector = 0
	.rept 256
	.balign 16
	.if (vector == 8) || ((vector >= 10) && (vector <= 14)) || (vector == 17) || (vector == 21) || (vector == 29) || (vector == 30)
	.else
	pushq $0
	.endif
	pushq $vector
	jmp trap_common
	vector = vector + 1
	.endr
	.size trap_stubs, . - trap_stubs

	.type trap_common, @function
trap_common:
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
	movq %rsp, %rdi
	cld
	call trap_dispatch
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
	addq $16, %rsp
	iretq
	.size trap_common, . - trap_common
