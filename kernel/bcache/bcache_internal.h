/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The block cache's state, shared by its files: the mechanism
 * (bcache.c), the default policies and graft points (policy_lru.c), the
 * graft API (api.c), the workload (workload.c) and the shell command.
 *
 * One lock, the cache lock (bcache.wq.lock, a spinlock taken with
 * interrupts masked because I/O completes in interrupt context), guards
 * every field marked "lock". The policies' graft points are called with
 * it held, so grafts and the API they call see a state nothing else
 * changes under them. Lock order: cache lock -> the disk's queue lock
 * (blkdev_submit) -> graft point locks (an abort removing a graft).
 */
#ifndef BCACHE_INTERNAL_H
#define BCACHE_INTERNAL_H

#include <scion/bcache.h>
#include <scion/blkdev.h>
#include <scion/wait.h>
#include <scion/list.h>

#define BCACHE_HASH_BUCKETS 512	/* a power of two, about twice the most buffers */
#define BCACHE_NO_BUFFER    (-1)

enum bcache_buffer_state {
	BUFFER_FREE,
	BUFFER_LOADING,		/* a disk read into it is in flight */
	BUFFER_VALID,
};

struct bcache_buffer {
	uint64_t block;			/* lock: BCACHE_NO_BLOCK when free */
	uint8_t state;			/* lock: enum bcache_buffer_state */
	bool referenced;		/* lock: set by demand accesses */
	bool prefetched;		/* lock: prefetched, not yet read on demand */
	int16_t hash_next;		/* lock: next buffer in its hash chain */
	uint32_t generation;		/* lock: + 1 whenever its block leaves */
	uint32_t failed_generation;	/* lock: the generation whose disk read failed */
	uint64_t accesses;		/* lock: demand accesses since insertion */
	uint64_t inserted, last_access;	/* lock: access clock values */
	uint64_t tag;			/* lock: the policy's */
	struct list_node lru;		/* lock: on bcache.lru while occupied */
	void *data;			/* set once: BCACHE_BLOCK_SIZE bytes */
	struct blk_request request;	/* owned by the disk while LOADING */
};

struct bcache_policy {
	graft_fn_bcache_evict *evict;		/* graft point bcache.evict */
	graft_fn_bcache_readahead *readahead;	/* graft point bcache.readahead */
};
extern struct bcache_policy bcache_policy;

struct bcache {
	struct waitq wq;		/* wq.lock is the cache lock; readers wait here for I/O */
	struct blkdev *disk;		/* set once (NULL: no cache) */
	uint64_t blocks;		/* set once: whole blocks on the disk */
	unsigned nbuffers;		/* lock: buffers in use, 1 .. BCACHE_MAX_BUFFERS */
	unsigned occupied;		/* lock: buffers holding a block */
	unsigned in_flight;		/* lock: disk reads not yet completed */
	uint64_t clock;			/* lock: the access clock */
	uint64_t previous;		/* lock: block of the last demand read */
	uint64_t policy[BCACHE_POLICY_WORDS];	/* lock */
	int16_t hash[BCACHE_HASH_BUCKETS];	/* lock: first buffer of each chain */
	struct list_node lru;		/* lock: occupied buffers, least recently used first */
	bool planning;			/* lock: bcache.readahead is running */
	unsigned nplan;			/* lock: blocks in plan */
	uint64_t plan[BCACHE_PREFETCH_MAX];	/* lock */
	struct bcache_stats stats;	/* lock */
	struct bcache_buffer buffer[BCACHE_MAX_BUFFERS];
};
extern struct bcache bcache;

/* Whether the executing CPU holds the cache lock. */
bool bcache_locked_here(void);

/* Whether buffer i (below nbuffers) may be evicted now. Cache lock held. */
static inline bool bcache_evictable(unsigned i)
{
	return i < bcache.nbuffers && bcache.buffer[i].state == BUFFER_VALID;
}

/* The LRU buffer that may be evicted, or BCACHE_NO_BUFFER. Cache lock held. */
int bcache_lru_evictable(void);

/*
 * bcache_ask_evict - the eviction policy's choice when every buffer is
 * occupied and one is evictable, else BCACHE_NO_BUFFER. Cache lock held.
 */
int bcache_ask_evict(void);

/* Workload patterns for `bcache run` (workload.c). */
enum bcache_pattern {
	PATTERN_SEQ,		/* start, start + 1, ... */
	PATTERN_STRIDE,		/* start, start + stride, ... */
	PATTERN_RANDOM,		/* start + xorshift64(seed) % range */
	PATTERN_LOOP,		/* rounds passes over start .. start + size - 1 */
};

struct bcache_workload {
	enum bcache_pattern pattern;
	uint64_t start, count, stride, range, seed, size, rounds;
	bool overlap;		/* false: wait for prefetches after each read */
};

struct bcache_workload_result {
	uint64_t reads, bad_blocks, first_bad_block, errors, cycles;
	struct bcache_stats delta;
};

/* Parse "pattern key=value ..." into w; err gets one line on failure. */
int bcache_workload_parse(int argc, char **argv, struct bcache_workload *w,
			  char *err, size_t errlen);
/* "seq", "stride", "random" or "loop". */
const char *bcache_pattern_name(enum bcache_pattern p);
/* Run w, checking every block's data against the disk's pattern. Thread. */
int bcache_workload_run(const struct bcache_workload *w, struct bcache_workload_result *r);

#endif
