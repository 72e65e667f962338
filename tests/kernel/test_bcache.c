// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the block cache: exact counters for a short
 * sequence, concurrent readers with prefetches in flight and a reset in
 * the middle (data checked, invariants kept), nested transactions
 * through bcache_would_evict, and the API refusing callers that are not
 * at a bcache graft point. Policy comparisons against a model and the
 * misbehaving .graft files are in tests/integration/test_bcache.py.
 * Without a disk every test reports SKIPPED.
 */
#include <scion/ktest.h>
#include <scion/bcache.h>
#include <scion/blk_pattern.h>
#include <scion/blkdev.h>
#include <scion/sched.h>
#include <scion/graft.h>
#include <scion/thread.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <graft/test.h>
#include "graft_test.h"

#define NEED_CACHE(t) do { \
	if (!bcache_available()) \
		KT_SKIP((t), "no disk vda, so no block cache (boot QEMU with the virtio-blk test disk)"); \
} while (0)

#define READERS             4
#define READS_PER_READER    150
#define READER_RANGE        48
#define READER_BUFFERS      16
#define RESET_AFTER_READS   60
#define WORD_OUTER          4
#define WORD_INNER          1
#define WORD_ASKED          5
#define OUTER_MARK          44
#define INNER_MARK          11

static bool block_ok(uint64_t block, const uint8_t *data)
{
	for (unsigned s = 0; s < BCACHE_BLOCK_SECTORS; s++)
		if (!blk_pattern_check(block * BCACHE_BLOCK_SECTORS + s, data + s * BLK_SECTOR_SIZE, NULL))
			return false;
	return true;
}

/* The policy words, read through `bcache dump`'s "policy" line. */
struct words {
	uint64_t w[BCACHE_POLICY_WORDS];
	bool found;
};

static void capture_words(const char *line, void *arg)
{
	struct words *out = arg;
	if (strncmp(line, "policy ", 7))
		return;
	const char *p = line + 7;
	for (unsigned k = 0; k < BCACHE_POLICY_WORDS; k++) {
		char word[24];
		size_t n = 0;
		while (*p == ' ')
			p++;
		while (*p && *p != ' ' && n + 1 < sizeof(word))
			word[n++] = *p++;
		word[n] = '\0';
		parse_u64(word, &out->w[k], false);
	}
	out->found = true;
}

static struct words policy_words(void)
{
	struct words w = { 0 };
	bcache_dump(capture_words, &w);
	return w;
}

KTEST(bcache_counts_a_short_sequence, 1)
{
	NEED_CACHE(t);
	uint8_t *data = kmalloc(BCACHE_BLOCK_SIZE);
	struct bcache_stats s;
	char why[160];

	KT_ASSERT(t, data, "out of memory");
	KT_ASSERT(t, bcache_reset(4) == 0, "reset failed");
	/*
	 * 10 miss, 10 hit, 11 miss (sequential: prefetch 12), 12 hit (prefetched:
	 * prefetch 13), 13 hit (prefetch 14 evicts 10, the least recent), 300 miss
	 * (evicts 11). Least recent now: 12.
	 */
	static const uint64_t blocks[] = { 10, 10, 11, 12, 13, 300 };
	for (unsigned i = 0; i < ARRAY_SIZE(blocks); i++) {
		int err = bcache_read(blocks[i], data);
		bcache_settle();
		KT_ASSERT(t, err == 0, "read %llu: %s", (unsigned long long)blocks[i], errno_name(err));
		KT_ASSERT(t, block_ok(blocks[i], data), "block %llu has the wrong data",
			  (unsigned long long)blocks[i]);
	}
	bcache_get_stats(&s);
	KT_EXPECT(t, s.reads == 6 && s.hits == 3 && s.misses == 3, "reads %llu hits %llu misses %llu",
		  (unsigned long long)s.reads, (unsigned long long)s.hits, (unsigned long long)s.misses);
	KT_EXPECT(t, s.prefetches == 3 && s.prefetch_used == 2 && s.evictions == 2 && s.io_reads == 6,
		  "prefetches %llu used %llu evictions %llu disk reads %llu",
		  (unsigned long long)s.prefetches, (unsigned long long)s.prefetch_used,
		  (unsigned long long)s.evictions, (unsigned long long)s.io_reads);
	uint64_t victim_block = 0;
	KT_EXPECT(t, bcache_victim(&victim_block) >= 0 && victim_block == 12,
		  "LRU victim holds block %llu, not 12", (unsigned long long)victim_block);
	KT_EXPECT(t, bcache_read(bcache_disk_blocks(), data) == -EINVAL, "a block beyond the disk was read");
	KT_EXPECT(t, bcache_check(why, sizeof(why)), "%s", why);
	bcache_reset(BCACHE_DEFAULT_BUFFERS);
	kfree(data);
}

