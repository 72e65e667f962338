/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Boot-time hooks the portable kernel_main calls on sparc64
 * (arch/sparc64/boot_main.c). Same contract as arch/x86/include/arch/init.h.
 */
#ifndef ARCH_INIT_H
#define ARCH_INIT_H

/* Announce the translations mm_init hands out (the direct map needs no set-up). */
void arch_mm_init(void);

/* Interrupts: the %tick_cmpr timer at level 14 (the only interrupt source yet). */
void arch_irq_init(void);

/*
 * The direct map covers all RAM from the first instruction (the miss
 * handlers compute it), so the allocator may use any of it at once.
 */
#define ARCH_EARLY_PHYS_LIMIT (4ull << 30)

/* One line about the machine. */
void arch_print_machine(void);

#endif
