/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's trap table (at %tba from sparc64_trap_init on) and
 * everything that runs at TL > 0: 512 entries of 32 bytes for traps taken
 * at TL 0, then 512 for traps taken at TL > 0, 32 KB aligned (V9).
 *
 * Handled at trap level, without a register window (fast handlers):
 *  - window spill / fill 0 "normal" (WSTATE is 0): the V9 biased stack,
 *    16 registers at %sp + 2047. A frame with an even %sp is a 32-bit
 *    frame: refused (window_refused), never spilled or filled;
 *  - clean_window: zero the window's locals and outs;
 *  - fast instruction / data MMU misses: a miss in context 0 inside
 *    KERNEL_VIRT .. +4 MB gets the kernel's 4 MB TTE, computed on the
 *    spot (mmu.c also locks it in at boot, so this table never misses
 *    on itself); any other miss is a fault.
 * Everything else goes to trap_common, which builds a struct trap_frame
 * (sparc64_internal.h) on the kernel stack, drops to TL 0 with normal
 * globals and interrupts masked, calls trap_handler (trap.c), and comes
 * back the way it went (rtrap). A trap taken at TL > 1, or a refused
 * window, is fatal: the windows are discarded and C runs on the
 * emergency stack, to report and stop.
 * Invariants: fast handlers touch only the global set the trap selected
 * (alternate or MMU globals); no code here may be probed (it lies between
 * __tl1_start and __tl1_end, inside the no-probe range: kernel.ld).
 */
#include "sparc64.h"

#define TRAP_FRAME	(MIN_FRAME + TF_SIZE)	/* 384, a multiple of 16 */

/* The ABI reserves %g2-%g7 to the application: the trap code is that application. */
	.register %g2, #scratch
	.register %g3, #scratch
	.register %g6, #scratch
	.register %g7, #scratch

	.section .text.traptable, "ax"
	.balign	TRAP_ENTRY_SIZE		/* kernel.ld aligns it to 32 KB */

/* An entry that hands the trap to trap_common with no fault address. */
.macro GENERIC from, to
	.rept	(\to) - (\from)
	ba,pt	%xcc, trap_common
	 clr	%g7
	.skip	TRAP_ENTRY_SIZE - 8
	.endr
.endm

/* Data faults with an address in the D-MMU's fault address register. */
.macro DATA_FAULT
	mov	MMU_SFAR, %g7
	ba,pt	%xcc, trap_common
	 ldxa	[%g7] ASI_DMMU, %g7
	.skip	TRAP_ENTRY_SIZE - 12
.endm

/* A miss in the kernel's 4 MB window gets the kernel TTE; anything else faults. */
.macro MMU_MISS mmu_asi, data_in_asi
	mov	MMU_TAG_ACCESS, %g1
	ldxa	[%g1] \mmu_asi, %g1		/* VA 63..13, context 12..0 */
	srlx	%g1, KERNEL_MAP_SHIFT, %g2
	cmp	%g2, KERNEL_VIRT >> KERNEL_MAP_SHIFT
	bne,pn	%xcc, 1f
	 sllx	%g1, 64 - 13, %g2		/* the context (13 bits: no simm13 mask) */
	brnz,pn	%g2, 1f
	 sethi	%hi(KERNEL_TTE_HIGH), %g2
	sllx	%g2, 32, %g2
	sethi	%hi(KERNEL_TTE_LOW), %g3
	or	%g3, %lo(KERNEL_TTE_LOW), %g3
	or	%g2, %g3, %g2
	stxa	%g2, [%g0] \data_in_asi
	retry
1:	ba,pt	%xcc, mmu_miss_other
	 mov	\data_in_asi, %g3
	.skip	4 * TRAP_ENTRY_SIZE - 16 * 4
.endm

