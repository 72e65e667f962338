// SPDX-License-Identifier: BSD-2-Clause
/*
 * The live block cache: the instance of cache.c's bookkeeping that has
 * data buffers and a disk. This file does what a simulation instance
 * does not: disk reads and writes and their completion, sleeping on
 * them, copying data in and out, the cache lock, the flush thread, and
 * firing the cache's input and output events (bcache.request,
 * bcache.result) that recording grafts watch.
 *
 * Invariants (cache lock held): a LOADING buffer's request belongs to
 * the disk, so it is never evicted or reset, and in_flight counts such
 * buffers; so does a writing buffer's, counted by cache.writing. A
 * reader who slept on a load tells from the buffer's generation whether
 * its block left meanwhile, and from failed_generation whether it left
 * because the disk read failed. A dirty or writing buffer never leaves
 * (cache.c), so a writer who slept finds its block where it left it.
 * Nobody changes a buffer's data while its write-back is in flight:
 * writers wait for it to end, then copy and dirty the buffer again, so
 * the disk never gets half of two writes and no newer data is lost.
 * A write-back's status goes to the thread waiting for it
 * (sync_status), else, when it failed, to write_error for the next
 * bcache_sync.
 *
 * Requests carry the pid they are for (io:::start's arg4): a demand
 * read's and a write-back's are the current thread's process's (a
 * write-back runs in the thread that needed the room, synced, or is the
 * flush thread, a kernel thread: 0); a read-ahead's is 0.
 */
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/sched.h>
#include <scion/clock.h>
#include <scion/cpu.h>
#include <scion/thread.h>
#include <scion/proc.h>
#include <scion/io_probe.h>
#include "bcache_internal.h"

static int start_read(struct bcache_cache *c, int i);
static int start_write(struct bcache_cache *c, int i);

/* The cache lock is only ever held by one CPU; spin_held_here tells which. */
struct bcache bcache = {
	.wq = WAITQ_INIT(bcache.wq, "bcache"),
	.cache = {
		.lru = LIST_HEAD_INIT(bcache.cache.lru),
		.evict = &bcache_policy.evict,
		.readahead = &bcache_policy.readahead,
		.start_io = start_read,
		.start_write = start_write,
	},
	.flush_wq = WAITQ_INIT(bcache.flush_wq, "bcache-flush"),
	.flush_age_ms = BCACHE_FLUSH_AGE_MS,
	.flush_share = BCACHE_FLUSH_SHARE_PERCENT,
};

/* The instance whose policy runs on each CPU (cache.h); its own CPU only. */
static struct bcache_cache *current_instance[MAX_CPUS];

struct bcache_cache *cache_env_current(void)
{
	return current_instance[this_cpu_index()];
}

struct bcache_cache *cache_env_set_current(struct bcache_cache *c)
{
	struct bcache_cache **slot = &current_instance[this_cpu_index()];
	struct bcache_cache *outer = *slot;
	*slot = c;
	return outer;
}

#define RETRY_TICKS 1	/* sleep before retrying a read the disk queue had no room for */

bool bcache_available(void)
{
	return bcache.disk != NULL;
}

uint64_t bcache_disk_blocks(void)
{
	return bcache.disk ? bcache.cache.blocks : 0;
}

bool bcache_locked_here(void)
{
	return spin_held_here(&bcache.wq.lock);
}

/* The disk finished a read into a buffer (interrupt context). */
static void read_done(struct blk_request *r)
{
	struct bcache_cache *c = &bcache.cache;
	int i = (int)(uintptr_t)r->ctx;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);

	if (r->status == 0) {
		c->buffer[i].state = BUFFER_VALID;
	} else {
		c->stats.io_errors++;
		c->buffer[i].failed_generation = c->buffer[i].generation;
		cache_drop(c, i);
	}
	c->in_flight--;
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	waitq_wake_all(&bcache.wq);
}

/* Start the disk read of buffer i's block (the instance's start_io). */
static int start_read(struct bcache_cache *c, int i)
{
	bcache.request[i] = (struct blk_request){
		.sector = c->buffer[i].block * BCACHE_BLOCK_SECTORS, .count = BCACHE_BLOCK_SECTORS,
		.buf = bcache.data[i], .done = read_done, .ctx = (void *)(uintptr_t)i,
		.pid = c->buffer[i].prefetched ? 0 : blkdev_caller_pid(),
	};
	int err = blkdev_submit(bcache.disk, &bcache.request[i]);
	if (!err)
		c->in_flight++;
	return err;
}

/*
 * A write-back of buffer i ended with status: to the thread waiting for
 * it, else (a failure) to write_error; then the bookkeeping. Cache lock
 * held; the caller wakes bcache.wq (a write that ends inside
 * start_write was never seen in flight, so nobody waits for it).
 */
