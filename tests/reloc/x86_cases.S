/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Every x86-64 relocation arch/x86/elf_reloc.c applies, written out
 * (tests/reloc/check_relocs.py links this with GNU ld and compares).
 */
	.section .text
	.globl	cases_text
cases_text:
	movabsq	$far_data, %rax			/* R_X86_64_64 */
	movq	far_data(%rip), %rbx		/* R_X86_64_PC32 */
	call	far_function			/* R_X86_64_PLT32 */
	movl	$small_value, %ecx		/* R_X86_64_32 */
	movq	$far_data, %rdx			/* R_X86_64_32S */
	ret

	.section .data
	.align	8
	.globl	cases_data
cases_data:
	.quad	far_data + 0x123		/* R_X86_64_64 with an addend */
	.long	far_function - .		/* R_X86_64_PC32 */
	.quad	far_function - .		/* R_X86_64_PC64 */
