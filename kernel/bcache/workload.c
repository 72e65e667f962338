// SPDX-License-Identifier: BSD-2-Clause
/*
 * Built-in workloads for comparing block cache policies (`bcache run`):
 * a pattern of demand reads, each block's data checked against the
 * disk's test pattern, reported as the change of the cache's counters.
 * With write=PERCENT that share of the accesses (evenly spread: access k
 * is a write when floor((k + 1) * PERCENT / 100) passes floor(k *
 * PERCENT / 100)) are whole-block writes of the block's own test
 * pattern, synchronous with sync=1: the disk's data stays the pattern,
 * so the reads' checks still hold, while the cache sees writes.
 *
 * The sequence of blocks is a pure function of the parameters (the
 * random pattern is xorshift64 from the seed), so a test can compute the
 * expected hits and misses on its own. So that the counts depend only on
 * the policies and not on disk timing, a run waits for the prefetches
 * to land after every read unless asked to overlap them (overlap=1).
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/blk_pattern.h>
#include <arch/cpu.h>
#include "bcache_internal.h"

static const char *const pattern_names[] = {
	[PATTERN_SEQ] = "seq", [PATTERN_STRIDE] = "stride",
	[PATTERN_RANDOM] = "random", [PATTERN_LOOP] = "loop",
};

#define DEFAULT_COUNT   100
#define DEFAULT_STRIDE  2
#define DEFAULT_SIZE    16
#define DEFAULT_ROUNDS  4
#define MAX_COUNT       1000000

static uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

int bcache_workload_parse(int argc, char **argv, struct bcache_workload *w,
			  char *err, size_t errlen)
{
	*w = (struct bcache_workload){
		.count = DEFAULT_COUNT, .stride = DEFAULT_STRIDE, .range = bcache.cache.blocks,
		.seed = 1, .size = DEFAULT_SIZE, .rounds = DEFAULT_ROUNDS,
	};
	if (argc < 1) {
		snprintf(err, errlen, "name a pattern: seq, stride, random or loop");
		return -EINVAL;
	}
	unsigned p = 0;
	while (p < ARRAY_SIZE(pattern_names) && strcmp(argv[0], pattern_names[p]))
		p++;
	if (p == ARRAY_SIZE(pattern_names)) {
		snprintf(err, errlen, "unknown pattern '%s' (seq, stride, random, loop)", argv[0]);
		return -EINVAL;
	}
	w->pattern = (enum bcache_pattern)p;
	bool count_given = false;
	for (int a = 1; a < argc; a++) {
		static const char *const keys[] = { "start", "n", "stride", "range", "seed",
						    "size", "rounds", "overlap", "write", "sync" };
		uint64_t sync = 0, overlap = 0;
		uint64_t *fields[] = { &w->start, &w->count, &w->stride, &w->range, &w->seed,
				       &w->size, &w->rounds, &overlap, &w->write_percent, &sync };
		char *eq = strchr(argv[a], '=');
		unsigned k = 0;
		uint64_t v;
		if (eq)
			*eq = '\0';
		while (eq && k < ARRAY_SIZE(keys) && strcmp(argv[a], keys[k]))
			k++;
		if (!eq || k == ARRAY_SIZE(keys) || parse_u64(eq + 1, &v, false)) {
			if (eq)
				*eq = '=';
			snprintf(err, errlen, "'%s': give key=number with key one of start n stride "
				 "range seed size rounds overlap write sync", argv[a]);
			return -EINVAL;
		}
		*fields[k] = v;
		if (k == 7)
			w->overlap = v != 0;
		if (k == 9)
			w->sync = v != 0;
		count_given |= k == 1;
	}
	if (w->pattern == PATTERN_LOOP && !count_given)
		w->count = w->size * w->rounds;
	if (w->start >= bcache.cache.blocks || w->range == 0 || w->range > bcache.cache.blocks ||
	    w->size == 0 || w->count > MAX_COUNT || w->size > bcache.cache.blocks ||
	    w->write_percent > 100) {
		snprintf(err, errlen, "start must be below %llu, range and size 1..%llu, n at most %u, "
			 "write 0..100 (percent)", (unsigned long long)bcache.cache.blocks,
			 (unsigned long long)bcache.cache.blocks, MAX_COUNT);
		return -ERANGE;
	}
	return 0;
}

/* The k-th block of w (state: the random pattern's generator). */
static uint64_t workload_block(const struct bcache_workload *w, uint64_t k, uint64_t *state)
{
	uint64_t offset;

	switch (w->pattern) {
	case PATTERN_SEQ:
		offset = k;
		break;
	case PATTERN_STRIDE:
		offset = k * w->stride;
		break;
	case PATTERN_RANDOM:
		offset = xorshift64(state) % w->range;
		break;
	default:
		offset = k % w->size;
		break;
	}
	return (w->start + offset) % bcache.cache.blocks;
}

static void stats_delta(const struct bcache_stats *before, const struct bcache_stats *after,
			struct bcache_stats *d)
{
	const uint64_t *b = (const uint64_t *)before, *a = (const uint64_t *)after;
	uint64_t *out = (uint64_t *)d;
	for (size_t i = 0; i < sizeof(*d) / sizeof(uint64_t); i++)
		out[i] = a[i] - b[i];
}

int bcache_workload_run(const struct bcache_workload *w, struct bcache_workload_result *r)
{
	struct bcache_stats before, after;
	uint64_t state = w->seed ? w->seed : 1;
	uint8_t *data = kmalloc(BCACHE_BLOCK_SIZE);

	if (!data)
		return -ENOMEM;
	*r = (struct bcache_workload_result){ .first_bad_block = BCACHE_NO_BLOCK };
	bcache_settle();
	bcache_get_stats(&before);
	uint64_t start = arch_cycles();
	for (uint64_t k = 0; k < w->count; k++) {
		uint64_t block = workload_block(w, k, &state);
		if ((k + 1) * w->write_percent / 100 != k * w->write_percent / 100) {
			for (unsigned s = 0; s < BCACHE_BLOCK_SECTORS; s++)
				blk_pattern_fill(block * BCACHE_BLOCK_SECTORS + s,
						 data + s * BLK_SECTOR_SIZE);
			r->writes++;
			if (bcache_write_bytes(block, 0, data, BCACHE_BLOCK_SIZE, w->sync))
				r->errors++;
			if (!w->overlap)
				bcache_settle();
			continue;
		}
		int err = bcache_read(block, data);
		r->reads++;
		if (err) {
			r->errors++;
			continue;
		}
		for (unsigned s = 0; s < BCACHE_BLOCK_SECTORS; s++) {
			if (!blk_pattern_check(block * BCACHE_BLOCK_SECTORS + s,
					       data + s * BLK_SECTOR_SIZE, NULL)) {
				if (!r->bad_blocks++)
					r->first_bad_block = block;
				break;
			}
		}
		if (!w->overlap)
			bcache_settle();
	}
	bcache_settle();
	r->cycles = arch_cycles() - start;
	bcache_get_stats(&after);
	stats_delta(&before, &after, &r->delta);
	kfree(data);
	return 0;
}

const char *bcache_pattern_name(enum bcache_pattern p)
{
	return pattern_names[p];
}