struct reader {
	uint64_t seed;
	unsigned done, bad, errors;
	bool wait_for_reset;		/* pause after RESET_AFTER_READS until the reset is done */
};

static bool reset_done;

static void reader_thread(void *arg)
{
	struct reader *r = arg;
	uint8_t *data = kmalloc(BCACHE_BLOCK_SIZE);

	if (!data) {
		r->errors++;
		return;
	}
	for (unsigned i = 0; i < READS_PER_READER; i++) {
		r->seed = r->seed * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t block = (r->seed >> 33) % READER_RANGE;
		if (bcache_read(block, data))
			r->errors++;
		else if (!block_ok(block, data))
			r->bad++;
		r->done++;
		/*
		 * One reader goes on only after the reset, so reads after it are
		 * certain however the threads are scheduled (slow under fbt
		 * everywhere); the others race the reset.
		 */
		while (r->wait_for_reset && r->done == RESET_AFTER_READS && !READ_ONCE(reset_done))
			thread_yield();
	}
	kfree(data);
}

KTEST(bcache_concurrent_readers_and_reset, 2)
{
	NEED_CACHE(t);
	struct reader readers[READERS];
	struct thread *threads[READERS];
	struct bcache_stats s;
	char why[160];

	KT_ASSERT(t, bcache_reset(READER_BUFFERS) == 0, "reset failed");
	WRITE_ONCE(reset_done, false);
	for (unsigned i = 0; i < READERS; i++) {
		readers[i] = (struct reader){ .seed = 77 + i, .wait_for_reset = i == 0 };
		threads[i] = thread_create("bcache-reader", reader_thread, &readers[i], -1);
		KT_ASSERT(t, threads[i], "cannot create reader %u", i);
	}
	/* A reset while the readers run (prefetches possibly in flight): it waits for them. */
	while (READ_ONCE(readers[0].done) < RESET_AFTER_READS && READ_ONCE(readers[0].errors) == 0)
		thread_yield();
	KT_EXPECT(t, bcache_reset(READER_BUFFERS) == 0, "reset during reads failed");
	WRITE_ONCE(reset_done, true);
	unsigned reads = 0;
	for (unsigned i = 0; i < READERS; i++) {
		thread_join(threads[i]);
		KT_EXPECT(t, readers[i].errors == 0 && readers[i].bad == 0,
			  "reader %u: %u errors, %u blocks with wrong data", i, readers[i].errors,
			  readers[i].bad);
		reads += readers[i].done;
	}
	bcache_settle();
	bcache_get_stats(&s);
	KT_EXPECT(t, reads == READERS * READS_PER_READER, "%u reads done", reads);
	KT_EXPECT(t, s.hits + s.misses == s.reads && s.reads > 0 && s.reads <= reads,
		  "since the reset: %llu reads, %llu hits, %llu misses", (unsigned long long)s.reads,
		  (unsigned long long)s.hits, (unsigned long long)s.misses);
	/*
	 * Every disk read is a miss, a prefetch or a re-read (the block left,
	 * evicted or reset, before its reader woke); a reader whose miss was
	 * counted before the reset may read once more after it: one per reader.
	 */
	uint64_t accounted = s.misses + s.prefetches + s.rereads;
	KT_EXPECT(t, s.io_reads >= accounted && s.io_reads <= accounted + READERS &&
		  s.io_errors == 0,
		  "%llu disk reads for %llu misses, %llu prefetches and %llu re-reads (%llu errors)",
		  (unsigned long long)s.io_reads, (unsigned long long)s.misses,
		  (unsigned long long)s.prefetches, (unsigned long long)s.rereads,
		  (unsigned long long)s.io_errors);
	KT_EXPECT(t, bcache_check(why, sizeof(why)), "%s", why);
	bcache_reset(BCACHE_DEFAULT_BUFFERS);
}

/* Nesting: a read-ahead graft asks the eviction policy, whose graft aborts. */
static unsigned inner_nesting_seen;

__used __noinline int bcache_test_evict_then_abort(void)
{
	inner_nesting_seen = graft_nesting();
	bcache_set_policy_word(WORD_INNER, INNER_MARK);
	graft_abort("inner gives up");
}

__used __noinline void bcache_test_readahead_asks(uint64_t block, uint64_t previous, bool hit)
{
	(void)previous;
	(void)hit;
	bcache_set_policy_word(WORD_OUTER, OUTER_MARK);
	int victim = bcache_would_evict();
	bcache_set_policy_word(WORD_ASKED, (uint64_t)(victim + 1));
	bcache_prefetch(block + 2);
}

