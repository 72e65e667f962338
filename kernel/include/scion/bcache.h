/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The block cache (kernel/bcache/): a cache of 4 KiB blocks of the disk
 * vda, whose replacement and read-ahead policies are graft points
 * (grafts/include/graft/bcache.h). Reads are synchronous for the caller;
 * prefetches run asynchronously.
 *
 * Writes (bcache_write_bytes) change the cached block: a synchronous one
 * (metadata, as UFS wrote it) is on the disk when the call returns; any
 * other leaves the block dirty, written back later by the flush thread
 * (when it is older than the flush age, or when dirty buffers exceed a
 * share of the cache), by bcache_sync / bcache_sync_block, by
 * bcache_reset, or when a demand access needs a buffer and only dirty
 * ones could be evicted. A dirty block is never evicted before it is on
 * the disk, and reads return its newest data. A write-back that fails
 * leaves the block dirty and cached (marked write-failed: the flush
 * thread does not retry it, a sync does), and its error is reported once
 * by the next bcache_sync; bcache_reset refuses to empty a cache that
 * still holds such a block.
 */
#ifndef SCION_BCACHE_H
#define SCION_BCACHE_H

#include <scion/compiler.h>
#include <graft/bcache.h>

#define BCACHE_BLOCK_SIZE     4096
#define BCACHE_BLOCK_SECTORS  8
#define BCACHE_MAX_BUFFERS    4096
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
	uint64_t writes;		/* demand writes (bcache_write_bytes) */
	uint64_t write_hits, write_misses;	/* of those: the block was cached, or not */
	uint64_t writebacks;		/* write-backs of dirty blocks started (flush thread,
					   sync, reset, room for a demand access) */
	uint64_t sync_writes;		/* synchronous writes started (sync bcache_write_bytes) */
	uint64_t io_writes;		/* disk writes started (write-backs + synchronous) */
	uint64_t write_errors;		/* of those, failed */
	uint64_t dirty;			/* a level, not a counter: dirty buffers now (0 in
					   bcache_get_totals' retired part) */
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
 * bcache_write_bytes - Overview: copy len bytes from buf into block at
 *   offset. A block not cached is read from the disk first, unless the
 *   write covers it whole (read-modify-write); writers of one block are
 *   serialized, and one whose block is being written back waits for that
 *   write to end, so no newer data is lost to an older write-back.
 * Arguments: sync true (metadata): write the block to the disk now and
 *   wait; false: leave it dirty for write-back (data).
 * Return value: 0; -ENODEV without a cache; -EINVAL for a block beyond
 *   the disk or a range past the block's end; -EROFS when the disk is
 *   read-only (nothing changed); -EIO when the disk failed: the read of
 *   a partly written block (nothing changed), or, for sync, the write
 *   (the block stays cached and dirty with the new data; a later sync
 *   tries again). A write-back's failure is reported by the next
 *   bcache_sync, or bcache_sync_block of that block. -EIO also when
 *   every buffer holds a dirty block the disk refused (nothing changed).
 * Caller's context: thread, no spinlocks held; may sleep.
 */
int bcache_write_bytes(uint64_t block, size_t offset, const void *buf, size_t len, bool sync);

/*
 * bcache_sync - Overview: write back every dirty block (a block whose
 *   write-back failed is tried again) and wait for those writes.
 * Return value: 0, or the first write error since the last bcache_sync
 *   (-EIO): a write-back that failed, this sync's or an earlier one's
 *   (the flush thread's, an eviction's). Each error is reported once;
 *   a block whose write keeps failing stays dirty and fails every sync.
 *   -ENODEV without a cache.
 * Caller's context: thread, no spinlocks held; may sleep.
 */
int bcache_sync(void);

/*
 * bcache_sync_block - Overview: write block back if it is dirty (as
 *   fsync writes a file's blocks) and wait for the write.
 * Return value: 0 (also when the block is clean or not cached); -EIO
 *   when its write failed (the block stays dirty); -EINVAL, -ENODEV.
 * Caller's context: thread, no spinlocks held; may sleep.
 */
int bcache_sync_block(uint64_t block);

/*
 * bcache_set_flush_age - Overview: the flush thread writes back a dirty
 *   block once it has been dirty for ms milliseconds (default
 *   BCACHE_FLUSH_AGE_MS), and every dirty block while more than
 *   share_percent of the buffers are dirty (default
 *   BCACHE_FLUSH_SHARE_PERCENT); 0 keeps a value as it is.
 * Return value: 0; -ERANGE for ms above BCACHE_FLUSH_AGE_MAX_MS or a
 *   share above 100. Caller's context: any but the cache lock's holder.
 */
#define BCACHE_FLUSH_AGE_MS		5000
#define BCACHE_FLUSH_AGE_MAX_MS		3600000
#define BCACHE_FLUSH_SHARE_PERCENT	50
/* The flush thread's write-backs in flight at most: a synchronous write waits behind no more. */
#define BCACHE_FLUSH_IN_FLIGHT		8
int bcache_set_flush_age(uint64_t ms, unsigned share_percent);

/* The flush age (ms) and share (percent) in force. Any context. */
void bcache_get_flush_age(uint64_t *ms, unsigned *share_percent);

/*
 * bcache_fail_writes - Overview: fault injection for tests: the next n
 *   disk writes of the cache fail with -EIO as if the disk had failed
 *   them (no request reaches the disk); 0 stops.
 * Caller's context: any but the cache lock's holder.
 */
void bcache_fail_writes(unsigned n);

/*
 * bcache_settle - sleep until no I/O of the cache (read or write-back)
 * is in flight. Caller's context: thread, no spinlocks held.
 */
void bcache_settle(void);

/*
 * bcache_reset - write back every dirty block (as bcache_sync), wait for
 * I/O to finish, then empty the cache, zero its counters, access clock
 * and policy words, and use nbuffers buffers (1 .. BCACHE_MAX_BUFFERS).
 * Return value: 0, -ERANGE, -ENODEV; -EIO when a dirty block could not
 *   be written: the cache is then left as it is (no data is dropped).
 *   A write error not yet reported stays for the next bcache_sync.
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
 *   -EBUSY when no buffer is evictable (every one loading, dirty or
 *   being written back); -ENODEV.
 *   *block receives the victim's block.
 * Caller's context: thread or any context not holding the cache lock.
 */
int bcache_victim(uint64_t *block);

#endif