static void write_ended(struct bcache_cache *c, int i, int status)
{
	int *slot = bcache.sync_status[i];

	if (status)
		status = -EIO;		/* whatever the device said: the disk failed the write */
	if (slot) {
		*slot = status;
		bcache.sync_status[i] = NULL;
	} else if (status && !bcache.write_error) {
		bcache.write_error = status;
	}
	cache_write_done(c, i, status);
}

/* The disk finished a write-back (interrupt context). */
static void write_done(struct blk_request *r)
{
	int i = (int)(uintptr_t)r->ctx;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);

	write_ended(&bcache.cache, i, r->status);
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	waitq_wake_all(&bcache.wq);
}

/* Start the disk write of buffer i's block (the instance's start_write). */
static int start_write(struct bcache_cache *c, int i)
{
	if (bcache.fail_writes) {	/* bcache_fail_writes: as if the disk had failed it */
		bcache.fail_writes--;
		write_ended(c, i, -EIO);
		return 0;
	}
	bcache.request[i] = (struct blk_request){
		.sector = c->buffer[i].block * BCACHE_BLOCK_SECTORS, .count = BCACHE_BLOCK_SECTORS,
		.buf = bcache.data[i], .write = true, .done = write_done,
		.ctx = (void *)(uintptr_t)i, .pid = blkdev_caller_pid(),
	};
	return blkdev_submit(bcache.disk, &bcache.request[i]);
}

/*
 * bcache_read runs these steps with the cache lock held, dropping it
 * only to sleep:
 *   1. Admit the request: number it, fire bcache.request.
 *   2. cache_demand: found VALID, a hit; found LOADING (a prefetch, or
 *      another reader's miss), a hit that waits; not found, a miss: a
 *      buffer is taken (free, else the eviction policy's victim), the
 *      block inserted LOADING and its read started. When every buffer
 *      is loading, or the disk queue is full, sleep and go back to 2.
 *   3. Sleep until the buffer is VALID. A changed generation means the
 *      read failed (-EIO) or a reset emptied the cache (go back to 2).
 *   4. Copy the block out, run the read-ahead policy and start the
 *      reads it planned (cache_read_ahead).
 *   5. Fire bcache.result with what happened (also after a failure).
 */
/*
 * Sleep on the cache's queue for the disk (buffer i's request, or with
 * i BCACHE_NO_BUFFER room in the cache or the disk's queue), the time
 * going to the thread's disk waits; io:::wait-start and wait-done
 * around the sleep. bcache.wq.lock held; it is dropped while asleep.
 */
static void sleep_for_disk(struct thread *self, int i, uint64_t timeout_ticks)
{
	uint64_t from = clock_ns();
	/* As at the start: buffer i's request may be another by the time we wake. */
	const struct blk_request *r = i == BCACHE_NO_BUFFER ? NULL : &bcache.request[i];
	unsigned dev = blkdev_index(bcache.disk);
	uint64_t sector = r ? r->sector : IO_PROBE_NO_SECTOR;
	uint64_t bytes = r ? (uint64_t)r->count << BLK_SECTOR_SHIFT : 0;
	bool write = r && r->write;
	uint32_t pid = (uint32_t)proc_pid(self->proc);

	IO_PROBE(wait_start, dev, sector, bytes, write, pid);
	waitq_sleep(&bcache.wq, timeout_ticks);
	IO_PROBE(wait_done, dev, sector, bytes, write, pid);
	__atomic_store_n(&self->disk_wait_ns, self->disk_wait_ns + (clock_ns() - from),
			 __ATOMIC_RELAXED);
}

/*
 * No buffer is evictable: every one is loading, dirty or being written
 * back. Sleep for a read to complete, or, while write-backs are in
 * flight, until all have: the batch cache_make_room started is then
 * clean together, so the eviction policy chooses among the same
 * buffers as in a replay, where write-backs complete at once.
 * bcache.wq.lock held; dropped while asleep.
 */
static void wait_for_room(struct bcache_cache *c, struct thread *self)
{
	do
		sleep_for_disk(self, BCACHE_NO_BUFFER, 0);
	while (c->writing);
}

/*
 * Both entry points carry the whole read (one function entry per call,
 * as fbt::bcache_read:entry counts requests; the compiler's inlining
 * decisions would otherwise decide whether bcache_read_bytes shows).
 */
static __always_inline int read_bytes(uint64_t block, size_t offset, void *out, size_t len);

int bcache_read(uint64_t block, void *out)
{
	return read_bytes(block, 0, out, BCACHE_BLOCK_SIZE);
}

int bcache_read_bytes(uint64_t block, size_t offset, void *out, size_t len)
{
	return read_bytes(block, offset, out, len);
}

