// SPDX-License-Identifier: BSD-2-Clause
/*
 * Benchmarks of the block layer on the virtio-blk test disk (vda):
 * guest instructions (under `make bench`, QEMU -icount shift=0) to submit
 * a one-sector read, and for the whole round trip from blkdev_submit to
 * the done callback in the completion interrupt, the caller spinning
 * meanwhile (no sleep, so no idle-time warps of the icount clock).
 *
 * The submit figure is the minimum over the rounds: in other rounds the
 * completion interrupt lands inside the timed span (QEMU often finishes
 * the read at the notify). The round trip includes however long QEMU
 * takes to do the read, which varies with the host: its minimum is the
 * guest's own path (submit, interrupt, completion, done), its median a
 * typical round trip. Without a disk nothing is reported.
 *
 * The io provider's cost: blk.read_1sector.submit and round_trip_min
 * are with its probes disabled (each site a no-op); the same figures
 * _io_probes_enabled with an empty consumer on io:::start and io:::done.
 */
#include <scion/bench.h>
#include <scion/blkdev.h>
#include <scion/mm.h>
#include <scion/sort.h>
#include <scion/printk.h>
#include <arch/cpu.h>
#include "probe_test.h"

#define BLK_BENCH_ROUNDS 200
#define BLK_BENCH_WARMUP 8

struct round_trip {
	uint64_t completed_at;		/* arch_cycles() in done */
	bool done;
};

static void note_completion(struct blk_request *r)
{
	struct round_trip *rt = r->ctx;
	rt->completed_at = arch_cycles();
	__atomic_store_n(&rt->done, true, __ATOMIC_RELEASE);
}

static void empty_handler(const struct probe_hit *hit, void *arg)
{
	(void)hit;
	(void)arg;
}

/*
 * BLK_BENCH_ROUNDS one-sector reads of d into buf (after the warm-up):
 * the least submit cycles into *min_submit, the sorted round trips
 * into round_trips; the number measured.
 */
static unsigned measure(struct blkdev *d, void *buf, uint64_t *round_trips, uint64_t *min_submit)
{
	unsigned measured = 0;

	*min_submit = UINT64_MAX;
	for (unsigned i = 0; i < BLK_BENCH_WARMUP + BLK_BENCH_ROUNDS; i++) {
		struct round_trip rt = { 0, false };
		struct blk_request r = {
			.sector = i % blkdev_sectors(d), .count = 1, .buf = buf,
			.done = note_completion, .ctx = &rt,
		};
		uint64_t c0 = arch_cycles();
		int err = blkdev_submit(d, &r);
		uint64_t c1 = arch_cycles();
		if (err)
			break;
		while (!__atomic_load_n(&rt.done, __ATOMIC_ACQUIRE))
			cpu_relax();
		if (r.status || i < BLK_BENCH_WARMUP)
			continue;
		*min_submit = MIN(*min_submit, c1 - c0);
		round_trips[measured++] = rt.completed_at - c0;
	}
	sort_u64(round_trips, measured);
	return measured;
}

/* The same with an empty consumer on io:::start and io:::done (the submit and completion sites). */
static void measure_io_probes(struct blkdev *d, void *buf, uint64_t *round_trips)
{
	static const char *const specs[2] = { "io:kernel:blkdev_submit:start",
					      "io:kernel:blkdev_complete:done" };
	struct probe_consumer c[2] = {
		{ .action = PROBE_HANDLER, .handler = empty_handler },
		{ .action = PROBE_HANDLER, .handler = empty_handler },
	};
	unsigned enabled = 0;
	uint64_t min_submit;

	for (; enabled < 2; enabled++) {
		struct probe *p = probe_named(specs[enabled]);
		if (!p || probe_enable(p, &c[enabled])) {
			printk("bench blk_read: cannot enable %s\n", specs[enabled]);
			break;
		}
	}
	unsigned measured = enabled == 2 ? measure(d, buf, round_trips, &min_submit) : 0;
	while (enabled)
		probe_disable(&c[--enabled]);
	if (measured) {
		bench_report("blk.read_1sector.submit_io_probes_enabled", min_submit, "cycles");
		bench_report("blk.read_1sector.round_trip_min_io_probes_enabled", round_trips[0],
			     "cycles");
	}
}

BENCH(blk_read, 1)
{
	struct blkdev *d = blkdev_find("vda");
	if (!d)
		return;
	void *buf = kmalloc(BLK_SECTOR_SIZE);
	uint64_t *round_trips = kmalloc(BLK_BENCH_ROUNDS * sizeof(uint64_t));
	uint64_t min_submit = UINT64_MAX;
	unsigned measured = buf && round_trips ? measure(d, buf, round_trips, &min_submit) : 0;

	if (measured) {
		bench_report("blk.read_1sector.submit", min_submit, "cycles");
		bench_report("blk.read_1sector.round_trip_min", round_trips[0], "cycles");
		bench_report("blk.read_1sector.round_trip_median", round_trips[measured / 2], "cycles");
		measure_io_probes(d, buf, round_trips);
	}
	kfree(round_trips);
	kfree(buf);
}
