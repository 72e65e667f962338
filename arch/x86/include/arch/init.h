/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Steps of machine set-up that kernel_main calls in order. Each runs once,
 * on the boot CPU, with interrupts masked.
 */
#ifndef ARCH_INIT_H
#define ARCH_INIT_H

/* Replace the boot page tables with the kernel's (after pmm has memory below 4 GiB). */
void arch_mm_init(void);

/* Interrupt controllers, the kernel's vectors and timer calibration. */
void arch_irq_init(void);

/* Physical memory below this limit is usable before arch_mm_init. */
#define ARCH_EARLY_PHYS_LIMIT (4ull << 30)

/* Print what the firmware described (CPUs, interrupt controllers). */
void arch_print_machine(void);

#endif
