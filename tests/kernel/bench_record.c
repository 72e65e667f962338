// SPDX-License-Identifier: BSD-2-Clause
/*
 * Benchmarks of self-monitoring: what recording the block cache adds to
 * one demand read (the two recording grafts at bcache.request and
 * bcache.result, each in its transaction, writing a trace and a log
 * record into the per-CPU buffers), and how fast a simulation instance
 * replays the recording in the kernel; the same for the scheduler: what
 * recording adds to one scheduling event (a yield is two: the yield in
 * the trace, the pick in the log) and how fast a simulation instance
 * replays a synthetic trace of computing and sleeping threads, and how
 * fast one follows the recording of yields with round robin. Under
 * `make bench` cycles are guest instructions. Reads hit one block, so
 * the disk's latency is not in the figures; the bcache replay is of the
 * reads the recording holds. The rounds are spaced so that the recorder
 * thread empties the buffers between them: a dropped record would cost
 * less than a written one.
 */
#include <scion/bench.h>
#include <scion/bcache.h>
#include <scion/record.h>
#include <scion/mm.h>
#include <scion/sched.h>
#include <scion/clock.h>
#include <arch/cpu.h>
#include "../../kernel/insitu/insitu_internal.h"

#define READS   500	/* a round's records (104 bytes a read) fit one 64 KiB buffer */
#define ROUNDS  5
#define BLOCK   7
#define DRAIN_MS 120	/* between rounds: the recorder thread switches every 50 ms */

static uint64_t least_cycles_per_read(void *buf)
{
	uint64_t best = UINT64_MAX;
	for (unsigned r = 0; r < ROUNDS; r++) {
		thread_sleep_ticks(ms_to_ticks(DRAIN_MS));	/* nothing dropped: all is measured */
		uint64_t c0 = arch_cycles();
		for (unsigned i = 0; i < READS; i++)
			bcache_read(BLOCK, buf);
		uint64_t c = (arch_cycles() - c0) / READS;
		if (c < best)
			best = c;
	}
	return best;
}

BENCH(record, 1)
{
	void *buf = kmalloc(BCACHE_BLOCK_SIZE);
	char why[160];
	struct recording *rec;

	if (!bcache_available() || !buf)
		goto out;
	bcache_reset(BCACHE_DEFAULT_BUFFERS);
	bcache_read(BLOCK, buf);
	uint64_t plain = least_cycles_per_read(buf);
	if (record_kernel_start("bcache", why, sizeof(why)))
		goto out;
	uint64_t recorded = least_cycles_per_read(buf);
	if (record_kernel_stop(&rec, why, sizeof(why)))
		goto out;
	bench_report("record.bcache.read_hit_unrecorded", plain, "cycles");
	bench_report("record.bcache.overhead_per_request", recorded - plain, "cycles");
	bench_report("record.bcache.records_dropped", rec->header[0].drops, "records");

	struct sim_policy_names names = { .name = { "lru", "sequential" } };
	struct sim_model model = { .hit_ns = 1, .miss_ns = 100 };
	struct sim_instance *inst = sim_instance_create(&rec->header[0], &names, why, sizeof(why));
	struct recording *out = inst ? rec_store_create("bench") : NULL;
	if (out) {
		struct sim_summary sum = { 0 };
		uint64_t c0 = arch_cycles();
		int err = sim_instance_replay(inst, rec, &model, out, &sum, why, sizeof(why));
		uint64_t c = arch_cycles() - c0;
		if (!err && sum.requests)
			bench_report("sim.kernel.replay_per_request", c / sum.requests, "cycles");
		rec_store_complete(out);
		rec_store_put(out);
		rec_store_delete(out->id);
	}
	if (inst)
		sim_instance_destroy(inst);
	unsigned id = rec->id;
	rec_store_put(rec);
	rec_store_delete(id);
out:
	kfree(buf);
}

#define YIELDS        500	/* a round's records (two a yield, 48 bytes each) fit a buffer */
#define SYNTH_THREADS 16
#define SYNTH_TICKS   2000
#define SYNTH_CPUS    4

