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

/*
 * pc_frame_regs(code): every general register but rsp from
 * frame_regs_in[16] (indexed by register number), then a jump to code, a
 * patch that must end by jumping to pc_frame_regs_back; there every
 * register goes to frame_regs_out[16] (frame_regs_out[4] the rsp code
 * was entered with, as it came back) and the C caller's registers come
 * back. No register carries anything across: the memory does.
 */
	.globl pc_frame_regs, pc_frame_regs_back
pc_frame_regs:
	pushq %rbx
	pushq %rbp
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rdi, frame_regs_code(%rip)
	movq %rsp, frame_regs_in + 4 * 8(%rip)
	movq frame_regs_in + 0 * 8(%rip), %rax
	movq frame_regs_in + 1 * 8(%rip), %rcx
	movq frame_regs_in + 2 * 8(%rip), %rdx
	movq frame_regs_in + 3 * 8(%rip), %rbx
	movq frame_regs_in + 5 * 8(%rip), %rbp
	movq frame_regs_in + 6 * 8(%rip), %rsi
	movq frame_regs_in + 7 * 8(%rip), %rdi
	movq frame_regs_in + 8 * 8(%rip), %r8
	movq frame_regs_in + 9 * 8(%rip), %r9
	movq frame_regs_in + 10 * 8(%rip), %r10
	movq frame_regs_in + 11 * 8(%rip), %r11
	movq frame_regs_in + 12 * 8(%rip), %r12
	movq frame_regs_in + 13 * 8(%rip), %r13
	movq frame_regs_in + 14 * 8(%rip), %r14
	movq frame_regs_in + 15 * 8(%rip), %r15
	jmp *frame_regs_code(%rip)
pc_frame_regs_back:
	movq %rax, frame_regs_out + 0 * 8(%rip)
	movq %rcx, frame_regs_out + 1 * 8(%rip)
	movq %rdx, frame_regs_out + 2 * 8(%rip)
	movq %rbx, frame_regs_out + 3 * 8(%rip)
	movq %rsp, frame_regs_out + 4 * 8(%rip)
	movq %rbp, frame_regs_out + 5 * 8(%rip)
	movq %rsi, frame_regs_out + 6 * 8(%rip)
	movq %rdi, frame_regs_out + 7 * 8(%rip)
	movq %r8, frame_regs_out + 8 * 8(%rip)
	movq %r9, frame_regs_out + 9 * 8(%rip)
	movq %r10, frame_regs_out + 10 * 8(%rip)
	movq %r11, frame_regs_out + 11 * 8(%rip)
	movq %r12, frame_regs_out + 12 * 8(%rip)
	movq %r13, frame_regs_out + 13 * 8(%rip)
	movq %r14, frame_regs_out + 14 * 8(%rip)
	movq %r15, frame_regs_out + 15 * 8(%rip)
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbp
	popq %rbx
	ret

	.bss
	.balign 8
	.globl frame_regs_in, frame_regs_out
frame_regs_in:
	.skip 16 * 8
frame_regs_out:
	.skip 16 * 8
frame_regs_code:
	.skip 8

	.section .rodata
	.balign 8
pc_value:
	.quad 0x1234
	.section .note.GNU-stack, "", @progbits
