/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One instance of the block cache's bookkeeping: which block each
 * buffer holds, the hash chains that find it, the LRU order, the access
 * clock, the policy words, the read-ahead plan and the counters. This
 * is the cache's per-instance state in the VINO sense: the live cache
 * (bcache.c) embeds one and adds the data buffers and the disk; a
 * simulation instance (kernel/insitu/, sim/ on the host) is one of these
 * alone, whose "disk reads" and "disk writes" complete at once and carry
 * no data.
 *
 * Writes: a demand write (cache_demand with BCACHE_REQ_WRITE) finds or
 * inserts its block like a read, except that a write covering the whole
 * block inserts it VALID without reading it; the embedder then copies the
 * data in and marks the buffer dirty (cache_mark_dirty). A dirty buffer is
 * never offered to the eviction policy (cache_evictable is false): it is
 * written back first (cache_write_back), by the embedder's flush and sync,
 * or by cache_demand itself when a demand access finds no clean buffer to
 * evict. A write-back clears dirty when it starts and sets writing until
 * cache_write_done; a failed one makes the buffer dirty again with
 * write_failed set, so its data stays cached (never dropped), and no
 * automatic write-back retries it (only a sync, or a new write of it).
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

#define BCACHE_HASH_BUCKETS 8192	/* a power of two, about twice the most buffers */
#define BCACHE_NO_BUFFER    (-1)

enum bcache_buffer_state {
	BUFFER_FREE,
	BUFFER_LOADING,		/* a disk read into it is in flight */
	BUFFER_VALID,
};

struct bcache_buffer {
	uint64_t block;			/* BCACHE_NO_BLOCK when free */
	uint8_t state;			/* enum bcache_buffer_state */
	bool dirty;			/* VALID, its data newer than the disk's */
	bool writing;			/* VALID, a write-back of it in flight (then not dirty) */
	bool write_failed;		/* its last write-back failed (then dirty again) */
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

/*
 * start_write - Overview: the instance wants buffer i (VALID, writing
 *   set, dirty clear) written to its disk.
 * Return value: 0 when the write is on its way; the embedder then calls
 *   cache_write_done when it ends (it may do so before returning, as a
 *   fault-injecting live cache does). A negative errno when the write
 *   could not be started (-EAGAIN: the disk queue is full): the buffer is
 *   dirty again, nothing counted. NULL start_write (a simulation
 *   instance): every write-back completes at once, successfully.
 * Caller's context: the instance's lock held.
 */

struct bcache_cache {
	unsigned nbuffers;		/* buffers in use, 1 .. BCACHE_MAX_BUFFERS */
	unsigned occupied;		/* buffers holding a block */
	unsigned in_flight;		/* disk reads not yet completed */
	unsigned writing;		/* write-backs not yet completed (buffers writing) */
	unsigned dirty;			/* dirty buffers */
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
	bcache_start_io_fn *start_write;	/* NULL: writes complete at once */
	struct bcache_buffer buffer[BCACHE_MAX_BUFFERS];
};

/* Make c an empty instance of nbuffers buffers over a disk of blocks blocks. */
void cache_init(struct bcache_cache *c, unsigned nbuffers, uint64_t blocks);

/*
 * cache_empty - drop every block and zero the clock, the previous read,
 * the request count, the policy words and the counters; in_flight and
 * writing must be 0, and a dirty block's data is dropped with it (the
 * live cache syncs first and never empties while a block is dirty).
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

/* Whether buffer i may be evicted now: valid, clean and not being written. */
static inline bool cache_evictable(const struct bcache_cache *c, unsigned i)
{
	return i < c->nbuffers && c->buffer[i].state == BUFFER_VALID && !c->buffer[i].dirty &&
	       !c->buffer[i].writing;
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
 * BCACHE_NO_BUFFER: no buffer is evictable (loading, dirty or writing).
 */
int cache_allocate(struct bcache_cache *c, uint64_t *victim);

/*
 * cache_demand - admit the demand access (read, or write when flags has
 * BCACHE_REQ_WRITE) of block as request c->requests + 1: a hit touches
 * its buffer (*buffer gets it); a miss takes a buffer (cache_allocate),
 * inserts the block and starts its read; a write miss with
 * BCACHE_REQ_WHOLE inserts it VALID, reading nothing. When no buffer is
 * evictable but some are dirty, the least recently used dirty ones are
 * written back first (cache_make_room): a simulation instance's are
 * clean at once and one of them is evicted; the live cache's are in
 * flight, and -EBUSY says to wait for them.
 * Arguments: flags, BCACHE_REQ_*; result, zeroed but for seq, block,
 *   flags and victim (BCACHE_NO_BLOCK) before the first call for a
 *   request; a caller that must try again passes the same result, so
 *   the access is counted once.
 * Return value: BCACHE_OUTCOME_HIT (or _WAIT when the buffer is still
 *   LOADING), BCACHE_OUTCOME_MISS, or a negative errno: -EBUSY when no
 *   buffer is evictable while I/O is in flight (nothing else changed;
 *   try again after a completion); -ENOSPC when none is evictable and
 *   none can become so (every buffer dirty with a failed write-back);
 *   -EAGAIN when a write-back to make room could not be started (the
 *   disk queue is full); the start_io error otherwise (the block left
 *   again, the access counted). result's outcome and victim are filled in.
 * Counting: reads, hits, misses (writes, write_hits, write_misses for a
 *   write), waits, evictions, io_reads, io_writes.
 */
int cache_demand(struct bcache_cache *c, uint64_t block, unsigned flags,
		 struct bcache_result *result, int *buffer);

/*
 * cache_mark_dirty - the data of buffer i (VALID, not writing) was
 * changed by a write. Return value: whether it was clean before.
 */
bool cache_mark_dirty(struct bcache_cache *c, int i);

/*
 * cache_write_back - start writing buffer i (VALID, dirty, not writing)
 * to the disk through start_write: dirty is cleared and writing set
 * until cache_write_done. Return value: 0, or start_write's error (the
 * buffer is dirty again). Counting: io_writes.
 */
int cache_write_back(struct bcache_cache *c, int i);

/*
 * cache_write_done - the write-back of buffer i ended with status (0 or
 * a negative errno): writing is cleared; after a failure the buffer is
 * dirty again with write_failed set. Counting: write_errors.
 */
void cache_write_done(struct bcache_cache *c, int i, int status);

/*
 * cache_make_room - write back up to BCACHE_ROOM_BATCH of the least
 * recently used dirty buffers that are not writing and whose last
 * write-back did not fail. Return value: how many were started, or the
 * first start_write error when none was. Counting: writebacks.
 */
#define BCACHE_ROOM_BATCH 8
int cache_make_room(struct bcache_cache *c);

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
