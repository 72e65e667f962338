// SPDX-License-Identifier: BSD-2-Clause
/*
 * Benchmarks of self-monitoring: what recording the block cache adds to
 * one demand read (the two recording grafts at bcache.request and
 * bcache.result, each in its transaction, writing a trace and a log
 * record into the per-CPU buffers), and how fast a simulation instance
 * replays the recording in the kernel. Under `make bench` cycles are
 * guest instructions. Reads hit one block, so the disk's latency is not
 * in the figures; the replay is of the reads the recording holds. The
 * rounds are spaced so that the recorder thread empties the buffers
 * between them: a dropped record would cost less than a written one.
 */
#include <scion/bench.h>
#include <scion/bcache.h>
#include <scion/record.h>
#include <scion/mm.h>
#include <scion/sched.h>
#include <scion/clock.h>
#include <arch/cpu.h>
#include "../../kernel/sim/sim_internal.h"

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
