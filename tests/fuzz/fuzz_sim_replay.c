// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: a block cache trace of arbitrary records replayed by
 * the simulation code the kernel and the host share (kernel/insitu/bcache_replay.c
 * over kernel/bcache/cache.c, default policies). The first two bytes
 * pick the configuration (1 to 64 buffers, 1 to 4096 blocks); the rest is
 * the trace's body. Every record is walked within bounds or refused;
 * whatever the replay accepts leaves an instance whose invariants hold,
 * with one log record per request, hits + misses = requests and reads +
 * writes = requests (a request with BCACHE_REQ_WRITE is a write). The
 * transaction services are replay_env.c's.
 */
#include <string.h>
#include "fuzz.h"
#include "replay_env.h"
#include "insitu/bcache_replay.h"

static uint64_t logged;

static int emit(void *ctx, const struct rec_head *rec)
{
	(void)ctx;
	FUZZ_ASSERT(rec->type == REC_BCACHE_RESULT && rec->size % 8 == 0, "bad log record");
	logged++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bcache_cache c;
	static graft_fn_bcache_evict *evict = bcache_default_evict;
	static graft_fn_bcache_readahead *readahead = bcache_default_readahead;
	struct rec_file_header h = { .magic = REC_MAGIC, .version = REC_VERSION,
				     .stream = REC_STREAM_TRACE, .header_bytes = sizeof(h),
				     .module = "bcache" };
	char why[200];

	if (size < 2)
		return 0;
	h.config[REC_BCACHE_CONFIG_BUFFERS] = 1 + data[0] % 64;
	h.config[REC_BCACHE_CONFIG_BLOCKS] = 1 + (uint64_t)data[1] * 16;
	FUZZ_ASSERT(!sim_check_header(&h, REC_STREAM_TRACE, why, sizeof(why)), "%s", why);
	/* Records are read in place: copy the body to 8-byte alignment, as a file read is. */
	uint64_t *body = malloc(size + 8);
	memcpy(body, data + 2, size - 2);
	cache_init(&c, (unsigned)h.config[REC_BCACHE_CONFIG_BUFFERS],
		   h.config[REC_BCACHE_CONFIG_BLOCKS]);
	c.evict = &evict;
	c.readahead = &readahead;
	c.start_io = sim_start_io;
	struct fuzz_walk w = { (const uint8_t *)body, size - 2, 0, NULL };
	struct sim_model model = { 1, 100 };
	struct sim_summary sum = { 0 };
	logged = 0;
	int err = sim_replay(&c, &h, (struct sim_reader){ fuzz_walk_next, &w }, &model, emit, NULL,
			     &sum, why, sizeof(why));
	FUZZ_ASSERT(w.offset <= w.size, "walked past the end");
	FUZZ_ASSERT(cache_check(&c, why, sizeof(why)), "instance broken: %s", why);
	FUZZ_ASSERT(logged == sum.requests && sum.hits + sum.misses == sum.requests &&
		    c.stats.reads + c.stats.writes == sum.requests,
		    "%llu logged, %llu requests, %llu hits, %llu misses, %llu reads, %llu writes",
		    (unsigned long long)logged, (unsigned long long)sum.requests,
		    (unsigned long long)sum.hits, (unsigned long long)sum.misses,
		    (unsigned long long)c.stats.reads, (unsigned long long)c.stats.writes);
	FUZZ_ASSERT(err == 0 || err == -22, "unexpected error %d", err);
	free(body);
	return 0;
}
