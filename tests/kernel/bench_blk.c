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
 */
#include <scion/bench.h>
#include <scion/blkdev.h>
#include <scion/mm.h>
#include <scion/sort.h>
#include <arch/cpu.h>

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

BENCH(blk_read, 1)
{
	struct blkdev *d = blkdev_find("vda");
	if (!d)
		return;
	void *buf = kmalloc(BLK_SECTOR_SIZE);
	uint64_t *round_trips = kmalloc(BLK_BENCH_ROUNDS * sizeof(uint64_t));
	uint64_t min_submit = UINT64_MAX;
	unsigned measured = 0;

	for (unsigned i = 0; buf && round_trips && i < BLK_BENCH_WARMUP + BLK_BENCH_ROUNDS; i++) {
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
		min_submit = MIN(min_submit, c1 - c0);
		round_trips[measured++] = rt.completed_at - c0;
	}
	if (measured) {
		sort_u64(round_trips, measured);
		bench_report("blk.read_1sector.submit", min_submit, "cycles");
		bench_report("blk.read_1sector.round_trip_min", round_trips[0], "cycles");
		bench_report("blk.read_1sector.round_trip_median", round_trips[measured / 2], "cycles");
	}
	kfree(round_trips);
	kfree(buf);
}
