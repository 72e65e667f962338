/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Thread switch (see arch/context.h).
 *
 * struct thread *arch_context_switch(struct thread *prev, struct thread *next)
 * pushes the callee-saved registers on prev's stack, stores the stack
 * pointer in prev->arch.saved_sp (offset 0), loads next's, pops next's
 * registers and returns into next. The value returned in next is prev.
 */
	.section .text
	.globl arch_context_switch
	.type arch_context_switch, @function
arch_context_switch:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq (%rsi), %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	movq %rdi, %rax
	ret
	.size arch_context_switch, . - arch_context_switch

/*
 * First instructions of every new thread: arch_context_switch "returns"
 * here with prev in %rax. The zero return address above keeps the
 * backtrace from walking off the stack.
 */
	.globl thread_trampoline
	.type thread_trampoline, @function
thread_trampoline:
	movq %rax, %rdi
	xorl %ebp, %ebp
	call thread_first_run
	ud2
	.size thread_trampoline, . - thread_trampoline
