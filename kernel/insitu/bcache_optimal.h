/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The optimum of a recorded block cache trace (VINO's "compare the
 * actual behaviour with the optimal"): policies that know the future
 * because a replay has the whole trace. Eviction "min" is Belady's MIN
 * (evict the cached block whose next request is farthest, a block never
 * requested again first); read-ahead "oracle" plans exactly the blocks
 * the trace requests next that are not cached. `optimal` names both,
 * `optimal-evict` MIN with the recording's read-ahead
 * (bcache_policy_names.c). Portable C like the replay: the kernel's
 * `sim run` and the host's `scion sim replay` build this same file, so
 * both decide alike and write the same logs.
 *
 * The future is a table built once per trace in O(n log n) (a stable
 * merge sort of the request positions by block): for each request the
 * position of its block's next request. While the replay advances the
 * oracle keeps, for every block of the trace, its next request after the
 * current one (O(1) per request), so MIN's choice costs one pass over the
 * buffers (each buffer's block's index in the table is remembered, found
 * again by binary search only when the buffer's block changed).
 *
 * The oracle's budget: at most BCACHE_PREFETCH_MAX (8) blocks per demand
 * read, the plan bcache.readahead grants any policy, so no read-ahead
 * graft could plan more than the optimum may. It plans the blocks the
 * trace demands before the policy runs again (up to and including the
 * next read), and only prefetches that "do no harm" (Cao, Felten, Karlin
 * and Li, 1995): a block goes only into a free buffer or into the one
 * MIN would give it when that holds a block needed later. Such a
 * prefetch never makes MIN's demand misses more. On a trace of reads the
 * plan is the next request's block alone, fetched one request before MIN
 * would fetch it on demand into the buffer MIN would choose then: with
 * prefetches completing at once (a replay's model) `optimal` hits every
 * request but the first, at least as often as any policy, prefetching or
 * not, and reads the disk exactly as often as MIN without read-ahead.
 * Planning further ahead would add disk reads and no hits.
 */
#ifndef KERNEL_INSITU_BCACHE_OPTIMAL_H
#define KERNEL_INSITU_BCACHE_OPTIMAL_H

#include "bcache_replay.h"

#define SIM_ORACLE_NEVER UINT32_MAX	/* a next request that never comes */

struct sim_oracle {
	uint64_t n;		/* requests in the trace */
	uint64_t *seq;		/* seq[p]: request p's sequence number */
	uint64_t *block;	/* block[p]: the block request p asks for */
	uint8_t *write;		/* write[p]: request p is a write (no read-ahead follows it) */
	uint32_t *next;		/* next[p]: the position of block[p]'s next request, or NEVER */
	uint32_t *id;		/* id[p]: block[p]'s index in distinct[] */
	uint64_t ndistinct;
	uint64_t *distinct;	/* the trace's blocks, ascending */
	uint32_t *upcoming;	/* per distinct block: its first request after the current */
	unsigned nbuffers;
	uint64_t *buffer_block;	/* per buffer: the block buffer_id[] was found for */
	uint32_t *buffer_id;	/* its index in distinct[], or NEVER: not in the trace */
	uint64_t done;		/* requests applied to upcoming[] (the current is done - 1) */
};

/*
 * sim_oracle_build - Overview: read trace (header th, records requests,
 *   checked as the replay checks them) into o's next-request table.
 * Return value: 0; -EINVAL with why (a record the replay would refuse);
 *   -E2BIG or -ENOMEM with why (one line: the table's size) when the
 *   trace is too large for it. o is empty after a failure.
 * Caller's context: may allocate (sim_alloc).
 */
int sim_oracle_build(struct sim_oracle *o, const struct rec_file_header *th,
		     struct sim_reader trace, uint64_t requests, char *why, size_t whylen);

/* Release o's table (an empty o too); o is empty afterwards. */
void sim_oracle_free(struct sim_oracle *o);

/* Rewind o to the trace's start, for the replay of another policy. */
void sim_oracle_rewind(struct sim_oracle *o);

/*
 * sim_optimal_evict - MIN's victim in c (an instance replaying o's
 *   trace, the request c->requests current): the evictable buffer whose
 *   block's next request is farthest; ties (blocks never requested
 *   again, mostly) go to the lowest buffer index. BCACHE_NO_BUFFER when
 *   none is evictable.
 */
int sim_optimal_evict(struct sim_oracle *o, struct bcache_cache *c);

/*
 * sim_oracle_readahead - plan (bcache_prefetch, c current and planning)
 *   the blocks o's trace requests after the current request and up to
 *   the next read (writes in between get no read-ahead of their own)
 *   that are not cached, in the order requested, up to
 *   BCACHE_PREFETCH_MAX and within the next nbuffers + BCACHE_PREFETCH_MAX
 *   requests, each only while it does no harm (above).
 */
void sim_oracle_readahead(struct sim_oracle *o, struct bcache_cache *c);

#endif
