// SPDX-License-Identifier: BSD-2-Clause
/*
 * The block cache's mechanism: lookup, buffer allocation, disk reads and
 * their completion, prefetching what the read-ahead policy planned, and
 * the cache's state for `bcache dump`. Which block leaves and which
 * blocks to prefetch are the policies' (policy_lru.c, graft points).
 *
 * Invariants (cache lock held): a buffer is in its hash chain and on the
 * LRU list exactly while it holds a block (LOADING or VALID); occupied
 * counts them; a LOADING buffer's request belongs to the disk, so it is
 * never evicted or reset, and in_flight counts such buffers. A buffer's
 * generation changes whenever its block leaves, so a reader who slept
 * on a load can tell that its block left, and failed_generation whether
 * it left because the disk read failed.
 */
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/sched.h>
#include "bcache_internal.h"

/* The cache lock is only ever held by one CPU; spin_held_here tells which. */
struct bcache bcache = {
	.wq = WAITQ_INIT(bcache.wq, "bcache"),
	.lru = LIST_HEAD_INIT(bcache.lru),
};

#define RETRY_TICKS 1	/* sleep before retrying a read the disk queue had no room for */

bool bcache_available(void)
{
	return bcache.disk != NULL;
}

uint64_t bcache_disk_blocks(void)
{
	return bcache.disk ? bcache.blocks : 0;
}

bool bcache_locked_here(void)
{
	return spin_held_here(&bcache.wq.lock);
}

static unsigned hash_bucket(uint64_t block)
{
	return (unsigned)(block ^ (block >> 9)) & (BCACHE_HASH_BUCKETS - 1);
}

static int lookup(uint64_t block)
{
	for (int i = bcache.hash[hash_bucket(block)]; i != BCACHE_NO_BUFFER;
	     i = bcache.buffer[i].hash_next)
		if (bcache.buffer[i].block == block)
			return i;
	return BCACHE_NO_BUFFER;
}

static void hash_remove(int i)
{
	int16_t *link = &bcache.hash[hash_bucket(bcache.buffer[i].block)];
	while (*link != i)
		link = &bcache.buffer[*link].hash_next;
	*link = bcache.buffer[i].hash_next;
}

/* Put block into free buffer i, most recently used, as a demand read or a prefetch. */
static void insert(int i, uint64_t block, bool demand)
{
	struct bcache_buffer *b = &bcache.buffer[i];
	unsigned bucket = hash_bucket(block);

	b->block = block;
	b->state = BUFFER_LOADING;
	b->referenced = demand;
	b->prefetched = !demand;
	b->accesses = demand ? 1 : 0;
	b->inserted = b->last_access = ++bcache.clock;
	b->tag = 0;
	b->hash_next = bcache.hash[bucket];
	bcache.hash[bucket] = (int16_t)i;
	list_add_tail(&bcache.lru, &b->lru);
	bcache.occupied++;
}

/* Make buffer i free (its block leaves the cache). */
static void drop(int i)
{
	struct bcache_buffer *b = &bcache.buffer[i];

	hash_remove(i);
	list_remove(&b->lru);
	b->block = BCACHE_NO_BLOCK;
	b->state = BUFFER_FREE;
	b->generation++;
	bcache.occupied--;
}

/* A demand access to the block in buffer i. */
static void touch(int i)
{
	struct bcache_buffer *b = &bcache.buffer[i];

	b->referenced = true;
	b->accesses++;
	b->last_access = ++bcache.clock;
	if (b->prefetched) {
		b->prefetched = false;
		bcache.stats.prefetch_used++;
	}
	list_remove(&b->lru);
	list_add_tail(&bcache.lru, &b->lru);
}

int bcache_lru_evictable(void)
{
	list_foreach(&bcache.lru, it) {
		struct bcache_buffer *b = list_entry(it, struct bcache_buffer, lru);
		if (b->state == BUFFER_VALID)
			return (int)(b - bcache.buffer);
	}
	return BCACHE_NO_BUFFER;
}

