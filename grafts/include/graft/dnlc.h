/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Graft points and API of the directory name lookup cache (kernel/dnlc/).
 *
 * The DNLC maps (file system, directory inode, name) to an inode number,
 * or to "does not exist" (a negative entry, inode 0), in a fixed number
 * of entries (`dnlc size N` sets it). The mechanism hashes, finds,
 * inserts and removes; when every entry is in use and a new one is
 * entered, the replacement policy (dnlc.evict) chooses the entry that
 * leaves. For each entry the mechanism keeps what a policy needs: its
 * key, whether it is negative, a referenced bit, how many lookups found
 * it, when it was inserted and last found (on one access clock that
 * ticks once per hit or insert), and a tag word for the policy's own
 * use. Entries are named by index (0 .. dnlc_capacity() - 1); every
 * index is checked, so a graft's mistake ends in a refused result or an
 * abort, never in a bad pointer being followed.
 *
 * The API below is callable only from a graft running at a dnlc point
 * (the DNLC lock is then held); a call from anywhere else aborts the
 * calling graft.
 */
#ifndef GRAFT_DNLC_H
#define GRAFT_DNLC_H

#include <graft/graft.h>

#define DNLC_POLICY_WORDS 8	/* the policies' own words, zero after a resize */

/* What became of a lookup (the outcome argument of dnlc.lookup). */
#define DNLC_OUTCOME_HIT       1	/* found: the name exists, its inode returned */
#define DNLC_OUTCOME_NEGATIVE  2	/* found a negative entry: the name does not exist */
#define DNLC_OUTCOME_MISS      3	/* not cached */
#define DNLC_OUTCOME_TOO_LONG  4	/* longer than DNLC_NAME_LEN: never cached */

/*
 * dnlc.evict - Overview: every entry is in use and a new one is being
 *   entered: choose the entry that leaves.
 * Arguments: fs, dir and ino of the entry being entered (ino 0: a
 *   negative entry), for a policy that treats kinds of entries apart.
 * Return value: the index of an entry in use (dnlc_entry_used); anything
 *   else is refused and aborts the graft.
 * What it may change: referenced bits, tags and policy words, through
 *   the API (undone on abort).
 * Caller's context: the DNLC lock held, interrupts masked (the graft
 *   runs with only the timer unmasked), in the entering thread; may not
 *   sleep. Default: the least recently used entry (LRU: the one found or
 *   inserted longest ago, dnlc_lru_entry).
 */
#define GRAFT_POINT_dnlc_evict "dnlc.evict", int, (uint32_t fs, uint64_t dir, uint64_t ino)
GRAFT_POINT_TYPEDEF(dnlc_evict);

/*
 * dnlc.enter - Overview: a name is about to be cached (after a miss the
 *   file system resolved it, or created or unlinked it): decide whether
 *   it is worth an entry (admission control: e.g. refuse negative
 *   entries, or names in a directory that is scanned once).
 * Arguments: fs, dir, name and len (at most DNLC_NAME_LEN bytes, not
 *   NUL-terminated; read only, valid during the call), ino (0: a
 *   negative entry). An older entry for the same key has already left.
 * Return value: nonzero to cache it, 0 to leave it out (not counted as
 *   an enter).
 * What it may change: tags and policy words, through the API.
 * Caller's context: as dnlc.evict; called before the eviction the
 *   insert may need. Default: cache everything.
 */
#define GRAFT_POINT_dnlc_enter "dnlc.enter", int, \
	(uint32_t fs, uint64_t dir, const char *name, size_t len, uint64_t ino)
GRAFT_POINT_TYPEDEF(dnlc_enter);

/*
 * dnlc.lookup - Overview: a lookup was answered: the cache's input and
 *   its answer, for grafts that count, record or learn (e.g. a policy
 *   that keeps per-entry statistics in tags). Its arguments are plain
 *   numbers, so `record start dnlc.lookup` writes a trace of the keys
 *   asked that a model can replay.
 * Arguments: fs, dir; name_hash, dnlc_name_hash of the name as asked
 *   (64-bit FNV-1a of its len bytes: offset basis 0xcbf29ce484222325,
 *   prime 0x100000001b3), and len (any length); entry (the index found,
 *   -1 for a miss or a name too long), outcome (DNLC_OUTCOME_*). On a
 *   hit the entry has already become most recently used, its hits and
 *   last access counted.
 * Return value: none. Default: nothing.
 * Caller's context: as dnlc.evict, in the looking-up thread; handlers
 *   should only look (or change tags and policy words).
 */
#define GRAFT_POINT_dnlc_lookup "dnlc.lookup", void, \
	(uint32_t fs, uint64_t dir, uint64_t name_hash, size_t len, int entry, int outcome)
GRAFT_POINT_TYPEDEF(dnlc_lookup);

/* --- The cache ------------------------------------------------------------ */

/* Number of entries (the capacity), and of entries in use. */
unsigned dnlc_capacity(void);
unsigned dnlc_in_use(void);

/* Whether entry i holds a name. */
bool dnlc_entry_used(unsigned i);
/* Its key and answer (0 for a free entry). */
uint32_t dnlc_entry_fs(unsigned i);
uint64_t dnlc_entry_dir(unsigned i);
uint64_t dnlc_entry_ino(unsigned i);		/* 0: a negative entry */
/* Set by every hit on entry i, clear at insertion and by dnlc_clear_referenced. */
bool dnlc_entry_referenced(unsigned i);
void dnlc_clear_referenced(unsigned i);		/* undone on abort */
/* Lookups that found entry i since it was inserted. */
uint64_t dnlc_entry_hits(unsigned i);
/* Access clock when entry i was inserted, and when it was last found or inserted. */
uint64_t dnlc_entry_inserted(unsigned i);
uint64_t dnlc_entry_last_access(unsigned i);
/* The policy's tag of entry i (0 when inserted). */
uint64_t dnlc_entry_tag(unsigned i);
void dnlc_set_entry_tag(unsigned i, uint64_t tag);	/* undone on abort */
/* The policy's words (0 after a resize). */
uint64_t dnlc_policy_word(unsigned k);
void dnlc_set_policy_word(unsigned k, uint64_t v);	/* undone on abort */
/* The least recently used entry (the default's victim), or -1 when none is in use. */
int dnlc_lru_entry(void);

#endif
