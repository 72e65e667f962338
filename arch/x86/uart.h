/* SPDX-License-Identifier: BSD-2-Clause */
/* The 16550 UART's registers and bits, for COM1 (serial.c) and COM2 (channel.c). */
#ifndef X86_UART_H
#define X86_UART_H

#include <arch/x86.h>

enum {
	UART_DATA = 0, UART_IER = 1, UART_FCR = 2, UART_LCR = 3, UART_MCR = 4,
	UART_LSR = 5, UART_SCRATCH = 7, UART_DLL = 0, UART_DLM = 1,
};
#define LCR_8N1        0x03
#define LCR_DLAB       0x80
#define MCR_DTR_RTS    0x03
#define MCR_OUT2       0x08
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY  0x20
#define IER_RX         0x01
#define IER_TX_EMPTY   0x02	/* interrupt when the transmitter holding register empties */
#define BAUD_115200    1

/* 115200 baud, 8 data bits, no parity, one stop bit; interrupts off. */
static inline void uart_setup_8n1(uint16_t base)
{
	outb(base + UART_IER, 0);
	outb(base + UART_LCR, LCR_DLAB);
	outb(base + UART_DLL, BAUD_115200);
	outb(base + UART_DLM, 0);
	outb(base + UART_LCR, LCR_8N1);
}

#endif