static uint64_t least_cycles_per_yield(void)
{
	uint64_t best = UINT64_MAX;
	for (unsigned r = 0; r < ROUNDS; r++) {
		thread_sleep_ticks(ms_to_ticks(DRAIN_MS));	/* nothing dropped: all is measured */
		uint64_t c0 = arch_cycles();
		for (unsigned i = 0; i < YIELDS; i++)
			thread_yield();
		uint64_t c = (arch_cycles() - c0) / YIELDS;
		if (c < best)
			best = c;
	}
	return best;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A synthetic trace, as tools/bench_record.py writes for the host: each
 * thread alternates bursts of 0 to 3 ticks and sleeps of 1 to 6, from
 * xorshift with seed 1, one event of each thread at most per tick.
 */
struct synthetic {
	uint64_t seed, seq, tick, left[SYNTH_THREADS], wake[SYNTH_THREADS];
	unsigned i;
};

static bool synthetic_event(void *ctx, struct sched_event *e)
{
	struct synthetic *s = ctx;
	for (; s->tick < SYNTH_TICKS; s->tick++, s->i = 0)
		for (; s->i < SYNTH_THREADS; s->i++) {
			unsigned i = s->i;
			uint32_t kind = 0;
			if (!s->left[i] && s->wake[i] == s->tick) {
				kind = SCHED_EVENT_RUNNABLE;
				s->left[i] = 1 + xorshift(&s->seed) % 4;
			} else if (s->left[i]) {
				kind = --s->left[i] ? SCHED_EVENT_TICK : SCHED_EVENT_BLOCK;
				if (!s->left[i])
					s->wake[i] = s->tick + 1 + xorshift(&s->seed) % 6;
			}
			if (kind) {
				*e = (struct sched_event){ .seq = ++s->seq, .tick = s->tick,
							   .tid = 100 + i, .kind = kind,
							   .affinity = -1 };
				s->i++;
				return true;
			}
		}
	return false;
}

/*
 * Following the recording just made (its yields, and whatever else ran)
 * with the live round robin: cycles per recorded pick, the replay thread
 * included; every pick must agree, or the figure is not reported.
 */
static void follow_bench(struct recording *rec)
{
	char why[240];
	struct sched_instance *inst = sched_instance_follow(rec, "rr", why, sizeof(why));
	struct recording *out = inst ? rec_store_create("bench sched follow log") : NULL;
	if (out) {
		uint64_t c0 = arch_cycles();
		int err = sched_instance_replay(inst, out, why, sizeof(why));
		uint64_t c = arch_cycles() - c0;
		const struct sched_follow_summary *s = &inst->follow.sum;
		if (!err && s->picks && s->agree == s->picks)
			bench_report("sim.kernel.sched_follow_per_pick", c / s->picks, "cycles");
		rec_store_complete(out);
		rec_store_discard(out);
	}
	if (inst)
		sched_instance_destroy(inst);
}

BENCH(record_sched, 1)
{
	char why[160];
	struct recording *rec;

	uint64_t plain = least_cycles_per_yield();
	if (record_kernel_start("sched", why, sizeof(why)))
		return;
	uint64_t recorded = least_cycles_per_yield();
	if (record_kernel_stop(&rec, why, sizeof(why)))
		return;
	bench_report("record.sched.yield_unrecorded", plain, "cycles");
	bench_report("record.sched.overhead_per_event", (recorded - plain) / 2, "cycles");
	bench_report("record.sched.records_dropped", rec->header[0].drops, "records");
	follow_bench(rec);
	rec_store_discard(rec);

	static struct synthetic synth;
	synth = (struct synthetic){ .seed = 1 };
	struct recording *trace = sched_trace_make("bench sched", SYNTH_CPUS, synthetic_event, &synth);
	struct sched_instance *inst = trace ? sched_instance_create(trace, "rr", why, sizeof(why))
					    : NULL;
	struct recording *out = inst ? rec_store_create("bench sched log") : NULL;
	if (out) {
		uint64_t c0 = arch_cycles();
		int err = sched_instance_replay(inst, out, why, sizeof(why));
		uint64_t c = arch_cycles() - c0;
		if (!err && trace->stream[0].records && inst->sim.sum.picks) {
			bench_report("sim.kernel.sched_replay_per_event", c / trace->stream[0].records,
				     "cycles");
			bench_report("sim.kernel.sched_replay_per_pick", c / inst->sim.sum.picks,
				     "cycles");
		}
		rec_store_complete(out);
		rec_store_discard(out);
	}
	if (inst)
		sched_instance_destroy(inst);
	if (trace)
		rec_store_discard(trace);
}
