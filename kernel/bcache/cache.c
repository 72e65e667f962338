// SPDX-License-Identifier: BSD-2-Clause
/*
 * The block cache's decisions, on one instance (cache.h): lookup,
 * insertion, eviction through the policy, demand admission and the
 * read-ahead plan. Portable: no locks, no disk, no clock, so the live
 * cache (bcache.c) and every simulation instance (kernel/insitu/, the
 * host's sim/) run exactly this code and decide alike.
 *
 * Invariants (instance lock held): a buffer is in its hash chain and on
 * the LRU list exactly while it holds a block (LOADING or VALID);
 * occupied counts them; in_flight counts LOADING buffers whose read the
 * embedder has started (a simulation instance has none). Only VALID
 * buffers are dirty or writing, never both; dirty and writing count
 * them. A dirty or writing buffer is never evicted or dropped (but by
 * cache_empty, which the live cache calls only when none is). A
 * buffer's generation changes whenever its block leaves.
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include "cache.h"

static unsigned hash_bucket(uint64_t block)
{
	return (unsigned)(block ^ (block >> 9)) & (BCACHE_HASH_BUCKETS - 1);
}

void cache_init(struct bcache_cache *c, unsigned nbuffers, uint64_t blocks)
{
	list_init(&c->lru);
	for (unsigned i = 0; i < BCACHE_MAX_BUFFERS; i++) {
		c->buffer[i].block = BCACHE_NO_BLOCK;
		c->buffer[i].state = BUFFER_FREE;
		c->buffer[i].dirty = c->buffer[i].writing = c->buffer[i].write_failed = false;
		c->buffer[i].failed_generation = UINT32_MAX;	/* none failed yet */
	}
	c->occupied = c->in_flight = c->writing = c->dirty = 0;
	c->nbuffers = nbuffers;
	c->blocks = blocks;
	cache_empty(c);
}

int cache_lookup(const struct bcache_cache *c, uint64_t block)
{
	for (int i = c->hash[hash_bucket(block)]; i != BCACHE_NO_BUFFER; i = c->buffer[i].hash_next)
		if (c->buffer[i].block == block)
			return i;
	return BCACHE_NO_BUFFER;
}

static void hash_remove(struct bcache_cache *c, int i)
{
	int16_t *link = &c->hash[hash_bucket(c->buffer[i].block)];
	while (*link != i)
		link = &c->buffer[*link].hash_next;
	*link = c->buffer[i].hash_next;
}

void cache_insert(struct bcache_cache *c, int i, uint64_t block, bool demand)
{
	struct bcache_buffer *b = &c->buffer[i];
	unsigned bucket = hash_bucket(block);

	b->block = block;
	b->state = BUFFER_LOADING;
	b->dirty = b->writing = b->write_failed = false;
	b->referenced = demand;
	b->prefetched = !demand;
	b->accesses = demand ? 1 : 0;
	b->inserted = b->last_access = ++c->clock;
	b->tag = 0;
	b->hash_next = c->hash[bucket];
	c->hash[bucket] = (int16_t)i;
	list_add_tail(&c->lru, &b->lru);
	c->occupied++;
}

void cache_drop(struct bcache_cache *c, int i)
{
	struct bcache_buffer *b = &c->buffer[i];

	hash_remove(c, i);
	list_remove(&b->lru);
	if (b->dirty)
		c->dirty--;
	if (b->writing)
		c->writing--;
	b->dirty = b->writing = b->write_failed = false;
	b->block = BCACHE_NO_BLOCK;
	b->state = BUFFER_FREE;
	b->generation++;
	c->occupied--;
}

void cache_touch(struct bcache_cache *c, int i)
{
	struct bcache_buffer *b = &c->buffer[i];

	b->referenced = true;
	b->accesses++;
	b->last_access = ++c->clock;
	if (b->prefetched) {
		b->prefetched = false;
		c->stats.prefetch_used++;
	}
	list_remove(&b->lru);
	list_add_tail(&c->lru, &b->lru);
}

