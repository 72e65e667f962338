/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Functions for the patch-builder tests (test_patch.c): each starts with
 * an instruction whose meaning depends on where it is, so running its
 * first instructions relocated must still give the function's result.
 * All take a long in rdi and return a long in rax.
 */
	.text

	.globl pc_rip_load
pc_rip_load:			/* returns pc_value + rdi */
	movq pc_value(%rip), %rax
	addq %rdi, %rax
	ret

	.globl pc_short_jump
pc_short_jump:			/* returns rdi * 2 */
	jmp 1f
	ud2
1:	leaq (%rdi, %rdi), %rax
	ret

	.globl pc_call
pc_call:			/* returns rdi + 100 */
	call pc_helper
	ret

pc_helper:
	leaq 100(%rdi), %rax
	ret

	.globl pc_jcc
pc_jcc:				/* returns 1 if rdi < 0, else 0 */
	testq %rdi, %rdi
	js 1f
	xorl %eax, %eax
	ret
1:	movl $1, %eax
	ret

	.globl pc_loop
pc_loop:			/* returns rdi & 15 (counts down with loop) */
	movq %rdi, %rcx
	andl $15, %ecx
	xorl %eax, %eax
	jrcxz 2f
1:	incq %rax
	loop 1b
2:	ret

	.globl pc_indirect_call
pc_indirect_call:		/* returns rdi + 100 through call *%rdx */
	leaq pc_helper(%rip), %rdx
	call *%rdx
	ret

	.globl pc_plain
pc_plain:			/* returns 3 * rdi + 7 */
	leaq (%rdi, %rdi, 2), %rax
	addq $7, %rax
	ret

	.section .rodata
	.balign 8
pc_value:
	.quad 0x1234
	.section .note.GNU-stack, "", @progbits