/* Spill one window to a 64-bit (biased) frame; refuse a 32-bit one. */
.macro SPILL_64
	andcc	%sp, 1, %g0
	bz,pn	%xcc, window_refused
	 nop
	stx	%l0, [%sp + STACK_BIAS + 0x00]
	stx	%l1, [%sp + STACK_BIAS + 0x08]
	stx	%l2, [%sp + STACK_BIAS + 0x10]
	stx	%l3, [%sp + STACK_BIAS + 0x18]
	stx	%l4, [%sp + STACK_BIAS + 0x20]
	stx	%l5, [%sp + STACK_BIAS + 0x28]
	stx	%l6, [%sp + STACK_BIAS + 0x30]
	stx	%l7, [%sp + STACK_BIAS + 0x38]
	stx	%i0, [%sp + STACK_BIAS + 0x40]
	stx	%i1, [%sp + STACK_BIAS + 0x48]
	stx	%i2, [%sp + STACK_BIAS + 0x50]
	stx	%i3, [%sp + STACK_BIAS + 0x58]
	stx	%i4, [%sp + STACK_BIAS + 0x60]
	stx	%i5, [%sp + STACK_BIAS + 0x68]
	stx	%i6, [%sp + STACK_BIAS + 0x70]
	stx	%i7, [%sp + STACK_BIAS + 0x78]
	saved
	retry
	.skip	4 * TRAP_ENTRY_SIZE - 21 * 4
.endm

.macro FILL_64
	andcc	%sp, 1, %g0
	bz,pn	%xcc, window_refused
	 nop
	ldx	[%sp + STACK_BIAS + 0x00], %l0
	ldx	[%sp + STACK_BIAS + 0x08], %l1
	ldx	[%sp + STACK_BIAS + 0x10], %l2
	ldx	[%sp + STACK_BIAS + 0x18], %l3
	ldx	[%sp + STACK_BIAS + 0x20], %l4
	ldx	[%sp + STACK_BIAS + 0x28], %l5
	ldx	[%sp + STACK_BIAS + 0x30], %l6
	ldx	[%sp + STACK_BIAS + 0x38], %l7
	ldx	[%sp + STACK_BIAS + 0x40], %i0
	ldx	[%sp + STACK_BIAS + 0x48], %i1
	ldx	[%sp + STACK_BIAS + 0x50], %i2
	ldx	[%sp + STACK_BIAS + 0x58], %i3
	ldx	[%sp + STACK_BIAS + 0x60], %i4
	ldx	[%sp + STACK_BIAS + 0x68], %i5
	ldx	[%sp + STACK_BIAS + 0x70], %i6
	ldx	[%sp + STACK_BIAS + 0x78], %i7
	restored
	retry
	.skip	4 * TRAP_ENTRY_SIZE - 21 * 4
.endm

/* Only WSTATE 0 "normal" is used: any other spill or fill vector is refused. */
.macro WINDOW_REFUSED_VECTOR
	ba,a,pt	%xcc, window_refused
	.skip	4 * TRAP_ENTRY_SIZE - 4
.endm

/* Zero the new window's locals and outs, count it clean, retry the save. */
.macro CLEAN_WINDOW
	clr	%l0
	clr	%l1
	clr	%l2
	clr	%l3
	clr	%l4
	clr	%l5
	clr	%l6
	clr	%l7
	clr	%o0
	clr	%o1
	clr	%o2
	clr	%o3
	clr	%o4
	clr	%o5
	clr	%o6
	clr	%o7
	rdpr	%cleanwin, %g1
	add	%g1, 1, %g1
	wrpr	%g1, 0, %cleanwin
	retry
	.skip	4 * TRAP_ENTRY_SIZE - 20 * 4
.endm

