/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sparc64 versions of the in-kernel tests' code fixtures that the
 * portable tests link against (tests/kernel/probe_test.h), built into the
 * test kernel only (ARCH_KTEST_SRCS). The probe tests that would patch
 * them, and the monitor tests, call the function and name its labels.
 *   uint64_t pf_sum(uint64_t a, uint64_t b): 3a + b + 7, a leaf, straight line;
 *   poke_target: a function in kernel text (test_mm's image checks);
 *   probe_clobbering_handler: a probe handler leaving garbage in every
 *     caller-saved register (probe_test.h);
 *   pf_rip(x) = pf_rip_value + x (starts with rd %pc), pf_short_jmp(x) = x + 1
 *   (ba over an illtrap), pf_call(x) = 2x + 1 (a call in a window),
 *   pf_jcc(x) = x ? 200 : 100 (brz): x86's fixtures of the same names in
 *   SPARC, for the workload test_probe_load.c probes everywhere;
 * and the fixtures of test_probe_sparc64.c, whose every instruction it
 * probes (their per-instruction counts for its inputs are written there),
 * besides pf_rip and s_annul (tests/sparc64_patch/annul.S: every branch
 * kind, shared with the qemu-user patch test):
 *   long kf_loop(long n): sum of kf_leaf(i) for i < n, in a window of its
 *     own (save, call in a loop, ret with restore in its delay slot);
 *   long kf_leaf(long x): 2x + 1, retl with the add in its delay slot;
 *   long kf_indirect(long x): kf_leaf(x) through jmpl %g1, %o7;
 * and the return-value fixtures of its sparc64_probe_return_values, one
 * per way a SPARC function leaves with its value not yet in the caller's
 * %o0 at the return instruction (arch/sparc64/probe_return.c):
 *   kr_retl_mov() = 42, kr_retl_or() = 1, kr_retl_sethi() = 0x12345400,
 *   kr_retl_add(x) = x + 1, kr_retl_sllx(x) = 8x, kr_retl_sra(x) = (int)x >> 1,
 *   kr_retl_xor(x, y) = x ^ y, kr_retl_andn(x, y) = x & ~y: retl, the value
 *     computed in its delay slot;
 *   kr_ret_restore(x) = x + 5: ret; restore (the value is the callee's %i0);
 *   kr_ret_restore_sum(x, y) = x + y, kr_ret_restore_imm(x) = x - 3:
 *     ret; restore computing %o0 in the callee's window;
 *   kr_return_add(x) = x + 7, kr_return_sub(x, y) = y - x: V9 return, the
 *     slot computing %o0 in the caller's window;
 *   kr_return_plain(x) = x + 2: return; nop (the callee's %i0).
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

	/* probe_clobbering_handler(hit, hits): ++*hits, garbage in every
	   caller-saved register (probe_test.h). */
	.globl	probe_clobbering_handler
	.type	probe_clobbering_handler, @function
	.balign	16
probe_clobbering_handler:
	ldx	[%o1], %g1
	add	%g1, 1, %g1
	stx	%g1, [%o1]
	sethi	%hi(0x5ca1a000), %g1
	add	%g1, 4, %g4
	add	%g1, 5, %g5
	add	%g1, 8, %o0
	add	%g1, 9, %o1
	add	%g1, 10, %o2
	add	%g1, 11, %o3
	add	%g1, 12, %o4
	retl
	 add	%g1, 13, %o5
	.size	probe_clobbering_handler, . - probe_clobbering_handler

	.globl	poke_target
	.type	poke_target, @function
	.balign	16
poke_target:
	retl
	 add	%o0, 1, %o0
	.size	poke_target, . - poke_target

	.globl	pf_rip
	.type	pf_rip, @function
	.balign	16
pf_rip:
	rd	%pc, %g1
	sethi	%hi(pf_rip), %g5
	or	%g5, %lo(pf_rip), %g5
	sub	%g1, %g5, %g1			! 0 when rd %pc read where it stands
	sethi	%hi(pf_rip_value), %g5
	ldx	[%g5 + %lo(pf_rip_value)], %g5
	add	%g5, %g1, %g5
	retl
	 add	%g5, %o0, %o0
	.size	pf_rip, . - pf_rip

	.globl	pf_short_jmp
	.type	pf_short_jmp, @function
	.balign	16
pf_short_jmp:
	mov	%o0, %g1
	ba	1f
	 nop
	illtrap	0
1:	retl
	 add	%g1, 1, %o0
	.size	pf_short_jmp, . - pf_short_jmp

	.globl	pf_call
	.type	pf_call, @function
	.balign	16
pf_call:
	save	%sp, -176, %sp
	call	pf_helper
	 mov	%i0, %o0
	ret
	 restore %o0, 1, %o0
	.size	pf_call, . - pf_call

	.type	pf_helper, @function
	.balign	16
pf_helper:
	retl
	 add	%o0, %o0, %o0
	.size	pf_helper, . - pf_helper

	.globl	pf_jcc
	.type	pf_jcc, @function
	.balign	16
pf_jcc:
	brz,pn	%o0, 1f
	 nop
	retl
	 mov	200, %o0
1:	retl
	 mov	100, %o0
	.size	pf_jcc, . - pf_jcc

	.globl	kf_loop
	.type	kf_loop, @function
	.balign	16
kf_loop:
	save	%sp, -176, %sp
	mov	0, %l0
	mov	0, %l1
	cmp	%i0, 0
	ble,pn	%xcc, 2f
	 nop
1:	call	kf_leaf
	 mov	%l0, %o0
	add	%l1, %o0, %l1
	add	%l0, 1, %l0
	cmp	%l0, %i0
	bl,pt	%xcc, 1b
	 nop
2:	ret
	 restore %l1, 0, %o0
	.size	kf_loop, . - kf_loop

	.globl	kf_leaf
	.type	kf_leaf, @function
	.balign	16
kf_leaf:
	add	%o0, %o0, %o0
	retl
	 add	%o0, 1, %o0
	.size	kf_leaf, . - kf_leaf

	.globl	kf_indirect
	.type	kf_indirect, @function
	.balign	16
kf_indirect:
	save	%sp, -176, %sp
	sethi	%hi(kf_leaf), %g1
	or	%g1, %lo(kf_leaf), %g1
	jmpl	%g1, %o7
	 mov	%i0, %o0
	ret
	 restore %o0, 0, %o0
	.size	kf_indirect, . - kf_indirect

/* The return-value fixtures (above): one function each, so each has its fbt return probe. */
#define KR_FUNC(name)			\
	.globl	name;			\
	.type	name, @function;	\
	.balign	16;			\
name:
#define KR_END(name)	.size	name, . - name

KR_FUNC(kr_retl_mov)
	retl
	 mov	42, %o0
KR_END(kr_retl_mov)

KR_FUNC(kr_retl_or)
	retl
	 or	%g0, 1, %o0
KR_END(kr_retl_or)

KR_FUNC(kr_retl_sethi)
	retl
	 sethi	%hi(0x12345400), %o0
KR_END(kr_retl_sethi)

KR_FUNC(kr_retl_add)
	retl
	 add	%o0, 1, %o0
KR_END(kr_retl_add)

KR_FUNC(kr_retl_sllx)
	retl
	 sllx	%o0, 3, %o0
KR_END(kr_retl_sllx)

KR_FUNC(kr_retl_sra)
	retl
	 sra	%o0, 1, %o0
KR_END(kr_retl_sra)

KR_FUNC(kr_retl_xor)
	retl
	 xor	%o0, %o1, %o0
KR_END(kr_retl_xor)

KR_FUNC(kr_retl_andn)
	retl
	 andn	%o0, %o1, %o0
KR_END(kr_retl_andn)

KR_FUNC(kr_ret_restore)
	save	%sp, -176, %sp
	add	%i0, 5, %i0
	ret
	 restore
KR_END(kr_ret_restore)

KR_FUNC(kr_ret_restore_sum)
	save	%sp, -176, %sp
	mov	%i1, %l3
	ret
	 restore %i0, %l3, %o0
KR_END(kr_ret_restore_sum)

KR_FUNC(kr_ret_restore_imm)
	save	%sp, -176, %sp
	ret
	 restore %i0, -3, %o0
KR_END(kr_ret_restore_imm)

KR_FUNC(kr_return_add)
	save	%sp, -176, %sp
	return	%i7 + 8
	 add	%o0, 7, %o0
KR_END(kr_return_add)

KR_FUNC(kr_return_sub)
	save	%sp, -176, %sp
	return	%i7 + 8
	 sub	%o1, %o0, %o0
KR_END(kr_return_sub)

KR_FUNC(kr_return_plain)
	save	%sp, -176, %sp
	add	%i0, 2, %i0
	return	%i7 + 8
	 nop
KR_END(kr_return_plain)

	.section .data
	.balign	8
	.globl	pf_rip_value
pf_rip_value:
	.xword	1000

	.section .note.GNU-stack, "", @progbits
