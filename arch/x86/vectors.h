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
/*
 * Device vectors (MSI) come from VEC_DEVICE_FIRST .. VEC_DEVICE_LAST.
 * The timer sits alone in the highest priority class (vector >> 4 = 15)
 * above the IPIs (class 14): a graft that runs where its caller masked
 * interrupts raises the task priority to ARCH_TPR_TIMER_ONLY, which lets
 * only the timer through, so the graft watchdog can stop it
 * (kernel/graft/txn.c).
 */
#define VEC_DEVICE_FIRST    0x50
#define VEC_DEVICE_LAST     0xdf
#define VEC_IPI_XCALL       0xe0
#define VEC_IPI_RESCHED     0xe1
#define VEC_LAPIC_TIMER     0xf0
#define VEC_SPURIOUS        0xff
#define VEC_PRIORITY_CLASS(v) ((v) >> 4)

#define IST_DOUBLE_FAULT    1
#define IST_NMI             2
#define IST_ENTRY           3	/* every interrupt (vectors >= 32): trap_entry.S */

#define SEL_KERNEL_CODE     0x08
#define SEL_KERNEL_DATA     0x10
#define SEL_USER_DATA       0x18	/* with RPL 3: 0x1b */
#define SEL_USER_CODE       0x20	/* with RPL 3: 0x23 */
#define SEL_TSS             0x28

#endif
