/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * DTrace-style tracing (kernel/trace/): sessions that `scion trace`
 * starts over the control channel, running D clauses compiled to DIF on
 * probes. What the rest of the kernel calls.
 */
#ifndef SCION_TRACE_H
#define SCION_TRACE_H

#include <stdint.h>

/*
 * trace_start_request - the TRACE_START op (scion/chan_proto.h): load a
 *   trace object, enable its probes, run BEGIN, and stream the data.
 * Arguments: seq, the request; body/len: u32 bufsize (0: default),
 *   u32 switch_ms, the object (scion/dof.h).
 * Return value: 0, or -errno after answering with a one-line error.
 * Caller's context: the channel thread, may sleep.
 */
int trace_start_request(uint32_t seq, const uint8_t *body, uint32_t len);

/*
 * profile_tick - the profile provider's hook in the clock interrupt:
 *   fires the profile-N probes due on this CPU (and tick-N on CPU 0).
 * Caller's context: the timer interrupt of each CPU; one load and a
 *   branch while no profile probe is enabled.
 */
void profile_tick(void);

#endif
