// SPDX-License-Identifier: BSD-2-Clause
/*
 * The scheduler as a recordable module (scion/record.h): its trace is
 * what threads did (sched.event: runnable, blocked, ended, yielded,
 * charged a tick), its log what the scheduler decided (sched.pick), in
 * the records of scion/recfmt.h. The two recording grafts run at those
 * event points, sched_lock held and interrupts masked (the tick's in the
 * timer interrupt), and only write into the session's per-CPU buffers.
 *
 * A recording is one closed stretch of the scheduler's history, so that
 * a replay can rebuild the run queue from it (kernel/insitu/sched_follow.c):
 * begin, under sched_lock, writes the state every thread is in (which
 * runs where, the queue in order, who sleeps, with the counters
 * policies read) and only then lets the grafts write; end, under
 * sched_lock, stops them. Every event and pick is numbered under
 * sched_lock, so nothing falls between the state and the first event,
 * and both streams end at the same instant.
 *
 * recording_bufs: written under sched_lock (begin, end), read by the
 * grafts under sched_lock.
 */
#include <scion/record.h>
#include <scion/graft.h>
#include <scion/sched.h>
#include <scion/cpu.h>
#include <scion/clock.h>
#include <scion/format.h>

static struct tbuf_set *recording_bufs;	/* sched_lock: where the grafts write, or NULL */

/*
 * The recording grafts are direct (no transaction) and run where their
 * event points fire: sched_lock held, interrupts masked (the points'
 * contract), so nothing comes between a record's reservation and its
 * writing.
 */
static void record_event(const struct sched_event *e)
{
	struct tbuf_set *bufs = READ_ONCE(recording_bufs);
	struct rec_sched_event *r = bufs ? tbuf_reserve(bufs, sizeof(*r)) : NULL;
	if (r)
		*r = (struct rec_sched_event){
			.head = { .size = sizeof(*r), .type = REC_SCHED_EVENT, .cpu = e->cpu },
			.seq = e->seq, .tick = e->tick, .time_ns = clock_ns(), .tid = e->tid,
			.kind = e->kind, .affinity = e->affinity,
		};
}

static void record_pick(const struct sched_pick *p)
{
	struct tbuf_set *bufs = READ_ONCE(recording_bufs);
	struct rec_sched_pick *r = bufs ? tbuf_reserve(bufs, sizeof(*r)) : NULL;
	if (r)
		*r = (struct rec_sched_pick){
			.head = { .size = sizeof(*r), .type = REC_SCHED_PICK, .cpu = p->cpu },
			.seq = p->seq, .tick = p->tick, .tid = p->tid, .prev = p->prev,
			.cpu = p->cpu, .queued = p->queued,
		};
}

/* One thread of the start state (sched_snapshot). A lost record is counted as a drop. */
static void record_state(const struct sched_event *e, const struct sched_entity *se, void *ctx)
{
	struct rec_sched_state *r = tbuf_reserve(ctx, sizeof(*r));
	if (!r)
		return;
	*r = (struct rec_sched_state){
		.event = {
			.head = { .size = sizeof(*r), .type = REC_SCHED_EVENT, .cpu = e->cpu },
			.seq = e->seq, .tick = e->tick, .time_ns = clock_ns(), .tid = e->tid,
			.kind = e->kind, .affinity = e->affinity,
		},
		.ticks_run = se->ticks_run, .switches_in = se->switches_in, .slice = se->slice,
	};
}

static void begin(struct tbuf_set *bufs)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	sched_snapshot(record_state, bufs);
	WRITE_ONCE(recording_bufs, bufs);
	spin_unlock_irqrestore(&sched_lock, f);
}

static void end(void)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	WRITE_ONCE(recording_bufs, NULL);
	spin_unlock_irqrestore(&sched_lock, f);
}

static void describe(struct rec_file_header *h)
{
	char pick[GRAFT_NAME_MAX] = "rr", tick[GRAFT_NAME_MAX] = "rr";
	graft_point_installed_name("sched.pick_next", pick, sizeof(pick));
	graft_point_installed_name("sched.tick", tick, sizeof(tick));
	snprintf(h->policy, sizeof(h->policy), "pick_next=%s tick=%s", pick, tick);
	h->config[REC_SCHED_CONFIG_CPUS] = cpu_count();
	h->config[REC_SCHED_CONFIG_HZ] = HZ;
	h->config[REC_SCHED_CONFIG_SLICE] = SCHED_SLICE_TICKS;
}

REC_MODULE(sched_module, .name = "sched", .input_point = "sched.event",
	   .output_point = "sched.pick", .trace_what = "events", .log_what = "picks",
	   .input_graft = record_event, .output_graft = record_pick, .bufs = &recording_bufs,
	   .describe = describe, .begin = begin, .end = end);
