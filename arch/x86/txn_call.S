/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch_txn_call and arch_txn_unwind (arch/txn.h): a call that an abort
 * can abandon. The callee-saved registers are pushed here and popped at
 * arch_txn_resume on both the normal and the abandoned path, so whatever
 * the graft did to them, the caller gets its own back.
 *
 * Stack inside arch_txn_call, from the top: return address, rbp, rbx,
 * r12..r15, 8 bytes of padding (keeps the call 16-byte aligned); the
 * stack pointer after the padding is jmp->sp.
 */

	.text
	.globl arch_txn_call
	.type arch_txn_call, @function
arch_txn_call:
	pushq %rbp
	movq %rsp, %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	subq $8, %rsp
	movq %rsp, (%rdi)
	movq %rsi, %r11
	movq %rdx, %rax
	movq 0(%rax), %rdi
	movq 8(%rax), %rsi
	movq 16(%rax), %rdx
	movq 24(%rax), %rcx
	movq 32(%rax), %r8
	movq 40(%rax), %r9
	call *%r11
	.globl arch_txn_resume
arch_txn_resume:
	addq $8, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
	.size arch_txn_call, . - arch_txn_call

	.globl arch_txn_unwind
	.type arch_txn_unwind, @function
arch_txn_unwind:
	cli
	cld
	movq (%rdi), %rsp
	xorl %eax, %eax
	jmp arch_txn_resume
	.size arch_txn_unwind, . - arch_txn_unwind
