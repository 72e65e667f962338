/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Device interrupts on sparc64: not yet. sun4u's devices interrupt
 * through interrupt-vector (mondo) traps that the PCI host bridge's
 * mapping registers route; the port does not program them yet, so every
 * request is refused with -ENOTSUP and the reason printed once per call:
 * "sparc64: no device interrupts yet (issue 25)". Drivers then fall back
 * or fail their attach. Same contract as arch/x86/include/arch/irq.h.
 */
#ifndef ARCH_IRQ_H
#define ARCH_IRQ_H

#include <stdint.h>

typedef void (*irq_handler_t)(void *arg);

/* Refused: -ENOTSUP. */
int irq_attach_isa(unsigned isa_irq, irq_handler_t fn, void *arg, const char *name);
/* Refused: -ENOTSUP. */
int arch_irq_alloc_vector(irq_handler_t fn, void *arg, const char *name);
/* Refused: -ENOTSUP (no MSI on sun4u's sabre). */
int arch_msi_message(unsigned vector, unsigned cpu_index, uint64_t *addr, uint32_t *data);

#endif
