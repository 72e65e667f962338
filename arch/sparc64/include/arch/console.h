/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The machine's console device on sparc64: the sun4u UART, polled
 * (arch/sparc64/serial.c). Same contract as arch/x86/include/arch/console.h.
 * Input: arch_console_enable_input is declared, not yet defined: its
 * only caller, kernel/core/console.c, is not in the port's ARCH_CORE_SRCS
 * yet; until then the boot console polls the UART itself.
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
