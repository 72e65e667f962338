// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the optimum of a block cache trace (bcache_optimal.h)
 * as `sim run` uses it: Belady's example replayed in a simulation
 * instance gives MIN's hand-counted figures (9 faults in 20 references
 * with 3 frames; the oracle read-ahead misses only the first), and a
 * trace too large for the next-request table the kernel's allocator can
 * give is refused with one line, taking nothing (the host has the memory).
 */
#include <scion/ktest.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/spinlock.h>
#include <scion/errno.h>
#include "../../kernel/insitu/insitu_internal.h"

/* Belady's reference string, blocks spaced so that no read is sequential. */
static const uint64_t belady[] = { 70, 0, 10, 20, 0, 30, 0, 40, 20, 30,
				   0, 30, 20, 10, 20, 0, 10, 70, 0, 10 };
#define BELADY_FRAMES 3

/* A trace made on the fly: requests seq 1..n of block (seq * 7) % 512, or of blocks[]. */
struct synthetic {
	uint64_t n, given;
	const uint64_t *blocks;
	struct rec_bcache_request r;
};

static const struct rec_head *next_synthetic(void *ctx)
{
	struct synthetic *s = ctx;
	if (s->given == s->n)
		return NULL;
	s->given++;
	s->r = (struct rec_bcache_request){
		.head = { .size = sizeof(s->r), .type = REC_BCACHE_REQUEST },
		.seq = s->given, .time_ns = s->given * 1000, .tid = 5,
		.block = s->blocks ? s->blocks[s->given - 1] : s->given * 7 % 512,
	};
	return &s->r.head;
}

static struct rec_file_header trace_header(unsigned buffers)
{
	struct rec_file_header th = { .stream = REC_STREAM_TRACE };
	memcpy(th.module, "bcache", 6);
	th.config[REC_BCACHE_CONFIG_BUFFERS] = buffers;
	th.config[REC_BCACHE_CONFIG_BLOCKS] = 8192;
	return th;
}

static int count_emit(void *ctx, const struct rec_head *rec)
{
	(void)ctx;
	(void)rec;
	return 0;
}

/* Replay Belady's string with the policies named; the summary in *sum. */
static int replay_belady(const char *evict, const char *readahead, struct sim_summary *sum,
			 char *why, size_t whylen)
{
	struct rec_file_header th = trace_header(BELADY_FRAMES);
	struct synthetic s = { .n = ARRAY_SIZE(belady), .blocks = belady };
	struct sim_oracle oracle;
	int err = sim_oracle_build(&oracle, &th, (struct sim_reader){ next_synthetic, &s }, s.n,
				   why, whylen);
	if (err)
		return err;
	struct sim_policy_names names;
	strlcpy(names.name[SIM_EVICT], evict, sizeof(names.name[SIM_EVICT]));
	strlcpy(names.name[SIM_READAHEAD], readahead, sizeof(names.name[SIM_READAHEAD]));
	struct sim_instance *inst = sim_instance_create(&th, &names, why, whylen);
	if (!inst) {
		sim_oracle_free(&oracle);
		return -ENOMEM;
	}
	inst->oracle = &oracle;
	const struct sim_model model = { .hit_ns = 1, .miss_ns = 100 };
	*sum = (struct sim_summary){ 0 };
	s.given = 0;
	for (const struct rec_head *h; !err && (h = next_synthetic(&s));) {
		irqflags_t f = spin_lock_irqsave(&inst->lock);	/* the instance current here */
		err = sim_replay_one(&inst->cache, (const void *)h, &model, count_emit, NULL, sum);
		spin_unlock_irqrestore(&inst->lock, f);
	}
	sim_instance_destroy(inst);
	sim_oracle_free(&oracle);
	return err;
}

KTEST(sim_optimal_belady, 1)
{
	char why[200] = "";
	struct sim_summary sum;

	KT_ASSERT(t, !replay_belady("min", "sequential", &sum, why, sizeof(why)), "%s", why);
	KT_EXPECT(t, sum.hits == 11 && sum.misses == 9, "MIN: %llu hits, %llu misses; 11 and 9",
		  (unsigned long long)sum.hits, (unsigned long long)sum.misses);
	KT_ASSERT(t, !replay_belady("lru", "sequential", &sum, why, sizeof(why)), "%s", why);
	KT_EXPECT(t, sum.misses == 12, "LRU: %llu misses; 12", (unsigned long long)sum.misses);
	KT_ASSERT(t, !replay_belady("min", "oracle", &sum, why, sizeof(why)), "%s", why);
	KT_EXPECT(t, sum.hits == 19 && sum.disk_reads == 9,
		  "optimal: %llu hits, %llu disk reads; 19 and MIN's 9",
		  (unsigned long long)sum.hits, (unsigned long long)sum.disk_reads);
}

KTEST(sim_optimal_too_large, 1)
{
	/* 8 bytes a request in the largest array: twice what one kmalloc gives, whatever the page. */
	struct rec_file_header th = trace_header(16);
	struct synthetic s = { .n = 2 * ((PAGE_SIZE << PMM_MAX_ORDER) / sizeof(uint64_t)) };
	struct sim_oracle oracle;
	char why[200] = "", want[96];

	int err = sim_oracle_build(&oracle, &th, (struct sim_reader){ next_synthetic, &s }, s.n,
				   why, sizeof(why));
	KT_EXPECT(t, err == -ENOMEM, "built a table of %llu requests (%d)",
		  (unsigned long long)s.n, err);
	snprintf(want, sizeof(want), "%llu requests are too many for the optimum's next-request table",
		 (unsigned long long)s.n);
	KT_EXPECT(t, strstr(why, want) && !strchr(why, '\n'), "why: %s", why);
	KT_EXPECT(t, !oracle.seq && !oracle.block && !oracle.next && !oracle.id && !oracle.n,
		  "a refused table keeps memory");
	sim_oracle_free(&oracle);
}
