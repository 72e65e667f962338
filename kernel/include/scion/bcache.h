/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The block cache (kernel/bcache/): a read cache of 4 KiB blocks of the
 * disk vda, whose replacement and read-ahead policies are graft points
 * (grafts/include/graft/bcache.h). Reads are synchronous for the caller;
 * prefetches run asynchronously. The cache never writes: blocks are
 * clean copies of the disk.
 */
#ifndef SCION_BCACHE_H
#define SCION_BCACHE_H

#include <scion/compiler.h>
#include <graft/bcache.h>

#define BCACHE_BLOCK_SIZE     4096
#define BCACHE_BLOCK_SECTORS  8
#define BCACHE_MAX_BUFFERS    256
#define BCACHE_DEFAULT_BUFFERS 64

struct bcache_stats {
	uint64_t reads;			/* demand reads */
	uint64_t hits, misses;		/* of those */
	uint64_t waits;			/* hits on a block whose I/O was still in flight */
	uint64_t evictions;		/* blocks evicted for a miss or a prefetch */
	uint64_t prefetches;		/* prefetch reads started */
	uint64_t prefetch_used;		/* prefetched blocks later read on demand */
	uint64_t prefetch_cached;	/* planned blocks already in the cache */
	uint64_t prefetch_dropped;	/* planned blocks with no buffer to spare */
	uint64_t io_reads;		/* disk reads (demand + prefetch) */
	uint64_t io_errors;		/* of those, failed */
	uint64_t rereads;		/* demand reads sent to the disk again: the block left
					   (evicted once valid, or a reset) before its reader woke */
};

/* Bring the cache up over vda with BCACHE_DEFAULT_BUFFERS. Init thread, once. */
void bcache_init(void);

/* Whether there is a cache (a disk vda was found). Any context. */
bool bcache_available(void);

/* Whole blocks on the cached disk (0 without a cache). Any context. */
uint64_t bcache_disk_blocks(void);

/*
 * bcache_read - copy block into buf (BCACHE_BLOCK_SIZE bytes), from the
 * cache or, on a miss, from the disk; then run bcache.readahead.
 * Return value: 0; -ENODEV without a cache; -EINVAL for a block beyond
 *   the disk; -EIO when the disk failed (the block is not cached).
 * Caller's context: thread, no spinlocks held; may sleep.
 */
int bcache_read(uint64_t block, void *buf);

/*
 * bcache_read_bytes - bcache_read of len bytes at offset in the block
 * (a file system reading an inode or a block pointer copies only those).
 * Return value: as bcache_read's; -EINVAL also when offset + len passes
 *   the block's end. Caller's context: as bcache_read's.
 */
int bcache_read_bytes(uint64_t block, size_t offset, void *buf, size_t len);

/*
 * bcache_settle - sleep until no I/O of the cache is in flight.
 * Caller's context: thread, no spinlocks held.
 */
void bcache_settle(void);

/*
 * bcache_reset - wait for I/O to finish, then empty the cache, zero its
 * counters, access clock and policy words, and use nbuffers buffers
 * (1 .. BCACHE_MAX_BUFFERS). Return value: 0, -ERANGE, -ENODEV.
 * Caller's context: thread, no spinlocks held; concurrent readers
 * simply see an emptied cache.
 */
int bcache_reset(unsigned nbuffers);

/* A snapshot of the counters. Any context but the cache lock's holder. */
void bcache_get_stats(struct bcache_stats *s);

/* The same counted since boot, across resets (the monitor's). Same context. */
void bcache_get_totals(struct bcache_stats *s);

/*
 * bcache_dump - print the cache's whole state (configuration, access
 * clock, policy words, every occupied buffer, the LRU order) with
 * print, one line per call; two dumps are equal exactly when the states
 * are. Caller's context: thread; print is called with the cache lock
 * held (it must not sleep or touch the cache).
 */
void bcache_dump(void (*print)(const char *line, void *arg), void *arg);

/*
 * bcache_check - check the cache's invariants (every occupied buffer
 * found by lookup, the LRU list and the counts agree with the buffers).
 * Return value: true, or false with why (n bytes) saying what is wrong.
 * Caller's context: not holding the cache lock.
 */
bool bcache_check(char *why, size_t n);

/*
 * bcache_victim - ask the eviction policy (through the bcache.evict
 * slot, as a miss would) which buffer it would evict, evicting nothing.
 * Return value: the buffer index; -EAGAIN while a buffer is free;
 *   -EBUSY when no buffer is evictable; -ENODEV.
 *   *block receives the victim's block.
 * Caller's context: thread or any context not holding the cache lock.
 */
int bcache_victim(uint64_t *block);

#endif
