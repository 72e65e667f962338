/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Device interrupts on x86: legacy ISA lines routed through the I/O APIC
 * to the boot CPU, and message-signalled interrupts (MSI, MSI-X) on
 * vectors from the device range, aimed at any CPU. Handlers run with
 * interrupts masked on their CPU.
 */
#ifndef ARCH_IRQ_H
#define ARCH_IRQ_H

#include <stdint.h>

typedef void (*irq_handler_t)(void *arg);

/*
 * irq_attach_isa - route ISA interrupt line isa_irq to a handler.
 * Arguments: isa_irq (0-15); fn(arg) runs in interrupt context on the
 *   boot CPU, interrupts masked; name appears in `irqs`.
 * Return value: 0, -EINVAL for a line above 15, -EBUSY if the line
 *   already has a handler, -ENODEV without an I/O APIC serving it.
 * Caller's context: thread, after arch_irq_init; no locks; never sleeps.
 */
int irq_attach_isa(unsigned isa_irq, irq_handler_t fn, void *arg, const char *name);

/*
 * arch_irq_alloc_vector - give a handler a free vector of the device range
 * (for MSI and MSI-X; arch/x86/msi.c).
 * Arguments: fn(arg) runs in interrupt context on whichever CPU the
 *   message is sent to, interrupts masked, and is acknowledged after it
 *   returns; name appears in `irqs` and must stay valid forever.
 * Return value: the vector, or -ENOSPC when every device vector is taken.
 *   Vectors are never released: a driver whose probe fails after this
 *   keeps its handler (and what arg points to) attached.
 * Caller's context: thread or boot, after arch_irq_init; never sleeps.
 */
int arch_irq_alloc_vector(irq_handler_t fn, void *arg, const char *name);

/*
 * arch_msi_message - the address and data a device writes to raise vector
 * on CPU cpu_index (fixed delivery, edge triggered, physical destination).
 * Arguments: vector from arch_irq_alloc_vector; cpu_index an online CPU
 *   (0 is the boot CPU); addr and data receive the message.
 * Return value: 0, or -EINVAL for a vector outside the device range or a
 *   CPU that is not online.
 * Caller's context: any; never sleeps.
 */
int arch_msi_message(unsigned vector, unsigned cpu_index, uint64_t *addr, uint32_t *data);

#endif
