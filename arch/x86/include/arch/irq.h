/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Device interrupts on x86: legacy ISA lines routed through the I/O APIC
 * to the boot CPU. Handlers run with interrupts masked on their CPU.
 */
#ifndef ARCH_IRQ_H
#define ARCH_IRQ_H

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

#endif
