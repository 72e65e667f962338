/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The out-of-line halves of graft calls (arch/txn.h): arch_txn_abandon,
 * where an abandoned call resumes, arch_txn_unwind, and arch_sfi_call
 * with its exit. arch_txn_call itself is inline (arch/txn.h): it fills
 * struct arch_txn_jmp setjmp's way; arch_txn_abandon loads it back
 * (the callee-saved registers, the stack and frame pointers, the CPU's
 * sandbox_sp) and jumps to its resume address with %rax = 0.
 *
 * arch_sfi_call enters a sandboxed graft (arch/sfi.h) on a frame of its
 * own: the callee-saved registers and the CPU's sandbox_sp as it was
 * (struct cpu, %gs:8; it also keeps the call 16-byte aligned) pushed,
 * popped at arch_txn_resume on both the normal and the abandoned path,
 * so transactions nest whichever kind each one is. In these steps:
 *   1. push the callee-saved registers and the outer sandbox_sp; record
 *      the stack pointer in sandbox_sp and in jmp (resuming at
 *      arch_txn_resume: whatever arch_txn_abandon loads besides the
 *      stack pointer is popped over there);
 *   2. load %r15 with the window base and the arguments from args[];
 *   3. switch %rsp to the top of the window's stack (16 bytes below
 *      its end) and push the exit stub's address, so that the graft's
 *      guarded return of its entry function lands on the stub;
 *   4. jump to the entry.
 * The stub jumps to arch_sfi_exit, which takes the stack pointer from
 * sandbox_sp (never from anything the graft could write) and resumes
 * at arch_txn_resume with the graft's %rax.
 */
#include <asm_offsets.h>	/* CPU_SANDBOX_SP (asm_offsets.c) */
#define SFI_STACK_SIZE 0x8000	/* arch/sfi.h */

/* struct arch_txn_jmp's offsets (arch/txn.h). */
#define JMP_PC 0
#define JMP_SP 8
#define JMP_RBP 16
#define JMP_SANDBOX_SP 24
#define JMP_RBX 32
#define JMP_R12 40
#define JMP_R13 48
#define JMP_R14 56
#define JMP_R15 64

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
	.globl arch_txn_abandon
	.type arch_txn_abandon, @function
arch_txn_abandon:
	cld
	movq JMP_SANDBOX_SP(%rdi), %rax
	movq %rax, %gs:CPU_SANDBOX_SP
	movq JMP_RBX(%rdi), %rbx
	movq JMP_R12(%rdi), %r12
	movq JMP_R13(%rdi), %r13
	movq JMP_R14(%rdi), %r14
	movq JMP_R15(%rdi), %r15
	movq JMP_RBP(%rdi), %rbp
	movq JMP_SP(%rdi), %rsp
	xorl %eax, %eax
	jmp *JMP_PC(%rdi)
	.size arch_txn_abandon, . - arch_txn_abandon

	.globl arch_txn_unwind
	.type arch_txn_unwind, @function
arch_txn_unwind:
	cli
	jmp arch_txn_abandon
	.size arch_txn_unwind, . - arch_txn_unwind

/* arch_sfi_call's frame ends here, on its normal exit and its abandonment alike. */
	.globl arch_txn_resume
	.type arch_txn_resume, @function
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
	.size arch_txn_resume, . - arch_txn_resume

	.globl arch_sfi_call
	.type arch_sfi_call, @function
arch_sfi_call:
	pushq %rbp
	movq %rsp, %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushq %gs:CPU_SANDBOX_SP
	movq %rsp, %gs:CPU_SANDBOX_SP
	movq %rsp, JMP_SP(%rdi)
	movq %rbp, JMP_RBP(%rdi)
	leaq arch_txn_resume(%rip), %rax
	movq %rax, JMP_PC(%rdi)
	movq (%rsp), %rax
	movq %rax, JMP_SANDBOX_SP(%rdi)
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
