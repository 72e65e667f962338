/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Functions of known shape for the sparc64 structural analysis's host
 * tests (test_sparc64_analysis.c holds what each must give: blocks,
 * successors, end kinds, live-in sets, free registers at points). Every
 * kind of delay slot is here: a plain slot on every path, an annulled
 * conditional branch's slot (taken path only), ba,a and bn,a (never), a
 * call's slot that sets the argument, ret/restore, retl, return, a BPr
 * branch, a slot that is itself a branch target, a tail call through a
 * call with restore in its slot, a loop closed by an annulled branch, and
 * a switch through a jump table in .text. The offsets in the comments are the
 * ones the tests name; linked at a fixed address (analysis.mk) so that
 * calls between the functions are resolved.
 */
	.text
	.align	4

/* long fix_leaf(long a, long b): a + b, the add in retl's slot. */
	.globl	fix_leaf
	.type	fix_leaf, @function
fix_leaf:
	retl				/* 0 */
	 add	%o0, %o1, %o0		/* 4 */
	.size	fix_leaf, . - fix_leaf

/* A conditional branch whose slot runs on both paths. */
	.globl	fix_branch
	.type	fix_branch, @function
fix_branch:
	cmp	%o0, 0			/* 0 */
	bne,pn	%xcc, 1f		/* 4 */
	 mov	%o4, %g1		/* 8: both paths */
	mov	%o5, %g1		/* 12 */
1:	retl				/* 16 */
	 mov	%g1, %o0		/* 20 */
	.size	fix_branch, . - fix_branch

/* An annulled BPr branch: its slot runs only when taken. */
	.globl	fix_annul
	.type	fix_annul, @function
fix_annul:
	brz,a,pn %o0, 1f		/* 0 */
	 mov	%o4, %g1		/* 4: taken path only */
	add	%g1, 1, %g1		/* 8: reads the g1 from before the branch */
1:	retl				/* 12 */
	 mov	%g1, %o0		/* 16 */
	.size	fix_annul, . - fix_annul

/* ba,a never runs its slot: o0 reaches the return as it came. */
	.globl	fix_ba_a
	.type	fix_ba_a, @function
fix_ba_a:
	ba,a,pt	%xcc, 1f		/* 0 */
	 mov	1, %o0			/* 4: never runs */
1:	retl				/* 8 */
	 nop				/* 12 */
	.size	fix_ba_a, . - fix_ba_a

/* bn,a: never taken, and the slot annulled: a jump over it. */
	.globl	fix_bn_a
	.type	fix_bn_a, @function
fix_bn_a:
	bn,a	%xcc, fix_bn_a		/* 0 */
	 mov	1, %o0			/* 4: never runs */
	retl				/* 8 */
	 nop				/* 12 */
	.size	fix_bn_a, . - fix_bn_a

/* save, a call whose slot sets the argument, ret with restore in its slot. */
	.globl	fix_nonleaf
	.type	fix_nonleaf, @function
fix_nonleaf:
	save	%sp, -176, %sp		/* 0 */
	call	fix_leaf		/* 4 */
	 add	%i0, 1, %o0		/* 8: the argument */
	add	%o0, %i0, %i0		/* 12 */
	ret				/* 16 */
	 restore			/* 20 */
	.size	fix_nonleaf, . - fix_nonleaf

/* return (restore, then jump) with its slot in the caller's window; a BPr branch. */
	.globl	fix_return
	.type	fix_return, @function
fix_return:
	save	%sp, -176, %sp		/* 0 */
	add	%i0, %i1, %l0		/* 4 */
	brnz,pt	%l0, 1f			/* 8 */
	 mov	%l0, %i0		/* 12: both paths */
	mov	7, %i0			/* 16 */
1:	return	%i7 + 8			/* 20 */
	 nop				/* 24: in the caller's window */
	.size	fix_return, . - fix_return

/* ba's slot is also be's target. */
	.globl	fix_slot_target
	.type	fix_slot_target, @function
fix_slot_target:
	cmp	%o0, 0			/* 0 */
	be,pn	%xcc, 2f		/* 4 */
	 nop				/* 8 */
	ba,pt	%xcc, 1f		/* 12 */
2:	 mov	%o4, %g1		/* 16: ba's slot, be's target */
	mov	%o5, %g1		/* 20: after the slot when jumped to */
1:	retl				/* 24 */
	 mov	%g1, %o0		/* 28 */
	.size	fix_slot_target, . - fix_slot_target

/* The V9 tail call: call with restore in its slot (the callee returns to our caller). */
	.globl	fix_tail
	.type	fix_tail, @function
fix_tail:
	save	%sp, -176, %sp		/* 0 */
	add	%i0, 1, %i0		/* 4 */
	call	fix_leaf		/* 8 */
	 restore %i0, %g0, %o0		/* 12 */
	.size	fix_tail, . - fix_tail

/* An indirect call (jmpl with a link) and an indirect jump with restore in its slot. */
	.globl	fix_indirect
	.type	fix_indirect, @function
fix_indirect:
	save	%sp, -176, %sp		/* 0 */
	jmpl	%i0, %o7		/* 4 */
	 mov	%i1, %o0		/* 8 */
	jmp	%i2			/* 12 */
	 restore			/* 16 */
	.size	fix_indirect, . - fix_indirect

/* A loop whose back edge is an annulled branch with a slot that counts. */
	.globl	fix_loop
	.type	fix_loop, @function
fix_loop:
	mov	0, %o1			/* 0 */
1:	subcc	%o0, 1, %o0		/* 4 */
	bne,a,pt %xcc, 1b		/* 8 */
	 add	%o1, 2, %o1		/* 12: taken path only */
	retl				/* 16 */
	 mov	%o1, %o0		/* 20 */
	.size	fix_loop, . - fix_loop

/* A switch as GCC compiles one: bound, scaled index, sethi/or base, lduw, jmp. */
	.globl	fix_switch
	.type	fix_switch, @function
fix_switch:
	cmp	%o0, 3			/* 0 */
	bgu,pn	%xcc, 9f		/* 4 */
	 sllx	%o0, 2, %o0		/* 8 */
	sethi	%hi(fix_switch_table), %g1	/* 12 */
	or	%g1, %lo(fix_switch_table), %g1	/* 16 */
	lduw	[%g1 + %o0], %g1	/* 20 */
	jmp	%g1			/* 24 */
	 nop				/* 28 */
1:	retl				/* 32 */
	 mov	%o1, %o0		/* 36 */
2:	retl				/* 40 */
	 mov	%o2, %o0		/* 44 */
3:	retl				/* 48 */
	 mov	%o3, %o0		/* 52 */
9:	retl				/* 56 */
	 mov	%o4, %o0		/* 60 */
	.size	fix_switch, . - fix_switch
	.align	4
fix_switch_table:			/* between functions, as GCC puts it */
	.word	1b, 2b, 3b, 9b
