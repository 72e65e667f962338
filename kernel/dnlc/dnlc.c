// SPDX-License-Identifier: BSD-2-Clause
/*
 * The directory name lookup cache's mechanism: a chained hash table of
 * fixed-size entries (names of at most DNLC_NAME_LEN bytes stored
 * inline), an LRU list, a free list and the counters; the replacement
 * and admission policies and the lookup event are graft points
 * (points.c), called with the DNLC lock held.
 *
 * Invariants (DNLC lock held): see struct dnlc_table. The storage is
 * kmalloc'ed at the capacity in force; a resize allocates the new
 * arrays before taking the lock, swaps them in under it and frees the
 * old ones after releasing it, so a lookup (which holds the lock from
 * hash to answer) sees either the whole old table or the empty new one.
 *
 * Lock order: DNLC lock -> graft point locks -> console (see
 * dnlc_internal.h); callers hold no spinlock.
 */
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/bootopt.h>
#include <scion/format.h>
#include "dnlc_internal.h"

struct dnlc dnlc = {
	.lock = SPINLOCK_INIT("dnlc"),
	.table = { .free = DNLC_NONE, .lru_head = DNLC_NONE, .lru_tail = DNLC_NONE },
};

static unsigned boot_entries = DNLC_DEFAULT_ENTRIES;

static int parse_dnlc(const char *value)
{
	uint64_t n;

	if (parse_u64(value, &n, false) || n < 1 || n > DNLC_MAX_ENTRIES)
		return -ERANGE;
	boot_entries = (unsigned)n;
	return 0;
}
BOOT_OPTION(dnlc, "1..65536", "entries of the directory name lookup cache (default 2181)",
	    parse_dnlc);

bool dnlc_locked_here(void)
{
	return spin_held_here(&dnlc.lock);
}

uint64_t dnlc_name_hash(const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 0x100000001b3ull;
	return h;
}

/* The name's hash mixed with the directory and the file system. */
static unsigned bucket_of(const struct dnlc_table *t, uint32_t fs, uint64_t dir, uint64_t hash)
{
	uint64_t h = hash ^ (dir * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)fs * 0xc2b2ae3d27d4eb4full);

	h ^= h >> 29;
	return (unsigned)(h ^ (h >> 32)) & t->bucket_mask;
}

static int find(const struct dnlc_table *t, uint32_t fs, uint64_t dir, const char *name,
		size_t len, uint64_t hash)
{
	if (!t->capacity)
		return DNLC_NONE;
	for (int32_t i = t->bucket[bucket_of(t, fs, dir, hash)]; i != DNLC_NONE;
	     i = t->entry[i].hash_next) {
		const struct dnlc_entry *e = &t->entry[i];
		if (e->fs == fs && e->dir == dir && t->name[i].len == len &&
		    !memcmp(t->name[i].s, name, len))
			return i;
	}
	return DNLC_NONE;
}

static void lru_unlink(struct dnlc_table *t, int32_t i)
{
	struct dnlc_entry *e = &t->entry[i];

	if (e->lru_prev == DNLC_NONE)
		t->lru_head = e->lru_next;
	else
		t->entry[e->lru_prev].lru_next = e->lru_next;
	if (e->lru_next == DNLC_NONE)
		t->lru_tail = e->lru_prev;
	else
		t->entry[e->lru_next].lru_prev = e->lru_prev;
}

static void lru_append(struct dnlc_table *t, int32_t i)
{
	struct dnlc_entry *e = &t->entry[i];

	e->lru_prev = t->lru_tail;
	e->lru_next = DNLC_NONE;
	if (t->lru_tail == DNLC_NONE)
		t->lru_head = i;
	else
		t->entry[t->lru_tail].lru_next = i;
	t->lru_tail = i;
}

/* Entry i leaves: out of its chain and the LRU list, onto the free list. */
static void drop(struct dnlc_table *t, int32_t i)
{
	struct dnlc_entry *e = &t->entry[i];
	int32_t *link = &t->bucket[bucket_of(t, e->fs, e->dir,
					       dnlc_name_hash(t->name[i].s, t->name[i].len))];

	while (*link != i)
		link = &t->entry[*link].hash_next;
	*link = e->hash_next;
	lru_unlink(t, i);
	*e = (struct dnlc_entry){ .hash_next = t->free, .lru_prev = DNLC_NONE,
				  .lru_next = DNLC_NONE };
	t->name[i].len = 0;
	t->free = i;
	t->in_use--;
}

