/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Following a scheduler recording: the sched replay's second mode
 * (`sim run REC POLICY... mode=follow`, `scion sim replay DIR --policy P
 * --follow`), a decision replay closed to the recorded history. The
 * first mode, the open-loop model of sched_replay.h, asks "how would
 * policy P do on this load"; this one asks "at each moment the live
 * scheduler decided, what would P have chosen", and with the live
 * policy its log is the recorded log, record for record and byte for
 * byte: the check that a replay decides exactly as live.
 *
 * The trace's events and the log's picks, merged by sequence number,
 * rebuild the run queue (an instance of scion/runq.h) exactly as the
 * live scheduler (kernel/sched/sched.c) held it:
 *
 *   1. the start state (the recording's first records, written under
 *      sched_lock by kernel/sched/record_sched.c): the thread running
 *      on each CPU, the queued threads in queue order, the sleeping
 *      ones, each with the counters policies read (slice, ticks run,
 *      switches);
 *   2. RUNNABLE: the thread is queued at the tail with a fresh slice;
 *   3. TICK: the thread running there is charged (ticks run + 1) and
 *      the tick policy runs on it (its slice);
 *   4. BLOCK, EXIT: it leaves its CPU at the CPU's next pick, unqueued;
 *   5. a pick whose previous thread is still running (it yielded, or
 *      was preempted): that thread is queued at the tail with a fresh
 *      slice, then the pick is made;
 *   6. a pick: the policy under test is asked on the instance, the CPU
 *      and the entity running there set as live had them; its answer
 *      is the simulated log's record (the recorded pick's sequence
 *      number, tick, CPU, previous thread and queue length, and its own
 *      choice); then the RECORDED choice is applied (taken off the
 *      queue, switched in: switches + 1 when it is not the previous
 *      thread), so the instance keeps following the live history.
 *
 * Each answer equal to the recorded one counts as an agreement. Every
 * record is checked as it is applied: the open model's checks of an
 * event (sched_sim_check_event), the start state before anything else,
 * sequence numbers increasing through both streams together, each
 * event possible for its thread (a tick, block, exit or yield only for
 * the thread running on that CPU; runnable only for a new or sleeping
 * one), each pick's previous thread the one its CPU runs and its choice
 * a queued thread, and each pick's queue length the rebuilt queue's. A
 * trace and log that do not fit together (a corrupt or incomplete
 * recording, or one without its start state that names a thread before
 * it becomes runnable) stop the replay with one line naming the record.
 *
 * Its limits: the tick policy is the default's, so a live grafted
 * sched.tick's slices are not followed (only a pick-next policy that
 * reads sched_running_slice could tell); an idle CPU's running entity
 * is none (live it is the idle thread's, so sched_running_tid() there
 * is 0 here and the idle thread's id live).
 *
 * Portable C like sched_replay.c (kernel: sched_instance.c; host: sim/),
 * so kernel and host follow a recording into the same log. Locking: the
 * caller's (a follow is private to the thread replaying it; in the
 * kernel each step runs with interrupts masked, so the thread stays on
 * the CPU where the instance is current while the policy runs).
 */
#ifndef KERNEL_SIM_SCHED_FOLLOW_H
#define KERNEL_SIM_SCHED_FOLLOW_H

#include "sched_replay.h"

/* A thread of the followed history (its state: enum sched_sim_state, DONE once ended). */
struct sched_follow_thread {
	struct sched_entity se;		/* its handle is this thread */
	uint8_t state;			/* enum sched_sim_state */
};

struct sched_follow_summary {
	uint64_t events, picks;		/* records applied from the trace, from the log */
	uint64_t agree;			/* picks where the policy chose as live did */
	uint64_t switches;		/* the policy's answers that differ from the previous thread */
	uint64_t threads, at_start;	/* threads named, those in the start state */
};

struct sched_follow {
	struct sched_runq rq;		/* the rebuilt instance; its pick_next slot the caller's */
	unsigned ncpus;
	struct sched_follow_thread *running[SCHED_SIM_MAX_CPUS];	/* each CPU's; NULL: idle */
	struct sched_follow_thread **index;	/* by tid, open addressing; each allocated alone */
	unsigned index_size, nthreads;		/* index_size: a power of two, > 2 * nthreads */
	struct sim_reader trace, log;
	const struct rec_head *event, *pick;	/* each stream's next record, NULL at its end */
	uint64_t event_index, pick_index;	/* their positions in their streams, from 1 */
	uint64_t last_seq;			/* the last record applied */
	bool past_start;			/* a record after the start state was applied */
	struct sched_follow_summary sum;
	char why[240];				/* why the follow stopped (an error) */
};

/*
 * sched_follow_init - Overview: make f empty, ready to follow trace and
 *   log (whose headers th and lh the caller checked with
 *   sched_sim_check_header); the caller then sets f->rq.pick_next (the
 *   tick slot is the default's).
 * Return value: 0, or -EINVAL with why filled (the headers disagree on
 *   the CPUs). Either way sched_follow_free releases f.
 */
int sched_follow_init(struct sched_follow *f, const struct rec_file_header *th,
		      const struct rec_file_header *lh, struct sim_reader trace,
		      struct sim_reader log, char *why, size_t whylen);
void sched_follow_free(struct sched_follow *f);

/* Events a step applies at most before it returns (so that each step is short). */
#define SCHED_FOLLOW_STEP_EVENTS 256

/*
 * sched_follow_step - Overview: apply the records up to the next pick,
 *   ask the policy, emit its answer as a log record, apply the recorded
 *   pick; at the end of the log, apply (check) the trace's last events.
 *   A step that meets SCHED_FOLLOW_STEP_EVENTS events first stops there.
 * Return value: 1 while there is more, 0 at the end (the summary
 *   complete), -EINVAL for a record that does not fit the history
 *   (f->why says which and why), -E2BIG or -ENOMEM (f->why too), or
 *   emit's negative errno.
 */
int sched_follow_step(struct sched_follow *f, sim_emit_fn *emit, void *ectx);

/* Run sched_follow_step to the end. Return value: as the last step's. */
int sched_follow_run(struct sched_follow *f, sim_emit_fn *emit, void *ectx);

/* The live row's summary: the recorded log's picks and switches. */
void sched_follow_live_summary(struct sim_reader log, struct sched_follow_summary *sum);

/*
 * sched_sim_format_follow_header / _follow_row - the comparison printed
 *   for a follow (`sim run ... mode=follow`, `scion sim replay
 *   --follow`): a row per policy (the live one's from the recorded log,
 *   agree_known false) with its picks, switches and agreement. One line
 *   each, without the newline (sched_format.c).
 */
void sched_sim_format_follow_header(char *buf, size_t n);
void sched_sim_format_follow_row(char *buf, size_t n, const char *label,
				 const struct sched_follow_summary *s, bool agree_known,
				 const char *log);

#endif
