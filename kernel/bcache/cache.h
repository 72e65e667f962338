/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One instance of the block cache's bookkeeping: which block each
 * buffer holds, the hash chains that find it, the LRU order, the access
 * clock, the policy words, the read-ahead plan and the counters. This
 * is the cache's per-instance state in the VINO sense: the live cache
 * (bcache.c) embeds one and adds the data buffers and the disk; a
 * simulation instance (kernel/insitu/, sim/ on the host) is one of these
 * alone, whose "disk reads" complete at once and carry no data.
 *
 * cache.c is portable C with no kernel services, built into the kernel
 * and into the host simulator, so a replay decides exactly as the live
 * cache would. The policies (graft points bcache.evict and
 * bcache.readahead) are called through the instance's slots; while one
 * runs, the instance is "current" on this CPU (cache_env_current), and
 * the graft API (api.c) reads and changes that instance only.
 *
 * Locking is the embedder's: every function here expects the
 * instance's lock held (the live cache's is bcache.wq.lock; a
 * simulation instance is private to the thread replaying into it).
 */
#ifndef KERNEL_BCACHE_CACHE_H
#define KERNEL_BCACHE_CACHE_H

#include <scion/compiler.h>
#include <scion/list.h>
#include <scion/bcache.h>

#define BCACHE_HASH_BUCKETS 512	/* a power of two, about twice the most buffers */
#define BCACHE_NO_BUFFER    (-1)

enum bcache_buffer_state {
	BUFFER_FREE,
	BUFFER_LOADING,		/* a disk read into it is in flight */
	BUFFER_VALID,
};

struct bcache_buffer {
	uint64_t block;			/* BCACHE_NO_BLOCK when free */
	uint8_t state;			/* enum bcache_buffer_state */
	bool referenced;		/* set by demand accesses */
	bool prefetched;		/* prefetched, not yet read on demand */
	int16_t hash_next;		/* next buffer in its hash chain */
	uint32_t generation;		/* + 1 whenever its block leaves */
	uint32_t failed_generation;	/* the generation whose disk read failed */
	uint64_t accesses;		/* demand accesses since insertion */
	uint64_t inserted, last_access;	/* access clock values */
	uint64_t tag;			/* the policy's */
	struct list_node lru;		/* on cache.lru while occupied */
};

/*
 * start_io - Overview: the instance wants block (just inserted into
 *   buffer i, LOADING) read from its disk.
 * Return value: 0 when the read is on its way (the live cache) or done
 *   (a simulation instance, which marks the buffer VALID itself), or a
 *   negative errno: the block then leaves again (cache_drop).
 * Caller's context: the instance's lock held.
 */
struct bcache_cache;
typedef int bcache_start_io_fn(struct bcache_cache *c, int i);

struct bcache_cache {
	unsigned nbuffers;		/* buffers in use, 1 .. BCACHE_MAX_BUFFERS */
	unsigned occupied;		/* buffers holding a block */
	unsigned in_flight;		/* disk reads not yet completed */
	uint64_t blocks;		/* whole blocks on the (real or modelled) disk */
	uint64_t clock;			/* the access clock */
	uint64_t previous;		/* block of the last demand read */
	uint64_t requests;		/* demand reads admitted: the last one's sequence number */
	uint64_t policy[BCACHE_POLICY_WORDS];
	int16_t hash[BCACHE_HASH_BUCKETS];	/* first buffer of each chain */
	struct list_node lru;		/* occupied buffers, least recently used first */
	bool planning;			/* bcache.readahead is running */
	unsigned nplan;			/* blocks in plan */
	uint64_t plan[BCACHE_PREFETCH_MAX];
	struct bcache_stats stats;
	/* The policies, called through these slots (the live cache's are the graft points'). */
	graft_fn_bcache_evict *const *evict;
	graft_fn_bcache_readahead *const *readahead;
	bcache_start_io_fn *start_io;
	struct bcache_buffer buffer[BCACHE_MAX_BUFFERS];
};

/* Make c an empty instance of nbuffers buffers over a disk of blocks blocks. */
void cache_init(struct bcache_cache *c, unsigned nbuffers, uint64_t blocks);

