// SPDX-License-Identifier: BSD-2-Clause
/*
 * A pick-next policy's slowdowns on a scheduler recording, simulated or
 * as the recording's log shows them live (sched_evaluate.h). The live
 * figures walk the trace (what the threads did) and the log (what the
 * scheduler picked) in their common sequence: a thread is queued when
 * the trace makes it runnable or says it was queued when the recording
 * began, and again when a pick on its CPU replaces it while it still
 * runs (preempted or yielding); the pick that runs it ends its wait.
 * No locks of its own: the recordings' users keep them alive.
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/chan_reply.h>
#include <graft/sched.h>
#include "insitu_internal.h"
#include "sched_evaluate.h"

#define LIVE_SLOTS 2048			/* threads a live recording may show (a power of two) */
#define NOT_QUEUED UINT64_MAX

static const struct rec_head *next_record(void *ctx)
{
	return rec_cursor_next(ctx);
}

/* The slowdown figures of threads with run[] and wait[] (ticks). */
struct slowdown_acc {
	struct sched_outcome *out;
	uint64_t sum_permille;
};

uint64_t sched_slowdown_permille(uint64_t wait, uint64_t run)
{
	uint64_t bound = run > CHAN_ADAPT_SLOWDOWN_MIN_RUN ? run : CHAN_ADAPT_SLOWDOWN_MIN_RUN;
	uint64_t s = (wait + run) * 1000 / bound;
	return s < 1000 ? 1000 : s;
}

static void add_thread(struct slowdown_acc *a, uint64_t tid, uint64_t wait, uint64_t run)
{
	if (!run)
		return;
	uint64_t s = sched_slowdown_permille(wait, run);
	a->out->threads++;
	a->out->wait += wait;
	a->out->run += run;
	a->sum_permille += s;
	if (s > a->out->worst_permille) {
		a->out->worst_permille = s;
		a->out->worst_tid = tid;
	}
}

static void finish(struct slowdown_acc *a)
{
	a->out->mean_permille = a->out->threads ? a->sum_permille / a->out->threads : 0;
}

int sim_sched_simulate(struct recording *trace_rec, const char *name, struct sched_outcome *out,
		       char *why, size_t whylen)
{
	*out = (struct sched_outcome){ 0 };
	struct sched_instance *inst = sched_instance_create(trace_rec, name, why, whylen);
	if (!inst)
		return -ENOENT;
	sched_sim_policy_format(name, out->policy, sizeof(out->policy));
	struct recording *log = sim_log_recording(trace_rec, "simulated", out->policy);
	if (!log) {
		sched_instance_destroy(inst);
		snprintf(why, whylen, "no memory for the simulated log");
		return -ENOMEM;
	}
	char reason[160];
	int err = sched_instance_replay(inst, log, reason, sizeof(reason));
	out->aborts = inst->aborts;
	out->cpu_ns = inst->cpu_ns;
	struct slowdown_acc acc = { .out = out };
	for (unsigned i = 0; i < inst->sim.nthreads; i++)
		add_thread(&acc, inst->sim.thread[i].se.tid, inst->sim.thread[i].wait,
			   inst->sim.thread[i].run);
	finish(&acc);
	sched_instance_destroy(inst);
	return sim_log_close(log, err, out->policy, reason, &out->log_id, why, whylen);
}

/* --- Live ---------------------------------------------------------------- */

struct live_thread {
	uint64_t tid_plus_one;		/* 0: an empty slot */
	uint64_t queued_since;		/* tick, or NOT_QUEUED */
	uint64_t wait, run;
	bool running;
};

static struct live_thread *live_slot(struct live_thread *t, uint64_t tid)
{
	uint32_t h = sched_sim_tid_slot(tid, LIVE_SLOTS);
	for (unsigned probe = 0; probe < LIVE_SLOTS; probe++) {
		struct live_thread *s = &t[(h + probe) & (LIVE_SLOTS - 1)];
		if (s->tid_plus_one == tid + 1)
			return s;
		if (!s->tid_plus_one) {
			*s = (struct live_thread){ .tid_plus_one = tid + 1,
						   .queued_since = NOT_QUEUED };
			return s;
		}
	}
	return NULL;
}

