// SPDX-License-Identifier: BSD-2-Clause
/*
 * The live block cache: the instance of cache.c's bookkeeping that has
 * data buffers and a disk. This file does what a simulation instance
 * does not: disk reads and their completion, sleeping on them, copying
 * data out, the cache lock, and firing the cache's input and output
 * events (bcache.request, bcache.result) that recording grafts watch.
 *
 * Invariants (cache lock held): a LOADING buffer's request belongs to
 * the disk, so it is never evicted or reset, and in_flight counts such
 * buffers. A reader who slept on a load tells from the buffer's
 * generation whether its block left meanwhile, and from
 * failed_generation whether it left because the disk read failed.
 */
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/sched.h>
#include <scion/clock.h>
#include <scion/cpu.h>
#include "bcache_internal.h"

static int start_read(struct bcache_cache *c, int i);

/* The cache lock is only ever held by one CPU; spin_held_here tells which. */
struct bcache bcache = {
	.wq = WAITQ_INIT(bcache.wq, "bcache"),
	.cache = {
		.lru = LIST_HEAD_INIT(bcache.cache.lru),
		.evict = &bcache_policy.evict,
		.readahead = &bcache_policy.readahead,
		.start_io = start_read,
	},
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
	};
	int err = blkdev_submit(bcache.disk, &bcache.request[i]);
	if (!err)
		c->in_flight++;
	return err;
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
 * Sleep on the cache's queue for the disk (a buffer loading, or room in
 * the disk's queue), the time going to the thread's disk waits.
 * bcache.wq.lock held; it is dropped while asleep.
 */
static void sleep_for_disk(struct thread *self, uint64_t timeout_ticks)
{
	uint64_t from = clock_ns();
	waitq_sleep(&bcache.wq, timeout_ticks);
	__atomic_store_n(&self->disk_wait_ns, self->disk_wait_ns + (clock_ns() - from),
			 __ATOMIC_RELAXED);
}

int bcache_read(uint64_t block, void *out)
{
	return bcache_read_bytes(block, 0, out, BCACHE_BLOCK_SIZE);
}

int bcache_read_bytes(uint64_t block, size_t offset, void *out, size_t len)
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

	bcache_policy.request(result.seq, block, c->in_flight);
	for (;;) {
		int got = cache_demand(c, block, &result, &i);
		if (got == -EBUSY) {
			sleep_for_disk(self, 0);	/* every buffer is loading */
			continue;
		}
		if (got == -EAGAIN) {
			sleep_for_disk(self, RETRY_TICKS);	/* the disk queue was full */
			continue;
		}
		if (got < 0) {
			err = got;
			break;
		}
		struct bcache_buffer *b = &c->buffer[i];
		uint32_t generation = b->generation;
		while (b->state == BUFFER_LOADING && b->generation == generation)
			sleep_for_disk(self, 0);
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

void bcache_settle(void)
{
	wait_event(&bcache.wq, bcache.cache.in_flight == 0);
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
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	while (bcache.cache.in_flight)
		waitq_sleep(&bcache.wq, 0);
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
	spin_unlock_irqrestore(&bcache.wq.lock, f);
}

void bcache_get_totals(struct bcache_stats *s)
{
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	*s = retired;
	add_stats(s, &bcache.cache.stats);
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