/*
 * cache_empty - drop every block and zero the clock, the previous read,
 * the request count, the policy words and the counters; in_flight must be 0.
 */
void cache_empty(struct bcache_cache *c);

/* The buffer holding block, or BCACHE_NO_BUFFER. */
int cache_lookup(const struct bcache_cache *c, uint64_t block);

/* Put block into free buffer i, LOADING, most recently used (a demand read or a prefetch). */
void cache_insert(struct bcache_cache *c, int i, uint64_t block, bool demand);

/* Make buffer i free: its block leaves the cache. */
void cache_drop(struct bcache_cache *c, int i);

/* A demand access to the block in buffer i. */
void cache_touch(struct bcache_cache *c, int i);

/* Whether buffer i may be evicted now. */
static inline bool cache_evictable(const struct bcache_cache *c, unsigned i)
{
	return i < c->nbuffers && c->buffer[i].state == BUFFER_VALID;
}

/* The least recently used evictable buffer, or BCACHE_NO_BUFFER. */
int cache_lru_evictable(const struct bcache_cache *c);

/*
 * cache_ask_evict - the eviction policy's choice (through c->evict, with
 * c current) when every buffer is occupied and one is evictable, else
 * BCACHE_NO_BUFFER.
 */
int cache_ask_evict(struct bcache_cache *c);

/*
 * cache_allocate - a buffer for a new block: the lowest-numbered free
 * one, else the eviction policy's victim, whose block leaves (*victim
 * gets it; BCACHE_NO_BLOCK when a free buffer was used), else
 * BCACHE_NO_BUFFER: every buffer is loading.
 */
int cache_allocate(struct bcache_cache *c, uint64_t *victim);

/*
 * cache_demand - admit the demand read of block as request c->requests
 * + 1: a hit touches its buffer (*buffer gets it); a miss takes a
 * buffer (cache_allocate), inserts the block and starts its read.
 * Arguments: result, zeroed but for seq, block and victim (BCACHE_NO_BLOCK)
 *   before the first call for a request; a caller that must try again
 *   passes the same result, so the read is counted once.
 * Return value: BCACHE_OUTCOME_HIT (or _WAIT when the buffer is still
 *   LOADING), BCACHE_OUTCOME_MISS, or a negative errno: -EBUSY when
 *   every buffer is loading (nothing changed; try again later), the
 *   start_io error otherwise (the block left again, the read counted).
 *   result's outcome and victim are filled in.
 * Counting: reads, hits, misses, waits, evictions, io_reads.
 */
int cache_demand(struct bcache_cache *c, uint64_t block, struct bcache_result *result,
		 int *buffer);

/*
 * cache_read_ahead - after the demand read of block: ask the read-ahead
 * policy for a plan (through c->readahead, with c current), then insert
 * and start each planned block that is not cached and gets a buffer.
 * Each planned block's fate goes into result->prefetch[].
 */
void cache_read_ahead(struct bcache_cache *c, uint64_t block, bool hit,
		      struct bcache_result *result);

/* Check the invariants; false with why filled when one fails. */
bool cache_check(const struct bcache_cache *c, char *why, size_t n);

/* The state, one line per print call (see bcache_dump). */
void cache_dump(const struct bcache_cache *c, const char *name,
		void (*print)(const char *line, void *arg), void *arg);

/* The default policies (policy_default.c): LRU eviction, sequential read-ahead. */
int bcache_default_evict(void);
void bcache_default_readahead(uint64_t block, uint64_t previous, bool hit);

/*
 * bcache_check_victim - whether result, an eviction policy's answer for
 * the current instance, names a buffer it may evict: NULL, or why not.
 * Every policy's answer passes it (the graft point's check_result).
 */
const char *bcache_check_victim(uint64_t result);

/* --- Supplied by the embedding environment (kernel: bcache.c; host: sim/) --- */

/* The instance whose policy runs on this CPU, or NULL. */
struct bcache_cache *cache_env_current(void);
/* Make c current on this CPU (NULL: none); returns the previous one. */
struct bcache_cache *cache_env_set_current(struct bcache_cache *c);

#endif
