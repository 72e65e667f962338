/* SPDX-License-Identifier: BSD-2-Clause */
/* Interrupt vector assignment on x86 (private to arch/x86). */
#ifndef ARCH_X86_VECTORS_H
#define ARCH_X86_VECTORS_H

#define VEC_DIVIDE          0
#define VEC_DEBUG           1
#define VEC_NMI             2
#define VEC_BREAKPOINT      3
#define VEC_INVALID_OPCODE  6
#define VEC_DOUBLE_FAULT    8
#define VEC_GP              13
#define VEC_PAGE_FAULT      14
#define VEC_FIRST_IRQ       32

#define VEC_PIC_BASE        0x20	/* legacy PIC, masked; only spurious */
#define VEC_ISA_BASE        0x30	/* ISA line n through the I/O APIC */
#define VEC_LAPIC_TIMER     0x40
#define VEC_IPI_XCALL       0xf0
#define VEC_IPI_RESCHED     0xf1
#define VEC_SPURIOUS        0xff

#define IST_DOUBLE_FAULT    1
#define IST_NMI             2

#define SEL_KERNEL_CODE     0x08
#define SEL_KERNEL_DATA     0x10
#define SEL_TSS             0x28

#endif
