/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The machine's console device on sparc64: the sun4u UART, polled
 * (arch/sparc64/serial.c). Same contract as arch/x86/include/arch/console.h.
 * Input is polled too: once arch_console_enable_input has run, every timer
 * tick (100 Hz) moves the received bytes to console_input_byte (device
 * interrupts are not routed yet: arch/irq.h).
 */
#ifndef ARCH_CONSOLE_H
#define ARCH_CONSOLE_H

#include <stdbool.h>

/* Set the UART up for polled output (mask its interrupts). */
void arch_console_init(void);

/* Write one byte, waiting for the transmitter (no newline translation). */
void arch_console_putc(char c);

/* Start delivering received bytes to console_input_byte(). */
void arch_console_enable_input(void);

#endif
