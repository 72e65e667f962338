/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * selftest_bad_window(sp): a window whose stack pointer is `sp`, then
 * enough calls' worth of `save` that the window must be spilled. For the
 * boot self-checks that stop the machine (selftest.c): an even sp is a
 * 32-bit frame, whose spill the trap table refuses; an odd sp pointing
 * at unmapped memory makes the spill handler itself fault, at TL 2.
 * Steps:
 *  1. a window of its own, then flushw: every older window is in memory,
 *     so this one is the oldest the next spill will pick;
 *  2. %sp := sp (this window's, the one to be spilled);
 *  3. save after save: the first NWINDOWS - 2 fit, the next spills.
 * Never returns (the spill is refused or faults; a spill that did
 * neither would loop here until the test's time limit).
 */
#include "sparc64.h"

	.text
	.globl	selftest_bad_window
	.type	selftest_bad_window, @function
selftest_bad_window:
	save	%sp, -MIN_FRAME, %sp
	flushw
	mov	%i0, %sp
1:	ba,pt	%xcc, 1b
	 save	%sp, -MIN_FRAME, %sp		/* the 7th (NWINDOWS - 1) spills */
	.size	selftest_bad_window, . - selftest_bad_window
