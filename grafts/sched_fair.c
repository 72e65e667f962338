// SPDX-License-Identifier: BSD-2-Clause
/*
 * sched.pick_next: the queued thread that has run the fewest ticks goes
 * first (ties: the oldest), a crude fair share that favours threads
 * which mostly sleep over those that compute.
 */
#include <graft/sched.h>

static struct thread *fair_pick_next(struct cpu *c)
{
	unsigned n = sched_runq_length(), best = n;
	uint64_t best_ticks = UINT64_MAX;

	(void)c;
	for (unsigned i = 0; i < n; i++) {
		if (!sched_runq_may_run_here(i))
			continue;
		uint64_t ticks = sched_runq_ticks_run(i);
		if (ticks < best_ticks) {
			best_ticks = ticks;
			best = i;
		}
	}
	return best < n ? sched_runq_thread(best) : NULL;
}
GRAFT_METHOD(sched_pick_next, "fair", 1, fair_pick_next);