int bcache_ask_evict(void)
{
	if (bcache.occupied < bcache.nbuffers || bcache_lru_evictable() == BCACHE_NO_BUFFER)
		return BCACHE_NO_BUFFER;
	return bcache_policy.evict();
}

/*
 * A buffer for a new block: the lowest-numbered free one, else the
 * eviction policy's victim (a graft's result has been checked by its
 * graft point; the default's is right), else none: every buffer is
 * loading.
 */
static int allocate(void)
{
	if (bcache.occupied < bcache.nbuffers) {
		for (unsigned i = 0; i < bcache.nbuffers; i++)
			if (bcache.buffer[i].state == BUFFER_FREE)
				return (int)i;
	}
	int victim = bcache_ask_evict();
	if (victim == BCACHE_NO_BUFFER)
		return BCACHE_NO_BUFFER;
	drop(victim);
	bcache.stats.evictions++;
	return victim;
}

/* The disk finished a read into a buffer (interrupt context). */
static void read_done(struct blk_request *r)
{
	struct bcache_buffer *b = r->ctx;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);

	if (r->status == 0) {
		b->state = BUFFER_VALID;
	} else {
		bcache.stats.io_errors++;
		b->failed_generation = b->generation;
		drop((int)(b - bcache.buffer));
	}
	bcache.in_flight--;
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	waitq_wake_all(&bcache.wq);
}

/* Start the disk read of buffer i's block. On failure the block leaves again. */
static int start_read(int i)
{
	struct bcache_buffer *b = &bcache.buffer[i];

	b->request = (struct blk_request){
		.sector = b->block * BCACHE_BLOCK_SECTORS, .count = BCACHE_BLOCK_SECTORS,
		.buf = b->data, .done = read_done, .ctx = b,
	};
	int err = blkdev_submit(bcache.disk, &b->request);
	if (err) {
		drop(i);
		return err;
	}
	bcache.in_flight++;
	bcache.stats.io_reads++;
	return 0;
}

/* Ask the read-ahead policy for a plan after a demand read, then start it. */
static void read_ahead(uint64_t block, bool hit)
{
	uint64_t previous = bcache.previous;

	bcache.previous = block;
	bcache.nplan = 0;
	bcache.planning = true;
	bcache_policy.readahead(block, previous, hit);
	bcache.planning = false;
	for (unsigned k = 0; k < bcache.nplan; k++) {
		uint64_t p = bcache.plan[k];
		if (lookup(p) != BCACHE_NO_BUFFER) {
			bcache.stats.prefetch_cached++;
			continue;
		}
		int i = allocate();
		if (i == BCACHE_NO_BUFFER) {
			bcache.stats.prefetch_dropped++;
			continue;
		}
		insert(i, p, false);
		if (start_read(i))
			bcache.stats.prefetch_dropped++;
		else
			bcache.stats.prefetches++;
	}
	bcache.nplan = 0;
}

/*
 * bcache_read runs these steps with the cache lock held, dropping it
 * only to sleep:
 *   1. Look the block up. Found and VALID: a hit. Found and LOADING (a
 *      prefetch, or another reader's miss): a hit that waits; after the
 *      wait a changed generation means the read failed (-EIO) or a reset
 *      emptied the cache (go back to 1).
 *   2. Not found: a miss. Take a buffer (free, else the eviction
 *      policy's victim; when every buffer is loading, wait and go back
 *      to 1), insert the block LOADING, start the read, sleep until it
 *      completes (-EIO if it failed; if the disk queue was full, wait a
 *      tick and go back to 1).
 *   3. Copy the block out, then run the read-ahead policy and start the
 *      reads it planned.
 */
