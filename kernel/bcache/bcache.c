// SPDX-License-Identifier: BSD-2-Clause
/*
 * The live block cache: the instance of cache.c's bookkeeping that has
 * data buffers and a disk. This file does what a simulation instance
 * does not: disk reads and writes and their completion, sleeping on
 * them, copying data in and out, the cache lock, and firing the cache's
 * input and output events (bcache.request, bcache.result) that recording
 * grafts watch. The write path and the flush thread are bcache_write.c.
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
void bcache_sleep_for_disk(struct thread *self, int i, uint64_t timeout_ticks)
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
		bcache_sleep_for_disk(self, BCACHE_NO_BUFFER, 0);
	while (c->writing);
}

/*
 * Steps 2 and 3 of a demand request (a read or a write, flags as in
 * bcache.request): cache_demand, sleeping while no buffer can be had
 * (every one loading, dirty or being written back) or the disk queue is
 * full, then until the buffer is VALID (and, for a write, not being
 * written back). A block that left while we slept (a reset, or evicted
 * once valid) is looked up again.
 * Return value: 0 with *i the buffer; -EIO (the disk read failed, or no
 * room: every buffer dirty with a failed write-back); cache_demand's
 * other errors. Cache lock held (dropped while asleep).
 */
int bcache_admit(struct bcache_cache *c, struct thread *self, uint64_t block, unsigned flags,
		 struct bcache_result *result, int *i)
{
	for (;;) {
		int got = cache_demand(c, block, flags, result, i);
		if (got == -EBUSY) {
			wait_for_room(c, self);
			continue;
		}
		if (got == -EAGAIN) {
			bcache_sleep_for_disk(self, BCACHE_NO_BUFFER, RETRY_TICKS);	/* queue full */
			continue;
		}
		if (got < 0)
			return got == -ENOSPC ? -EIO : got;
		struct bcache_buffer *b = &c->buffer[*i];
		uint32_t generation = b->generation;
		bool write = flags & BCACHE_REQ_WRITE;
		while ((b->state == BUFFER_LOADING || (write && b->writing)) &&
		       b->generation == generation)
			bcache_sleep_for_disk(self, *i, 0);
		if (b->generation == generation)
			return 0;
		if (b->failed_generation == generation)
			return -EIO;
	}
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
	int i = BCACHE_NO_BUFFER;

	bcache_policy.request(result.seq, block, c->in_flight, BCACHE_REQ_READ);
	int err = bcache_admit(c, self, block, BCACHE_REQ_READ, &result, &i);
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
			bcache_sync_locked(self);
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
