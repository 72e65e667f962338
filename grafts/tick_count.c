// SPDX-License-Identifier: BSD-2-Clause
/*
 * timer.tick (event): count ticks per CPU in the graft's own data and
 * write a line every 500 ticks of CPU 0 (5 s): an event handler that
 * watches without changing anything.
 */
#include <graft/timer.h>

#define CPUS 8
#define REPORT_EVERY 500

static uint64_t seen[CPUS];

static void count_tick(unsigned cpu, uint64_t ticks)
{
	(void)ticks;
	if (cpu >= CPUS)
		return;
	seen[cpu]++;
	if (cpu == 0 && seen[0] % REPORT_EVERY == 0)
		graft_log("another 500 ticks on cpu 0");
}
GRAFT_EVENT(timer_tick, "tick-count", 1, count_tick);