int dnlc_lookup(uint32_t fs, uint64_t dir, const char *name, size_t len, uint64_t *ino)
{
	int i = DNLC_NONE, outcome;
	uint64_t hash = dnlc_name_hash(name, len);
	irqflags_t f = spin_lock_irqsave(&dnlc.lock);
	struct dnlc_table *t = &dnlc.table;

	dnlc.stats.lookups++;
	if (len > DNLC_NAME_LEN) {
		dnlc.stats.too_long++;
		outcome = DNLC_OUTCOME_TOO_LONG;
	} else if ((i = find(t, fs, dir, name, len, hash)) == DNLC_NONE) {
		dnlc.stats.misses++;
		outcome = DNLC_OUTCOME_MISS;
	} else {
		struct dnlc_entry *e = &t->entry[i];
		*ino = e->ino;
		if (e->ino) {
			dnlc.stats.hits++;
			outcome = DNLC_OUTCOME_HIT;
		} else {
			dnlc.stats.negative_hits++;
			outcome = DNLC_OUTCOME_NEGATIVE;
		}
		e->referenced = 1;
		if (e->hits != UINT32_MAX)
			e->hits++;
		e->last_access = ++t->clock;
		lru_unlink(t, i);
		lru_append(t, i);
	}
	dnlc_policy.lookup(fs, dir, hash, len, i, outcome);
	spin_unlock_irqrestore(&dnlc.lock, f);
	return i == DNLC_NONE ? -ENOENT : 0;
}

void dnlc_enter(uint32_t fs, uint64_t dir, const char *name, size_t len, uint64_t ino)
{
	if (len > DNLC_NAME_LEN)
		return;
	uint64_t hash = dnlc_name_hash(name, len);
	irqflags_t f = spin_lock_irqsave(&dnlc.lock);
	struct dnlc_table *t = &dnlc.table;
	int32_t i = find(t, fs, dir, name, len, hash);

	if (i != DNLC_NONE)
		drop(t, i);	/* the old answer never survives a new one */
	if (!t->capacity || !dnlc_policy.enter(fs, dir, name, len, ino))
		goto out;
	if (t->free == DNLC_NONE) {
		/* Full: the policy's answer was checked by its graft point, or is the default's. */
		i = dnlc_policy.evict(fs, dir, ino);
		drop(t, i);
		dnlc.stats.evictions++;
	}
	i = t->free;
	struct dnlc_entry *e = &t->entry[i];
	unsigned b = bucket_of(t, fs, dir, hash);
	t->free = e->hash_next;
	*e = (struct dnlc_entry){
		.dir = dir, .ino = ino, .fs = fs, .used = 1, .hash_next = t->bucket[b],
		.inserted = ++t->clock,
	};
	e->last_access = e->inserted;
	t->bucket[b] = i;
	t->name[i].len = (uint8_t)len;
	memcpy(t->name[i].s, name, len);
	lru_append(t, i);
	t->in_use++;
	dnlc.stats.enters++;
out:
	spin_unlock_irqrestore(&dnlc.lock, f);
}

void dnlc_remove(uint32_t fs, uint64_t dir, const char *name, size_t len)
{
	if (len > DNLC_NAME_LEN)
		return;
	uint64_t hash = dnlc_name_hash(name, len);
	irqflags_t f = spin_lock_irqsave(&dnlc.lock);
	int32_t i = find(&dnlc.table, fs, dir, name, len, hash);
	if (i != DNLC_NONE) {
		drop(&dnlc.table, i);
		dnlc.stats.removes++;
	}
	spin_unlock_irqrestore(&dnlc.lock, f);
}

void dnlc_purge_fs(uint32_t fs)
{
	irqflags_t f = spin_lock_irqsave(&dnlc.lock);
	struct dnlc_table *t = &dnlc.table;

	for (unsigned i = 0; i < t->capacity; i++)
		if (t->entry[i].used && t->entry[i].fs == fs) {
			drop(t, (int32_t)i);
			dnlc.stats.purges++;
		}
	spin_unlock_irqrestore(&dnlc.lock, f);
}

/* An empty table of n entries in *t, or -ENOMEM (nothing allocated). */
static int table_alloc(struct dnlc_table *t, unsigned n)
{
	unsigned buckets = 1;

	while (buckets < n)
		buckets <<= 1;
	*t = (struct dnlc_table){
		.capacity = n, .bucket_mask = buckets - 1, .free = 0,
		.lru_head = DNLC_NONE, .lru_tail = DNLC_NONE,
		.entry = kmalloc(n * sizeof(struct dnlc_entry)),
		.name = kmalloc(n * sizeof(struct dnlc_name)),
		.bucket = kmalloc(buckets * sizeof(int32_t)),
	};
	if (!t->entry || !t->name || !t->bucket) {
		kfree(t->entry);
		kfree(t->name);
		kfree(t->bucket);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		t->entry[i] = (struct dnlc_entry){
			.hash_next = i + 1 < n ? (int32_t)(i + 1) : DNLC_NONE,
			.lru_prev = DNLC_NONE, .lru_next = DNLC_NONE,
		};
		t->name[i].len = 0;
	}
	for (unsigned b = 0; b < buckets; b++)
		t->bucket[b] = DNLC_NONE;
	return 0;
}

