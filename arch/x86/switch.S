/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Thread switch (see arch/context.h).
 *
 * arch_switch_stacks is called only from the asm statement of the inline
 * arch_context_switch, with prev in %rdi and next in %rsi, in these steps:
 *   1. store next's kernel stack top where an entry from ring 3 lands
 *      (%gs:kernel_sp for SYSCALL, the TSS's rsp0 for traps and
 *      interrupts);
 *   2. when prev or next has FPU state, or next's address space is not
 *      this CPU's active one, call arch_thread_switch_state (context.c)
 *      for the rest of the hand-over, on a 16-byte aligned stack;
 *   3. push %rbp on prev's stack (the one callee-saved register a
 *      compiler using frame pointers cannot be told is clobbered), store
 *      the stack pointer in prev->arch.saved_sp (offset 0), load next's,
 *      pop next's %rbp and return into next with prev in %rax.
 * Every other callee-saved register is declared clobbered by that asm
 * statement: the function it is inlined into saves the ones it uses in
 * its own prologue, so a switch saves each register once, not twice.
 * The structures' offsets come from the compiler (asm_offsets.c).
 */
#include <asm_offsets.h>	/* CPU_*, THREAD_*: from the C structures (asm_offsets.c) */

	.section .text
	.globl arch_switch_stacks
	.type arch_switch_stacks, @function
arch_switch_stacks:
	movq THREAD_STACK_TOP(%rsi), %rax
	movq %rax, %gs:CPU_KERNEL_SP
	movq %rax, %gs:CPU_TSS_RSP0
	movq THREAD_FPU(%rdi), %rax
	orq THREAD_FPU(%rsi), %rax
	jnz 2f
	movq THREAD_AS(%rsi), %rax
	cmpq %gs:CPU_ACTIVE_AS, %rax
	jne 2f
1:	pushq %rbp
	movq %rsp, THREAD_SAVED_SP(%rdi)
	movq THREAD_SAVED_SP(%rsi), %rsp
	popq %rbp
	movq %rdi, %rax
	ret
2:	pushq %rbp
	movq %rsp, %rbp
	andq $-16, %rsp
	pushq %rdi
	pushq %rsi
	call arch_thread_switch_state
	popq %rsi
	popq %rdi
	movq %rbp, %rsp
	popq %rbp
	jmp 1b
	.size arch_switch_stacks, . - arch_switch_stacks

/*
 * First instructions of every new thread: arch_switch_stacks "returns"
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
