/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch_txn_call and arch_txn_unwind (arch/txn.h): a call that an abort
 * can abandon. The callee-saved registers are pushed here and popped at
 * arch_txn_resume on both the normal and the abandoned path, so whatever
 * the graft did to them, the caller gets its own back.
 *
 * Stack inside arch_txn_call, from the top: return address, rbp, rbx,
 * r12..r15, and the CPU's sandbox_sp as it was (struct cpu, %gs:8; it
 * also keeps the call 16-byte aligned); the stack pointer after it is
 * jmp->sp. arch_txn_resume restores sandbox_sp from that slot, so
 * transactions nest whichever kind each one is.
 *
 * arch_sfi_call enters a sandboxed graft (arch/sfi.h) with the same
 * frame, in these steps:
 *   1. push the callee-saved registers and the outer sandbox_sp, and
 *      record the stack pointer in jmp->sp and in sandbox_sp;
 *   2. load %r15 with the window base and the arguments from args[];
 *   3. switch %rsp to the top of the window's stack (16 bytes below
 *      its end) and push the exit stub's address, so that the graft's
 *      guarded return of its entry function lands on the stub;
 *   4. jump to the entry.
 * The stub jumps to arch_sfi_exit, which takes the stack pointer from
 * sandbox_sp (never from anything the graft could write) and resumes
 * at arch_txn_resume with the graft's %rax.
 */
#define CPU_SANDBOX_SP 8	/* offsetof(struct cpu, sandbox_sp) */
#define SFI_STACK_SIZE 0x8000	/* arch/sfi.h */

/*
 * The frame both calls build: the callee-saved registers and the outer
 * sandbox_sp pushed, and the stack pointer recorded in jmp (%rdi).
 */
	.macro TXN_FRAME
	pushq %rbp
	movq %rsp, %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushq %gs:CPU_SANDBOX_SP
	movq %rsp, (%rdi)
	.endm

/* fn (%rsi) into %r11, its six arguments from args (%rdx) into the argument registers. */
	.macro TXN_ARGS
	movq %rsi, %r11
	movq %rdx, %rax
	movq 0(%rax), %rdi
	movq 8(%rax), %rsi
	movq 16(%rax), %rdx
	movq 24(%rax), %rcx
	movq 32(%rax), %r8
	movq 40(%rax), %r9
	.endm

	.text
	.globl arch_txn_call
	.type arch_txn_call, @function
arch_txn_call:
	TXN_FRAME
	TXN_ARGS
	call *%r11
	.globl arch_txn_resume
arch_txn_resume:
	popq %r11
	movq %r11, %gs:CPU_SANDBOX_SP
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

	.globl arch_sfi_call
	.type arch_sfi_call, @function
arch_sfi_call:
	TXN_FRAME
	movq %rsp, %gs:CPU_SANDBOX_SP
	movq %rcx, %r15
	movq %r8, %r10
	TXN_ARGS
	leaq SFI_STACK_SIZE-16(%r15), %rsp
	pushq %r10
	jmp *%r11
	.size arch_sfi_call, . - arch_sfi_call

	.globl arch_sfi_exit
	.type arch_sfi_exit, @function
arch_sfi_exit:
	movq %gs:CPU_SANDBOX_SP, %rsp
	jmp arch_txn_resume
	.size arch_sfi_exit, . - arch_sfi_exit
