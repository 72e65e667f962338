/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sparc64 versions of the in-kernel tests' code fixtures that the
 * portable tests link against (tests/kernel/probe_test.h), built into the
 * test kernel only (ARCH_KTEST_SRCS). The probe tests that would patch
 * them are skipped on sparc64 (no splicer yet), but the monitor tests
 * still call the function and name its labels.
 *   uint64_t pf_sum(uint64_t a, uint64_t b): 3a + b + 7, a leaf, straight line;
 *   poke_target: a function in kernel text (test_mm's image checks).
 */
	.section .text
	.globl	pf_sum, pf_sum_mid, pf_sum_late
	.type	pf_sum, @function
	.balign	16
pf_sum:
	mov	%o0, %g1
pf_sum_mid:
	sllx	%o0, 1, %o0
	add	%o0, %g1, %o0
	add	%o0, %o1, %o0
pf_sum_late:
	retl
	 add	%o0, 7, %o0
	.size	pf_sum, . - pf_sum

	.globl	poke_target
	.type	poke_target, @function
	.balign	16
poke_target:
	retl
	 add	%o0, 1, %o0
	.size	poke_target, . - poke_target

	.section .note.GNU-stack, "", @progbits
