/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host "architecture" for unit tests: kernel sources that need only
 * the arch interface build as ordinary single-threaded host code.
 */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include <stdint.h>
#include <stdbool.h>

typedef unsigned long irqflags_t;

static inline irqflags_t arch_irq_save(void) { return 0; }
static inline void arch_irq_restore(irqflags_t f) { (void)f; }
static inline void arch_irq_enable(void) {}
static inline void arch_irq_disable(void) {}
static inline bool arch_irqs_enabled(void) { return true; }
static inline void cpu_relax(void) {}
static inline void arch_debug_trap(void) { __builtin_trap(); }
static inline void smp_mb(void) { __sync_synchronize(); }
static inline uint64_t arch_cycles(void) { return 0; }
static inline void arch_sync_core(void) {}

#endif
