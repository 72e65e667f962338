// SPDX-License-Identifier: BSD-2-Clause
/*
 * Benchmarks of the block cache: a demand read that hits, a 4 KiB write
 * of a cached block (left dirty: the write-back is not in the figure;
 * the data written is the block's own, so the disk does not change),
 * one that misses (a disk round trip), and the eviction decision over a full
 * cache of BCACHE_DEFAULT_BUFFERS buffers made by the default LRU and by
 * the same policy written as a graft against the API (its transaction
 * and API calls included). Under `make bench` cycles are guest
 * instructions. A miss sleeps until its read completes; a thread that
 * spins and yields keeps the CPU busy meanwhile, so that the icount
 * clock does not warp across idle time: the minimum over the misses is
 * the guest's own path, the median a typical round trip (as in
 * bench_blk.c). Without a disk nothing is reported.
 */
#include <scion/bench.h>
#include <scion/bcache.h>
#include <scion/graft.h>
#include <scion/mm.h>
#include <scion/sort.h>
#include <scion/sched.h>
#include <scion/thread.h>
#include <scion/cpu.h>
#include <arch/cpu.h>

#define HIT_CALLS     200
#define MISS_READS    100
#define VICTIM_CALLS  50
#define ROUNDS        5
#define HOT_BLOCK     5
#define MISS_FIRST    1000
#define MISS_STRIDE   2	/* not sequential: no read-ahead */

/* LRU through the graft API: what a policy graft pays for the same decision. */
__used __noinline int bench_bcache_lru_graft(void)
{
	unsigned n = bcache_buffers();
	uint64_t best = UINT64_MAX;
	int victim = -1;

	for (unsigned i = 0; i < n; i++) {
		if (!bcache_buffer_evictable(i))
			continue;
		uint64_t last = bcache_buffer_last_access(i);
		if (last < best) {
			best = last;
			victim = (int)i;
		}
	}
	return victim;
}

/* Least cycles per call of fn over ROUNDS rounds of calls calls. */
static uint64_t least_per_call(void (*fn)(unsigned round), unsigned calls)
{
	uint64_t best = UINT64_MAX;
	for (unsigned r = 0; r < ROUNDS; r++) {
		uint64_t c0 = arch_cycles();
		fn(r);
		uint64_t c = (arch_cycles() - c0) / calls;
		if (c < best)
			best = c;
	}
	return best;
}

static void *block_buffer;

static void hits(unsigned round)
{
	(void)round;
	for (unsigned i = 0; i < HIT_CALLS; i++)
		bcache_read(HOT_BLOCK, block_buffer);
}

static volatile bool spinner_stop;

static void spinner(void *arg)
{
	(void)arg;
	while (!spinner_stop) {
		cpu_relax();
		thread_yield();
	}
}

/* Cycles of MISS_READS misses, one by one, sorted, into out. */
static unsigned measure_misses(uint64_t *out)
{
	unsigned n = 0;
	spinner_stop = false;
	struct thread *spin = thread_create("bench-spinner", spinner, NULL, (int)this_cpu_index());
	if (!spin)
		return 0;
	for (unsigned i = 0; i < MISS_READS; i++) {
		uint64_t c0 = arch_cycles();
		int err = bcache_read(MISS_FIRST + i * MISS_STRIDE, block_buffer);
		uint64_t c = arch_cycles() - c0;
		if (!err)
			out[n++] = c;
	}
	spinner_stop = true;
	thread_join(spin);
	sort_u64(out, n);
	return n;
}

static void write_hits(unsigned round)
{
	(void)round;
	for (unsigned i = 0; i < HIT_CALLS; i++)
		bcache_write_bytes(HOT_BLOCK, 0, block_buffer, BCACHE_BLOCK_SIZE, false);
}

static void victims(unsigned round)
{
	uint64_t block;
	(void)round;
	for (unsigned i = 0; i < VICTIM_CALLS; i++)
		bcache_victim(&block);
}

BENCH(bcache, 1)
{
	if (!bcache_available() || !(block_buffer = kmalloc(BCACHE_BLOCK_SIZE)))
		return;
	bcache_reset(BCACHE_MAX_BUFFERS);
	bcache_read(HOT_BLOCK, block_buffer);
	bench_report("bcache.read.hit", least_per_call(hits, HIT_CALLS), "cycles");
	bench_report("bcache.write.hit_4k", least_per_call(write_hits, HIT_CALLS), "cycles");
	bcache_sync();
	uint64_t *miss_cycles = kmalloc(MISS_READS * sizeof(uint64_t));
	unsigned n = miss_cycles ? measure_misses(miss_cycles) : 0;
	if (n) {
		bench_report("bcache.read.miss_min", miss_cycles[0], "cycles");
		bench_report("bcache.read.miss_median", miss_cycles[n / 2], "cycles");
	}
	kfree(miss_cycles);

	bcache_reset(BCACHE_DEFAULT_BUFFERS);
	for (unsigned i = 0; i < BCACHE_DEFAULT_BUFFERS; i++)
		bcache_read(MISS_FIRST + i * MISS_STRIDE, block_buffer);
	bench_report("bcache.evict.default_lru", least_per_call(victims, VICTIM_CALLS), "cycles");
	struct graft *g = graft_create_builtin("bench-lru", "bcache.evict", bench_bcache_lru_graft);
	char err[96];
	if (g && !graft_install(g, 0, err, sizeof(err))) {
		bench_report("bcache.evict.lru_graft_txn", least_per_call(victims, VICTIM_CALLS),
			     "cycles");
		graft_remove(g);
	}
	if (g)
		graft_destroy_builtin(g);
	bcache_reset(BCACHE_DEFAULT_BUFFERS);
	kfree(block_buffer);
}
