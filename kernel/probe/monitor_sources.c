// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the probe machinery publishes to the monitor (scion/monitor.h):
 * each CPU's probe hits whose consumers ran (inline counters, which run
 * no consumer, are not counted).
 */
#include <scion/monitor.h>
#include <scion/cpu.h>

static uint64_t probe_hits(unsigned i)
{
	return cpu_probe_hits(cpu_by_index(i));
}

MONITOR_PER_CPU(probe_hits, "probe.hits", "hits", MONITOR_COUNTER, probe_hits);
