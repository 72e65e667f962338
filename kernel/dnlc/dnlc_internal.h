/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The DNLC's state, shared by its files: the mechanism (dnlc.c), the
 * graft points and the default policies (points.c), the graft API
 * (api.c), the shell command and its workloads (cmd_dnlc.c) and the
 * monitor's sources.
 *
 * One lock, the DNLC lock (dnlc.lock, a spinlock taken with interrupts
 * masked), guards every field marked "lock". The graft points are
 * called with it held, so grafts and the API they call see a table
 * nothing else changes under them. Lock order: DNLC lock -> graft point
 * locks (an abort removing a graft) -> the console's (an abort's log
 * line). kmalloc and kfree are never called with the DNLC lock held.
 */
#ifndef DNLC_INTERNAL_H
#define DNLC_INTERNAL_H

#include <scion/dnlc.h>
#include <scion/spinlock.h>

#define DNLC_NONE (-1)	/* no entry: the end of a chain or list */

/*
 * One cached name's bookkeeping: 64 bytes, so DNLC_MAX_ENTRIES of them
 * fit the largest kmalloc block (4 MiB). The name itself is in the
 * table's name array at the same index.
 */
struct dnlc_entry {
	uint64_t dir;			/* key */
	uint64_t ino;			/* the answer; 0: negative */
	uint64_t inserted, last_access;	/* access clock values */
	uint64_t tag;			/* the policy's */
	uint32_t fs;			/* key */
	int32_t hash_next;		/* next in its bucket's chain, or in the free list */
	int32_t lru_prev, lru_next;	/* the LRU list, least recent first (used entries only) */
	uint32_t hits;			/* lookups that found it (saturating) */
	uint8_t used;
	uint8_t referenced;
	uint16_t reserved;
};
_Static_assert(sizeof(struct dnlc_entry) == 64, "a DNLC entry is 64 bytes");

struct dnlc_name {
	uint8_t len;
	char s[DNLC_NAME_LEN];
};

/*
 * The table: arrays from kmalloc at the capacity in force. A resize
 * builds a new table off the lock and swaps it in under the lock.
 * Invariants (lock): an entry is in its bucket's chain and on the LRU
 * list exactly while used; in_use counts them; every other entry is on
 * the free list.
 */
struct dnlc_table {
	unsigned capacity;		/* entries: 0 before dnlc_init */
	unsigned in_use;
	unsigned bucket_mask;		/* buckets - 1 (a power of two >= capacity) */
	int32_t free;			/* first free entry */
	int32_t lru_head, lru_tail;	/* least and most recently used */
	uint64_t clock;			/* the access clock */
	uint64_t policy[DNLC_POLICY_WORDS];
	struct dnlc_entry *entry;	/* capacity of them */
	struct dnlc_name *name;		/* capacity of them */
	int32_t *bucket;		/* bucket_mask + 1 chain heads */
};

struct dnlc_policy {
	graft_fn_dnlc_evict *evict;	/* graft point dnlc.evict */
	graft_fn_dnlc_enter *enter;	/* graft point dnlc.enter */
	graft_fn_dnlc_lookup *lookup;	/* graft point dnlc.lookup (an event) */
};
extern struct dnlc_policy dnlc_policy;

struct dnlc {
	struct spinlock lock;		/* the DNLC lock */
	struct dnlc_table table;	/* lock */
	struct dnlc_stats stats;	/* lock: since the last reset (entries, capacity unused) */
	struct dnlc_stats retired;	/* lock: before the resets */
};
extern struct dnlc dnlc;

/* The default policies (points.c): LRU eviction, admit everything. */
int dnlc_default_evict(uint32_t fs, uint64_t dir, uint64_t ino);
int dnlc_default_enter(uint32_t fs, uint64_t dir, const char *name, size_t len, uint64_t ino);

/* Whether the executing CPU holds the DNLC lock. */
bool dnlc_locked_here(void);

/* "lru (default)" or "NAME (graft)": the replacement policy in force, into buf. */
void dnlc_policy_name(const char *point, const char *dflt, char *buf, size_t n);

#endif
