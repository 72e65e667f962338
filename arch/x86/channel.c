// SPDX-License-Identifier: BSD-2-Clause
/*
 * COM2 as the control channel device (arch/channel.h). QEMU connects it
 * to a UNIX socket (qemu/machine.py). The receive interrupt reads bytes
 * while the kernel has room; when it has none the interrupt is turned
 * off, and QEMU holds the host's bytes until arch_channel_resume_input
 * turns it on again. The FIFO is on: one interrupt takes up to 16 bytes.
 *
 * A writer that finds the transmitter busy (the host has not taken what
 * was sent) sleeps until its empty interrupt, rather than spinning: a
 * spinning writer is CPU time the profile would charge to the channel's
 * output thread whenever the host is slow.
 *
 * Invariants: the interrupt enable register always equals uart_ier()
 * (receive unless input is stopped, transmit-empty while a writer
 * waits). Lock order: tx_wait.lock -> rx_lock, both leaves below it.
 */
#include <arch/channel.h>
#include <arch/x86.h>
#include <arch/irq.h>
#include <scion/spinlock.h>
#include <scion/wait.h>
#include "uart.h"

#define COM2           0x2f8
#define ISA_IRQ_COM2   3
#define FCR_ENABLE_CLEAR 0xc7	/* FIFOs on, both cleared, receive trigger at 14 bytes */
#define SCRATCH_PROBE  0x5a
#define UART_FIFO_BYTES 16

static arch_channel_rx_fn deliver;
static bool input_stopped;			/* rx_lock */
static struct spinlock rx_lock = SPINLOCK_INIT("com2-rx");
static bool interrupts_on;			/* set once by arch_channel_start_input */
static struct waitq tx_wait = WAITQ_INIT(tx_wait, "com2-tx");
static bool tx_waiting;				/* rx_lock: a writer waits for the transmitter */

/* The interrupt enable register's value for the state now; rx_lock held. */
static uint8_t uart_ier(void)
{
	return (uint8_t)((input_stopped ? 0 : IER_RX) | (tx_waiting ? IER_TX_EMPTY : 0));
}

static bool transmitter_empty(void)
{
	return inb(COM2 + UART_LSR) & LSR_THR_EMPTY;
}

/*
 * Until the transmitter is empty: asleep when interrupts serve the
 * channel (the empty interrupt, or a tick, wakes the writer), spinning
 * before they do.
 */
static void wait_transmitter(void)
{
	if (!interrupts_on) {
		while (!transmitter_empty())
			__asm__ __volatile__("pause");
		return;
	}
	irqflags_t f = spin_lock_irqsave(&tx_wait.lock);
	while (!transmitter_empty()) {
		spin_lock_noirq(&rx_lock);
		tx_waiting = true;
		outb(COM2 + UART_IER, uart_ier());
		spin_unlock_noirq(&rx_lock);
		waitq_sleep(&tx_wait, 1);	/* a lost interrupt costs a tick at most */
	}
	spin_lock_noirq(&rx_lock);
	tx_waiting = false;
	outb(COM2 + UART_IER, uart_ier());
	spin_unlock_noirq(&rx_lock);
	spin_unlock_irqrestore(&tx_wait.lock, f);
}

bool arch_channel_init(void)
{
	/* Without a device the I/O ports read as 0xff: the scratch register tells. */
	outb(COM2 + UART_SCRATCH, SCRATCH_PROBE);
	if (inb(COM2 + UART_SCRATCH) != SCRATCH_PROBE)
		return false;
	uart_setup_8n1(COM2);
	outb(COM2 + UART_FCR, FCR_ENABLE_CLEAR);
	outb(COM2 + UART_MCR, MCR_DTR_RTS);
	return true;
}

void arch_channel_write(const void *data, size_t n)
{
	const uint8_t *p = data;
	while (n) {
		wait_transmitter();
		/* THR empty with the FIFO on: the whole transmit FIFO is free. */
		for (unsigned k = 0; k < UART_FIFO_BYTES && n; k++, n--)
			outb(COM2 + UART_DATA, *p++);
	}
}

/* Read what the device holds while the kernel has room; rx_lock held. */
static void drain(void)
{
	while (!input_stopped && (inb(COM2 + UART_LSR) & LSR_DATA_READY)) {
		if (!deliver(inb(COM2 + UART_DATA))) {
			input_stopped = true;
			outb(COM2 + UART_IER, uart_ier());
		}
	}
}

static void channel_interrupt(void *arg)
{
	(void)arg;
	irqflags_t f = spin_lock_irqsave(&rx_lock);
	drain();
	bool wake = tx_waiting && transmitter_empty();
	if (wake) {
		tx_waiting = false;	/* the empty interrupt off until a writer waits again */
		outb(COM2 + UART_IER, uart_ier());
	}
	spin_unlock_irqrestore(&rx_lock, f);
	if (wake)
		waitq_wake_all(&tx_wait);
}

int arch_channel_start_input(arch_channel_rx_fn rx)
{
	deliver = rx;
	int err = irq_attach_isa(ISA_IRQ_COM2, channel_interrupt, NULL, "com2-channel");
	if (err)
		return err;
	outb(COM2 + UART_MCR, MCR_DTR_RTS | MCR_OUT2);
	outb(COM2 + UART_IER, IER_RX);
	interrupts_on = true;
	channel_interrupt(NULL);	/* bytes that came before the interrupt was on */
	return 0;
}

void arch_channel_resume_input(void)
{
	irqflags_t f = spin_lock_irqsave(&rx_lock);
	if (input_stopped) {
		input_stopped = false;
		outb(COM2 + UART_IER, uart_ier());
		drain();
	}
	spin_unlock_irqrestore(&rx_lock, f);
}