KTEST(bcache_nested_abort_through_would_evict, 1)
{
	NEED_CACHE(t);
	uint8_t *data = kmalloc(BCACHE_BLOCK_SIZE);
	struct bcache_stats s;
	char why[160];

	KT_ASSERT(t, data, "out of memory");
	KT_ASSERT(t, bcache_reset(2) == 0, "reset failed");
	bcache_read(100, data);		/* buffer 0 */
	bcache_read(200, data);		/* buffer 1: the cache is full, block 100 least recent */
	bcache_settle();
	struct graft *outer = ktest_graft_install(t, "ra-asks", "bcache.readahead",
						  bcache_test_readahead_asks, 0);
	struct graft *inner = ktest_graft_install(t, "evict-aborts", "bcache.evict",
						  bcache_test_evict_then_abort, 0);
	KT_ASSERT(t, outer && inner, "no grafts");

	/*
	 * A hit on 200: the read-ahead graft sets word 4, asks bcache_would_evict
	 * -> the eviction graft runs nested (depth 2), sets word 1, aborts: only
	 * word 1 is undone, it is removed, LRU answers buffer 0; the outer graft
	 * records 0 + 1 in word 5, plans 202 and commits; prefetching 202 evicts
	 * buffer 0 through the (now default) policy.
	 */
	KT_ASSERT(t, bcache_read(200, data) == 0 && block_ok(200, data), "read of 200 failed");
	bcache_settle();
	struct words w = policy_words();
	KT_EXPECT(t, w.found, "no policy line in the dump");
	KT_EXPECT(t, inner_nesting_seen == 2, "inner graft ran at nesting %u, not 2", inner_nesting_seen);
	KT_EXPECT(t, w.w[WORD_INNER] == 0, "the inner abort left word %u = %llu", WORD_INNER,
		  (unsigned long long)w.w[WORD_INNER]);
	KT_EXPECT(t, w.w[WORD_OUTER] == OUTER_MARK && w.w[WORD_ASKED] == 1,
		  "outer's words %llu and %llu (want %u and 1)", (unsigned long long)w.w[WORD_OUTER],
		  (unsigned long long)w.w[WORD_ASKED], OUTER_MARK);
	KT_EXPECT(t, inner->aborts == 1 && outer->commits == 1 && outer->aborts == 0,
		  "inner aborts %llu, outer commits %llu aborts %llu", (unsigned long long)inner->aborts,
		  (unsigned long long)outer->commits, (unsigned long long)outer->aborts);
	KT_EXPECT(t, !graft_point_grafted("bcache.evict"), "the aborted eviction graft is still installed");
	bcache_get_stats(&s);
	KT_EXPECT(t, s.prefetches == 1 && s.evictions == 1, "prefetches %llu evictions %llu",
		  (unsigned long long)s.prefetches, (unsigned long long)s.evictions);
	KT_EXPECT(t, bcache_read(202, data) == 0 && block_ok(202, data), "prefetched 202 is wrong");
	KT_EXPECT(t, bcache_check(why, sizeof(why)), "%s", why);
	graft_remove(outer);
	graft_destroy_builtin(outer);
	graft_destroy_builtin(inner);
	bcache_reset(BCACHE_DEFAULT_BUFFERS);
	kfree(data);
}

__used __noinline long bcache_test_meddles(long a, long b)
{
	bcache_set_policy_word(2, (uint64_t)(a + b));
	return a * b;
}

KTEST(bcache_api_refuses_other_points, 1)
{
	NEED_CACHE(t);
	char reason[112];

	KT_ASSERT(t, bcache_reset(4) == 0, "reset failed");
	struct graft *g = ktest_graft_install(t, "meddles", "test.method", bcache_test_meddles, 0);
	KT_ASSERT(t, g, "no graft");
	KT_EXPECT(t, test_call_method(3, 4) == 7, "not the default's result after the abort");
	graft_last_abort(g, reason, sizeof(reason));
	KT_EXPECT(t, strstr(reason, "bcache_set_policy_word called outside bcache.evict and "
			    "bcache.readahead") != NULL, "abort reason '%s'", reason);
	struct words w = policy_words();
	KT_EXPECT(t, w.found && w.w[2] == 0, "policy word 2 is %llu", (unsigned long long)w.w[2]);
	/* Kernel code outside a transaction and without the lock is ignored, not obeyed. */
	bcache_set_policy_word(3, 9);
	w = policy_words();
	KT_EXPECT(t, w.w[3] == 0, "policy word 3 changed to %llu without the cache lock",
		  (unsigned long long)w.w[3]);
	graft_destroy_builtin(g);
	bcache_reset(BCACHE_DEFAULT_BUFFERS);
}
