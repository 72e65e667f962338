/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kernel-shaped image with known TL > 0 violations, for the job that
 * checks tools/check_tl.py (tests/integration/test_sparc64_tl.py): a
 * 1024-entry trap table inside the no-probe range and functions outside
 * it. The check must flag exactly:
 *   outside_branch   entry 0 branches to it at TL 1
 *   outside_callee   entry 4 calls it at TL 1
 *   trap_table+0x40  entry 2 jumps through a register
 *   outside_untaken  entry 5 calls it on the path where its annulled
 *                    branch is not taken (the slot that drops to TL 0 runs
 *                    only when it is)
 * and must not flag:
 *   c_code           entries 1 and 5 call it after dropping to TL 0
 *   never_runs       ba,a's slot in entry 3 (never executed)
 *   untaken_only     bn,a's slot in entry 6 (never executed)
 */
	.text
	.align	4
	.globl	__noprobe_start, __noprobe_end, __tl1_start, __tl1_end, trap_table
	.type	trap_table, @function
__noprobe_start:
__tl1_start:
trap_table:
	/* 0 */
	ba,pt	%xcc, outside_branch
	 nop
	.skip	24
	/* 1: to TL 0, C, back to TL 1 */
	wrpr	%g0, 0, %tl
	call	c_code
	 nop
	wrpr	%g0, 1, %tl
	retry
	.skip	12
	/* 2 */
	jmp	%g1
	 nop
	.skip	24
	/* 3 */
	ba,a,pt	%xcc, inside_helper
	 call	never_runs
	.skip	24
	/* 4 */
	call	outside_callee
	 nop
	retry
	.skip	20
	/* 5: the annulled slot drops to TL 0 on the taken path only */
	ba,pt	%xcc, entry5_body
	 nop
	.skip	24
	/* 6 */
	bn,a	%xcc, trap_table
	 call	untaken_only
	retry
	.skip	20
	.org	trap_table + 1024 * 32
	.size	trap_table, . - trap_table

	.type	inside_helper, @function
inside_helper:
	retry
	.size	inside_helper, . - inside_helper

	.type	entry5_body, @function
entry5_body:
	cmp	%g1, 0
	bne,a,pt %xcc, 1f
	 wrpr	%g0, 0, %tl
	call	outside_untaken		/* at TL 1: flagged */
	 nop
	retry
1:	call	c_code			/* at TL 0 */
	 nop
	wrpr	%g0, 1, %tl
	retry
	.size	entry5_body, . - entry5_body
__tl1_end:
__noprobe_end:

	.globl	outside_branch, outside_callee, outside_untaken, c_code, never_runs, untaken_only
	.type	outside_branch, @function
outside_branch:
	retry
	.size	outside_branch, . - outside_branch

	.type	outside_callee, @function
outside_callee:
	retl
	 nop
	.size	outside_callee, . - outside_callee

	.type	outside_untaken, @function
outside_untaken:
	retl
	 nop
	.size	outside_untaken, . - outside_untaken

	.type	c_code, @function
c_code:
	retl
	 nop
	.size	c_code, . - c_code

	.type	never_runs, @function
never_runs:
	retl
	 nop
	.size	never_runs, . - never_runs

	.type	untaken_only, @function
untaken_only:
	retl
	 nop
	.size	untaken_only, . - untaken_only
