/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Every SPARC relocation arch/sparc64/elf_reloc.c applies, written out
 * (tests/reloc/check_relocs.py links this with GNU ld and compares):
 * the sethi/or pairs of each code model, call and branch displacements
 * of every width, simm13, and data words of every width and kind.
 * far_* symbols lie where check_relocs.py puts undefined symbols: near
 * enough for every branch, low enough for every code model.
 */
	.section .text
	.align	4
	.globl	cases_text
cases_text:
	sethi	%hi(far_data), %o0		/* R_SPARC_HI22 */
	or	%o0, %lo(far_data), %o0		/* R_SPARC_LO10 */
	ld	[%o0 + %lo(far_data + 8)], %o1	/* R_SPARC_LO10 with an addend */
	sethi	%hh(far_data), %o2		/* R_SPARC_HH22 */
	or	%o2, %hm(far_data), %o2		/* R_SPARC_HM10 */
	sethi	%lm(far_data), %o3		/* R_SPARC_LM22 */
	sethi	%h44(far_data), %o4		/* R_SPARC_H44 */
	or	%o4, %m44(far_data), %o4	/* R_SPARC_M44 */
	or	%o4, %l44(far_data), %o4	/* R_SPARC_L44 */
	or	%g0, small_value, %o5		/* R_SPARC_13 */
	call	far_function			/* R_SPARC_WDISP30 */
	 nop
	call	far_function + 64		/* R_SPARC_WDISP30 with an addend */
	 nop
	ba	far_function			/* R_SPARC_WDISP22 */
	 nop
	ba,a,pt	%xcc, far_function		/* R_SPARC_WDISP19 */
	bne,pn	%icc, far_function + 4		/* R_SPARC_WDISP19 with an addend */
	 nop
	brz,pt	%o0, far_function		/* R_SPARC_WDISP16 */
	 nop
	brnz,a,pn %o1, far_function - 8		/* R_SPARC_WDISP16, a negative addend */
	 nop
	retl
	 nop

	.section .data
	.align	8
	.globl	cases_data
cases_data:
	.xword	far_data			/* R_SPARC_64 */
	.xword	far_data + 0x123		/* R_SPARC_64 with an addend */
	.word	far_data			/* R_SPARC_32 */
	.word	far_function - .		/* R_SPARC_DISP32 */
	.xword	far_function - .		/* R_SPARC_DISP64 */
	.half	small_value			/* R_SPARC_16 */
	.half	far_function - .		/* R_SPARC_DISP16 */
	.byte	small_value			/* R_SPARC_8 */
	.byte	0
	.uaword	far_data + 4			/* R_SPARC_UA32, unaligned */
	.byte	0
	.uaxword far_data			/* R_SPARC_UA64, unaligned */
	.byte	0
	.uahalf	small_value			/* R_SPARC_UA16, unaligned */