int bcache_read(uint64_t block, void *out)
{
	if (!bcache.disk)
		return -ENODEV;
	if (block >= bcache.blocks)
		return -EINVAL;

	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	bool counted = false, hit = false;
	int err = 0, i;

	for (;;) {
		i = lookup(block);
		if (i != BCACHE_NO_BUFFER) {
			if (!counted) {
				counted = hit = true;
				bcache.stats.reads++;
				bcache.stats.hits++;
				touch(i);
			}
		} else {
			i = allocate();
			if (i == BCACHE_NO_BUFFER) {
				waitq_sleep(&bcache.wq, 0);
				continue;
			}
			if (!counted) {
				counted = true;
				bcache.stats.reads++;
				bcache.stats.misses++;
			}
			insert(i, block, true);
			err = start_read(i);
			if (err == -EAGAIN) {
				waitq_sleep(&bcache.wq, RETRY_TICKS);
				err = 0;
				continue;
			}
			if (err)
				break;
		}
		struct bcache_buffer *b = &bcache.buffer[i];
		uint32_t generation = b->generation;
		if (b->state == BUFFER_LOADING && hit)
			bcache.stats.waits++;
		while (b->state == BUFFER_LOADING && b->generation == generation)
			waitq_sleep(&bcache.wq, 0);
		if (b->generation == generation)
			break;
		if (b->failed_generation == generation) {
			err = -EIO;
			break;
		}
		/* A reset emptied the cache meanwhile: look again. */
	}
	if (!err) {
		memcpy(out, bcache.buffer[i].data, BCACHE_BLOCK_SIZE);
		read_ahead(block, hit);
	}
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	return err;
}

void bcache_settle(void)
{
	wait_event(&bcache.wq, bcache.in_flight == 0);
}

/* Empty the cache; in_flight is 0. */
static void empty(void)
{
	for (unsigned i = 0; i < BCACHE_MAX_BUFFERS; i++)
		if (bcache.buffer[i].state != BUFFER_FREE)
			drop((int)i);
	for (unsigned k = 0; k < BCACHE_HASH_BUCKETS; k++)
		bcache.hash[k] = BCACHE_NO_BUFFER;
	bcache.clock = 0;
	bcache.previous = BCACHE_NO_BLOCK;
	memset(bcache.policy, 0, sizeof(bcache.policy));
	memset(&bcache.stats, 0, sizeof(bcache.stats));
}

int bcache_reset(unsigned nbuffers)
{
	if (!bcache.disk)
		return -ENODEV;
	if (nbuffers < 1 || nbuffers > BCACHE_MAX_BUFFERS)
		return -ERANGE;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	while (bcache.in_flight)
		waitq_sleep(&bcache.wq, 0);
	empty();
	bcache.nbuffers = nbuffers;
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	return 0;
}

void bcache_get_stats(struct bcache_stats *s)
{
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	*s = bcache.stats;
	spin_unlock_irqrestore(&bcache.wq.lock, f);
}

int bcache_victim(uint64_t *block)
{
	if (!bcache.disk)
		return -ENODEV;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	int err = bcache.occupied < bcache.nbuffers ? -EAGAIN : 0;
	if (!err) {
		int i = bcache_ask_evict();
		if (i == BCACHE_NO_BUFFER)
			err = -EBUSY;
		else {
			*block = bcache.buffer[i].block;
			err = i;
		}
	}
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	return err;
}

bool bcache_check(char *why, size_t n)
{
	unsigned occupied = 0, on_lru = 0, loading = 0;
	bool ok = true;

	if (!bcache.disk)
		return true;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	for (unsigned i = 0; i < BCACHE_MAX_BUFFERS && ok; i++) {
		const struct bcache_buffer *b = &bcache.buffer[i];
		if (b->state == BUFFER_FREE)
			continue;
		occupied++;
		loading += b->state == BUFFER_LOADING;
		if (i >= bcache.nbuffers || lookup(b->block) != (int)i || b->block >= bcache.blocks) {
			snprintf(why, n, "buffer %u (block %llu) is not where a lookup finds it", i,
				 (unsigned long long)b->block);
			ok = false;
		}
	}
	list_foreach(&bcache.lru, it)
		on_lru++;
	if (ok && (occupied != bcache.occupied || on_lru != occupied ||
		   loading != bcache.in_flight || occupied > bcache.nbuffers)) {
		snprintf(why, n, "%u buffers occupied, %u counted, %u on the LRU list, %u loading, "
			 "%u in flight, %u buffers", occupied, bcache.occupied, on_lru, loading,
			 bcache.in_flight, bcache.nbuffers);
		ok = false;
	}
	const struct bcache_stats *s = &bcache.stats;
	if (ok && s->hits + s->misses != s->reads) {
		snprintf(why, n, "%llu hits and %llu misses in %llu reads",
			 (unsigned long long)s->hits, (unsigned long long)s->misses,
			 (unsigned long long)s->reads);
		ok = false;
	}
	spin_unlock_irqrestore(&bcache.wq.lock, f);
	return ok;
}

