/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The directory name lookup cache (kernel/dnlc/): a fixed number of
 * entries mapping (file system id, directory inode, one path component)
 * to an inode number, or to "does not exist" (a negative entry, inode
 * 0), as Solaris's DNLC does (the KernInst Squid study found its 2181
 * entries overwhelmed by 6000 cache files). Names longer than
 * DNLC_NAME_LEN are never cached. The replacement policy and admission
 * are graft points (grafts/include/graft/dnlc.h).
 *
 * Every function is callable from a thread holding no spinlock; lookups
 * may run on several CPUs at once (one lock, interrupts masked).
 */
#ifndef SCION_DNLC_H
#define SCION_DNLC_H

#include <scion/compiler.h>
#include <graft/dnlc.h>

#define DNLC_NAME_LEN        31		/* longer names are never cached (Solaris's NC_NAMLEN-like) */
#define DNLC_DEFAULT_ENTRIES 2181	/* the Squid paper's size; boot option dnlc=N changes it */
#define DNLC_MAX_ENTRIES     65536

/*
 * Counters since boot or the last dnlc_reset_stats (a resize keeps them).
 * lookups = hits + negative_hits + misses + too_long.
 */
struct dnlc_stats {
	uint64_t lookups;
	uint64_t hits;			/* found a positive entry */
	uint64_t negative_hits;		/* found a negative entry */
	uint64_t misses;		/* not cached (names of at most DNLC_NAME_LEN bytes) */
	uint64_t enters;		/* entries inserted (a replaced key counts once more) */
	uint64_t removes;		/* entries dropped by dnlc_remove */
	uint64_t evictions;		/* entries the replacement policy chose to leave */
	uint64_t purges;		/* entries dropped by dnlc_purge_fs */
	uint64_t too_long;		/* lookups of names longer than DNLC_NAME_LEN */
	unsigned entries, capacity;	/* in use now, and the size */
};

/* Allocate DNLC_DEFAULT_ENTRIES entries (or the boot option's dnlc=N). Init thread, once. */
void dnlc_init(void);

/*
 * dnlc_lookup - the cached answer for name (len bytes, no '/') in
 * directory dir of file system fs.
 * Return value: 0 on a hit, *ino set (0: a negative entry, the name does
 *   not exist); -ENOENT when nothing is cached (also for names longer
 *   than DNLC_NAME_LEN). Fires dnlc.lookup.
 */
int dnlc_lookup(uint32_t fs, uint64_t dir, const char *name, size_t len, uint64_t *ino);

/*
 * dnlc_enter - cache name -> ino (0: a negative entry), replacing an
 * entry for the same key; when dnlc.enter admits it and every entry is
 * in use, dnlc.evict chooses one to leave. Longer names are ignored.
 */
void dnlc_enter(uint32_t fs, uint64_t dir, const char *name, size_t len, uint64_t ino);

/* dnlc_remove - drop the entry for the key if there is one (unlink, rename). */
void dnlc_remove(uint32_t fs, uint64_t dir, const char *name, size_t len);

/* dnlc_purge_fs - drop every entry of file system fs (unmount). */
void dnlc_purge_fs(uint32_t fs);

/*
 * dnlc_resize - use entries entries (1 .. DNLC_MAX_ENTRIES), emptying
 * the cache and zeroing its access clock and policy words; counters are
 * kept. Lookups running meanwhile see the old cache or the empty new one.
 * Return value: 0; -ERANGE; -ENOMEM (the old cache stays).
 */
int dnlc_resize(unsigned entries);

/* 64-bit FNV-1a of name's len bytes (the name_hash dnlc.lookup reports). Any context. */
uint64_t dnlc_name_hash(const char *name, size_t len);

/* Zero the counters (the monitor's totals since boot go on). */
void dnlc_reset_stats(void);

/* A snapshot of the counters, entries and capacity. */
void dnlc_get_stats(struct dnlc_stats *s);

/* The counters since boot, across dnlc_reset_stats (the monitor's). */
void dnlc_get_totals(struct dnlc_stats *s);

/*
 * dnlc_check - check the invariants (every entry in use found by a
 * lookup where it is, the LRU and free lists whole, the counts agreeing).
 * Return value: true, or false with why (n bytes) saying what is wrong.
 */
bool dnlc_check(char *why, size_t n);

#endif