static void queue(struct live_thread *s, uint64_t tick)
{
	s->running = false;
	if (s->queued_since == NOT_QUEUED)
		s->queued_since = tick;
}

static bool live_event(struct live_thread *t, const struct rec_sched_event *e)
{
	if (!e->tid)
		return true;
	struct live_thread *s = live_slot(t, e->tid);
	if (!s)
		return false;
	switch (e->kind) {
	case SCHED_EVENT_RUNNABLE:
	case SCHED_EVENT_QUEUED:
		queue(s, e->tick);
		break;
	case SCHED_EVENT_RUNNING:
		s->running = true;
		break;
	case SCHED_EVENT_TICK:
		s->run++;
		break;
	case SCHED_EVENT_BLOCK:
	case SCHED_EVENT_EXIT:
	case SCHED_EVENT_SLEEPING:
		s->running = false;
		s->queued_since = NOT_QUEUED;
		break;
	default:	/* YIELD: it stays runnable; the next pick on its CPU queues it */
		break;
	}
	return true;
}

static bool live_pick(struct live_thread *t, const struct rec_sched_pick *p)
{
	if (p->prev && p->prev != p->tid) {
		struct live_thread *prev = live_slot(t, p->prev);
		if (!prev)
			return false;
		if (prev->running)
			queue(prev, p->tick);	/* replaced while it could run: preempted */
	}
	if (!p->tid)
		return true;
	struct live_thread *s = live_slot(t, p->tid);
	if (!s)
		return false;
	if (s->queued_since != NOT_QUEUED && p->tick >= s->queued_since)
		s->wait += p->tick - s->queued_since;
	s->queued_since = NOT_QUEUED;
	s->running = true;
	return true;
}

static uint64_t seq_of(const struct rec_head *h)
{
	return h->type == REC_SCHED_PICK ? ((const struct rec_sched_pick *)h)->seq
					 : ((const struct rec_sched_event *)h)->seq;
}

int sim_sched_live(struct recording *r, struct sched_outcome *out, char *why, size_t whylen)
{
	struct rec_cursor trace, log;
	*out = (struct sched_outcome){ 0 };
	if (sched_sim_check_header(&r->header[0], REC_STREAM_TRACE, why, whylen))
		return -EINVAL;
	struct live_thread *t = kzalloc(LIVE_SLOTS * sizeof(*t));
	if (!t) {
		snprintf(why, whylen, "no memory for the live figures");
		return -ENOMEM;
	}
	snprintf(out->policy, sizeof(out->policy), "%s", r->header[1].policy);
	rec_cursor_init(&trace, &r->stream[0]);
	rec_cursor_init(&log, &r->stream[1]);
	const struct rec_head *e = next_record(&trace), *p = next_record(&log);
	bool ok = true;
	while (ok && (e || p)) {
		/* The two streams share one sequence: take the lower next. */
		if (e && (!p || seq_of(e) < seq_of(p))) {
			if (e->type == REC_SCHED_EVENT && e->size >= sizeof(struct rec_sched_event))
				ok = live_event(t, (const void *)e);
			e = next_record(&trace);
		} else {
			if (p->type == REC_SCHED_PICK && p->size >= sizeof(struct rec_sched_pick))
				ok = live_pick(t, (const void *)p);
			p = next_record(&log);
		}
	}
	struct slowdown_acc acc = { .out = out };
	for (unsigned i = 0; ok && i < LIVE_SLOTS; i++)
		if (t[i].tid_plus_one)
			add_thread(&acc, t[i].tid_plus_one - 1, t[i].wait, t[i].run);
	finish(&acc);
	kfree(t);
	if (!ok) {
		snprintf(why, whylen, "rec%u shows more than %u threads", r->id, LIVE_SLOTS);
		return -EINVAL;
	}
	if (!out->threads) {
		snprintf(why, whylen, "rec%u: no thread ran a whole tick", r->id);
		return -EINVAL;
	}
	return 0;
}