static __always_inline int read_bytes(uint64_t block, size_t offset, void *out, size_t len)
{
	struct bcache_cache *c = &bcache.cache;
	struct thread *self = thread_current();

	if (!bcache.disk)
		return -ENODEV;
	if (block >= c->blocks || offset > BCACHE_BLOCK_SIZE || len > BCACHE_BLOCK_SIZE - offset)
		return -EINVAL;

	__atomic_store_n(&self->bcache_reads, self->bcache_reads + 1, __ATOMIC_RELAXED);
	bool timed = bcache_result_observed();
	uint64_t start_ns = timed ? clock_ns() : 0;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	struct bcache_result result = {
		.seq = ++c->requests, .block = block, .victim = BCACHE_NO_BLOCK,
		.start_ns = start_ns,
	};
	int err = 0, i = BCACHE_NO_BUFFER;

	bcache_policy.request(result.seq, block, c->in_flight, BCACHE_REQ_READ);
	for (;;) {
		int got = cache_demand(c, block, BCACHE_REQ_READ, &result, &i);
		if (got == -EBUSY) {
			wait_for_room(c, self);
			continue;
		}
		if (got == -EAGAIN) {
			sleep_for_disk(self, BCACHE_NO_BUFFER, RETRY_TICKS);	/* disk queue full */
			continue;
		}
		if (got == -ENOSPC) {
			err = -EIO;	/* every buffer dirty, and the disk refused their writes */
			break;
		}
		if (got < 0) {
			err = got;
			break;
		}
		struct bcache_buffer *b = &c->buffer[i];
		uint32_t generation = b->generation;
		while (b->state == BUFFER_LOADING && b->generation == generation)
			sleep_for_disk(self, i, 0);
		if (b->generation == generation)
			break;
		if (b->failed_generation == generation) {
			err = -EIO;
			break;
		}
		/*
		 * The block left while we slept: a reset emptied the cache, or
		 * once valid it was evicted before we woke. Look again.
		 */
	}
	if (!err) {
		memcpy(out, (const uint8_t *)bcache.data[i] + offset, len);
		cache_read_ahead(c, block, result.outcome != BCACHE_OUTCOME_MISS, &result);
	} else {
		result.outcome = BCACHE_OUTCOME_ERROR;
	}
	result.latency_ns = timed ? clock_ns() - start_ns : 0;
	bcache_policy.result(&result);
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	return err;
}

/* --- Writing ------------------------------------------------------------ */

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
			sleep_for_disk(self, i, 0);	/* someone else's write-back of it */
		if (b->generation != generation || !b->dirty)
			return 0;
		int status = 1;
		bcache.sync_status[i] = &status;
		int err = cache_write_back(c, i);
		if (err) {
			bcache.sync_status[i] = NULL;
			if (err == -EAGAIN) {
				/* the disk queue was full */
				sleep_for_disk(self, BCACHE_NO_BUFFER, RETRY_TICKS);
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
			sleep_for_disk(self, i, 0);
		return status;
	}
}

/*
 * bcache_write_bytes runs these steps with the cache lock held, dropping
 * it only to sleep:
 *   1. Admit the request: number it, fire bcache.request (flags say a
 *      write, whether synchronous, whether of the whole block).
 *   2. cache_demand, as a read does (a miss of a whole block inserts it
 *      valid without reading; when only dirty buffers could make room it
 *      writes the least recently used back and says to wait: -EBUSY).
 *   3. Sleep until the buffer is VALID and not being written back (a
 *      changed generation: the partial write's read failed, -EIO, or the
 *      block left while clean: go back to 2).
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
	int err = 0, i = BCACHE_NO_BUFFER;

	bcache_policy.request(result.seq, block, c->in_flight, flags);
	for (;;) {
		int got = cache_demand(c, block, flags, &result, &i);
		if (got == -EBUSY) {
			wait_for_room(c, self);
			continue;
		}
		if (got == -EAGAIN) {
			sleep_for_disk(self, BCACHE_NO_BUFFER, RETRY_TICKS);	/* disk queue full */
			continue;
		}
		if (got < 0) {
			err = -EIO;	/* the read could not start, or no room (every buffer
					   dirty with a failed write-back) */
			break;
		}
		struct bcache_buffer *b = &c->buffer[i];
		uint32_t generation = b->generation;
		while ((b->state == BUFFER_LOADING || b->writing) && b->generation == generation)
			sleep_for_disk(self, i, 0);
		if (b->generation == generation)
			break;
		if (b->failed_generation == generation) {
			err = -EIO;
			break;
		}
	}
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
static void sync_locked(struct thread *self)
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
			sleep_for_disk(self, BCACHE_NO_BUFFER, RETRY_TICKS);	/* disk queue full */
		}
	}
	while (c->writing)
		sleep_for_disk(self, BCACHE_NO_BUFFER, 0);
}

