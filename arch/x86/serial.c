// SPDX-License-Identifier: BSD-2-Clause
/*
 * 16550 UART on COM1: the human console.
 *
 * The receive FIFO stays disabled on purpose: QEMU flushes the FIFO when
 * it is enabled, which would lose bytes a script piped in before the
 * kernel started; with it disabled QEMU holds further input back until
 * the guest has read the byte in the holding register, so nothing is lost.
 */
#include <arch/console.h>
#include <arch/x86.h>
#include <arch/irq.h>
#include <scion/console.h>
#include <scion/spinlock.h>
#include "uart.h"

#define COM1 0x3f8
#define ISA_IRQ_COM1   4

void arch_console_init(void)
{
	uart_setup_8n1(COM1);
	outb(COM1 + UART_MCR, MCR_DTR_RTS);
}

void arch_console_putc(char c)
{
	while (!(inb(COM1 + UART_LSR) & LSR_THR_EMPTY))
		__asm__ __volatile__("pause");
	outb(COM1 + UART_DATA, (uint8_t)c);
}

/* Reading LSR then RBR is a pair: two CPUs interleaving them would read one byte twice. */
static struct spinlock rx_lock = SPINLOCK_INIT("com1-rx");

static void serial_interrupt(void *arg)
{
	(void)arg;
	irqflags_t f = spin_lock_irqsave(&rx_lock);
	while (inb(COM1 + UART_LSR) & LSR_DATA_READY)
		console_input_byte(inb(COM1 + UART_DATA));
	spin_unlock_irqrestore(&rx_lock, f);
}

void arch_console_enable_input(void)
{
	irq_attach_isa(ISA_IRQ_COM1, serial_interrupt, NULL, "com1");
	outb(COM1 + UART_MCR, MCR_DTR_RTS | MCR_OUT2);
	outb(COM1 + UART_IER, IER_RX);
	/* A byte that arrived before the interrupt was enabled raises no edge. */
	serial_interrupt(NULL);
}
