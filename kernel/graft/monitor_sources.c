// SPDX-License-Identifier: BSD-2-Clause
/*
 * What grafting publishes to the monitor (scion/monitor.h): graft
 * invocations (transactions begun) and how they ended, summed over CPUs.
 */
#include <scion/monitor.h>
#include <scion/txn.h>
#include <scion/cpu.h>

static struct txn_cpu_stats all_cpus(void)
{
	struct txn_cpu_stats sum = { 0 }, s;
	for (unsigned i = 0; i < cpu_count(); i++) {
		txn_get_stats(i, &s);
		sum.begun += s.begun;
		sum.committed += s.committed;
		sum.aborted += s.aborted;
	}
	return sum;
}

static uint64_t invocations(void)
{
	return all_cpus().begun;
}

static uint64_t commits(void)
{
	return all_cpus().committed;
}

static uint64_t aborts(void)
{
	return all_cpus().aborted;
}

MONITOR_GLOBAL(graft_invocations, "graft.invocations", "calls", MONITOR_COUNTER, invocations);
MONITOR_GLOBAL(graft_commits, "graft.commits", "calls", MONITOR_COUNTER, commits);
MONITOR_GLOBAL(graft_aborts, "graft.aborts", "calls", MONITOR_COUNTER, aborts);