int cache_lru_evictable(const struct bcache_cache *c)
{
	list_foreach(&c->lru, it) {
		const struct bcache_buffer *b = list_entry(it, struct bcache_buffer, lru);
		if (cache_evictable(c, (unsigned)(b - c->buffer)))
			return (int)(b - c->buffer);
	}
	return BCACHE_NO_BUFFER;
}

bool cache_mark_dirty(struct bcache_cache *c, int i)
{
	struct bcache_buffer *b = &c->buffer[i];
	bool was_clean = !b->dirty;

	b->write_failed = false;	/* new data: a write-back may try again */
	if (was_clean) {
		b->dirty = true;
		c->dirty++;
	}
	return was_clean;
}

void cache_write_done(struct bcache_cache *c, int i, int status)
{
	struct bcache_buffer *b = &c->buffer[i];

	b->writing = false;
	c->writing--;
	if (status) {
		c->stats.write_errors++;
		b->dirty = b->write_failed = true;
		c->dirty++;
	}
}

int cache_write_back(struct bcache_cache *c, int i)
{
	struct bcache_buffer *b = &c->buffer[i];

	b->dirty = false;
	c->dirty--;
	b->writing = true;
	c->writing++;
	if (!c->start_write) {
		c->stats.io_writes++;
		cache_write_done(c, i, 0);	/* a modelled write completes at once */
		return 0;
	}
	int err = c->start_write(c, i);
	if (err) {
		b->writing = false;
		c->writing--;
		b->dirty = true;
		c->dirty++;
		return err;
	}
	c->stats.io_writes++;
	return 0;
}

int cache_make_room(struct bcache_cache *c)
{
	int started = 0, err = 0;

	list_foreach(&c->lru, it) {
		struct bcache_buffer *b = list_entry(it, struct bcache_buffer, lru);
		if (!b->dirty || b->writing || b->write_failed)
			continue;
		err = cache_write_back(c, (int)(b - c->buffer));
		if (err)
			break;
		c->stats.writebacks++;
		if (++started == BCACHE_ROOM_BATCH)
			break;
	}
	return started ? started : err;
}

int cache_ask_evict(struct bcache_cache *c)
{
	if (c->occupied < c->nbuffers || cache_lru_evictable(c) == BCACHE_NO_BUFFER)
		return BCACHE_NO_BUFFER;
	struct bcache_cache *outer = cache_env_set_current(c);
	int victim = (*c->evict)();
	cache_env_set_current(outer);
	return victim;
}

int cache_allocate(struct bcache_cache *c, uint64_t *victim)
{
	*victim = BCACHE_NO_BLOCK;
	if (c->occupied < c->nbuffers) {
		for (unsigned i = 0; i < c->nbuffers; i++)
			if (c->buffer[i].state == BUFFER_FREE)
				return (int)i;
	}
	/* The policy's answer was checked by its graft point (a graft's) or is right (the default's). */
	int i = cache_ask_evict(c);
	if (i == BCACHE_NO_BUFFER)
		return BCACHE_NO_BUFFER;
	*victim = c->buffer[i].block;
	cache_drop(c, i);
	c->stats.evictions++;
	return i;
}

/* Start the read of buffer i's block; on failure the block leaves again. */
static int start_io(struct bcache_cache *c, int i)
{
	int err = c->start_io(c, i);
	if (err) {
		cache_drop(c, i);
		return err;
	}
	c->stats.io_reads++;
	return 0;
}

int cache_demand(struct bcache_cache *c, uint64_t block, unsigned flags,
		 struct bcache_result *result, int *buffer)
{
	bool counted = result->outcome != 0, write = flags & BCACHE_REQ_WRITE;
	int i = cache_lookup(c, block);

