// SPDX-License-Identifier: BSD-2-Clause
/*
 * The scheduler as a recordable module (scion/record.h): its trace is
 * what threads did (sched.event: runnable, blocked, ended, yielded,
 * charged a tick), its log what the scheduler decided (sched.pick), in
 * the records of scion/recfmt.h. The two recording grafts run at those
 * event points, sched_lock held and interrupts masked (the tick's in the
 * timer interrupt), and only write into the session's per-CPU buffers.
 * A replay (kernel/sim/sched_replay.c) derives each thread's behaviour
 * from the trace.
 */
#include <scion/record.h>
#include <scion/graft.h>
#include <scion/sched.h>
#include <scion/cpu.h>
#include <scion/clock.h>
#include <scion/format.h>

static struct tbuf_set *recording_bufs;	/* set by the session around its grafts */

static void record_event(const struct sched_event *e)
{
	struct tbuf_set *bufs = READ_ONCE(recording_bufs);
	struct rec_sched_event *r = bufs ? tbuf_reserve(bufs, sizeof(*r)) : NULL;
	if (!r)
		return;
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
	if (!r)
		return;
	*r = (struct rec_sched_pick){
		.head = { .size = sizeof(*r), .type = REC_SCHED_PICK, .cpu = p->cpu },
		.seq = p->seq, .tick = p->tick, .tid = p->tid, .prev = p->prev, .cpu = p->cpu,
		.queued = p->queued,
	};
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
	   .describe = describe);
