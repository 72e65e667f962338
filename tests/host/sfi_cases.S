/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Graft code for the verifier's unit tests (test_sfi_verify.c),
 * assembled by gas in bundle mode as the sandboxing step assembles it.
 * Each CASE is copied to offset 0 of a text region at TEXT (below) and
 * the region filled with ud2, so branch targets are written relative to
 * the case: API and GATE stand for the exported API entry and the exit
 * gate the test's layout names, DATA for the graft's data region. The
 * hostile cases are what a graft object built without the sandboxing
 * step, or edited after it, may hold; a few that gas would not write in
 * bundle mode are assembled with bundling off.
 */
#define TEXT_IMM   -0x3e000000		/* 0xffffffffc2000000 as a sign-extended imm32 */
#define TEXT_MASK  0xfe0		/* sfi_text_mask(4096) */
#define STACK_MASK 0x7fff		/* SFI_STACK_MASK */

	.macro CASE name
	.p2align 5
	.globl \name, \name\()_end
\name:
	.set API, \name - 0x100000
	.set GATE, \name - 0x200000
	.set DATA, \name + 0x10000
	.endm
	.macro END name
	ud2
	.p2align 5
\name\()_end:
	.endm

	/* The guarded sequences of arch/sfi.h. */
	.macro STORE_RAX_AT base_disp:vararg
	.bundle_lock
	leal \base_disp, %r14d
	movq %rax, (%r15,%r14)
	.bundle_unlock
	.endm
	.macro MASK_R14
	andq $TEXT_MASK, %r14
	orq $TEXT_IMM, %r14
	.endm
	.macro RETURN
	popq %r14
	.bundle_lock
	MASK_R14
	jmp *%r14
	.bundle_unlock
	.endm
	.macro STACK_TO expr:vararg
	.bundle_lock
	leaq \expr, %r14
	andq $STACK_MASK, %r14
	orq %r15, %r14
	movq %r14, %rsp
	.bundle_unlock
	.endm

	.section .text.sfi_cases, "ax", @progbits
	.bundle_align_mode 5

/* Every allowed form: stores on the stack, masked, and into data; the
 * stack guard; calls to the API and inside; a masked indirect call; a
 * guarded return; a jump to the exit gate. */
CASE good_all_forms
	pushq %rbx
	STORE_RAX_AT 8(%rdi,%rsi,4)
	movq %rax, 8(%rsp)
	movl $1, DATA+16(%rip)
	lock xaddq %rax, DATA+24(%rip)
	STACK_TO -32(%rsp)
	.bundle_lock
	testb %al, -0x4000(%rsp)	/* the API stack probe */
	call API
	.bundle_unlock
	pushq $0		/* push $1f in a graft: the host binary is position-independent */
	jmp 2f
	.p2align 5
1:	movq %rbx, %r14
	pushq $0		/* push $3f */
	.bundle_lock
	MASK_R14
	jmp *%r14
	.bundle_unlock
	.p2align 5
3:	STACK_TO 32(%rsp)
	popq %rbx
	testq %rax, %rax
	je 4f
	jmp GATE
4:	RETURN
	.p2align 5
2:	xorl %eax, %eax
	RETURN
END good_all_forms

/* Forms whose extent the opcode table bounds: a bit test with an
 * immediate offset (within its operand), a read with a register offset,
 * a 16-byte compare-exchange inside the data, pause. */
CASE good_bounded_extents
	.bundle_lock
	leal 8(%rdi), %r14d
	btsq $63, (%r15,%r14)
	.bundle_unlock
	btq %rax, (%rdi)
	lock cmpxchg16b DATA+4080(%rip)
	pause
	.bundle_lock
	leal (%rsi), %r14d
	lock cmpxchgq %rbx, (%r15,%r14)
	.bundle_unlock
	xorl %eax, %eax
	RETURN
END good_bounded_extents

CASE bad_store_kernel_text
	movq %rax, 0xffffffff80100000
END bad_store_kernel_text

CASE bad_store_rip_outside
	movq %rax, DATA-8(%rip)
END bad_store_rip_outside

CASE bad_store_unmasked
	movq %rax, 8(%rbx)
END bad_store_unmasked

CASE bad_store_rsp_indexed
	movq %rax, (%rsp,%rbx,8)