	if (i != BCACHE_NO_BUFFER) {
		*buffer = i;
		if (!counted) {
			if (write) {
				c->stats.writes++;
				c->stats.write_hits++;
			} else {
				c->stats.reads++;
				c->stats.hits++;
			}
			cache_touch(c, i);
			result->outcome = BCACHE_OUTCOME_HIT;
			if (c->buffer[i].state == BUFFER_LOADING) {
				result->outcome = BCACHE_OUTCOME_WAIT;
				c->stats.waits++;
			}
		}
		return (int)result->outcome;
	}
	uint64_t victim;
	i = cache_allocate(c, &victim);
	if (i == BCACHE_NO_BUFFER && c->dirty) {
		int made = cache_make_room(c);	/* a simulation instance's are clean at once */
		if (made < 0)
			return made;
		i = cache_allocate(c, &victim);
	}
	if (i == BCACHE_NO_BUFFER)
		return c->in_flight || c->writing ? -EBUSY : -ENOSPC;
	if (victim != BCACHE_NO_BLOCK)
		result->victim = victim;
	if (!counted) {
		if (write) {
			c->stats.writes++;
			c->stats.write_misses++;
		} else {
			c->stats.reads++;
			c->stats.misses++;
		}
		result->outcome = BCACHE_OUTCOME_MISS;
	}
	*buffer = i;
	cache_insert(c, i, block, true);
	if (write && (flags & BCACHE_REQ_WHOLE)) {
		c->buffer[i].state = BUFFER_VALID;	/* the write replaces it all: nothing to read */
		return BCACHE_OUTCOME_MISS;
	}
	int err = start_io(c, i);
	if (err)
		return err;
	if (result->disk_reads++)
		c->stats.rereads++;
	return BCACHE_OUTCOME_MISS;
}

void cache_read_ahead(struct bcache_cache *c, uint64_t block, bool hit,
		      struct bcache_result *result)
{
	uint64_t previous = c->previous;

	c->previous = block;
	c->nplan = 0;
	c->planning = true;
	struct bcache_cache *outer = cache_env_set_current(c);
	(*c->readahead)(block, previous, hit);
	cache_env_set_current(outer);
	c->planning = false;
	result->nprefetch = c->nplan;
	for (unsigned k = 0; k < c->nplan; k++) {
		struct bcache_prefetch_fate *f = &result->prefetch[k];
		f->block = c->plan[k];
		f->victim = BCACHE_NO_BLOCK;
		f->reserved = 0;
		if (cache_lookup(c, f->block) != BCACHE_NO_BUFFER) {
			c->stats.prefetch_cached++;
			f->fate = BCACHE_PREFETCH_CACHED;
			continue;
		}
		int i = cache_allocate(c, &f->victim);
		if (i == BCACHE_NO_BUFFER) {
			c->stats.prefetch_dropped++;
			f->fate = BCACHE_PREFETCH_NO_BUFFER;
			continue;
		}
		cache_insert(c, i, f->block, false);
		if (start_io(c, i)) {
			c->stats.prefetch_dropped++;
			f->fate = BCACHE_PREFETCH_FAILED;
		} else {
			c->stats.prefetches++;
			f->fate = BCACHE_PREFETCH_STARTED;
		}
	}
	c->nplan = 0;
}

void cache_empty(struct bcache_cache *c)
{
	for (unsigned i = 0; i < BCACHE_MAX_BUFFERS; i++)
		if (c->buffer[i].state != BUFFER_FREE)
			cache_drop(c, (int)i);
	for (unsigned k = 0; k < BCACHE_HASH_BUCKETS; k++)
		c->hash[k] = BCACHE_NO_BUFFER;
	c->clock = 0;
	c->requests = 0;
	c->previous = BCACHE_NO_BLOCK;
	memset(c->policy, 0, sizeof(c->policy));
	memset(&c->stats, 0, sizeof(c->stats));
}

static const char *const state_names[] = {
	[BUFFER_FREE] = "free", [BUFFER_LOADING] = "loading", [BUFFER_VALID] = "valid",
};

