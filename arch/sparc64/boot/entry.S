/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sparc64 entry point: OpenBIOS calls virtual 0x40004000 as
 * entry(0, 0, 0, 0, cif) at TL 0 on its own stack and in its own register
 * window, with its trap table at %tba (../shared/PLATFORMS.md). _start
 * leaves OpenBIOS behind for good and calls arch_boot_main(cif) on
 * the kernel's boot stack. Invariants: nothing here touches memory
 * outside the image (OpenBIOS mapped only that), and OpenBIOS's windows
 * are written to its stacks before the kernel's trap table replaces
 * OpenBIOS's (so no spill ever needs OpenBIOS's memory or handlers).
 */
#include "../sparc64.h"

	.section .text.entry, "ax"
	.globl	_start
	.type	_start, @function
_start:
	/* 1. Interrupts off, normal globals, privileged. */
	wrpr	%g0, PSTATE_KERNEL, %pstate
	/* 2. Write every OpenBIOS window to its stack, with OpenBIOS's
	 *    handlers still in place: afterwards no window holds firmware
	 *    state, and the kernel never restores into one. */
	flushw
	/* 3. Switch to the boot stack: a minimal frame at its top. This
	 *    window's %fp and %i7 (OpenBIOS's frame and return address) are
	 *    zeroed, so a backtrace ends at _start. */
	setx	bsp_boot_stack_top - STACK_BIAS - MIN_FRAME, %g1, %sp
	mov	%g0, %fp
	mov	%g0, %i7
	/* 4. Into C, with the client interface pointer; it never returns. */
	call	arch_boot_main
	 mov	%o4, %o0
1:	ba,a	1b
	.size	_start, . - _start

	.section .bss
	.align	64
	.globl	bsp_boot_stack, bsp_boot_stack_top
bsp_boot_stack:
	.skip	65536		/* 200 nested C frames of 176 bytes and more: no guard page */
bsp_boot_stack_top:
