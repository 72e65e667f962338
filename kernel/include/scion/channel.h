/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control channel (kernel/channel/): how the host command `scion`
 * drives a running kernel. Wire format: scion/chan_proto.h.
 */
#ifndef SCION_CHANNEL_H
#define SCION_CHANNEL_H

/*
 * channel_init - start the channel when the machine has the device
 * (otherwise nothing happens). Caller's context: the init thread, once,
 * after interrupts are set up; may sleep.
 */
void channel_init(void);

#endif