/* One half of the table (traps taken at TL 0, or at TL > 0): 512 entries. */
.macro TRAP_TABLE_HALF base
	GENERIC		0x000, TT_CLEAN_WINDOW
	CLEAN_WINDOW					/* 0x024 - 0x027 */
	GENERIC		0x028, TT_DAE
	.org \base + TT_DAE * TRAP_ENTRY_SIZE
	DATA_FAULT					/* 0x030 */
	GENERIC		0x031, TT_ALIGN
	DATA_FAULT					/* 0x034 */
	GENERIC		0x035, TT_IMMU_MISS
	.org \base + TT_IMMU_MISS * TRAP_ENTRY_SIZE
	MMU_MISS	ASI_IMMU, ASI_ITLB_DATA_IN	/* 0x064 - 0x067 */
	MMU_MISS	ASI_DMMU, ASI_DTLB_DATA_IN	/* 0x068 - 0x06b */
	.org \base + TT_DMMU_PROT * TRAP_ENTRY_SIZE
	DATA_FAULT					/* 0x06c: protection */
	GENERIC		0x06d, TT_SPILL_0
	.org \base + TT_SPILL_0 * TRAP_ENTRY_SIZE
	SPILL_64					/* 0x080: spill 0 normal */
	.rept 15					/* 0x084 - 0x0bf */
	WINDOW_REFUSED_VECTOR
	.endr
	.org \base + TT_FILL_0 * TRAP_ENTRY_SIZE
	FILL_64						/* 0x0c0: fill 0 normal */
	.rept 15					/* 0x0c4 - 0x0ff */
	WINDOW_REFUSED_VECTOR
	.endr
	.org \base + TT_TRAP_INSN * TRAP_ENTRY_SIZE
	GENERIC		TT_TRAP_INSN, 0x200
	.org \base + 0x200 * TRAP_ENTRY_SIZE
.endm

	.globl	trap_table
	.type	trap_table, @function
trap_table:
	TRAP_TABLE_HALF trap_table
	TRAP_TABLE_HALF trap_table + TRAP_TABLE_TL1
	.size	trap_table, . - trap_table

	.section .text.tl1, "ax"

/*
 * mmu_miss_other: a miss outside the kernel image's window. In: %g1 the
 * tag access value (VA 63..13, context 12..0), %g3 the data-in ASI of the
 * TLB that missed (0x54 or 0x5c), MMU globals.
 *  - context 0, DIRECT_MAP_BASE <= VA < + sparc64_ram_top: the 4 MB page
 *    of physical memory VA - DIRECT_MAP_BASE, cacheable, writable;
 *  - context 0, KMAP_BASE <= VA < KMAP_LIMIT: the 8 KB TTE in
 *    sparc64_kmap_ttes[(VA - KMAP_BASE) >> 13], when it is valid;
 *  - anything else: a fault (trap_common, the page's address in %g7).
 * The TTE goes through %asi (the ASI is a register operand here).
 */
	.type	mmu_miss_other, @function
mmu_miss_other:
	wr	%g3, 0, %asi
	sllx	%g1, 64 - 13, %g2		/* the context: must be 0 */
	brnz,pn	%g2, 9f
	 srlx	%g1, 13, %g2
	sllx	%g2, 13, %g2			/* VA of the page */
	setx	SPARC64_DIRECT_MAP, %g4, %g5
	subcc	%g2, %g5, %g4			/* PA, if it is in the direct map */
	blu,pn	%xcc, 2f
	 nop
	setx	sparc64_ram_top, %g5, %g6
	ldx	[%g6], %g6
	cmp	%g4, %g6
	bgeu,pn	%xcc, 9f
	 srlx	%g4, KERNEL_MAP_SHIFT, %g4
	sllx	%g4, KERNEL_MAP_SHIFT, %g4	/* the 4 MB page's PA */
	sethi	%hi(KERNEL_TTE_HIGH), %g5
	sllx	%g5, 32, %g5
	or	%g4, %g5, %g4
	or	%g4, 0x36, %g4			/* CP | CV | P | W */
	stxa	%g4, [%g0] %asi
	retry
