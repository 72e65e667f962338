// SPDX-License-Identifier: BSD-2-Clause
/*
 * The arch channel UART (arch/channel.h: COM2 on x86, the second EBus
 * UART on sparc64) as a control channel transport (scion/chan_transport.h):
 * the fallback when the machine has no virtio-console. The UART hands
 * over one byte at a time and writes as it goes, so flush has nothing
 * to do. Invariant: the byte given to deliver_byte is always kept (the
 * UART stops reading once rx says there is no room for another).
 * No locks of its own: the arch code's receive lock is held around
 * deliver_byte.
 */
#include <scion/chan_transport.h>
#include <arch/channel.h>

static chan_rx_fn channel_rx;	/* set once by uart_start_input */

static bool deliver_byte(uint8_t byte)
{
	size_t taken;

	return channel_rx(&byte, 1, &taken);
}

static int uart_start_input(chan_rx_fn rx)
{
	channel_rx = rx;
	return arch_channel_start_input(deliver_byte);
}

static void uart_flush(void)
{
}

static const struct chan_transport uart_transport = {
	.device = ARCH_CHANNEL_DEVICE,
	.start_input = uart_start_input,
	.write = arch_channel_write,
	.flush = uart_flush,
	.resume_input = arch_channel_resume_input,
};

const struct chan_transport *chan_uart_transport(void)
{
	return arch_channel_init() ? &uart_transport : NULL;
}
