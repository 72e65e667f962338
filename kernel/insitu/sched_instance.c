// SPDX-License-Identifier: BSD-2-Clause
/*
 * Simulation instances of the scheduler in the kernel: a run queue of
 * its own (scion/runq.h) over the simulated threads a recording's trace
 * shows (the open-loop model, sched_replay.c) or rebuilt from its trace
 * and log (mode=follow, sched_follow.c), whose pick-next policy is the
 * default round robin or a private copy of a loaded sched.pick_next
 * graft, run to the end in a kernel thread of its own into a new
 * recording's log.
 *
 * What it must not touch: the live run queue, the live threads, the
 * scheduler's graft points. The instance is separate memory and its
 * threads are simulated ones (a policy is handed their opaque handles);
 * a graft policy runs as a private copy (graft_load_private: its own
 * code and data, installed nowhere) in a transaction like a live graft,
 * its result checked as the live point checks it, so an abort or a
 * refused answer leaves the default to answer, as live. Its API calls
 * reach the instance because it is the current one on the CPU while
 * the policy runs (runq.c). Each tick is simulated with interrupts
 * masked, so the thread stays on that CPU and the live scheduler's
 * policies (which set their own instance current) cannot interleave.
 */
#include <scion/graft.h>
#include <scion/txn.h>
#include <scion/record.h>
#include <scion/spinlock.h>
#include <scion/thread.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include "insitu_internal.h"

void *sim_alloc(size_t n)
{
	return kzalloc(n);
}

void sim_free(void *p)
{
	kfree(p);
}

/* A private graft copy deciding for inst; the default when it aborts. */
static struct thread *private_decision(struct sched_instance *inst, struct cpu *c)
{
	const uint64_t args[6] = { (uintptr_t)c };
	uint64_t r;
	return sim_run_private(inst->graft, args, &r, &inst->aborts)
		? (struct thread *)(uintptr_t)r : sched_default_pick_next(c);
}

/* The pick-next slots of the two modes: the current run queue says which instance asks. */
static struct thread *private_pick_next(struct cpu *c)
{
	return private_decision(container_of(sched_env_current(), struct sched_instance, sim.rq),
				c);
}

static struct thread *private_pick_next_follow(struct cpu *c)
{
	return private_decision(container_of(sched_env_current(), struct sched_instance,
					     follow.rq), c);
}

bool sched_policy_known(const char *name)
{
	if (!strcmp(name, SCHED_SIM_DEFAULT_POLICY))
		return true;
	struct graft *g = graft_find(name);
	return g && !strcmp(g->point->name, "sched.pick_next");
}

static const struct rec_head *next_record(void *ctx)
{
	return rec_cursor_next(ctx);
}

/* inst's policy: the default's, or a private copy of the loaded graft name. */
static int choose_policy(struct sched_instance *inst, const char *name, char *why, size_t whylen)
{
	inst->pick_next = sched_default_pick_next;
	if (!strcmp(name, SCHED_SIM_DEFAULT_POLICY))
		return 0;
	struct graft *g = graft_find(name);
	if (!g || strcmp(g->point->name, "sched.pick_next")) {
		snprintf(why, whylen, "no pick-next policy '%s' (the default '%s', or a graft for "
			 "sched.pick_next: `graft avail`)", name, SCHED_SIM_DEFAULT_POLICY);
		return -ENOENT;
	}
	inst->graft = graft_load_private(g, why, whylen);
	if (!inst->graft)
		return -ENOMEM;
	inst->pick_next = inst->follows ? private_pick_next_follow : private_pick_next;
	return 0;
}

static struct sched_instance *instance_alloc(bool follows, char *why, size_t whylen)
{
	struct sched_instance *inst = kzalloc(sizeof(*inst));
	if (!inst) {
		snprintf(why, whylen, "no memory for a simulation instance");
		return NULL;
	}
	inst->follows = follows;
	spin_init(&inst->lock, "sched-sim-instance");
	return inst;
}

