/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control channel's transports: the byte pipes kernel/channel/
 * carries its frames over. channel_init picks one at boot: the
 * virtio-console (kernel/dev/virtio_console.c) when the machine has
 * one, else the arch UART (arch/<arch>/include/arch/channel.h, wrapped
 * by kernel/channel/transport_uart.c). Every transport keeps the same
 * contract: nothing the host sends is lost (when the channel has no
 * room the transport stops taking bytes and the device or its buffers
 * hold them), and output is written whole, in order.
 *
 * Lock order: a transport's own locks come before the channel's receive
 * lock (rx is called with them held); the channel holds no lock of its
 * own while it calls write, flush or resume_input.
 */
#ifndef SCION_CHAN_TRANSPORT_H
#define SCION_CHAN_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * chan_rx_fn - take received bytes.
 * Arguments: data, n: the bytes; *taken: how many of them the channel
 *   kept (the first *taken; the rest are the transport's to hold).
 * Return value: true while there is room for more; false stops input
 *   until resume_input.
 * Caller's context: the transport's interrupt handler (or poller),
 *   interrupts masked, the transport's receive lock held.
 */
typedef bool (*chan_rx_fn)(const uint8_t *data, size_t n, size_t *taken);

struct chan_transport {
	/* How the boot message names the device ("COM2", "virtio-console ..."). */
	const char *device;

	/*
	 * start_input - deliver received bytes to rx from now on.
	 * Return value: 0 or a negative errno (no interrupt for the device).
	 * Caller's context: thread, once, before any write.
	 */
	int (*start_input)(chan_rx_fn rx);

	/*
	 * write - queue n bytes for the host; they may wait in the
	 * transport until flush (or until its buffer fills).
	 * Caller's context: thread, no spinlock held, one writer at a time
	 *   (the caller serializes); sleeps while the device is busy.
	 */
	void (*write)(const void *data, size_t n);

	/*
	 * flush - send what write has queued (the end of a frame).
	 * Caller's context: as write.
	 */
	void (*flush)(void);

	/*
	 * resume_input - rx has room again: deliver what the transport
	 * holds and take input again. Caller's context: any; never sleeps.
	 */
	void (*resume_input)(void);
};

/*
 * virtio_console_transport - the virtio-console found at boot as a
 * channel transport.
 * Return value: the transport, or NULL when the machine has no usable
 *   virtio-console (none, or its set-up failed: the probe said why).
 * Caller's context: thread, after dev_init.
 */
const struct chan_transport *virtio_console_transport(void);

/*
 * chan_uart_transport - the arch channel UART (arch/channel.h) as a
 * transport.
 * Return value: the transport, or NULL when the machine has no such UART.
 * Caller's context: the init thread, once.
 */
const struct chan_transport *chan_uart_transport(void);

#endif
