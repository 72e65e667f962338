// SPDX-License-Identifier: BSD-2-Clause
/*
 * The live block cache's write path: bcache_write_bytes (a demand
 * request that dirties its buffer, or writes it through when
 * synchronous), bcache_sync and bcache_sync_block, and the flush thread
 * that writes dirty buffers back by age and by share of the cache. The
 * invariants and the cache lock are bcache.c's (its opening comment);
 * this file only adds the flush thread's own lock, flush_wq.lock, taken
 * after the cache lock is dropped (never inside it).
 */
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/printk.h>
#include <scion/sched.h>
#include <scion/clock.h>
#include <scion/thread.h>
#include "bcache_internal.h"

static void flush_thread(void *arg);

/* Wake the flush thread to look at the dirty buffers now. Any context but flush_wq.lock's holder. */
static void kick_flusher(void)
{
	irqflags_t f = spin_lock_irqsave(&bcache.flush_wq.lock);
	bcache.flush_kicked = true;
	spin_unlock_irqrestore(&bcache.flush_wq.lock, f);
	waitq_wake_all(&bcache.flush_wq);
}

/* The flush thread comes with the first write (a cache only read has none). Thread, no locks. */
static void start_flusher(void)
{
	if (__atomic_load_n(&bcache.flusher_started, __ATOMIC_ACQUIRE) ||
	    __atomic_exchange_n(&bcache.flusher_started, true, __ATOMIC_ACQ_REL))
		return;
	if (thread_spawn("bcache-flush", flush_thread, NULL, -1)) {
		printk("bcache: out of memory for the flush thread; dirty blocks are written "
		       "back only by sync, reset and eviction (will try again at the next write)\n");
		__atomic_store_n(&bcache.flusher_started, false, __ATOMIC_RELEASE);
	}
}

/* Whether more than the flush share of the buffers is dirty. Cache lock held. */
static bool over_share(const struct bcache_cache *c)
{
	return (uint64_t)c->dirty * 100 > (uint64_t)c->nbuffers * READ_ONCE(bcache.flush_share);
}

/*
 * Write buffer i back if it is dirty and wait for that write: the
 * buffer's data as it is now reaches the disk, or an error comes back.
 * Cache lock held (dropped while asleep). A dirty or writing buffer
 * never leaves, and one that became clean reached the disk, so its
 * generation changing means the data is there.
 * Return value: 0 or -EIO. Counting: one sync write (sync) or write-back.
 */
static int write_and_wait(struct bcache_cache *c, int i, struct thread *self, bool sync)
{
	struct bcache_buffer *b = &c->buffer[i];
	uint32_t generation = b->generation;

	for (;;) {
		while (b->writing && b->generation == generation)
			bcache_sleep_for_disk(self, i, 0);	/* someone else's write-back of it */
		if (b->generation != generation || !b->dirty)
			return 0;
		int status = 1;
		bcache.sync_status[i] = &status;
		int err = cache_write_back(c, i);
		if (err) {
			bcache.sync_status[i] = NULL;
			if (err == -EAGAIN) {
				/* the disk queue was full */
				bcache_sleep_for_disk(self, BCACHE_NO_BUFFER, RETRY_TICKS);
				continue;
			}
			c->stats.write_errors++;
			b->write_failed = true;
			return -EIO;
		}
		if (sync)
			c->stats.sync_writes++;
		else
			c->stats.writebacks++;
		while (status == 1)
			bcache_sleep_for_disk(self, i, 0);
		return status;
	}
}

/*
 * bcache_write_bytes runs these steps with the cache lock held, dropping
 * it only to sleep:
 *   1. Admit the request: number it, fire bcache.request (flags say a
 *      write, whether synchronous, whether of the whole block).
 *   2-3. bcache_admit, as a read does: cache_demand (a miss of a whole
 *      block inserts it valid without reading; when only dirty buffers
 *      could make room it writes the least recently used back and says
 *      to wait), then sleep until the buffer is VALID and not being
 *      written back.
 *   4. Copy the data in, mark the buffer dirty (the flush thread is
 *      kicked when it is the first dirty buffer or too many are).
 *   5. sync: write the buffer back and wait (write_and_wait).
 *   6. Fire bcache.result.
 */
int bcache_write_bytes(uint64_t block, size_t offset, const void *in, size_t len, bool sync)
{
	struct bcache_cache *c = &bcache.cache;
	struct thread *self = thread_current();

	if (!bcache.disk)
		return -ENODEV;
	if (block >= c->blocks || offset > BCACHE_BLOCK_SIZE || len > BCACHE_BLOCK_SIZE - offset)
		return -EINVAL;
	if (blkdev_read_only(bcache.disk))
		return -EROFS;
	start_flusher();

	unsigned flags = BCACHE_REQ_WRITE | (sync ? BCACHE_REQ_SYNC : 0) |
			 (offset == 0 && len == BCACHE_BLOCK_SIZE ? BCACHE_REQ_WHOLE : 0);
	bool timed = bcache_result_observed(), kick = false;
	uint64_t start_ns = timed ? clock_ns() : 0;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	struct bcache_result result = {
		.seq = ++c->requests, .block = block, .victim = BCACHE_NO_BLOCK,
		.start_ns = start_ns, .flags = flags,
	};
	int i = BCACHE_NO_BUFFER;

	bcache_policy.request(result.seq, block, c->in_flight, flags);
	/* A failed partial-block read or no room at all: the write cannot be taken. */
	int err = bcache_admit(c, self, block, flags, &result, &i) ? -EIO : 0;
	if (!err) {
		memcpy((uint8_t *)bcache.data[i] + offset, in, len);
		if (cache_mark_dirty(c, i)) {
			bcache.dirtied_ns[i] = clock_ns();
			kick = c->dirty == 1 || over_share(c);
		}
		if (sync)
			err = write_and_wait(c, i, self, true);
	}
	if (err)
		result.outcome = BCACHE_OUTCOME_ERROR;
	result.latency_ns = timed ? clock_ns() - start_ns : 0;
	bcache_policy.result(&result);
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	if (kick)
		kick_flusher();
	return err;
}

