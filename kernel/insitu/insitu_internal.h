/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's simulation instances (bcache_instance.c) and the `sim` command
 * (cmd_sim.c). An instance belongs to the thread that made it.
 */
#ifndef KERNEL_INSITU_INTERNAL_H
#define KERNEL_INSITU_INTERNAL_H

#include <scion/record.h>
#include <scion/spinlock.h>
#include "bcache_replay.h"
#include "bcache_optimal.h"
#include "sched_replay.h"
#include "sched_follow.h"
#include "../bcache/bcache_internal.h"

struct sim_instance {
	struct bcache_cache cache;		/* its own bookkeeping */
	graft_fn_bcache_evict *evict;		/* the slots cache.evict/readahead point at */
	graft_fn_bcache_readahead *readahead;
	struct graft *graft[SIM_KINDS];		/* private copies (NULL: a default) */
	struct sim_oracle *oracle;		/* the trace's future, for min and oracle */
	struct spinlock lock;			/* held, interrupts masked, around each request */
	uint64_t aborts;			/* transactions of its grafts that aborted */
	uint64_t cpu_ns;			/* its replay thread's CPU time (the cost) */
};

/*
 * sim_instance_create - an empty instance configured as trace header th
 *   says, running the policies named; min and oracle (the optimum's)
 *   read the future from inst->oracle, which the caller sets before the
 *   replay (without it they answer as the defaults).
 * Return value: the instance, or NULL with why filled (unknown policy,
 *   memory). Caller's context: thread, may sleep.
 */
struct sim_instance *sim_instance_create(const struct rec_file_header *th,
					 const struct sim_policy_names *names, char *why,
					 size_t whylen);
void sim_instance_destroy(struct sim_instance *inst);

/*
 * sim_instance_replay - replay trace_rec's trace into inst in a kernel
 *   thread, appending the log to out->stream[1] and comparing it with
 *   trace_rec's recorded log (sum->agree).
 * Return value: 0, or -errno with why filled.
 * Caller's context: thread, may sleep (joins the replay thread).
 */
int sim_instance_replay(struct sim_instance *inst, struct recording *trace_rec,
			const struct sim_model *model, struct recording *out,
			struct sim_summary *sum, char *why, size_t whylen);

/*
 * sim_log_recording - a new recording for the log a simulation of
 *   trace_rec writes with policy (a header's policy field), its origin
 *   "HOW recN with POLICY" (how: "simulated", "followed"): its headers
 *   trace_rec's trace header, the log's without records or drops, as the
 *   host writes them. Return value: it (one user), or NULL (memory).
 *   Caller's context: thread.
 */
struct recording *sim_log_recording(const struct recording *trace_rec, const char *how,
				    const char *policy);

/*
 * sim_log_close - the end of a quiet simulation's log (bcache_evaluate.c,
 *   sched_evaluate.c): log made complete and let go; *log_id its number.
 *   A replay that failed (err) gets why: the policy, the reason, and that
 *   the log holds what it wrote. Return value: err. Caller's context: thread.
 */
int sim_log_close(struct recording *log, int err, const char *policy, const char *reason,
		  unsigned *log_id, char *why, size_t whylen);

/*
 * sim_run_private - run private graft copy g (graft_load_private) as
 *   graft_dispatch would, in a transaction whose result its point checks.
 * Return value: true with *r when it committed; false when it aborted
 *   (*aborts counts it) or is already running here (it reached its own
 *   point): the caller then runs the default.
 * Caller's context: interrupts masked, the instance current on this CPU.
 */
bool sim_run_private(struct graft *g, const uint64_t args[6], uint64_t *r, uint64_t *aborts);

/* --- The scheduler's simulation instances (sched_instance.c, cmd_sim_sched.c) --- */

struct sched_instance {
	bool follows;				/* set once: which of the two below runs */
	struct sched_sim sim;			/* the open-loop model's run queue and threads */
	struct sched_follow follow;		/* mode=follow: the run queue rebuilt */
	struct rec_cursor trace, log;		/* mode=follow: where its readers are */
	graft_fn_sched_pick_next *pick_next;	/* the slot the run queue's pick_next points at */
	struct graft *graft;			/* a private copy (NULL: the default) */
	struct spinlock lock;			/* held, interrupts masked, around each step */
	uint64_t aborts;			/* transactions of its graft that aborted */
	uint64_t cpu_ns;			/* its replay thread's CPU time (the cost) */
};

/*
 * sched_instance_create - an instance with the threads trace_rec's trace
 *   shows (the open-loop model, sched_replay.h), running pick-next
 *   policy name (checked: the default's or a loaded sched.pick_next
 *   graft's).
 * Return value: the instance, or NULL with why filled (a bad trace,
 *   memory). Caller's context: thread, may sleep.
 */
struct sched_instance *sched_instance_create(struct recording *trace_rec, const char *name,
					     char *why, size_t whylen);

/*
 * sched_instance_follow - an instance that follows recording r's trace
 *   and log together (sched_follow.h; r's log header checked by the
 *   caller), asking pick-next policy name (checked as above) at each
 *   recorded pick. Its records are checked as it runs.
 * Return value: the instance, or NULL with why filled (headers that
 *   disagree, memory). Caller's context: thread, may sleep.
 */
struct sched_instance *sched_instance_follow(struct recording *r, const char *name, char *why,
					     size_t whylen);
void sched_instance_destroy(struct sched_instance *inst);

/*
 * sched_instance_replay - run inst to the end in a kernel thread,
 *   appending each pick to out->stream[1].
 * Return value: 0, or -errno with why filled: -EINVAL when a followed
 *   recording's records do not fit its history (out then holds nothing
 *   worth keeping), another when the log could not be kept.
 *   Caller's context: thread, may sleep (joins the replay thread).
 */
int sched_instance_replay(struct sched_instance *inst, struct recording *out, char *why,
			  size_t whylen);

/*
 * sched_trace_make - a complete recording of a sched trace for ncpus
 *   CPUs whose events next gives (filling *e, true until the end), as
 *   tests and benchmarks build them. Return value: the recording (one
 *   user), or NULL (memory). Caller's context: thread.
 */
struct recording *sched_trace_make(const char *origin, unsigned ncpus,
				   bool (*next)(void *ctx, struct sched_event *e), void *ctx);

/* Whether name is a pick-next policy here: "rr" or a loaded sched.pick_next graft. */
bool sched_policy_known(const char *name);

/*
 * sim_sched_command - `sim run REC POLICY...` for a sched recording r
 *   (one user held by the caller): a simulation per policy, the
 *   comparison printed. Return value: 0 or -errno (a line printed).
 */
int sim_sched_command(struct recording *r, int npolicies, char **policies);

/*
 * sim_sched_follow_command - `sim run REC POLICY... mode=follow` for a
 *   sched recording r (one user held by the caller) and the checked
 *   pick-next policies names[0 .. npolicies): each follows r's history
 *   (cmd_sim_follow.c). Return value: 0 or -errno (a line printed).
 */
int sim_sched_follow_command(struct recording *r, unsigned npolicies,
			     char names[][GRAFT_NAME_MAX]);

#endif
