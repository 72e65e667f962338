// SPDX-License-Identifier: BSD-2-Clause
/*
 * The control channel device on sun4u (arch/channel.h): the second 16550
 * on the EBus, which QEMU adds for a second -serial (at I/O 0x2f8, as
 * x86's COM2), reached like the console (serial.c) with ASI 0x15 at
 * physical 0x1fe020002f8; qemu/machine.py connects it to a UNIX socket.
 * Without a second -serial nothing decodes the port and an access traps
 * (a data access error), so arch_channel_init probes with a load that
 * may fault (phys_probe.S) before it touches the registers.
 *
 * POLLED, NOT INTERRUPT-DRIVEN: device interrupts are not routed on
 * sparc64 yet (absent_machine.c), so the receiver is drained at every
 * timer tick (sparc64_channel_poll, from the 100 Hz tick beside the
 * console's poll) and whenever a writer waits for the transmitter. A tick
 * alone would take 16 bytes (the FIFO) at a time, 1.6 KB/s; so when a
 * tick finds bytes it wakes the receive pump, a thread that drains the
 * FIFO as fast as it refills, yielding the CPU between polls, until the
 * line has been quiet for PUMP_QUIET_POLLS polls, then sleeps until a
 * tick finds bytes again: bulk input runs at the speed the CPU polls, and
 * an idle channel costs nothing between ticks. Flow control is the x86
 * one: when the kernel has no room, polling stops (input_stopped) and
 * QEMU holds the host's bytes until arch_channel_resume_input.
 *
 * A writer whose transmitter is busy (the host has not taken what was
 * sent) drains the receiver, spins a while, then sleeps a tick at a time.
 *
 * Invariants: the UART's interrupt enable register stays 0 (polled).
 * Lock order: rx_lock is a leaf, taken with interrupts masked.
 */
#include <arch/channel.h>
#include <scion/spinlock.h>
#include <scion/wait.h>
#include <scion/thread.h>
#include <scion/sched.h>

#include "sparc64_internal.h"

#define CHANNEL_UART     0x1fe020002f8ull	/* EBus I/O 0x2f8, physical */
#define UART_DATA        0	/* receive buffer / transmit holding; divisor low with DLAB */
#define UART_IER         1	/* interrupt enable; divisor high with DLAB */
#define UART_FCR         2
#define UART_LCR         3
#define UART_MCR         4
#define UART_LSR         5
#define UART_SCRATCH     7
#define LCR_8N1          0x03
#define LCR_DLAB         0x80
#define DIVISOR_115200   1
#define FCR_ENABLE_CLEAR 0xc7	/* FIFOs on, both cleared, receive trigger at 14 bytes */
#define MCR_DTR_RTS      0x03
#define LSR_DATA_READY   0x01
#define LSR_THR_EMPTY    0x20
#define SCRATCH_PROBE    0x5a
#define UART_FIFO_BYTES  16
#define SPINS_BEFORE_SLEEP 10000	/* LSR reads before a busy writer sleeps a tick */

static arch_channel_rx_fn deliver;
static bool input_on;				/* set once by arch_channel_start_input */
static bool input_stopped;			/* rx_lock */
static struct spinlock rx_lock = SPINLOCK_INIT("channel-uart-rx");
static struct waitq tx_wait = WAITQ_INIT(tx_wait, "channel-uart-tx");	/* only timeouts */
static struct waitq rx_wait = WAITQ_INIT(rx_wait, "channel-uart-rx");	/* the pump's */
static bool pump_wanted;			/* rx_wait.lock: a tick found bytes */

#define PUMP_QUIET_POLLS 64	/* polls finding nothing before the pump sleeps again */

static uint8_t uart_in(unsigned reg)
{
	return phys_in8(CHANNEL_UART + reg);
}

static void uart_out(unsigned reg, uint8_t v)
{
	phys_out8(CHANNEL_UART + reg, v);
}

static bool transmitter_empty(void)
{
	return uart_in(UART_LSR) & LSR_THR_EMPTY;
}

