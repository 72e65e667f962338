/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fixture for test_switch_x86.c: a call through which every callee-saved
 * register holds a value of the test's choosing, and a record of what
 * each holds when the call returns.
 *
 * void switch_fixture_call(void (*fn)(void), uint64_t seed, uint64_t seen[6])
 *   %rbx, %r12 .. %r15 := seed + 1 .. seed + 5; fn(); then seen[0..4] :=
 *   those registers, seen[5] := %rbp - %rsp (40 when the frame pointer
 *   and the stack pointer both came back).
 */
	.section .text
	.globl switch_fixture_call
	.type switch_fixture_call, @function
switch_fixture_call:
	pushq %rbp
	movq %rsp, %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushq %rdx		/* seen; %rsp is now 16-byte aligned for the call */
	leaq 1(%rsi), %rbx
	leaq 2(%rsi), %r12
	leaq 3(%rsi), %r13
	leaq 4(%rsi), %r14
	leaq 5(%rsi), %r15
	call *%rdi
	popq %rdx
	movq %rbx, 0(%rdx)
	movq %r12, 8(%rdx)
	movq %r13, 16(%rdx)
	movq %r14, 24(%rdx)
	movq %r15, 32(%rdx)
	movq %rbp, %rax
	subq %rsp, %rax
	movq %rax, 40(%rdx)
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
	.size switch_fixture_call, . - switch_fixture_call
