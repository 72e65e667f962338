/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Entry from GRUB (multiboot2) or from QEMU -kernel (multiboot1).
 *
 * Both loaders enter _start in 32-bit protected mode with paging off,
 * EAX = the loader's magic and EBX = the physical address of its boot
 * information. _start builds boot page tables that map the first 4 GiB
 * three times (identity, the direct map, and the top 2 GiB where the
 * kernel is linked), enters long mode and jumps to the higher half.
 *
 * Everything here but boot64_high lives in the .boot sections, linked at
 * its physical address; the kernel drops the identity map (and with it
 * these sections) once it has its own page tables.
 */

#define MB2_MAGIC          0xe85250d6
#define MB2_ARCH_I386      0
#define MB2_TAG_END        0
#define MB2_TAG_ENTRY      3
#define MB1_MAGIC          0x1badb002
#define MB1_FLAG_ALIGN     0x1
#define MB1_FLAG_MEMINFO   0x2

#define PTE_PRESENT        0x1
#define PTE_WRITE          0x2
#define PTE_LARGE          0x80
#define CR4_PAE            0x20
#define MSR_EFER           0xc0000080
#define EFER_LME_NXE       0x900
#define CR0_PG_WP          0x80010000
#define CPUID_EXT_FEATURES 0x80000001
#define CPUID_LM_BIT       29
#define CPUID_NX_BIT       20
#define COM1               0x3f8

	.section .boot.header, "a"
	.balign 8
mb2_header:
	.long MB2_MAGIC
	.long MB2_ARCH_I386
	.long mb2_header_end - mb2_header
	.long -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	.balign 8
	.short MB2_TAG_ENTRY, 0
	.long 12
	.long _start
	.balign 8
	.short MB2_TAG_END, 0
	.long 8
mb2_header_end:

	.balign 4
mb1_header:
	.long MB1_MAGIC
	.long MB1_FLAG_ALIGN | MB1_FLAG_MEMINFO
	.long -(MB1_MAGIC + MB1_FLAG_ALIGN + MB1_FLAG_MEMINFO)

	.section .boot.text, "ax"
	.code32
	.globl _start
_start:
	cli
	cld
	movl %eax, boot_magic
	movl %ebx, boot_info_phys
	rdtsc
	movl %eax, boot_entry_cycles
	movl %edx, boot_entry_cycles + 4
	movl $boot_stack_top, %esp

	/* The CPU must have long mode and no-execute pages. */
	movl $CPUID_EXT_FEATURES, %eax
	cpuid
	btl $CPUID_LM_BIT, %edx
	jnc no_long_mode
	btl $CPUID_NX_BIT, %edx
	jnc no_long_mode

	/* Clear the boot page tables. */
	movl $__boot_bss_start, %edi
	movl $__boot_bss_end, %ecx
	subl %edi, %ecx
	shrl $2, %ecx
	xorl %eax, %eax
	rep stosl

	/* 2048 large pages: physical 0..4 GiB. */
	movl $boot_pd, %edi
	movl $(PTE_PRESENT | PTE_WRITE | PTE_LARGE), %eax
	xorl %edx, %edx
	movl $2048, %ecx
1:	movl %eax, (%edi)
	movl %edx, 4(%edi)
	addl $0x200000, %eax
	adcl $0, %edx
	addl $8, %edi
	loop 1b

	/* One PDPT for 0..4 GiB, used at virtual 0 and at the direct map. */
	movl $boot_pdpt_low, %edi
	movl $(boot_pd + PTE_PRESENT + PTE_WRITE), %eax
	movl $4, %ecx
2:	movl %eax, (%edi)
	addl $4096, %eax
	addl $8, %edi
	loop 2b

	/* The top 2 GiB (PDPT slots 510, 511) map physical 0..2 GiB. */
	movl $(boot_pd + PTE_PRESENT + PTE_WRITE), boot_pdpt_high + 510 * 8
	movl $(boot_pd + 4096 + PTE_PRESENT + PTE_WRITE), boot_pdpt_high + 511 * 8

	movl $(boot_pdpt_low + PTE_PRESENT + PTE_WRITE), boot_pml4
	movl $(boot_pdpt_low + PTE_PRESENT + PTE_WRITE), boot_pml4 + 256 * 8
	movl $(boot_pdpt_high + PTE_PRESENT + PTE_WRITE), boot_pml4 + 511 * 8

	movl $boot_pml4, %eax
	movl %eax, %cr3
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME_NXE, %eax
	wrmsr
	movl %cr0, %eax
	orl $CR0_PG_WP, %eax
	movl %eax, %cr0

	lgdt boot_gdt_pointer
	ljmp $0x08, $boot64_low

no_long_mode:
	movl $no_long_mode_message, %esi
3:	lodsb
	testb %al, %al
	jz 5f
	movb %al, %bl
	movw $(COM1 + 5), %dx
4:	inb %dx, %al
	testb $0x20, %al
	jz 4b
	movw $COM1, %dx
	movb %bl, %al
	outb %al, %dx
	jmp 3b
5:	hlt
	jmp 5b

	.code64
boot64_low:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movabsq $boot64_high, %rax
	jmp *%rax

	.section .boot.data, "aw"
	.balign 8
boot_gdt:
	.quad 0
	.quad 0x00209a0000000000	/* 0x08: 64-bit code */
	.quad 0x0000920000000000	/* 0x10: data */
boot_gdt_end:
boot_gdt_pointer:
	.short boot_gdt_end - boot_gdt - 1
	.long boot_gdt
boot_magic:
	.long 0
boot_info_phys:
	.long 0
	.balign 8
boot_entry_cycles:
	.quad 0
no_long_mode_message:
	.asciz "Scion needs an x86_64 CPU with long mode and NX; halting.\r\n"

	.section .boot.bss, "aw", @nobits
	.balign 4096
boot_pml4:      .skip 4096
boot_pdpt_low:  .skip 4096
boot_pdpt_high: .skip 4096
boot_pd:        .skip 4 * 4096
boot_stack:     .skip 1024
boot_stack_top:

	/* In the higher half from here on. */
	.section .init.text, "ax"
	.code64
	.type boot64_high, @function
boot64_high:
	movabsq $bsp_boot_stack_top, %rsp
	xorl %ebp, %ebp

	movabsq $__bss_start, %rdi
	movabsq $__bss_end, %rcx
	subq %rdi, %rcx
	xorl %eax, %eax
	rep stosb

	movl boot_magic, %edi
	movl boot_info_phys, %esi
	movq boot_entry_cycles, %rdx
	call arch_boot_main
6:	cli
	hlt
	jmp 6b
	.size boot64_high, . - boot64_high

	.section .bss
	.balign 16
	.globl bsp_boot_stack, bsp_boot_stack_top
bsp_boot_stack:
	.skip 16384
bsp_boot_stack_top:
