/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Replaying a scheduler trace (VINO's in-situ simulation of the
 * scheduler) has two modes, each over an instance of the scheduler's own
 * run queue (scion/runq.h) whose pick-next policy is the one under test,
 * so the default round robin and every sched.pick_next graft decide
 * exactly as they would live:
 *
 *   - the open-loop model, here (`sim run REC POLICY...`, the default,
 *     or mode=open; `scion sim replay DIR --policy P`): "how would
 *     policy P do on this load" -- the threads' behaviour is taken from
 *     the trace and run again under P, which makes its own history;
 *   - follow, sched_follow.h (`sim run REC POLICY... mode=follow`;
 *     `scion sim replay DIR --policy P --follow`): "what would P have
 *     chosen at each moment live chose" -- the trace and log together
 *     rebuild the live run queue and P is asked at each recorded pick;
 *     with the live policy the log it writes is the recorded log.
 *
 * Portable C: the kernel (`sim run`) and the host (`scion sim replay`,
 * sim/) build the same sched_replay.c and sched_follow.c, so for the
 * same recording, mode and policy they write the same log, byte for
 * byte.
 *
 * The open-loop model. From the recorded trace each thread's behaviour is
 * derived: a sequence of phases, each a CPU burst (the ticks it was
 * charged between becoming runnable and blocking, or ending) preceded
 * by a gap (the ticks it was blocked before it; for its first phase,
 * the ticks from the trace's first record until it first became
 * runnable). Those threads then run on the recorded number of CPUs
 * under the policy: at each tick, first the threads whose gap is over
 * are queued (in the order the trace first named them), then each CPU
 * (in index order) picks while a pick is due (its thread's burst ended,
 * its thread's slice ran out, or it is idle and a queued thread may
 * run there), then each running thread is charged the tick and the
 * tick policy (the default: a slice of SCHED_SLICE_TICKS) may preempt
 * it; a thread whose burst is over blocks for its next gap, or ends.
 * Every pick is a log record (the simulated sched.pick); the summary
 * counts context switches, the ticks each thread waited while
 * runnable, and the tick each thread finished its last burst.
 *
 * Its limits. The behaviour is open-loop: a thread's bursts and gaps
 * are what the trace shows whatever the policy, so a thread woken by
 * another (a join, a wait queue) wakes after its recorded gap, not when
 * the other gets to wake it; time is whole ticks, so work shorter than
 * a tick counts as none and a burst ends at a tick boundary; a yield
 * is not modelled (the thread keeps its CPU); a thread's affinity is
 * the one it had when each phase began; the tick policy is always the
 * default; threads running or queued when the recording began (its
 * start state: scion/recfmt.h) are taken to be runnable at its first
 * tick, with no history before it, and a thread sleeping then enters
 * the model when it wakes; a thread whose trace ends while it runs or
 * waits ends there. The idle thread has tid 0. Its picks are therefore
 * not the recorded ones even with the live policy: follow reproduces
 * those.
 */
#ifndef KERNEL_SIM_SCHED_REPLAY_H
#define KERNEL_SIM_SCHED_REPLAY_H

#include <scion/runq.h>
#include <scion/recfmt.h>
#include "bcache_replay.h"

#define SCHED_SIM_MAX_CPUS    64
#define SCHED_SIM_MAX_THREADS 4096
#define SCHED_SIM_MAX_SPAN    (1ull << 40)	/* ticks a trace may span */

/*
 * The slot of thread tid in an open-addressed index of size entries (a
 * power of two): where both replays (this one and sched_follow.c) start
 * probing for it.
 */
static inline uint32_t sched_sim_tid_slot(uint64_t tid, unsigned size)
{
	return (uint32_t)((tid * 0x9e3779b97f4a7c15ull) >> 32) & (size - 1);
}

/* One CPU burst of a thread and the gap before it (sched_replay.c). */
struct sched_sim_phase;

enum sched_sim_state {
	SCHED_SIM_BLOCKED,	/* waiting for its gap to end (or its first arrival) */
	SCHED_SIM_QUEUED,
	SCHED_SIM_RUNNING,
	SCHED_SIM_DONE,		/* its last burst is over */
};

struct sched_sim_thread {
	struct sched_entity se;		/* its handle is this thread */
	uint32_t first, last;		/* its phases (indices into the phase array) */
	uint32_t phase;			/* the current one */
	uint32_t nphases;
	uint8_t state;			/* enum sched_sim_state */
	bool exits;			/* its trace ends with it ending (else the trace stops) */
	bool open;			/* while building: its last phase has not ended */
	uint64_t remaining;		/* ticks left of the current burst */
	uint64_t arrive;		/* BLOCKED: the tick it is queued */
	uint64_t wait;			/* ticks queued (runnable, not running) */
	uint64_t done;			/* the tick its last burst ended */
	uint64_t run;			/* ticks it ran: the sum of its bursts */
	uint64_t last_tick;		/* its last record's tick, relative (what live did) */
};

struct sched_sim_cpu {
	struct sched_sim_thread *current;	/* running here, or NULL */
	struct sched_sim_thread *leaving;	/* its burst ended here; not yet switched away */
	bool need_resched;			/* the tick policy asked for a switch */
};

struct sched_sim_summary {
	uint64_t threads, events, picks, switches;
	uint64_t wait, wait_max;	/* ticks, all threads together and the longest */
	uint64_t end;			/* the last thread's done, relative to the first tick */
	uint64_t busy;			/* CPU ticks that ran a thread */
	bool waits_known;		/* false for a live log: waits are not measured */
};

struct sched_sim {
	struct sched_runq rq;		/* the instance: its slots hold the policies to try */
	unsigned ncpus;
	uint64_t start;			/* the trace's first tick */
	uint64_t now;			/* the model's tick, from 0 */
	uint64_t next_arrival;		/* the earliest BLOCKED thread's arrive */
	unsigned blocked, active;	/* threads BLOCKED, threads not DONE */
	struct sched_sim_cpu cpu[SCHED_SIM_MAX_CPUS];
	struct sched_sim_thread *thread;
	unsigned nthreads, thread_cap;
	struct sched_sim_phase *phase;
	uint32_t nphases, phase_cap;
	uint32_t *index;		/* tid hash: thread index + 1, 0 empty */
	unsigned index_size;		/* a power of two, twice thread_cap */
	uint64_t last_seq, last_tick;	/* while building */
	bool past_start;		/* while building: a record after the start state came */
	struct sched_sim_summary sum;
};

/*
 * sched_sim_check_header - whether h is a header the sched replay takes:
 *   magic, version, stream, module "sched", 1..SCHED_SIM_MAX_CPUS CPUs.
 * Return value: NULL, or a one-line reason in why.
 */
const char *sched_sim_check_header(const struct rec_file_header *h, enum rec_stream stream,
				   char *why, size_t whylen);

/*
 * sched_sim_build - Overview: derive each thread's behaviour from trace
 *   (whose header th was checked) into sim, made empty here, its policy
 *   slots then set by the caller (sim->rq.pick_next; rq.tick is the
 *   default's).
 * Return value: 0, or a negative errno with why filled: a record that
 *   is not a sched event or out of order or impossible for its thread
 *   (-EINVAL, naming the record), too many threads or too long a span
 *   (-E2BIG), memory (-ENOMEM). sched_sim_free releases what it took,
 *   either way.
 */
int sched_sim_build(struct sched_sim *sim, const struct rec_file_header *th,
		    struct sim_reader trace, char *why, size_t whylen);
void sched_sim_free(struct sched_sim *sim);

/*
 * sched_sim_step - Overview: simulate one tick (skipping ticks in which
 *   nothing is runnable), emitting each pick as a log record.
 * Return value: 1 while there is more, 0 when every thread is done (the
 *   summary complete), or emit's negative errno.
 * Caller's context: the instance is the caller's alone; in the kernel,
 *   interrupts masked around each step so that the thread stays on the
 *   CPU whose current instance is sim->rq.
 */
int sched_sim_step(struct sched_sim *sim, sim_emit_fn *emit, void *ectx);

/* Run sched_sim_step to the end. Return value: 0 or emit's error. */
int sched_sim_run(struct sched_sim *sim, sim_emit_fn *emit, void *ectx);

/*
 * sched_sim_check_event - whether h, the index-th record (1-based) of a
 *   sched trace for ncpus CPUs, is a well-formed event numbered after
 *   last_seq: a struct rec_sched_event of kind 1 .. 5, or a struct
 *   rec_sched_state of a start-state kind (scion/recfmt.h), of a real
 *   thread, CPU and affinity. Both modes check every trace record so.
 * Return value: NULL, or a one-line reason in why naming the record.
 */
const char *sched_sim_check_event(const struct rec_head *h, uint64_t index, uint64_t last_seq,
				  unsigned ncpus, char *why, size_t whylen);

/* What a thread did, as a phrase ("blocked", "was queued at the start"), for messages. */
const char *sched_sim_kind_text(uint32_t kind);

/* The summary of a recorded log (picks, switches), beside a sim built from its trace. */
void sched_sim_live_summary(const struct sched_sim *sim, struct sim_reader log,
			    struct sched_sim_summary *sum);

/* --- Naming the policies (sched_format.c) -------------------------------- */

/* The default pick-next (and tick) policy's name. */
#define SCHED_SIM_DEFAULT_POLICY "rr"

/*
 * sched_sim_policy_parse - Overview: the pick-next policy spec names:
 *   "NAME" or "pick_next=NAME", where known(NAME) (the default's name or
 *   a sched.pick_next graft's).
 * Return value: 0 with name filled, or -EINVAL with why filled.
 */
int sched_sim_policy_parse(const char *spec, bool (*known)(const char *name), char *name,
			   size_t n, char *why, size_t whylen);

/* A header's policy field for a simulation of pick-next policy name: "pick_next=NAME tick=rr". */
void sched_sim_policy_format(const char *name, char *buf, size_t n);

/* The pick-next policy's name in a header's policy field ("pick_next=fair tick=rr"). */
void sched_sim_policy_name(const char *policy, char *name, size_t n);

/*
 * sched_sim_format_header / _row / _threads_header / _thread_row - the
 *   comparison `sim run` and `scion sim replay` print for a sched trace:
 *   a row per policy (the live one's from its recorded log), then a row
 *   per thread with its wait and done ticks under each policy. Each
 *   writes one line, without the newline, into buf.
 */
void sched_sim_format_header(char *buf, size_t n);
void sched_sim_format_row(char *buf, size_t n, const char *label,
			  const struct sched_sim_summary *s, const char *log);
void sched_sim_format_threads_header(char *buf, size_t n, const char *const *labels,
				     unsigned npolicies);
/* waits[k], dones[k]: thread's under policy k. */
void sched_sim_format_thread_row(char *buf, size_t n, const struct sched_sim_thread *t,
				 const uint64_t *waits, const uint64_t *dones, unsigned npolicies);

/* --- Supplied by the embedding environment (kernel: kzalloc; host: calloc) --- */

/* n bytes of zeroed memory, or NULL. */
void *sim_alloc(size_t n);
void sim_free(void *p);

#endif
