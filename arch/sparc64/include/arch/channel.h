/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control channel's transport on sparc64: none yet. sun4u has one
 * on-board UART (the console) and the port drives no second serial port
 * or virtio-console, so arch_channel_init says there is no channel
 * ("sparc64: no control channel yet (issue 25)") and input is refused
 * with -ENOTSUP. Same contract as arch/x86/include/arch/channel.h.
 */
#ifndef ARCH_CHANNEL_H
#define ARCH_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef bool (*arch_channel_rx_fn)(uint8_t byte);

/* false: no channel device on sparc64. */
bool arch_channel_init(void);
/* Never called without a channel; drops the bytes. */
void arch_channel_write(const void *data, size_t n);
/* -ENOTSUP. */
int arch_channel_start_input(arch_channel_rx_fn rx);
void arch_channel_resume_input(void);

#endif
