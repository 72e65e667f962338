/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch_safe_read (arch/safe_read.h): one string move whose address the
 * trap handler knows. A #PF or #GP taken on it resumes at the fixup,
 * which returns -EFAULT; nothing else here can fault (dst is the
 * caller's kernel memory).
 */
	.section .text.noprobe, "ax"
	.globl arch_safe_read
	.type arch_safe_read, @function
arch_safe_read:
	mov	%rdx, %rcx
	.globl safe_read_may_fault
safe_read_may_fault:
	rep movsb
	xor	%eax, %eax
	ret
	.globl safe_read_fixup
safe_read_fixup:
	mov	$-14, %rax		/* -EFAULT */
	ret
	.size arch_safe_read, . - arch_safe_read
