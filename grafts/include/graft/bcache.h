/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Graft points and API of the block cache (kernel/bcache/).
 *
 * The cache holds 4 KiB blocks of the disk vda in a fixed number of
 * buffers (`bcache reset N` sets it). The mechanism looks blocks up,
 * does the I/O and keeps, for every buffer, the facts a replacement
 * policy needs: the block it holds, whether it may be evicted now (a
 * buffer being read, holding data not yet written back (dirty) or
 * being written back is not: the mechanism writes dirty buffers back
 * before they can be chosen, so a policy never loses data), a
 * referenced bit, its access count, when it was inserted and last
 * accessed (on one access clock that ticks once per access or insert),
 * and a tag word for the policy's own use. Policies choose; the
 * mechanism acts. Buffers are named by index (0 .. bcache_buffers() - 1),
 * and every index is checked, so a graft's mistake ends in a refused
 * result or an abort, never in a bad pointer being followed.
 *
 * Everything here is callable only from a graft running at bcache.evict
 * or bcache.readahead (the block cache lock is then held); a call from
 * anywhere else aborts the calling graft.
 */
#ifndef GRAFT_BCACHE_H
#define GRAFT_BCACHE_H

#include <graft/graft.h>

#define BCACHE_NO_BLOCK      UINT64_MAX	/* a free buffer; "no previous read" */
#define BCACHE_POLICY_WORDS  8		/* words 0-3: eviction, 4-7: read-ahead, by convention */
#define BCACHE_PREFETCH_MAX  8		/* blocks one read-ahead invocation may plan */

/*
 * bcache.evict - Overview: every buffer holds a block and one more is
 *   needed (a miss or a prefetch): choose the buffer whose block leaves.
 * Arguments: none; the buffers are read through the API below.
 * Return value: the index of a buffer for which bcache_buffer_evictable
 *   is true (never a dirty buffer, nor one whose read or write-back is in
 *   flight); anything else aborts the graft.
 * What it may change: referenced bits, tags and policy words, through
 *   the API (undone on abort).
 * Caller's context: the block cache lock held, interrupts masked (the
 *   graft runs with only the timer unmasked); may not sleep. Called
 *   only when at least one buffer is evictable (when only dirty ones
 *   could be, the mechanism writes the least recently used back first
 *   and asks once they are clean). Default: the least recently used
 *   evictable buffer (LRU).
 */
#define GRAFT_POINT_bcache_evict "bcache.evict", int, (void)
GRAFT_POINT_TYPEDEF(bcache_evict);

/*
 * bcache.readahead - Overview: a demand read of block has finished (from
 *   the cache or the disk): plan which blocks to prefetch.
 * Arguments: block, the block just read; previous, the block of the
 *   demand read before it (BCACHE_NO_BLOCK after a reset); hit, whether
 *   block was found in the cache.
 * Return value: none; the plan is what bcache_prefetch recorded. After
 *   the invocation commits the mechanism starts the planned reads in
 *   order, skipping blocks already cached; an aborted plan is dropped.
 * What it may change: the plan, tags and policy words, through the API
 *   (undone on abort); it may ask the eviction policy (bcache_would_evict).
 * Caller's context: the block cache lock held, interrupts masked (the
 *   graft runs with only the timer unmasked), in the reading thread;
 *   may not sleep. Default: sequential read-ahead, one block: when
 *   block == previous + 1, prefetch block + 1.
 */
#define GRAFT_POINT_bcache_readahead "bcache.readahead", void, \
	(uint64_t block, uint64_t previous, bool hit)
GRAFT_POINT_TYPEDEF(bcache_readahead);

/*
 * The cache's inputs and outputs, as events (VINO's module boundaries):
 * recording grafts on them write the cache's trace (requests) and log
 * (results), which a simulation instance replays (kernel/record/,
 * kernel/insitu/). Both fire with the cache lock held, interrupts masked,
 * in the reading or writing thread; handlers may not sleep and should
 * only look. A request is a demand read or a demand write; its flags say
 * which (a replay treats a write as an access that dirties the block).
 */

/* A request's direction and kind (bcache.request's flags, struct bcache_result.flags). */
#define BCACHE_REQ_READ   0	/* a demand read */
#define BCACHE_REQ_WRITE  1	/* a demand write: the block becomes dirty */
#define BCACHE_REQ_SYNC   2	/* with _WRITE: written to the disk before the call returns */
#define BCACHE_REQ_WHOLE  4	/* with _WRITE: covers the whole block (a miss reads nothing) */
#define BCACHE_REQ_FLAGS  7	/* every flag */

/* What became of a demand read (struct bcache_result.outcome). */
#define BCACHE_OUTCOME_HIT    1	/* found valid in the cache */
#define BCACHE_OUTCOME_WAIT   2	/* found, its disk read still in flight: a hit that waited */
#define BCACHE_OUTCOME_MISS   3	/* read from the disk into a buffer (a whole-block write:
				   inserted without reading) */