int bcache_sync(void)
{
	if (!bcache.disk)
		return -ENODEV;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	sync_locked(thread_current());
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
 * dirty, until kicked by a write). It does not retry a buffer whose
 * write-back failed (a sync does), nor wait for its writes.
 */
static void flush_thread(void *arg)
{
	struct bcache_cache *c = &bcache.cache;

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

void bcache_settle(void)
{
	wait_event(&bcache.wq, bcache.cache.in_flight == 0 && bcache.cache.writing == 0);
}

/* The counters of the cache before its resets (bcache.wq.lock): bcache_get_totals. */
static struct bcache_stats retired;

_Static_assert(sizeof(struct bcache_stats) % sizeof(uint64_t) == 0,
	       "struct bcache_stats holds only 64-bit counters");
static void add_stats(struct bcache_stats *into, const struct bcache_stats *s)
{
	uint64_t *a = (uint64_t *)into;
	const uint64_t *b = (const uint64_t *)s;
	for (size_t i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		a[i] += b[i];
}

int bcache_reset(unsigned nbuffers)
{
	if (!bcache.disk)
		return -ENODEV;
	if (nbuffers < 1 || nbuffers > BCACHE_MAX_BUFFERS)
		return -ERANGE;
	struct bcache_cache *c = &bcache.cache;
	struct thread *self = thread_current();
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	/*
	 * Sync until nothing is dirty or in flight; writers may dirty more
	 * meanwhile. After a sync, blocks still dirty whose write-backs all
	 * failed end the reset with -EIO: the cache keeps their data.
	 */
	bool synced = false;
	while (c->dirty || c->writing || c->in_flight) {
		bool only_failed = c->dirty && !c->writing;
		for (unsigned i = 0; only_failed && i < c->nbuffers; i++)
			if (c->buffer[i].dirty && !c->buffer[i].write_failed)
				only_failed = false;
		if (synced && only_failed) {
			spin_unlock_irqrestore(&bcache.wq.lock, f);
			return -EIO;
		}
		if (c->dirty) {
			sync_locked(self);
			synced = true;
		}
		while (c->in_flight || c->writing)
			waitq_sleep(&bcache.wq, 0);
	}
	add_stats(&retired, &bcache.cache.stats);
	cache_empty(&bcache.cache);
	bcache.cache.nbuffers = nbuffers;
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	return 0;
}

void bcache_get_stats(struct bcache_stats *s)
{
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	*s = bcache.cache.stats;
	s->dirty = bcache.cache.dirty;
	spin_unlock_irqrestore(&bcache.wq.lock, f);
}

void bcache_get_totals(struct bcache_stats *s)
{
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	*s = retired;
	add_stats(s, &bcache.cache.stats);
	s->dirty = bcache.cache.dirty;
	spin_unlock_irqrestore(&bcache.wq.lock, f);
}

int bcache_victim(uint64_t *block)
{
	struct bcache_cache *c = &bcache.cache;

	if (!bcache.disk)
		return -ENODEV;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	int err = c->occupied < c->nbuffers ? -EAGAIN : 0;
	if (!err) {
		int i = cache_ask_evict(c);
		if (i == BCACHE_NO_BUFFER)
			err = -EBUSY;
		else {
			*block = c->buffer[i].block;
			err = i;
		}
	}
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	return err;
}

bool bcache_check(char *why, size_t n)
{
	if (!bcache.disk)
		return true;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	bool ok = cache_check(&bcache.cache, why, n);
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	return ok;
}

void bcache_dump(void (*print)(const char *line, void *arg), void *arg)
{
	if (!bcache.disk)
		return;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	cache_dump(&bcache.cache, blkdev_name(bcache.disk), print, arg);
	spin_unlock_irqrestore(&bcache.wq.lock, f);
}

void bcache_init(void)
{
	struct blkdev *disk = blkdev_find("vda");

	if (!disk)
		return;
	for (unsigned i = 0; i < BCACHE_MAX_BUFFERS; i++) {
		bcache.data[i] = kmalloc(BCACHE_BLOCK_SIZE);
		if (!bcache.data[i]) {
			printk("bcache: out of memory for %u buffers; no block cache\n",
			       BCACHE_MAX_BUFFERS);
			while (i--)
				kfree(bcache.data[i]);
			return;
		}
	}
	cache_init(&bcache.cache, BCACHE_DEFAULT_BUFFERS,
		   blkdev_sectors(disk) / BCACHE_BLOCK_SECTORS);
	bcache.disk = disk;
	printk("bcache: %s, %llu blocks of %u bytes, %u buffers\n", blkdev_name(disk),
	       (unsigned long long)bcache.cache.blocks, BCACHE_BLOCK_SIZE, bcache.cache.nbuffers);
}
