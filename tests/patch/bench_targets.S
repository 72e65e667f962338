/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The function the host patch benchmark (bench_patch.c) probes at its
 * entry: uint64_t bench_target(uint64_t x) = 3x + 7. Its first two
 * instructions (8 bytes) are what a jump probe detours; its page is made
 * writable by the benchmark, like kernel text through text_poke.
 */
	.text
	.balign 64
	.globl bench_target
	.type bench_target, @function
bench_target:
	leaq (%rdi, %rdi, 2), %rax	/* 4 bytes */
	addq $7, %rax			/* 4 bytes: the region is [0, 8) */
	ret
	.size bench_target, . - bench_target
	.balign 64
	.section .note.GNU-stack, "", @progbits
