! SPDX-License-Identifier: BSD-2-Clause
!
! Hand-written sample with every branch kind the compiler may not emit:
! ba,a, bn, bn,a, bne,a, brz,a (BPr), bg,pt %xcc and Bicc forms, each
! with a delay slot that changes the result, so a relocation that gets
! the annul semantics wrong changes the value returned. long s_annul(a, b).
	.text
	.align 4
	.global s_annul
	.type s_annul, #function
s_annul:
	mov	0, %o2
	cmp	%o0, %o1
	bne,a	%icc, 1f
	 add	%o2, 1, %o2		! only when a != b
1:	brz,a	%o0, 2f
	 add	%o2, 2, %o2		! only when a == 0
2:	bn	3f
	 add	%o2, 4, %o2		! always
3:	bn,a	4f
	 add	%o2, 8, %o2		! never
4:	cmp	%o0, 3
	bg,pt	%xcc, 5f
	 add	%o2, 16, %o2		! always
	add	%o2, 32, %o2		! only when a <= 3
5:	ba,a	6f
	 add	%o2, 64, %o2		! never
6:	brgez	%o1, 7f
	 nop
	add	%o2, 128, %o2		! only when b < 0
7:	ba	8f
	 add	%o2, 256, %o2		! always
	add	%o2, 512, %o2		! never
8:	retl
	 mov	%o2, %o0
	.size s_annul, .-s_annul
