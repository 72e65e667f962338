/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One pick-next policy judged on a scheduler recording, quietly: what
 * the adaptation loop (kernel/adapt/sched.c) compares policies by. The
 * figure is each thread's slowdown, (ticks queued + ticks run) / ticks
 * run, in permille: 1000 is a thread that never waited. It is bounded
 * (CHAN_ADAPT_SLOWDOWN_MIN_RUN, scion/chan_reply.h): a thread that ran
 * fewer ticks is divided by that many, so one long wait of a thread
 * that barely ran (the recorder's own) does not make the worst figure. The worst
 * thread's is what a starved thread (an interactive one behind compute
 * threads) makes large, and what a fair policy brings down. A simulated
 * outcome comes from the open-loop model (sched_replay.h); the live one
 * from the recording's own log, the waits its picks show. Nothing here
 * prints; a failure is one line in why. No locks of its own.
 */
#ifndef KERNEL_INSITU_SCHED_EVALUATE_H
#define KERNEL_INSITU_SCHED_EVALUATE_H

#include <scion/record.h>

struct sched_outcome {
	char policy[REC_POLICY_MAX];	/* "pick_next=fair" */
	uint32_t threads;		/* threads that ran at least one tick */
	uint64_t worst_permille;	/* the largest slowdown */
	uint64_t worst_tid;		/* whose it is */
	uint64_t mean_permille;		/* the threads' mean slowdown */
	uint64_t wait, run;		/* ticks, all threads together */
	uint64_t aborts;		/* its graft's transactions that aborted */
	uint64_t cpu_ns;		/* the replay's CPU time */
	unsigned log_id;		/* the recording holding the simulated log (0: none) */
};

/*
 * sched_slowdown_permille - one thread's bounded slowdown in permille:
 *   (wait + run) * 1000 / max(run, CHAN_ADAPT_SLOWDOWN_MIN_RUN), and at
 *   least 1000. Arguments: ticks queued and ticks run (run > 0).
 * Caller's context: any.
 */
uint64_t sched_slowdown_permille(uint64_t wait, uint64_t run);

/*
 * sim_sched_simulate - replay trace_rec (a complete sched recording, one
 *   user held) with pick-next policy name (the default "rr" or a loaded
 *   sched.pick_next graft) in a simulation instance of its own.
 * Return value: 0 with *out filled; -errno with why filled.
 * Caller's context: thread, may sleep.
 */
int sim_sched_simulate(struct recording *trace_rec, const char *name, struct sched_outcome *out,
		       char *why, size_t whylen);

/*
 * sim_sched_live - the slowdowns r's own log shows: each thread's waits
 *   from when its trace queues it (woken, created, preempted, yielding,
 *   or queued when the recording began) to the pick that runs it; its
 *   ticks run from the timer ticks charged to it.
 * Return value: 0, or -EINVAL with why filled (not a sched recording, or
 *   no thread ran). Caller's context: thread.
 */
int sim_sched_live(struct recording *r, struct sched_outcome *out, char *why, size_t whylen);

#endif