/*
 * Start the write-back of every dirty buffer (failed ones too), then
 * wait until no write-back is in flight. Cache lock held (dropped while
 * asleep). Failures land in write_error (nobody waits on them).
 */
void bcache_sync_locked(struct thread *self)
{
	struct bcache_cache *c = &bcache.cache;

	for (unsigned i = 0; i < c->nbuffers; i++) {
		struct bcache_buffer *b = &c->buffer[i];
		while (b->dirty && !b->writing) {
			int err = cache_write_back(c, (int)i);
			if (!err) {
				c->stats.writebacks++;
				break;
			}
			if (err != -EAGAIN) {
				c->stats.write_errors++;
				b->write_failed = true;
				if (!bcache.write_error)
					bcache.write_error = -EIO;
				break;
			}
			bcache_sleep_for_disk(self, BCACHE_NO_BUFFER, RETRY_TICKS);	/* disk queue full */
		}
	}
	while (c->writing)
		bcache_sleep_for_disk(self, BCACHE_NO_BUFFER, 0);
}

int bcache_sync(void)
{
	if (!bcache.disk)
		return -ENODEV;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	bcache_sync_locked(thread_current());
	int err = bcache.write_error;
	bcache.write_error = 0;
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	return err;
}

int bcache_sync_block(uint64_t block)
{
	struct bcache_cache *c = &bcache.cache;

	if (!bcache.disk)
		return -ENODEV;
	if (block >= c->blocks)
		return -EINVAL;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	int i = cache_lookup(c, block), err = 0;
	if (i != BCACHE_NO_BUFFER)
		err = write_and_wait(c, i, thread_current(), false);
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	return err;
}

/*
 * The flush thread: writes back every dirty buffer older than the flush
 * age, and every dirty buffer while more than the flush share of them
 * is dirty; then sleeps until the next one comes of age (or, with none
 * dirty, until kicked by a write). It keeps at most BCACHE_FLUSH_IN_FLIGHT
 * write-backs in flight, so that a synchronous write (ext2's metadata)
 * is not queued behind the whole cache's data. It does not retry a
 * buffer whose write-back failed (a sync does).
 */
static void flush_thread(void *arg)
{
	struct bcache_cache *c = &bcache.cache;
	struct thread *self = thread_current();

	(void)arg;
	for (;;) {
		uint64_t age_ns = READ_ONCE(bcache.flush_age_ms) * 1000000ull, wait_ns = 0;
		irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
		uint64_t now = clock_ns();
		bool over = over_share(c);
		for (unsigned i = 0; i < c->nbuffers; i++) {
			struct bcache_buffer *b = &c->buffer[i];
			if (!b->dirty || b->write_failed)
				continue;
			uint64_t due = bcache.dirtied_ns[i] + age_ns;
			if (over || now >= due) {
				while (c->writing >= BCACHE_FLUSH_IN_FLIGHT)
					bcache_sleep_for_disk(self, BCACHE_NO_BUFFER, 0);
				/* Asleep, the lock was dropped: b may be clean or gone now. */
				if (!b->dirty || b->write_failed || b->writing)
					continue;
				if (cache_write_back(c, (int)i)) {
					wait_ns = 1;	/* the disk queue is full: again next tick */
					break;
				}
				c->stats.writebacks++;
			} else if (!wait_ns || due - now < wait_ns) {
				wait_ns = due - now;
			}
		}
		spin_unlock_irqrestore(&bcache.wq.lock, f);
		f = spin_lock_irqsave(&bcache.flush_wq.lock);
		if (!bcache.flush_kicked)
			waitq_sleep(&bcache.flush_wq,
				    wait_ns ? ms_to_ticks(wait_ns / 1000000 + 1) : 0);
		bcache.flush_kicked = false;
		spin_unlock_irqrestore(&bcache.flush_wq.lock, f);
	}
}

int bcache_set_flush_age(uint64_t ms, unsigned share_percent)
{
	if (ms > BCACHE_FLUSH_AGE_MAX_MS || share_percent > 100)
		return -ERANGE;
	if (ms)
		WRITE_ONCE(bcache.flush_age_ms, ms);
	if (share_percent)
		WRITE_ONCE(bcache.flush_share, share_percent);
	kick_flusher();
	return 0;
}

void bcache_get_flush_age(uint64_t *ms, unsigned *share_percent)
{
	*ms = READ_ONCE(bcache.flush_age_ms);
	*share_percent = READ_ONCE(bcache.flush_share);
}

void bcache_fail_writes(unsigned n)
{
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	bcache.fail_writes = n;
	spin_unlock_irqrestore(&bcache.wq.lock, f);
}