bool cache_check(const struct bcache_cache *c, char *why, size_t n)
{
	unsigned occupied = 0, on_lru = 0, loading = 0, dirty = 0, writing = 0;

	for (unsigned i = 0; i < BCACHE_MAX_BUFFERS; i++) {
		const struct bcache_buffer *b = &c->buffer[i];
		if (b->state == BUFFER_FREE) {
			if (b->dirty || b->writing) {
				snprintf(why, n, "free buffer %u is %s", i,
					 b->dirty ? "dirty" : "writing");
				return false;
			}
			continue;
		}
		occupied++;
		loading += b->state == BUFFER_LOADING;
		dirty += b->dirty;
		writing += b->writing;
		if ((b->dirty || b->writing) && (b->state != BUFFER_VALID || (b->dirty && b->writing))) {
			snprintf(why, n, "buffer %u (block %llu) is %s%s%s", i,
				 (unsigned long long)b->block, state_names[b->state],
				 b->dirty ? " dirty" : "", b->writing ? " writing" : "");
			return false;
		}
		if (i >= c->nbuffers || cache_lookup(c, b->block) != (int)i || b->block >= c->blocks) {
			snprintf(why, n, "buffer %u (block %llu) is not where a lookup finds it", i,
				 (unsigned long long)b->block);
			return false;
		}
	}
	list_foreach(&c->lru, it)
		on_lru++;
	if (occupied != c->occupied || on_lru != occupied || loading != c->in_flight ||
	    occupied > c->nbuffers) {
		snprintf(why, n, "%u buffers occupied, %u counted, %u on the LRU list, %u loading, "
			 "%u in flight, %u buffers", occupied, c->occupied, on_lru, loading,
			 c->in_flight, c->nbuffers);
		return false;
	}
	if (dirty != c->dirty || writing != c->writing) {
		snprintf(why, n, "%u buffers dirty, %u counted; %u writing, %u counted", dirty,
			 c->dirty, writing, c->writing);
		return false;
	}
	const struct bcache_stats *s = &c->stats;
	if (s->write_hits + s->write_misses != s->writes) {
		snprintf(why, n, "%llu write hits and %llu write misses in %llu writes",
			 (unsigned long long)s->write_hits, (unsigned long long)s->write_misses,
			 (unsigned long long)s->writes);
		return false;
	}
	if (s->hits + s->misses != s->reads) {
		snprintf(why, n, "%llu hits and %llu misses in %llu reads",
			 (unsigned long long)s->hits, (unsigned long long)s->misses,
			 (unsigned long long)s->reads);
		return false;
	}
	return true;
}

void cache_dump(const struct bcache_cache *c, const char *name,
		void (*print)(const char *line, void *arg), void *arg)
{
	char line[160];

	size_t n = (size_t)snprintf(line, sizeof(line), "cache %s: %llu blocks, %u buffers, "
				    "%u occupied, %u loading, clock %llu, previous %lld", name,
				    (unsigned long long)c->blocks, c->nbuffers, c->occupied,
				    c->in_flight, (unsigned long long)c->clock,
				    c->previous == BCACHE_NO_BLOCK ? -1ll : (long long)c->previous);
	if (c->dirty || c->writing)	/* a cache that was only read dumps as before */
		snprintf(line + n, sizeof(line) - n, ", %u dirty, %u writing", c->dirty, c->writing);
	print(line, arg);
	n = (size_t)snprintf(line, sizeof(line), "policy");
	for (unsigned k = 0; k < BCACHE_POLICY_WORDS; k++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %llu",
				      (unsigned long long)c->policy[k]);
	print(line, arg);
	for (unsigned i = 0; i < c->nbuffers; i++) {
		const struct bcache_buffer *b = &c->buffer[i];
		if (b->state == BUFFER_FREE)
			continue;
		snprintf(line, sizeof(line), "buf %u block %llu %s ref %d acc %llu ins %llu "
			 "last %llu tag %llu%s%s%s%s", i, (unsigned long long)b->block,
			 state_names[b->state], b->referenced, (unsigned long long)b->accesses,
			 (unsigned long long)b->inserted, (unsigned long long)b->last_access,
			 (unsigned long long)b->tag, b->prefetched ? " prefetched" : "",
			 b->dirty ? " dirty" : "", b->writing ? " writing" : "",
			 b->write_failed ? " write-failed" : "");
		print(line, arg);
	}
	n = (size_t)snprintf(line, sizeof(line), "lru");
	list_foreach(&c->lru, it) {
		if (n + 8 >= sizeof(line)) {
			print(line, arg);
			n = (size_t)snprintf(line, sizeof(line), "lru+");
		}
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %u",
				      (unsigned)(list_entry(it, struct bcache_buffer, lru) - c->buffer));
	}
	print(line, arg);
}