int dnlc_resize(unsigned entries)
{
	struct dnlc_table fresh, old;

	if (entries < 1 || entries > DNLC_MAX_ENTRIES)
		return -ERANGE;
	int err = table_alloc(&fresh, entries);
	if (err)
		return err;
	irqflags_t f = spin_lock_irqsave(&dnlc.lock);
	old = dnlc.table;
	dnlc.table = fresh;
	spin_unlock_irqrestore(&dnlc.lock, f);
	kfree(old.entry);
	kfree(old.name);
	kfree(old.bucket);
	return 0;
}

static void add_stats(struct dnlc_stats *into, const struct dnlc_stats *s)
{
	into->lookups += s->lookups;
	into->hits += s->hits;
	into->negative_hits += s->negative_hits;
	into->misses += s->misses;
	into->enters += s->enters;
	into->removes += s->removes;
	into->evictions += s->evictions;
	into->purges += s->purges;
	into->too_long += s->too_long;
}

void dnlc_reset_stats(void)
{
	irqflags_t f = spin_lock_irqsave(&dnlc.lock);
	add_stats(&dnlc.retired, &dnlc.stats);
	dnlc.stats = (struct dnlc_stats){ 0 };
	spin_unlock_irqrestore(&dnlc.lock, f);
}

void dnlc_get_stats(struct dnlc_stats *s)
{
	irqflags_t f = spin_lock_irqsave(&dnlc.lock);
	*s = dnlc.stats;
	s->entries = dnlc.table.in_use;
	s->capacity = dnlc.table.capacity;
	spin_unlock_irqrestore(&dnlc.lock, f);
}

void dnlc_get_totals(struct dnlc_stats *s)
{
	irqflags_t f = spin_lock_irqsave(&dnlc.lock);
	*s = dnlc.retired;
	add_stats(s, &dnlc.stats);
	s->entries = dnlc.table.in_use;
	s->capacity = dnlc.table.capacity;
	spin_unlock_irqrestore(&dnlc.lock, f);
}

bool dnlc_check(char *why, size_t n)
{
	irqflags_t f = spin_lock_irqsave(&dnlc.lock);
	const struct dnlc_table *t = &dnlc.table;
	const struct dnlc_stats *s = &dnlc.stats;
	unsigned used = 0, on_lru = 0, free = 0;
	bool ok = true;

	for (unsigned i = 0; i < t->capacity && ok; i++) {
		const struct dnlc_entry *e = &t->entry[i];
		if (!e->used)
			continue;
		used++;
		if (find(t, e->fs, e->dir, t->name[i].s, t->name[i].len,
			 dnlc_name_hash(t->name[i].s, t->name[i].len)) != (int)i) {
			snprintf(why, n, "entry %u is not where a lookup finds it", i);
			ok = false;
		}
	}
	for (int32_t i = t->lru_head, prev = DNLC_NONE; ok && i != DNLC_NONE;
	     prev = i, i = t->entry[i].lru_next, on_lru++) {
		if (on_lru > t->capacity || !t->entry[i].used || t->entry[i].lru_prev != prev) {
			snprintf(why, n, "the LRU list is broken at entry %d", i);
			ok = false;
		}
	}
	for (int32_t i = t->free; ok && i != DNLC_NONE; i = t->entry[i].hash_next, free++) {
		if (free > t->capacity || t->entry[i].used) {
			snprintf(why, n, "the free list is broken at entry %d", i);
			ok = false;
		}
	}
	if (ok && (used != t->in_use || on_lru != used || used + free != t->capacity)) {
		snprintf(why, n, "%u entries used, %u counted, %u on the LRU list, %u free, "
			 "capacity %u", used, t->in_use, on_lru, free, t->capacity);
		ok = false;
	}
	if (ok && s->hits + s->negative_hits + s->misses + s->too_long != s->lookups) {
		snprintf(why, n, "%llu lookups are not %llu hits + %llu negative + %llu misses "
			 "+ %llu too long", (unsigned long long)s->lookups,
			 (unsigned long long)s->hits, (unsigned long long)s->negative_hits,
			 (unsigned long long)s->misses, (unsigned long long)s->too_long);
		ok = false;
	}
	spin_unlock_irqrestore(&dnlc.lock, f);
	return ok;
}

void dnlc_init(void)
{
	if (dnlc_resize(boot_entries))
		printk("dnlc: out of memory for %u entries; no name cache\n", boot_entries);
	else
		printk("dnlc: %u entries of names up to %u bytes\n", boot_entries, DNLC_NAME_LEN);
}