END bad_store_rsp_indexed

CASE bad_store_r14_unset
	movq %rax, (%r15,%r14)
END bad_store_r14_unset

CASE bad_store_r14_64bit
	.bundle_lock
	leaq 8(%rdi), %r14
	movq %rax, (%r15,%r14)
	.bundle_unlock
END bad_store_r14_64bit

/* The lea ends one bundle, the store starts the next: an indirect
 * branch to the bundle start would skip the lea. */
CASE bad_store_split
	.rept 28
	nop
	.endr
	leal 8(%rdi), %r14d
	movq %rax, (%r15,%r14)
END bad_store_split

CASE bad_return_address
	movq %rbx, (%rsp)
	ret
END bad_return_address

CASE bad_jmp_register
	jmp *%rax
END bad_jmp_register

CASE bad_jmp_r14_unmasked
	jmp *%r14
END bad_jmp_r14_unmasked

CASE bad_jmp_wrong_mask
	.bundle_lock
	andq $0x7fffffe0, %r14
	orq $TEXT_IMM, %r14
	jmp *%r14
	.bundle_unlock
END bad_jmp_wrong_mask

CASE bad_jmp_wrong_base
	.bundle_lock
	andq $TEXT_MASK, %r14
	orq $-0x3f000000, %r14
	jmp *%r14
	.bundle_unlock
END bad_jmp_wrong_base

CASE bad_jmp_kernel
	jmp API
END bad_jmp_kernel

CASE bad_call_kernel
	.bundle_lock
	testb %al, -0x4000(%rsp)
	call GATE
	.bundle_unlock
END bad_call_kernel

CASE bad_jcc_gate
	testq %rax, %rax
	jne GATE
END bad_jcc_gate

CASE bad_jmp_mid_instruction
	jmp 1f+1
1:	movl $0x12345678, %eax
END bad_jmp_mid_instruction

/* cli (fa) hidden in an immediate, reached by a jump into it. */
CASE bad_hidden_cli
	jmp 1f+1
1:	movl $0x90fa, %eax
END bad_hidden_cli

CASE bad_jmp_past_mask
	jmp 1f
	.bundle_lock
	leal 8(%rdi), %r14d
1:	movq %rax, (%r15,%r14)
	.bundle_unlock
END bad_jmp_past_mask

CASE bad_jmp_past_stack_guard
	jmp 1f
	.bundle_lock
	leaq -8(%rsp), %r14
	andq $STACK_MASK, %r14
1:	orq %r15, %r14
	movq %r14, %rsp
	.bundle_unlock
END bad_jmp_past_stack_guard

CASE bad_cli
	cli
END bad_cli

CASE bad_mov_cr0
	movq %rax, %cr0
END bad_mov_cr0

CASE bad_out
	outb %al, $0x80
END bad_out

CASE bad_syscall
	syscall
END bad_syscall

CASE bad_int
	int $0x80
END bad_int

CASE bad_std
	std
END bad_std

CASE bad_popf
	popfq
END bad_popf

CASE bad_mov_ss
	movw %ax, %ss
END bad_mov_ss

CASE bad_wrmsr
	wrmsr
END bad_wrmsr

CASE bad_rep_stos
	rep stosb
END bad_rep_stos

CASE bad_gs_load
	movq %gs:0, %rax
END bad_gs_load

CASE bad_vector
	vaddps %ymm1, %ymm2, %ymm3
END bad_vector

CASE bad_write_r15
	movq %rax, %r15
END bad_write_r15

CASE bad_write_rsp
	movq %rax, %rsp
END bad_write_rsp

CASE bad_add_rsp
	addq $8, %rsp
END bad_add_rsp

CASE bad_pop_rsp
	popq %rsp
END bad_pop_rsp

CASE bad_leave
	leave
END bad_leave

/* What the review of issue 19 found: forms whose written bytes or whose
 * target the guard does not bound, and prefixes that change meaning. */
	.macro GUARDED insn:vararg
	.bundle_lock
	leal (%rsi), %r14d
	\insn
	.bundle_unlock
	.endm
CASE bad_bts_register_offset
	GUARDED btsq %rax, (%r15,%r14)
END bad_bts_register_offset

CASE bad_btr_register_offset
	GUARDED btrl %eax, (%r15,%r14)