2:	setx	SPARC64_KMAP_BASE, %g4, %g5
	subcc	%g2, %g5, %g4
	blu,pn	%xcc, 9f
	 srlx	%g4, 13, %g4			/* page index */
	setx	KMAP_PAGES, %g5, %g6
	cmp	%g4, %g6
	bgeu,pn	%xcc, 9f
	 sllx	%g4, 3, %g4
	setx	sparc64_kmap_ttes, %g5, %g6
	ldx	[%g6 + %g4], %g4
	brgez,pn %g4, 9f			/* bit 63 clear: not valid */
	 nop
	stxa	%g4, [%g0] %asi
	retry
9:	srlx	%g1, 13, %g7			/* the page's address, context dropped */
	ba,pt	%xcc, trap_common
	 sllx	%g7, 13, %g7
	.size	mmu_miss_other, . - mmu_miss_other

/*
 * window_refused: a spill or fill of a 32-bit frame (even %sp), or of a
 * WSTATE the kernel never sets. The trap's window cannot be saved, so the
 * machine stops: the refused %sp becomes the fault address and the
 * report runs through trap_nested's path (windows discarded).
 */
	.type	window_refused, @function
window_refused:
	rdpr	%tl, %g5
	ba,pt	%xcc, trap_discard_windows
	 mov	%sp, %g7
	.size	window_refused, . - window_refused

/*
 * trap_common: every trap that reaches C. In: TL >= 1, the trap's global
 * set active, %g7 the fault address (or 0).
 */
	.globl	trap_common
	.type	trap_common, @function
trap_common:
	rdpr	%tl, %g5
	cmp	%g5, 1
	bgu,pn	%xcc, trap_discard_windows	/* a trap inside a trap: fatal */
	 nop
trap_common_body:
	/* 1. A new window and a trap frame on the interrupted stack (a spill,
	 *    if one is needed, is taken at TL + 1 and returns here). */
	save	%sp, -TRAP_FRAME, %sp
	add	%sp, STACK_BIAS + MIN_FRAME, %g6
	/* 2. The trap state of this level, the fault address, %y, the
	 *    interrupted %sp (this window's %fp). */
	rdpr	%tstate, %g1
	stx	%g1, [%g6 + TF_TSTATE]
	rdpr	%tpc, %g1
	stx	%g1, [%g6 + TF_TPC]
	rdpr	%tnpc, %g1
	stx	%g1, [%g6 + TF_TNPC]
	rdpr	%tt, %g1
	stx	%g1, [%g6 + TF_TT]
	stx	%g5, [%g6 + TF_TL]
	stx	%g7, [%g6 + TF_FAULT]
	rd	%y, %g1
	stx	%g1, [%g6 + TF_Y]
	stx	%fp, [%g6 + TF_SP]
	stx	%g0, [%g6 + TF_OUTER_TT]
	stx	%g0, [%g6 + TF_OUTER_TPC]
	/*    The interrupted window's outs are this window's ins. */
	stx	%i0, [%g6 + TF_O + 0 * 8]
	stx	%i1, [%g6 + TF_O + 1 * 8]
	stx	%i2, [%g6 + TF_O + 2 * 8]
	stx	%i3, [%g6 + TF_O + 3 * 8]
	stx	%i4, [%g6 + TF_O + 4 * 8]
	stx	%i5, [%g6 + TF_O + 5 * 8]
	stx	%i6, [%g6 + TF_O + 6 * 8]
	stx	%i7, [%g6 + TF_O + 7 * 8]
	/* 3. Nested: also TL 1's trap type and pc (what was interrupted first). */
	cmp	%g5, 1
	be,pt	%xcc, 1f
	 nop
	wrpr	%g0, 1, %tl
	rdpr	%tt, %g1
	stx	%g1, [%g6 + TF_OUTER_TT]
	rdpr	%tpc, %g1
	stx	%g1, [%g6 + TF_OUTER_TPC]
