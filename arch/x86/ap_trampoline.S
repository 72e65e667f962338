/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Start-up code for secondary CPUs. smp.c copies the bytes between
 * ap_trampoline_start and ap_trampoline_end to TRAMPOLINE_PHYS and fills
 * in the parameter block at its end; a CPU woken by INIT/SIPI starts in
 * real mode at that page and goes through protected mode to long mode,
 * then jumps to ap_entry(cpu) in the higher half on the given stack.
 *
 * The code runs at TRAMPOLINE_PHYS, not where it is linked, so every
 * absolute address is written as TRAMPOLINE_PHYS + (label - start). It
 * sits in rodata: it is data to copy, never executed in place.
 */
#define TRAMPOLINE_PHYS 0x8000
#define ABS(label) (TRAMPOLINE_PHYS + (label) - ap_trampoline_start)

	.section .rodata
	.balign 16
	.globl ap_trampoline_start, ap_trampoline_end, ap_trampoline_params
	.code16
ap_trampoline_start:
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	lgdtl ap_gdt_pointer - ap_trampoline_start
	movl %cr0, %eax
	orl $0x1, %eax			/* PE */
	movl %eax, %cr0
	ljmpl $0x08, $ABS(ap_protected)

	.code32
ap_protected:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $0x20, %eax			/* PAE */
	movl %eax, %cr4
	movl ABS(ap_param_cr3), %eax
	movl %eax, %cr3
	movl $0xc0000080, %ecx		/* EFER */
	rdmsr
	orl $0x900, %eax		/* LME | NXE */
	wrmsr
	movl %cr0, %eax
	orl $0x80010000, %eax		/* PG | WP */
	movl %eax, %cr0
	ljmpl $0x18, $ABS(ap_long)

	.code64
ap_long:
	movabsq $ABS(ap_param_stack), %rax
	movq (%rax), %rsp
	movabsq $ABS(ap_param_cpu), %rax
	movq (%rax), %rdi
	movabsq $ABS(ap_param_entry), %rax
	movq (%rax), %rax
	xorl %ebp, %ebp
	jmp *%rax

	.balign 8
ap_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff	/* 0x08: 32-bit flat code */
	.quad 0x00cf92000000ffff	/* 0x10: flat data */
	.quad 0x00209a0000000000	/* 0x18: 64-bit code */
ap_gdt_end:
ap_gdt_pointer:
	.short ap_gdt_end - ap_gdt - 1
	.long ABS(ap_gdt)

	.balign 8
ap_trampoline_params:
ap_param_cr3:   .quad 0
ap_param_stack: .quad 0
ap_param_entry: .quad 0
ap_param_cpu:   .quad 0
ap_trampoline_end:
