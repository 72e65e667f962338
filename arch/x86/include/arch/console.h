/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The machine's console device (COM1 on x86). Output is polled so that
 * it works from any context, including panic; input arrives by interrupt
 * and is handed to console_input_byte() (kernel/core/console.c).
 */
#ifndef ARCH_CONSOLE_H
#define ARCH_CONSOLE_H

#include <stdbool.h>

/*
 * arch_console_init - set the console device up for polled output.
 * Arguments: none. Return value: none.
 * Caller's context: the boot CPU, first thing after the per-CPU base;
 *   interrupts masked; no locks; may not sleep.
 */
void arch_console_init(void);

/*
 * arch_console_putc - write one byte, waiting for the transmitter.
 * Arguments: c, the byte (no newline translation here).
 * Return value: none.
 * Caller's context: any (thread, interrupt, panic); callers serialize
 *   through console_lock except during panic; never sleeps.
 */
void arch_console_putc(char c);

/*
 * arch_console_enable_input - start delivering received bytes to
 * console_input_byte() from the device's interrupt handler.
 * Arguments: none. Return value: none.
 * Caller's context: the init thread, once, after arch_irq_init; no locks.
 */
void arch_console_enable_input(void);

#endif