END bad_btr_register_offset

CASE bad_btc_register_offset
	GUARDED btcw %ax, (%r15,%r14)
END bad_btc_register_offset

CASE bad_fxsave
	GUARDED fxsave64 (%r15,%r14)
END bad_fxsave

CASE bad_xsave
	GUARDED xsave (%r15,%r14)
END bad_xsave

CASE bad_cmpxchg16b_past_data
	cmpxchg16b DATA+4088(%rip)
END bad_cmpxchg16b_past_data

CASE bad_store_scaled_r14
	GUARDED movq %rax, (%r15,%r14,2)
END bad_store_scaled_r14

CASE bad_store_swapped
	GUARDED movq %rax, (%r14,%r15)
END bad_store_swapped

CASE bad_store_r14_16bit
	.bundle_lock
	leaw (%rsi), %r14w
	movq %rax, (%r15,%r14)
	.bundle_unlock
END bad_store_r14_16bit

CASE bad_store_gs
	GUARDED movq %rax, %gs:(%r15,%r14)
END bad_store_gs

CASE bad_jmp_rel16
	.byte 0x66, 0xe9, 0x00, 0x00
END bad_jmp_rel16

CASE bad_bnd_jmp
	.byte 0xf2, 0xe9, 0x00, 0x00, 0x00, 0x00
END bad_bnd_jmp

CASE bad_jmp_r14_word
	.bundle_lock
	MASK_R14
	.byte 0x66, 0x41, 0xff, 0xe6
	.bundle_unlock
END bad_jmp_r14_word

CASE bad_rep_add
	.byte 0xf3, 0x48, 0x01, 0xc0
END bad_rep_add

CASE bad_enter
	enter $16, $0
END bad_enter

CASE bad_xbegin
	xbegin 1f
1:	ud2
END bad_xbegin

CASE bad_lss
	lss (%rdi), %eax
END bad_lss

CASE bad_movs
	movsb
END bad_movs

CASE bad_moffs_store
	movabsq %rax, 0xffffffff80100000
END bad_moffs_store

CASE bad_write_spl
	movb $0, %spl
END bad_write_spl

CASE bad_write_esp
	movl %eax, %esp
END bad_write_esp

CASE bad_xchg_rsp
	xchgq %rsp, %rax
END bad_xchg_rsp

CASE bad_write_r15b
	movb $0, %r15b
END bad_write_r15b

CASE bad_xchg_r15
	xchgq %r15, %rax
END bad_xchg_r15

CASE bad_push_word
	pushw $1
END bad_push_word

CASE bad_ret_imm
	ret $8
END bad_ret_imm

CASE bad_lret
	lretq
END bad_lret

CASE bad_loop
1:	loop 1b
END bad_loop

CASE bad_movzx_esp
	movzbl %al, %esp
END bad_movzx_esp

CASE bad_movzx_r15d
	movzwl %ax, %r15d
END bad_movzx_r15d

CASE bad_call_api_unprobed
	call API
END bad_call_api_unprobed

CASE bad_call_api_short_probe
	.bundle_lock
	testb %al, -0x1000(%rsp)
	call API
	.bundle_unlock
END bad_call_api_short_probe

CASE bad_jmp_past_api_probe
	jmp 1f
	.bundle_lock
	testb %al, -0x4000(%rsp)
1:	call API
	.bundle_unlock
END bad_jmp_past_api_probe

CASE bad_stack_guard_mask
	.bundle_lock
	leaq -8(%rsp), %r14
	andq $0xffff, %r14
	orq %r15, %r14
	movq %r14, %rsp
	.bundle_unlock
END bad_stack_guard_mask

/* Without bundling: an instruction across a bundle boundary, and code
 * that runs off the end of the text (the test fills with nops). */
	.bundle_align_mode 0
CASE bad_cross_bundle
	.rept 30
	nop
	.endr
	movl $1, %eax
END bad_cross_bundle

CASE bad_undecodable
	.byte 0x06		/* push %es: invalid in 64-bit mode */
END bad_undecodable

CASE ud2_fill
	ud2
ud2_fill_one:
	ud2
	.p2align 5
ud2_fill_end:
	.globl ud2_fill_one

	.section .note.GNU-stack, "", @progbits