static const char *const state_names[] = {
	[BUFFER_FREE] = "free", [BUFFER_LOADING] = "loading", [BUFFER_VALID] = "valid",
};

void bcache_dump(void (*print)(const char *line, void *arg), void *arg)
{
	char line[160];

	if (!bcache.disk)
		return;
	irqflags_t f = spin_lock_irqsave(&bcache.wq.lock);
	snprintf(line, sizeof(line), "cache %s: %llu blocks, %u buffers, %u occupied, "
		 "%u loading, clock %llu, previous %lld", blkdev_name(bcache.disk),
		 (unsigned long long)bcache.blocks, bcache.nbuffers, bcache.occupied,
		 bcache.in_flight, (unsigned long long)bcache.clock,
		 bcache.previous == BCACHE_NO_BLOCK ? -1ll : (long long)bcache.previous);
	print(line, arg);
	size_t n = (size_t)snprintf(line, sizeof(line), "policy");
	for (unsigned k = 0; k < BCACHE_POLICY_WORDS; k++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %llu",
				      (unsigned long long)bcache.policy[k]);
	print(line, arg);
	for (unsigned i = 0; i < bcache.nbuffers; i++) {
		const struct bcache_buffer *b = &bcache.buffer[i];
		if (b->state == BUFFER_FREE)
			continue;
		snprintf(line, sizeof(line), "buf %u block %llu %s ref %d acc %llu ins %llu "
			 "last %llu tag %llu%s", i, (unsigned long long)b->block,
			 state_names[b->state], b->referenced, (unsigned long long)b->accesses,
			 (unsigned long long)b->inserted, (unsigned long long)b->last_access,
			 (unsigned long long)b->tag, b->prefetched ? " prefetched" : "");
		print(line, arg);
	}
	n = (size_t)snprintf(line, sizeof(line), "lru");
	list_foreach(&bcache.lru, it) {
		if (n + 8 >= sizeof(line)) {
			print(line, arg);
			n = (size_t)snprintf(line, sizeof(line), "lru+");
		}
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %u",
				      (unsigned)(list_entry(it, struct bcache_buffer, lru) - bcache.buffer));
	}
	print(line, arg);
	spin_unlock_irqrestore(&bcache.wq.lock, f);
}

void bcache_init(void)
{
	struct blkdev *disk = blkdev_find("vda");

	if (!disk)
		return;
	for (unsigned i = 0; i < BCACHE_MAX_BUFFERS; i++) {
		struct bcache_buffer *b = &bcache.buffer[i];
		b->data = kmalloc(BCACHE_BLOCK_SIZE);
		if (!b->data) {
			printk("bcache: out of memory for %u buffers; no block cache\n",
			       BCACHE_MAX_BUFFERS);
			while (i--)
				kfree(bcache.buffer[i].data);
			return;
		}
		b->block = BCACHE_NO_BLOCK;
		b->state = BUFFER_FREE;
		b->failed_generation = UINT32_MAX;	/* none failed yet */
	}
	bcache.blocks = blkdev_sectors(disk) / BCACHE_BLOCK_SECTORS;
	bcache.nbuffers = BCACHE_DEFAULT_BUFFERS;
	empty();
	bcache.disk = disk;
	printk("bcache: %s, %llu blocks of %u bytes, %u buffers\n", blkdev_name(disk),
	       (unsigned long long)bcache.blocks, BCACHE_BLOCK_SIZE, bcache.nbuffers);
}
