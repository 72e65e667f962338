/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The machine's control channel UART (COM2 on x86): a byte pipe to the
 * host, separate from the console, which kernel/channel/ uses through
 * transport_uart.c when the machine has no virtio-console
 * (scion/chan_transport.h). Output is
 * polled; input arrives by interrupt, with flow control: when the
 * kernel has no room the device holds further bytes back (QEMU does not
 * drop them), so nothing sent by the host is ever lost.
 */
#ifndef ARCH_CHANNEL_H
#define ARCH_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How the boot message names the device. */
#define ARCH_CHANNEL_DEVICE "COM2"

/*
 * arch_channel_rx_fn - take one received byte.
 * Return value: true while there is room for another byte; false stops
 *   input until arch_channel_resume_input.
 * Caller's context: the device's interrupt handler, interrupts masked.
 */
typedef bool (*arch_channel_rx_fn)(uint8_t byte);

/*
 * arch_channel_init - Overview: find and set up the channel device.
 * Return value: true when the machine has one (QEMU was given COM2).
 * Caller's context: the init thread, once, after arch_irq_init; no locks.
 */
bool arch_channel_init(void);

/*
 * arch_channel_write - send n bytes, waiting for the transmitter.
 * Caller's context: thread, no spinlock held (it sleeps while the
 *   transmitter is busy, once arch_channel_start_input has turned the
 *   device's interrupt on); one writer at a time (the caller serializes).
 */
void arch_channel_write(const void *data, size_t n);

/*
 * arch_channel_start_input - deliver received bytes to rx from now on.
 * Return value: 0 or a negative errno (no interrupt line).
 * Caller's context: thread, once, after arch_channel_init.
 */
int arch_channel_start_input(arch_channel_rx_fn rx);

/*
 * arch_channel_resume_input - rx has room again: deliver what the device
 * holds and take interrupts again. Caller's context: any; never sleeps.
 */
void arch_channel_resume_input(void);

#endif
