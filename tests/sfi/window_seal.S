/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The window child's last code (window_setup.c): make every listed
 * mapping read-only with raw mprotect calls, then stop for the parent
 * with int3. It uses only registers and reads only the list, because
 * the list includes its own stack, the C library's data and, under
 * ASan, the shadow: after the first call nothing the child owns may be
 * written, so no C code may run again. The parent takes over at the
 * int3 and never lets the child come back here.
 *
 * window_seal(const struct window_seal_range *r, size_t n): each range
 * is { addr, len, prot }, 24 bytes. Stops at window_seal_done with %rax
 * 0, or at window_seal_failed with %rax the negative errno and %r12
 * pointing at the range that failed.
 */
	.text
	.globl window_seal, window_seal_done, window_seal_failed
	.type window_seal, @function
window_seal:
	movq %rdi, %r12
	movq %rsi, %r13
1:	testq %r13, %r13
	jz 2f
	movq 0(%r12), %rdi
	movq 8(%r12), %rsi
	movq 16(%r12), %rdx
	movl $10, %eax			/* SYS_mprotect */
	syscall
	testq %rax, %rax
	jnz 3f
	addq $24, %r12
	decq %r13
	jmp 1b
2:	xorl %eax, %eax
	int3
window_seal_done:
	ud2
3:	int3
window_seal_failed:
	ud2
	.size window_seal, . - window_seal

	.section .note.GNU-stack, "", @progbits