struct sched_instance *sched_instance_create(struct recording *trace_rec, const char *name,
					     char *why, size_t whylen)
{
	struct sched_instance *inst = instance_alloc(false, why, whylen);
	if (!inst)
		return NULL;
	struct rec_cursor cur;
	rec_cursor_init(&cur, &trace_rec->stream[0]);
	if (sched_sim_build(&inst->sim, &trace_rec->header[0], (struct sim_reader){ next_record, &cur },
			    why, whylen) ||
	    choose_policy(inst, name, why, whylen)) {
		sched_instance_destroy(inst);
		return NULL;
	}
	inst->sim.rq.pick_next = &inst->pick_next;
	return inst;
}

struct sched_instance *sched_instance_follow(struct recording *r, const char *name, char *why,
					     size_t whylen)
{
	struct sched_instance *inst = instance_alloc(true, why, whylen);
	if (!inst)
		return NULL;
	rec_cursor_init(&inst->trace, &r->stream[0]);
	rec_cursor_init(&inst->log, &r->stream[1]);
	if (sched_follow_init(&inst->follow, &r->header[0], &r->header[1],
			      (struct sim_reader){ next_record, &inst->trace },
			      (struct sim_reader){ next_record, &inst->log }, why, whylen) ||
	    choose_policy(inst, name, why, whylen)) {
		sched_instance_destroy(inst);
		return NULL;
	}
	inst->follow.rq.pick_next = &inst->pick_next;
	return inst;
}

void sched_instance_destroy(struct sched_instance *inst)
{
	graft_unload_private(inst->graft);
	sched_sim_free(&inst->sim);
	sched_follow_free(&inst->follow);
	kfree(inst);
}

struct recording *sched_trace_make(const char *origin, unsigned ncpus,
				   bool (*next)(void *ctx, struct sched_event *e), void *ctx)
{
	struct recording *r = rec_store_create(origin);
	if (!r)
		return NULL;
	const struct rec_module *m = rec_module_find("sched");
	rec_header_init(&r->header[0], m, REC_STREAM_TRACE);
	rec_header_init(&r->header[1], m, REC_STREAM_LOG);
	r->header[0].config[REC_SCHED_CONFIG_CPUS] = ncpus;
	for (struct sched_event e; next(ctx, &e);) {
		struct rec_sched_event rec = {
			.head = { .size = sizeof(rec), .type = REC_SCHED_EVENT, .cpu = e.cpu },
			.seq = e.seq, .tick = e.tick, .tid = e.tid, .kind = e.kind,
			.affinity = e.affinity,
		};
		if (rec_data_append(&r->stream[0], &rec, sizeof(rec))) {
			rec_store_discard(r);
			return NULL;
		}
	}
	rec_store_complete(r);
	return r;
}

/* --- The replay thread ---------------------------------------------------- */

struct replay_job {
	struct sched_instance *inst;
	struct recording *out;		/* the log written (a user held) */
	int err, emit_err;
};

static int emit(void *ctx, const struct rec_head *rec)
{
	struct replay_job *j = ctx;
	j->emit_err = rec_data_append(&j->out->stream[1], rec, rec->size);
	return j->emit_err;
}

static void replay_thread(void *arg)
{
	struct replay_job *j = arg;
	struct sched_instance *inst = j->inst;
	int r;
	do {
		irqflags_t f = spin_lock_irqsave(&inst->lock);
		r = inst->follows ? sched_follow_step(&inst->follow, emit, j)
				  : sched_sim_step(&inst->sim, emit, j);
		spin_unlock_irqrestore(&inst->lock, f);
	} while (r > 0);
	j->err = r;
	inst->cpu_ns = thread_cpu_ns_self();
}

int sched_instance_replay(struct sched_instance *inst, struct recording *out, char *why,
			  size_t whylen)
{
	struct replay_job j = { .inst = inst, .out = out };
	struct thread *t = thread_create("sim-replay", replay_thread, &j, -1);
	if (!t) {
		snprintf(why, whylen, "cannot start the replay thread");
		return -ENOMEM;
	}
	thread_join(t);
	uint64_t picks = inst->follows ? inst->follow.sum.picks : inst->sim.sum.picks;
	if (j.err && (j.emit_err || !inst->follows))
		snprintf(why, whylen, "pick %llu: the log could not be kept (%s)",
			 (unsigned long long)picks, errno_name(j.err));
	else if (j.err)
		strlcpy(why, inst->follow.why, whylen);
	return j.err;
}
