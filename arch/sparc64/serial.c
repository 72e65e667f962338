// SPDX-License-Identifier: BSD-2-Clause
/*
 * The console: the 16550 UART on sun4u's EBus, at physical 0x1fe020003f8
 * (PCI I/O space), reached with ASI 0x15 (physical, uncached) loads and
 * stores, so it works with any MMU state, at any TL and in a panic.
 * Output is polled; input is polled too (no device interrupts yet):
 * once arch_console_enable_input has run, every timer tick (100 Hz)
 * drains the receiver into the core's console (console_input_byte), so
 * the shell reads the UART as on x86, at up to 100 x 16 bytes a second. OpenBIOS has already set the line up (115200 8N1);
 * arch_console_init only masks the UART's interrupts. arch_console_putc
 * is the arch contract's raw byte (arch/console.h); serial_putc adds
 * the carriage return before a newline. early_printf formats
 * with kernel/lib's vsnprintf and turns "\n" into "\r\n".
 */
#include <scion/console.h>
#include <scion/format.h>
#include <arch/console.h>

#include "sparc64_internal.h"

#define UART_BASE	0x1fe020003f8ull
#define UART_RBR	0	/* receive buffer (read) */
#define UART_THR	0	/* transmit holding (write) */
#define UART_IER	1
#define UART_LSR	5
#define LSR_DR		0x01	/* a byte received */
#define LSR_THRE	0x20	/* transmitter ready */

void arch_console_init(void)
{
	phys_out8(UART_BASE + UART_IER, 0);
}

void serial_init(void)
{
	arch_console_init();
}

void arch_console_putc(char c)
{
	while (!(phys_in8(UART_BASE + UART_LSR) & LSR_THRE))
		;
	phys_out8(UART_BASE + UART_THR, (uint8_t)c);
}

void serial_putc(char c)
{
	if (c == '\n')
		arch_console_putc('\r');
	arch_console_putc(c);
}

int serial_getc_poll(void)
{
	if (!(phys_in8(UART_BASE + UART_LSR) & LSR_DR))
		return -1;
	return phys_in8(UART_BASE + UART_RBR);
}

static bool input_enabled;

void arch_console_enable_input(void)
{
	input_enabled = true;
}

/* From the timer interrupt: whatever the UART received, to the console's queue. */
void sparc64_console_poll(void)
{
	int c;

	if (!input_enabled)
		return;
	for (int n = 0; n < 64 && (c = serial_getc_poll()) >= 0; n++)
		console_input_byte((uint8_t)c);
}

void early_vprintf(const char *fmt, va_list ap)
{
	char buf[256];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	for (const char *p = buf; *p; p++)
		serial_putc(*p);
}

void early_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	early_vprintf(fmt, ap);
	va_end(ap);
}
