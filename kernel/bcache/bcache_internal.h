/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The live block cache's state, shared by its files: the mechanism
 * (bcache.c over the portable bookkeeping of cache.c), the graft points
 * (points.c; the default policies in policy_default.c), the workload
 * (workload.c) and the shell command.
 *
 * One lock, the cache lock (bcache.wq.lock, a spinlock taken with
 * interrupts masked because I/O completes in interrupt context), guards
 * every field marked "lock". The policies' graft points are called with
 * it held, so grafts and the API they call see a state nothing else
 * changes under them. Lock order: cache lock -> the disk's queue lock
 * (blkdev_submit) -> graft point locks (an abort removing a graft);
 * cache lock -> the flush thread's queue lock (flush_wq.lock, taken to
 * kick it).
 */
#ifndef BCACHE_INTERNAL_H
#define BCACHE_INTERNAL_H

#include <scion/bcache.h>
#include <scion/blkdev.h>
#include <scion/wait.h>
#include "cache.h"

struct bcache_policy {
	graft_fn_bcache_evict *evict;		/* graft point bcache.evict */
	graft_fn_bcache_readahead *readahead;	/* graft point bcache.readahead */
	graft_fn_bcache_request *request;	/* graft point bcache.request (an event) */
	graft_fn_bcache_result *result;		/* graft point bcache.result (an event) */
};
extern struct bcache_policy bcache_policy;

/* The live cache: one instance of the bookkeeping, with data and a disk. */
struct bcache {
	struct waitq wq;		/* wq.lock is the cache lock; readers and writers wait
					   here for I/O */
	struct blkdev *disk;		/* set once (NULL: no cache) */
	struct bcache_cache cache;	/* lock */
	void *data[BCACHE_MAX_BUFFERS];	/* set once: BCACHE_BLOCK_SIZE bytes each */
	struct blk_request request[BCACHE_MAX_BUFFERS];	/* owned by the disk while LOADING
							   or writing */
	uint64_t dirtied_ns[BCACHE_MAX_BUFFERS];	/* lock: when each dirty buffer last
							   became dirty (clock_ns) */
	int *sync_status[BCACHE_MAX_BUFFERS];	/* lock: where a thread waiting for the
						   buffer's write-back wants its status
						   (1 until it ends); NULL: nobody */
	int write_error;		/* lock: the first write-back error not yet reported
					   by bcache_sync (0: none) */
	unsigned fail_writes;		/* lock: disk writes still to fail (bcache_fail_writes) */
	struct waitq flush_wq;		/* the flush thread sleeps here */
	bool flush_kicked;		/* flush_wq.lock: look at the dirty buffers now */
	bool flusher_started;		/* set once, atomically: the flush thread exists */
	uint64_t flush_age_ms;		/* atomic: bcache_set_flush_age */
	unsigned flush_share;		/* atomic: percent of buffers */
};
extern struct bcache bcache;

/*
 * Whether anything handles bcache.result (a recorder, a graft): the read
 * path times a request only then, so an unwatched read pays no clock.
 */
bool bcache_result_observed(void);

/* "evict=NAME readahead=NAME": the policies in force (graft names, or the defaults'). */
void bcache_policy_names(char *buf, size_t n);

#define RETRY_TICKS 1	/* sleep before retrying a request the disk queue had no room for */

/*
 * bcache.c, for the write path (bcache_write.c); each with the cache
 * lock held, dropped while asleep. bcache_sleep_for_disk: sleep for
 * buffer i's request (BCACHE_NO_BUFFER: for room), counted as a disk
 * wait, io:::wait-start/done around it. bcache_admit: a demand request's
 * buffer (bcache.c says what it waits for and returns).
 */
void bcache_sleep_for_disk(struct thread *self, int i, uint64_t timeout_ticks);
int bcache_admit(struct bcache_cache *c, struct thread *self, uint64_t block, unsigned flags,
		 struct bcache_result *result, int *i);
/* Write back every dirty buffer and wait for all (bcache_write.c). Cache lock held. */
void bcache_sync_locked(struct thread *self);

/* Whether the executing CPU holds the cache lock. */
bool bcache_locked_here(void);

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
	uint64_t write_percent;	/* accesses that are whole-block writes, evenly spread */
	bool sync;		/* those writes synchronous */
};

struct bcache_workload_result {
	uint64_t reads, writes, bad_blocks, first_bad_block, errors, cycles;
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