1:	mov	%g6, %l0
	/* 4. Normal globals (the interrupted code's), saved in the frame. */
	wrpr	%g0, PSTATE_KERNEL, %pstate
	stx	%g1, [%l0 + TF_G + 1 * 8]
	stx	%g2, [%l0 + TF_G + 2 * 8]
	stx	%g3, [%l0 + TF_G + 3 * 8]
	stx	%g4, [%l0 + TF_G + 4 * 8]
	stx	%g5, [%l0 + TF_G + 5 * 8]
	stx	%g6, [%l0 + TF_G + 6 * 8]
	stx	%g7, [%l0 + TF_G + 7 * 8]
	/* 5. TL 0, interrupts still masked: C. */
	wrpr	%g0, 0, %tl
	call	trap_handler
	 mov	%l0, %o0
	/* 6. Back (rtrap): globals and %y, then TL 1 with alternate globals,
	 *    the trap state as C left it, the interrupted window, retry. */
	ldx	[%l0 + TF_Y], %g1
	wr	%g1, 0, %y
	ldx	[%l0 + TF_G + 1 * 8], %g1
	ldx	[%l0 + TF_G + 2 * 8], %g2
	ldx	[%l0 + TF_G + 3 * 8], %g3
	ldx	[%l0 + TF_G + 4 * 8], %g4
	ldx	[%l0 + TF_G + 5 * 8], %g5
	ldx	[%l0 + TF_G + 6 * 8], %g6
	ldx	[%l0 + TF_G + 7 * 8], %g7
	wrpr	%g0, PSTATE_KERNEL | PSTATE_AG, %pstate
	wrpr	%g0, 1, %tl
	ldx	[%l0 + TF_TSTATE], %g1
	ldx	[%l0 + TF_TPC], %g2
	ldx	[%l0 + TF_TNPC], %g3
	ldx	[%l0 + TF_O + 0 * 8], %i0	/* C may have changed them (arch/trap.h) */
	ldx	[%l0 + TF_O + 1 * 8], %i1
	ldx	[%l0 + TF_O + 2 * 8], %i2
	ldx	[%l0 + TF_O + 3 * 8], %i3
	ldx	[%l0 + TF_O + 4 * 8], %i4
	ldx	[%l0 + TF_O + 5 * 8], %i5
	ldx	[%l0 + TF_O + 7 * 8], %i7
	restore
	/* The interrupted window is the one restore just made current, which
	 * is not TSTATE.CWP's when C switched threads meanwhile (the windows
	 * were flushed and filled again): retry must come back to this one. */
	rdpr	%cwp, %g4
	andn	%g1, TSTATE_CWP_MASK, %g1
	or	%g1, %g4, %g1
	wrpr	%g1, 0, %tstate
	wrpr	%g2, 0, %tpc
	wrpr	%g3, 0, %tnpc
	retry
	.size	trap_common, . - trap_common

/*
 * trap_discard_windows: the fatal path (a trap at TL > 1, a refused
 * window). In: %g5 = TL, %g7 = the fault address.
 *  1. Discard every window but the current one: no spill is attempted
 *     (the stack that failed may be what faulted).
 *  2. Switch to the emergency stack.
 *  3. Join trap_common, which reports; trap_handler never returns.
 */
	.type	trap_discard_windows, @function
trap_discard_windows:
	wrpr	%g0, 0, %otherwin
	wrpr	%g0, 0, %canrestore
	rdpr	%ver, %g1
	and	%g1, 0x1f, %g1			/* MAXWIN = NWINDOWS - 1 */
	wrpr	%g1, 0, %cleanwin
	sub	%g1, 1, %g1
	wrpr	%g1, 0, %cansave		/* NWINDOWS - 2 */
	setx	emergency_stack_top - STACK_BIAS - MIN_FRAME, %g1, %sp
	ba,pt	%xcc, trap_common_body
	 nop
	.size	trap_discard_windows, . - trap_discard_windows

	.section .bss
	.align	64
emergency_stack:
	.skip	16384
emergency_stack_top:
