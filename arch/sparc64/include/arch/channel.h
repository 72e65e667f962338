/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control channel's transport on sparc64: the second 16550 UART on
 * sun4u's EBus (I/O 0x2f8), which QEMU adds for a second -serial
 * (arch/sparc64/channel.c). Same contract as
 * arch/x86/include/arch/channel.h, with one difference: device
 * interrupts are not routed on sparc64 yet, so "the device's interrupt
 * handler" below is the 100 Hz timer tick polling the receiver, and a
 * receive pump thread it wakes that polls while bytes keep coming (a
 * writer waiting for the transmitter polls it too). The kernel is big-endian: what crosses the channel
 * is converted to the wire's little-endian order (scion/chan_wire.h).
 */
#ifndef ARCH_CHANNEL_H
#define ARCH_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How the boot message names the device. */
#define ARCH_CHANNEL_DEVICE "the second EBus UART (0x2f8, polled at the tick)"

/*
 * arch_channel_rx_fn - take one received byte.
 * Return value: true while there is room for another byte; false stops
 *   input until arch_channel_resume_input.
 * Caller's context: the timer tick's poll (interrupts masked), or a
 *   thread waiting in arch_channel_write or arch_channel_resume_input,
 *   with rx_lock held and interrupts masked.
 */
typedef bool (*arch_channel_rx_fn)(uint8_t byte);

/*
 * arch_channel_init - Overview: find and set up the channel device.
 * Return value: true when the machine has one (QEMU was given a second -serial).
 * Caller's context: the init thread, once; no locks.
 */
bool arch_channel_init(void);

/*
 * arch_channel_write - send n bytes, waiting for the transmitter.
 * Caller's context: thread, no spinlock held (once input is on it sleeps
 *   a tick at a time while the transmitter stays busy); one writer at a
 *   time (the caller serializes).
 */
void arch_channel_write(const void *data, size_t n);

/*
 * arch_channel_start_input - deliver received bytes to rx from now on
 *   (from the tick's poll).
 * Return value: 0.
 * Caller's context: thread, once, after arch_channel_init.
 */
int arch_channel_start_input(arch_channel_rx_fn rx);

/*
 * arch_channel_resume_input - rx has room again: deliver what the device
 * holds, and let the tick poll again. Caller's context: any; never sleeps.
 */
void arch_channel_resume_input(void);

#endif
