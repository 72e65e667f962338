/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The frame call every jump patch that runs C consumers makes
 * (patch/insert.c emits the call): one shared copy, so a patch holds 14
 * words for it instead of the whole sequence.
 *
 * sparc64_probe_frame_call - In: the patch's own window, opened with
 *   save %sp, -(MIN_FRAME + TF_SIZE), %sp, so its ins are the probed
 *   code's outs and the trap frame's room is at %sp + STACK_BIAS +
 *   MIN_FRAME; %l0 the probed pc, %l1 fn, %l2 cookie. A leaf in that
 *   window (no save). Builds a struct trap_frame (arch/trap.h: the
 *   globals, the outs and %sp, %y, TSTATE's CCR and PSTATE fields, tpc =
 *   pc, tnpc = pc + 4), calls fn(frame, cookie) with interrupts masked,
 *   puts PSTATE, the globals, %o0-%o5 (as ins), %y and the condition codes
 *   back, and returns to the patch. Uses %l3-%l7.
 * Probe context: in .text.noprobe, so no probe can fire inside it.
 */
#include "sparc64.h"

#define TSTATE_CCR_SHIFT	32
#define TSTATE_PSTATE_SHIFT	8

	.register %g2, #scratch
	.register %g3, #scratch
	.register %g6, #scratch
	.register %g7, #scratch

	.section .text.noprobe, "ax"
	.globl	sparc64_probe_frame_call
	.type	sparc64_probe_frame_call, @function
	.balign	32
sparc64_probe_frame_call:
	add	%sp, STACK_BIAS + MIN_FRAME, %l7
	rd	%ccr, %l3
	rd	%y, %l4
	rdpr	%pstate, %l5
	stx	%g1, [%l7 + TF_G + 1 * 8]
	stx	%g2, [%l7 + TF_G + 2 * 8]
	stx	%g3, [%l7 + TF_G + 3 * 8]
	stx	%g4, [%l7 + TF_G + 4 * 8]
	stx	%g5, [%l7 + TF_G + 5 * 8]
	stx	%g6, [%l7 + TF_G + 6 * 8]
	stx	%g7, [%l7 + TF_G + 7 * 8]
	stx	%i0, [%l7 + TF_O + 0 * 8]
	stx	%i1, [%l7 + TF_O + 1 * 8]
	stx	%i2, [%l7 + TF_O + 2 * 8]
	stx	%i3, [%l7 + TF_O + 3 * 8]
	stx	%i4, [%l7 + TF_O + 4 * 8]
	stx	%i5, [%l7 + TF_O + 5 * 8]
	stx	%i6, [%l7 + TF_O + 6 * 8]
	stx	%i7, [%l7 + TF_O + 7 * 8]
	stx	%fp, [%l7 + TF_SP]
	stx	%l4, [%l7 + TF_Y]
	sllx	%l3, TSTATE_CCR_SHIFT, %l6
	sllx	%l5, TSTATE_PSTATE_SHIFT, %o1
	or	%l6, %o1, %l6
	stx	%l6, [%l7 + TF_TSTATE]
	stx	%l0, [%l7 + TF_TPC]
	add	%l0, 4, %l6
	stx	%l6, [%l7 + TF_TNPC]
	stx	%g0, [%l7 + TF_TT]
	stx	%g0, [%l7 + TF_TL]
	stx	%g0, [%l7 + TF_FAULT]
	stx	%g0, [%l7 + TF_OUTER_TT]
	stx	%g0, [%l7 + TF_OUTER_TPC]
	andn	%l5, PSTATE_IE, %o1		/* fn runs with interrupts masked */
	wrpr	%o1, 0, %pstate
	mov	%o7, %l6			/* the call below takes %o7 */
	mov	%l7, %o0
	jmpl	%l1, %o7
	 mov	%l2, %o1
	wrpr	%l5, 0, %pstate			/* as the probed code had it */
	ldx	[%l7 + TF_G + 1 * 8], %g1
	ldx	[%l7 + TF_G + 2 * 8], %g2
	ldx	[%l7 + TF_G + 3 * 8], %g3
	ldx	[%l7 + TF_G + 4 * 8], %g4
	ldx	[%l7 + TF_G + 5 * 8], %g5
	ldx	[%l7 + TF_G + 6 * 8], %g6
	ldx	[%l7 + TF_G + 7 * 8], %g7
	ldx	[%l7 + TF_O + 0 * 8], %i0
	ldx	[%l7 + TF_O + 1 * 8], %i1
	ldx	[%l7 + TF_O + 2 * 8], %i2
	ldx	[%l7 + TF_O + 3 * 8], %i3
	ldx	[%l7 + TF_O + 4 * 8], %i4
	ldx	[%l7 + TF_O + 5 * 8], %i5
	wr	%l4, 0, %y
	wr	%l3, 0, %ccr
	jmpl	%l6 + 8, %g0
	 nop
	.size	sparc64_probe_frame_call, . - sparc64_probe_frame_call

	.section .note.GNU-stack, "", @progbits