#define BCACHE_OUTCOME_ERROR  4	/* the disk read failed (the block is not cached), or a
				   synchronous write failed (the block stays dirty) */

/* What became of a block the read-ahead policy planned (prefetch[].fate). */
#define BCACHE_PREFETCH_STARTED   1	/* inserted and its read started */
#define BCACHE_PREFETCH_CACHED    2	/* already in the cache: nothing to do */
#define BCACHE_PREFETCH_NO_BUFFER 3	/* every buffer was loading: dropped */
#define BCACHE_PREFETCH_FAILED    4	/* the disk refused the read: dropped */

struct bcache_prefetch_fate {
	uint64_t block;
	uint64_t victim;	/* block evicted to make room, or BCACHE_NO_BLOCK */
	uint32_t fate;		/* BCACHE_PREFETCH_* */
	uint32_t reserved;
};

struct bcache_result {
	uint64_t seq;		/* the request's sequence number (as bcache.request gave it) */
	uint64_t block;
	uint64_t victim;	/* block evicted for a miss, or BCACHE_NO_BLOCK */
	uint64_t start_ns;	/* when the request was admitted (kernel clock) */
	uint64_t latency_ns;	/* admission to the end of its read-ahead */
	uint32_t outcome;	/* BCACHE_OUTCOME_* */
	uint32_t nprefetch;	/* entries of prefetch[] in use: the plan, in order */
	uint32_t disk_reads;	/* demand reads it sent to the disk: 1 for a miss, more when
				   its block left (evicted, or a reset) while it slept */
	uint32_t flags;		/* BCACHE_REQ_*: the request's */
	struct bcache_prefetch_fate prefetch[BCACHE_PREFETCH_MAX];
};

/*
 * bcache.request - Overview: a demand read or write of block was
 *   admitted; seq numbers the cache's requests from 1 after each reset,
 *   in the order the cache serves them.
 * Arguments: seq; block; in_flight, disk reads of the cache still in
 *   flight at admission (a replay assumes none: see kernel/insitu/);
 *   flags, BCACHE_REQ_* (0: a read).
 * Return value: none. Default: nothing.
 * Caller's context: as above.
 */
#define GRAFT_POINT_bcache_request "bcache.request", void, \
	(uint64_t seq, uint64_t block, uint64_t in_flight, uint64_t flags)
GRAFT_POINT_TYPEDEF(bcache_request);

/*
 * bcache.result - Overview: the demand read numbered r->seq is done
 *   (its read-ahead planned and started), or failed; or the demand write
 *   is done (its data in the buffer, and for a synchronous one on the
 *   disk), or failed. A write plans no read-ahead.
 * Arguments: r, the outcome (read only, valid during the call).
 * Return value: none. Default: nothing.
 * Caller's context: as above.
 */
#define GRAFT_POINT_bcache_result "bcache.result", void, (const struct bcache_result *r)
GRAFT_POINT_TYPEDEF(bcache_result);

/* --- The cache ------------------------------------------------------------ */

/* Number of buffers, and of blocks on the disk. */
unsigned bcache_buffers(void);
uint64_t bcache_blocks(void);

/* The block buffer i holds, or BCACHE_NO_BLOCK (free, or no such buffer). */
uint64_t bcache_buffer_block(unsigned i);
/* Whether buffer i holds a block that may be evicted now (valid, clean, no I/O in flight). */
bool bcache_buffer_evictable(unsigned i);
/* Set on every demand access to buffer i, cleared by bcache_clear_referenced. */
bool bcache_buffer_referenced(unsigned i);
void bcache_clear_referenced(unsigned i);		/* undone on abort */
/* Demand accesses since the block was inserted (a prefetched block starts at 0). */
uint64_t bcache_buffer_accesses(unsigned i);
/* Access clock when the block was inserted, and when it was last accessed. */
uint64_t bcache_buffer_inserted(unsigned i);
uint64_t bcache_buffer_last_access(unsigned i);
/* The policy's tag of buffer i (0 when its block was inserted). */
uint64_t bcache_buffer_tag(unsigned i);
void bcache_set_buffer_tag(unsigned i, uint64_t tag);	/* undone on abort */
/* The policy's words (0 after a reset). */
uint64_t bcache_policy_word(unsigned k);
void bcache_set_policy_word(unsigned k, uint64_t v);	/* undone on abort */

/*
 * bcache_prefetch - add block to the read-ahead plan (bcache.readahead only).
 * Return value: 0; -1 when the plan already holds BCACHE_PREFETCH_MAX
 *   blocks. A block beyond the disk aborts the graft.
 */
int bcache_prefetch(uint64_t block);

/*
 * bcache_would_evict - the buffer the eviction policy would choose now,
 * through the bcache.evict slot (a grafted policy runs nested in its own
 * transaction; when it aborts, the default's answer comes back).
 * Return value: a buffer index, or -1 when a buffer is free or none is
 *   evictable (the policy is then not asked).
 */
int bcache_would_evict(void);

#endif
