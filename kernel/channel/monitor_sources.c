// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the control channel publishes to the monitor (scion/monitor.h):
 * bytes received from and sent to the host. Read without the channel's
 * locks: each counter is one aligned word, so a read is a value it had.
 */
#include <scion/monitor.h>
#include "channel_internal.h"

static uint64_t channel_bytes(void)
{
	return __atomic_load_n(&channel.counters.rx_bytes, __ATOMIC_RELAXED) +
	       __atomic_load_n(&channel.counters.tx_bytes, __ATOMIC_RELAXED);
}

MONITOR_GLOBAL(channel_bytes, "channel.bytes", "bytes", MONITOR_COUNTER, channel_bytes);