/* Deliver what the receiver holds while the kernel has room; rx_lock held. Bytes delivered. */
static unsigned drain(void)
{
	unsigned n = 0;

	while (input_on && !input_stopped && (uart_in(UART_LSR) & LSR_DATA_READY)) {
		n++;
		if (!deliver(uart_in(UART_DATA)))
			input_stopped = true;
	}
	return n;
}

/* From the tick: drain, and if bytes came, let the pump follow the rest at full speed. */
void sparc64_channel_poll(void)
{
	if (!READ_ONCE(input_on))
		return;
	spin_lock_noirq(&rx_lock);
	unsigned n = drain();
	spin_unlock_noirq(&rx_lock);
	if (n) {
		spin_lock_noirq(&rx_wait.lock);
		pump_wanted = true;
		spin_unlock_noirq(&rx_wait.lock);
		waitq_wake_all(&rx_wait);
	}
}

static unsigned poll_from_thread(void)
{
	irqflags_t f = spin_lock_irqsave(&rx_lock);
	unsigned n = drain();
	spin_unlock_irqrestore(&rx_lock, f);
	return n;
}

/* The receive pump (see the top of the file). */
static void rx_pump(void *arg)
{
	(void)arg;
	for (;;) {
		irqflags_t f = spin_lock_irqsave(&rx_wait.lock);
		while (!pump_wanted)
			waitq_sleep(&rx_wait, 0);
		pump_wanted = false;
		spin_unlock_irqrestore(&rx_wait.lock, f);
		for (unsigned quiet = 0; quiet < PUMP_QUIET_POLLS;) {
			quiet = poll_from_thread() ? 0 : quiet + 1;
			thread_yield();
		}
	}
}

/*
 * Until the transmitter is empty: spinning before input is on (early,
 * nothing to sleep on); after that, draining the receiver (the host may
 * be waiting for room to send before it reads), then sleeping a tick at
 * a time.
 */
static void wait_transmitter(void)
{
	for (unsigned spins = 0; !transmitter_empty(); spins++) {
		if (!input_on)
			continue;
		poll_from_thread();
		if (spins >= SPINS_BEFORE_SLEEP) {
			irqflags_t f = spin_lock_irqsave(&tx_wait.lock);
			waitq_sleep(&tx_wait, 1);
			spin_unlock_irqrestore(&tx_wait.lock, f);
			spins = 0;
		}
	}
}

bool arch_channel_init(void)
{
	/*
	 * Without a second -serial nothing decodes 0x2f8 and an access is a
	 * data access error: a load that may fault asks first; then the
	 * scratch register tells, as on x86.
	 */
	if (sparc64_phys_probe8(CHANNEL_UART + UART_SCRATCH) < 0)
		return false;
	uart_out(UART_SCRATCH, SCRATCH_PROBE);
	if (uart_in(UART_SCRATCH) != SCRATCH_PROBE)
		return false;
	uart_out(UART_IER, 0);
	uart_out(UART_LCR, LCR_DLAB);
	uart_out(UART_DATA, DIVISOR_115200);
	uart_out(UART_IER, 0);
	uart_out(UART_LCR, LCR_8N1);
	uart_out(UART_FCR, FCR_ENABLE_CLEAR);
	uart_out(UART_MCR, MCR_DTR_RTS);
	return true;
}

void arch_channel_write(const void *data, size_t n)
{
	const uint8_t *p = data;
	while (n) {
		wait_transmitter();
		/* THR empty with the FIFO on: the whole transmit FIFO is free. */
		for (unsigned k = 0; k < UART_FIFO_BYTES && n; k++, n--)
			uart_out(UART_DATA, *p++);
	}
}

int arch_channel_start_input(arch_channel_rx_fn rx)
{
	deliver = rx;
	WRITE_ONCE(input_on, true);
	poll_from_thread();	/* bytes that came before */
	return thread_spawn("channel-rx", rx_pump, NULL, -1);
}

void arch_channel_resume_input(void)
{
	irqflags_t f = spin_lock_irqsave(&rx_lock);
	if (input_stopped) {
		input_stopped = false;
		drain();
	}
	spin_unlock_irqrestore(&rx_lock, f);
}
