// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the trace buffers publish to the monitor (scion/monitor.h):
 * records dropped for want of room, by every stream, recording and
 * trace session since boot.
 */
#include <scion/monitor.h>
#include <scion/tbuf.h>

MONITOR_GLOBAL(trace_drops, "trace.drops", "records", MONITOR_COUNTER, tbuf_all_drops);
