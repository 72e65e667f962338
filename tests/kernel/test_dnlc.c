// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the directory name lookup cache (kernel/dnlc/):
 * a scripted mix of enters, lookups, removes, negative entries, long
 * names and purges over 8 entries against an independent LRU model
 * written here (per-lookup answers and every counter); resizes at run
 * time, alone and under concurrent lookups and enters on other CPUs;
 * name lengths, keys that differ only in directory or file system, and
 * purge_fs; and the graft points: a bad victim refused, admission, the
 * lookup event, and the API refusing a graft at another point. Each
 * test leaves the cache at DNLC_DEFAULT_ENTRIES. Policy grafts against
 * a model from the shell are in tests/integration/test_dnlc.py.
 */
#include <scion/ktest.h>
#include <scion/dnlc.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/sched.h>
#include <scion/thread.h>
#include <scion/graft.h>
#include <graft/test.h>
#include "graft_test.h"
#include "dnlc_model.h"

#define CHECK_INVARIANTS(t) do { \
	char why_[160]; \
	KT_EXPECT((t), dnlc_check(why_, sizeof(why_)), "%s", why_); \
} while (0)

static void restore(void)
{
	dnlc_resize(DNLC_DEFAULT_ENTRIES);
	dnlc_reset_stats();
}

/* A lookup's answer: -1 miss, else the inode (0: negative). */
static int64_t ask(uint32_t fs, uint64_t dir, const char *name)
{
	uint64_t ino = ~0ull;
	return dnlc_lookup(fs, dir, name, strlen(name), &ino) ? -1 : (int64_t)ino;
}

static void put(uint32_t fs, uint64_t dir, const char *name, uint64_t ino)
{
	dnlc_enter(fs, dir, name, strlen(name), ino);
}

KTEST(dnlc_lru_by_hand, 1)
{
	struct dnlc_stats s;

	KT_ASSERT(t, dnlc_resize(2) == 0, "resize to 2 failed");
	dnlc_reset_stats();
	put(1, 2, "a", 10);
	put(1, 2, "b", 11);
	KT_EXPECT(t, ask(1, 2, "a") == 10, "a is not 10");	/* b is now least recent */
	put(1, 2, "c", 12);					/* evicts b */
	KT_EXPECT(t, ask(1, 2, "b") == -1, "b was not evicted");
	KT_EXPECT(t, ask(1, 2, "c") == 12 && ask(1, 2, "a") == 10, "a or c lost");
	put(1, 2, "c", 0);					/* replaced: now negative */
	KT_EXPECT(t, ask(1, 2, "c") == 0, "c is not a negative entry");
	dnlc_remove(1, 2, "a", 1);
	KT_EXPECT(t, ask(1, 2, "a") == -1, "a survived its removal");
	dnlc_get_stats(&s);
	KT_EXPECT(t, s.lookups == 6 && s.hits == 3 && s.negative_hits == 1 && s.misses == 2,
		  "lookups %llu hits %llu negative %llu misses %llu", (unsigned long long)s.lookups,
		  (unsigned long long)s.hits, (unsigned long long)s.negative_hits,
		  (unsigned long long)s.misses);
	KT_EXPECT(t, s.enters == 4 && s.evictions == 1 && s.removes == 1 && s.entries == 1 &&
		  s.capacity == 2, "enters %llu evictions %llu removes %llu entries %u capacity %u",
		  (unsigned long long)s.enters, (unsigned long long)s.evictions,
		  (unsigned long long)s.removes, s.entries, s.capacity);
	CHECK_INVARIANTS(t);
	restore();
}

#define SCRIPT_CAPACITY 8
#define SCRIPT_STEPS    3000

static uint64_t next_random(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

KTEST(dnlc_script_matches_lru_model, 1)
{
	static struct dnlc_model m;
	struct dnlc_stats s;
	char name[64];
	uint64_t x = 12345;
	unsigned step = 0;

	KT_ASSERT(t, dnlc_resize(SCRIPT_CAPACITY) == 0, "resize failed");
	dnlc_reset_stats();
	dnlc_model_init(&m, SCRIPT_CAPACITY);
	for (step = 0; step < SCRIPT_STEPS; step++) {
		uint64_t r = next_random(&x);
		uint32_t fs = 1 + (uint32_t)(r % 2);
		uint64_t dir = 100 + (r >> 1) % 2;
		unsigned k = (unsigned)((r >> 2) % 14);
		/* Mostly short names; one key in 14 is DNLC_NAME_LEN + 1 bytes long. */
		size_t len = k == 13 ? DNLC_NAME_LEN + 1 : (size_t)snprintf(name, sizeof(name), "n%u", k);
		if (k == 13)
			memset(name, 'L', len);
		unsigned op = (unsigned)((r >> 8) % 100);
		if (op < 55) {
			uint64_t got = ~0ull, want = ~0ull;
			int hit = dnlc_lookup(fs, dir, name, len, &got) == 0;
			int model_hit = dnlc_model_lookup(&m, fs, dir, name, len, &want);
			KT_ASSERT(t, hit == model_hit && (!hit || got == want),
				  "step %u: lookup (%u, %llu, %.*s): kernel %s %llu, model %s %llu", step,
				  fs, (unsigned long long)dir, (int)len, name, hit ? "hit" : "miss",
				  (unsigned long long)got, model_hit ? "hit" : "miss",
				  (unsigned long long)want);
		} else if (op < 85) {
			/* One in four enters is negative; the answer depends on the step. */
			uint64_t ino = op % 4 == 0 ? 0 : 1000 + step;
			dnlc_enter(fs, dir, name, len, ino);
			dnlc_model_enter(&m, fs, dir, name, len, ino);
		} else if (op < 98) {
			dnlc_remove(fs, dir, name, len);
			dnlc_model_remove(&m, fs, dir, name, len);
		} else {
			dnlc_purge_fs(fs);
			dnlc_model_purge(&m, fs);
		}
	}
	dnlc_get_stats(&s);
	const struct dnlc_stats *w = &m.stats;
	KT_EXPECT(t, s.lookups == w->lookups && s.hits == w->hits &&
		  s.negative_hits == w->negative_hits && s.misses == w->misses &&
		  s.too_long == w->too_long,
		  "lookups/hits/negative/misses/too-long: kernel %llu %llu %llu %llu %llu, model "
		  "%llu %llu %llu %llu %llu", (unsigned long long)s.lookups,
		  (unsigned long long)s.hits, (unsigned long long)s.negative_hits,
		  (unsigned long long)s.misses, (unsigned long long)s.too_long,
		  (unsigned long long)w->lookups, (unsigned long long)w->hits,
		  (unsigned long long)w->negative_hits, (unsigned long long)w->misses,
		  (unsigned long long)w->too_long);
	KT_EXPECT(t, s.enters == w->enters && s.evictions == w->evictions &&
		  s.removes == w->removes && s.purges == w->purges && s.entries == m.used,
		  "enters/evictions/removes/purges/entries: kernel %llu %llu %llu %llu %u, model "
		  "%llu %llu %llu %llu %u", (unsigned long long)s.enters,
		  (unsigned long long)s.evictions, (unsigned long long)s.removes,
		  (unsigned long long)s.purges, s.entries, (unsigned long long)w->enters,
		  (unsigned long long)w->evictions, (unsigned long long)w->removes,
		  (unsigned long long)w->purges, m.used);
	/* The script is long and varied enough to exercise every path. */
	KT_EXPECT(t, w->hits > 50 && w->negative_hits > 10 && w->evictions > 50 &&
		  w->too_long > 50 && w->purges > 5 && w->removes > 20,
		  "the script exercised too little: hits %llu negative %llu evictions %llu "
		  "too-long %llu purges %llu removes %llu", (unsigned long long)w->hits,
		  (unsigned long long)w->negative_hits, (unsigned long long)w->evictions,
		  (unsigned long long)w->too_long, (unsigned long long)w->purges,
		  (unsigned long long)w->removes);
	CHECK_INVARIANTS(t);
	restore();
}

KTEST(dnlc_names_keys_and_purge, 1)
{
	static char name[256];
	uint64_t ino = 0;
	struct dnlc_stats s;

	KT_ASSERT(t, dnlc_resize(64) == 0, "resize failed");
	dnlc_reset_stats();
	memset(name, 'x', sizeof(name));
	dnlc_enter(1, 2, name, 0, 50);
	KT_EXPECT(t, dnlc_lookup(1, 2, name, 0, &ino) == 0 && ino == 50, "the empty name is not cached");
	KT_EXPECT(t, dnlc_lookup(1, 2, name, 1, &ino) == -ENOENT, "'x' found as the empty name");
	dnlc_enter(1, 2, name, DNLC_NAME_LEN, 51);
	KT_EXPECT(t, dnlc_lookup(1, 2, name, DNLC_NAME_LEN, &ino) == 0 && ino == 51,
		  "a name of DNLC_NAME_LEN bytes is not cached");
	KT_EXPECT(t, dnlc_lookup(1, 2, name, DNLC_NAME_LEN - 1, &ino) == -ENOENT,
		  "a prefix was found");
	dnlc_enter(1, 2, name, DNLC_NAME_LEN + 1, 52);
	dnlc_enter(1, 2, name, 255, 53);
	KT_EXPECT(t, dnlc_lookup(1, 2, name, DNLC_NAME_LEN + 1, &ino) == -ENOENT,
		  "a name of DNLC_NAME_LEN + 1 bytes was cached");
	KT_EXPECT(t, dnlc_lookup(1, 2, name, 255, &ino) == -ENOENT, "a 255-byte name was cached");
	dnlc_remove(1, 2, name, 255);	/* ignored, and harmless */
	dnlc_get_stats(&s);
	KT_EXPECT(t, s.too_long == 2 && s.enters == 2 && s.entries == 2 && s.misses == 2 &&
		  s.removes == 0, "too-long %llu enters %llu entries %u misses %llu removes %llu",
		  (unsigned long long)s.too_long, (unsigned long long)s.enters, s.entries,
		  (unsigned long long)s.misses, (unsigned long long)s.removes);

	/* One name, four keys: two directories of fs 7, the same directory of fs 8 and 9. */
	put(7, 10, "same", 100);
	put(7, 11, "same", 101);
	put(8, 10, "same", 102);
	put(9, 10, "same", 0);
	KT_EXPECT(t, ask(7, 10, "same") == 100 && ask(7, 11, "same") == 101 &&
		  ask(8, 10, "same") == 102 && ask(9, 10, "same") == 0,
		  "keys differing in dir or fs are confused");
	put(7, 10, "other", 103);
	put(8, 11, "other", 104);
	dnlc_purge_fs(7);
	KT_EXPECT(t, ask(7, 10, "same") == -1 && ask(7, 11, "same") == -1 &&
		  ask(7, 10, "other") == -1, "fs 7 survived its purge");
	KT_EXPECT(t, ask(8, 10, "same") == 102 && ask(9, 10, "same") == 0 &&
		  ask(8, 11, "other") == 104 && ask(1, 2, "") == 50,
		  "the purge of fs 7 took another fs's entries");
	dnlc_get_stats(&s);
	KT_EXPECT(t, s.purges == 3 && s.entries == 5, "purges %llu entries %u",
		  (unsigned long long)s.purges, s.entries);
	dnlc_purge_fs(7);
	dnlc_get_stats(&s);
	KT_EXPECT(t, s.purges == 3, "a second purge counted %llu", (unsigned long long)s.purges);
	CHECK_INVARIANTS(t);
	restore();
}

KTEST(dnlc_resize_empties_and_refuses, 1)
{
	struct dnlc_stats s;

	KT_ASSERT(t, dnlc_resize(16) == 0, "resize failed");
	put(3, 4, "k", 5);
	KT_ASSERT(t, ask(3, 4, "k") == 5, "k not cached");
	KT_EXPECT(t, dnlc_resize(0) == -ERANGE && dnlc_resize(DNLC_MAX_ENTRIES + 1) == -ERANGE,
		  "a size out of range was accepted");
	KT_EXPECT(t, ask(3, 4, "k") == 5, "a refused resize emptied the cache");
	KT_ASSERT(t, dnlc_resize(17) == 0, "resize to 17 failed");
	dnlc_get_stats(&s);
	KT_EXPECT(t, s.entries == 0 && s.capacity == 17, "entries %u capacity %u after resize",
		  s.entries, s.capacity);
	KT_EXPECT(t, ask(3, 4, "k") == -1, "an entry survived the resize");
	put(3, 4, "k", 6);
	KT_EXPECT(t, ask(3, 4, "k") == 6, "not the new answer after the resize");
	KT_ASSERT(t, dnlc_resize(1) == 0, "resize to 1 failed");
	put(3, 4, "a", 1);
	put(3, 4, "b", 2);
	KT_EXPECT(t, ask(3, 4, "a") == -1 && ask(3, 4, "b") == 2, "one entry does not hold the last");
	KT_ASSERT(t, dnlc_resize(DNLC_MAX_ENTRIES) == 0, "resize to the most entries failed");
	for (unsigned i = 0; i < 3000; i++) {
		char n[16];
		snprintf(n, sizeof(n), "f%u", i);
		put(3, 4, n, i + 1);
	}
	dnlc_get_stats(&s);
	KT_EXPECT(t, s.entries == 3000 && s.capacity == DNLC_MAX_ENTRIES,
		  "entries %u capacity %u", s.entries, s.capacity);
	KT_EXPECT(t, ask(3, 4, "f0") == 1 && ask(3, 4, "f2999") == 3000, "lost an entry");
	CHECK_INVARIANTS(t);
	restore();
}

/* Concurrent lookups and enters during resizes: every answer must be the one entered. */
#define KEYS        64
#define READERS     2
#define LOOKUPS     2000000	/* a bound: the workers run until told to stop */

static uint64_t answer(unsigned k)
{
	return k % 5 == 0 ? 0 : 1000 + k;	/* every fifth key is a negative entry */
}

struct worker {
	bool enters;
	uint64_t seed;
	unsigned done, hits, wrong;
	uint64_t wrong_key, wrong_ino;
};

static bool workers_stop;

static void worker_thread(void *arg)
{
	struct worker *w = arg;
	char name[16];

	for (unsigned i = 0; i < LOOKUPS && !READ_ONCE(workers_stop); i++) {
		unsigned k = (unsigned)(next_random(&w->seed) % KEYS);
		size_t len = (size_t)snprintf(name, sizeof(name), "key%u", k);
		uint64_t ino = ~0ull;
		if (w->enters && i % 3 == 0) {
			dnlc_enter(5, 6, name, len, answer(k));
		} else if (w->enters && i % 17 == 0) {
			dnlc_remove(5, 6, name, len);
		} else if (dnlc_lookup(5, 6, name, len, &ino) == 0) {
			w->hits++;
			if (ino != answer(k)) {
				w->wrong++;
				w->wrong_key = k;
				w->wrong_ino = ino;
			}
		}
		WRITE_ONCE(w->done, i + 1);
		if (i % 64 == 0)
			thread_yield();
	}
}

KTEST(dnlc_resize_under_concurrent_lookups, 2)
{
	static const unsigned sizes[] = { 1, 7, 64, 300, 2, 33 };
	struct worker w[READERS + 1];
	struct thread *th[READERS + 1];

	KT_ASSERT(t, dnlc_resize(32) == 0, "resize failed");
	WRITE_ONCE(workers_stop, false);
	for (unsigned i = 0; i <= READERS; i++) {
		w[i] = (struct worker){ .enters = i == READERS, .seed = 99 + i };
		th[i] = thread_create("dnlc-worker", worker_thread, &w[i], -1);
		KT_ASSERT(t, th[i], "cannot create worker %u", i);
	}
	unsigned resizes = 0, failed = 0, overlapped = 0;
	for (unsigned round = 0; round < 60; round++) {
		unsigned seen = READ_ONCE(w[0].done), seen_writer = READ_ONCE(w[READERS].done);
		if (dnlc_resize(sizes[round % ARRAY_SIZE(sizes)]))
			failed++;
		resizes++;
		overlapped += READ_ONCE(w[0].done) < LOOKUPS && READ_ONCE(w[READERS].done) < LOOKUPS;
		/*
		 * Let the workers use each table a little: a reader and the writer
		 * both (on a loaded machine the writer may otherwise not run at all,
		 * and the readers find nothing).
		 */
		while ((READ_ONCE(w[0].done) < seen + 50 && READ_ONCE(w[0].done) < LOOKUPS) ||
		       (READ_ONCE(w[READERS].done) < seen_writer + 50 &&
			READ_ONCE(w[READERS].done) < LOOKUPS))
			thread_yield();
	}
	WRITE_ONCE(workers_stop, true);
	unsigned hits = 0;
	for (unsigned i = 0; i <= READERS; i++) {
		thread_join(th[i]);
		KT_EXPECT(t, w[i].wrong == 0, "worker %u: %u wrong answers (key %llu gave %llu)", i,
			  w[i].wrong, (unsigned long long)w[i].wrong_key,
			  (unsigned long long)w[i].wrong_ino);
		hits += w[i].hits;
	}
	KT_EXPECT(t, failed == 0 && resizes == 60, "%u of %u resizes failed", failed, resizes);
	KT_EXPECT(t, hits > 0 && overlapped >= 30, "%u hits, %u resizes while a reader and the "
		  "writer ran: the test tested too little", hits, overlapped);
	CHECK_INVARIANTS(t);
	restore();
}

/* --- Graft points ------------------------------------------------------- */

__used __noinline int dnlc_test_bad_victim(uint32_t fs, uint64_t dir, uint64_t ino)
{
	(void)fs;
	(void)dir;
	(void)ino;
	dnlc_set_policy_word(3, 77);
	return (int)dnlc_capacity();	/* one past the last entry */
}

__used __noinline int dnlc_test_no_negatives(uint32_t fs, uint64_t dir, const char *name,
					     size_t len, uint64_t ino)
{
	(void)fs;
	(void)dir;
	(void)name;
	(void)len;
	return ino != 0;
}

static unsigned seen_outcomes[5];
static int seen_last_entry;
static uint64_t seen_last_hash;
static size_t seen_last_len;

__used __noinline void dnlc_test_count_lookups(uint32_t fs, uint64_t dir, uint64_t name_hash,
					       size_t len, int entry, int outcome)
{
	(void)fs;
	(void)dir;
	if (outcome >= 1 && outcome <= 4)
		seen_outcomes[outcome]++;
	seen_last_entry = entry;
	seen_last_hash = name_hash;
	seen_last_len = len;
}

KTEST(dnlc_bad_victim_refused, 1)
{
	char reason[112];

	KT_ASSERT(t, dnlc_resize(3) == 0, "resize failed");
	dnlc_reset_stats();
	put(1, 1, "a", 1);
	put(1, 1, "b", 2);
	put(1, 1, "c", 3);
	KT_EXPECT(t, ask(1, 1, "a") == 1, "a not cached");	/* b is least recent */
	struct graft *g = ktest_graft_install(t, "bad-victim", "dnlc.evict", dnlc_test_bad_victim, 0);
	KT_ASSERT(t, g, "no graft");
	put(1, 1, "d", 4);	/* the graft's answer is refused: LRU evicts b */
	graft_last_abort(g, reason, sizeof(reason));
	KT_EXPECT(t, strstr(reason, "not an entry index") != NULL, "abort reason '%s'", reason);
	KT_EXPECT(t, g->aborts == 1 && !graft_point_grafted("dnlc.evict"),
		  "aborts %llu; still grafted: %d", (unsigned long long)g->aborts,
		  graft_point_grafted("dnlc.evict"));
	KT_EXPECT(t, ask(1, 1, "b") == -1 && ask(1, 1, "a") == 1 && ask(1, 1, "c") == 3 &&
		  ask(1, 1, "d") == 4, "not LRU's victim after the abort");
	struct dnlc_stats s;
	dnlc_get_stats(&s);
	KT_EXPECT(t, s.evictions == 1 && s.entries == 3, "evictions %llu entries %u",
		  (unsigned long long)s.evictions, s.entries);
	graft_destroy_builtin(g);
	CHECK_INVARIANTS(t);
	restore();
}

KTEST(dnlc_admission_and_lookup_event, 1)
{
	struct dnlc_stats s;
	char longname[DNLC_NAME_LEN + 2];

	KT_ASSERT(t, dnlc_resize(8) == 0, "resize failed");
	dnlc_reset_stats();
	memset(seen_outcomes, 0, sizeof(seen_outcomes));
	struct graft *admit = ktest_graft_install(t, "no-negatives", "dnlc.enter",
						  dnlc_test_no_negatives, 0);
	struct graft *count = ktest_graft_install(t, "count-lookups", "dnlc.lookup",
						  dnlc_test_count_lookups, 0);
	KT_ASSERT(t, admit && count, "no grafts");
	put(2, 2, "yes", 9);
	put(2, 2, "no", 0);
	put(2, 2, "neg", 0);
	memset(longname, 'q', sizeof(longname));
	longname[sizeof(longname) - 1] = '\0';
	KT_EXPECT(t, ask(2, 2, "yes") == 9, "an admitted entry is missing");
	KT_EXPECT(t, seen_last_entry >= 0, "the event saw entry %d for a hit", seen_last_entry);
	KT_EXPECT(t, ask(2, 2, "no") == -1 && ask(2, 2, "neg") == -1, "a refused entry was cached");
	KT_EXPECT(t, seen_last_entry == -1, "the event saw entry %d for a miss", seen_last_entry);
	KT_EXPECT(t, ask(2, 2, longname) == -1, "a long name hit");
	/* FNV-1a of "a" is 0xaf63dc4c8601ec8c (the published test vector). */
	KT_EXPECT(t, seen_last_len == DNLC_NAME_LEN + 1 &&
		  seen_last_hash == dnlc_name_hash(longname, DNLC_NAME_LEN + 1) &&
		  dnlc_name_hash("a", 1) == 0xaf63dc4c8601ec8cull,
		  "the event saw length %zu hash %llx", seen_last_len,
		  (unsigned long long)seen_last_hash);
	graft_remove(admit);
	put(2, 2, "neg", 0);
	KT_EXPECT(t, ask(2, 2, "neg") == 0, "without the graft, negative entries are not cached");
	dnlc_get_stats(&s);
	KT_EXPECT(t, s.enters == 2, "enters %llu (refused ones counted?)", (unsigned long long)s.enters);
	KT_EXPECT(t, seen_outcomes[DNLC_OUTCOME_HIT] == s.hits &&
		  seen_outcomes[DNLC_OUTCOME_NEGATIVE] == s.negative_hits &&
		  seen_outcomes[DNLC_OUTCOME_MISS] == s.misses &&
		  seen_outcomes[DNLC_OUTCOME_TOO_LONG] == s.too_long && s.hits == 1 &&
		  s.negative_hits == 1 && s.misses == 2 && s.too_long == 1,
		  "event saw %u/%u/%u/%u, counters %llu/%llu/%llu/%llu",
		  seen_outcomes[1], seen_outcomes[2], seen_outcomes[3], seen_outcomes[4],
		  (unsigned long long)s.hits, (unsigned long long)s.negative_hits,
		  (unsigned long long)s.misses, (unsigned long long)s.too_long);
	KT_EXPECT(t, admit->aborts == 0 && count->aborts == 0 && count->commits == 5,
		  "aborts %llu %llu, event commits %llu", (unsigned long long)admit->aborts,
		  (unsigned long long)count->aborts, (unsigned long long)count->commits);
	graft_remove(count);
	graft_destroy_builtin(admit);
	graft_destroy_builtin(count);
	CHECK_INVARIANTS(t);
	restore();
}

__used __noinline long dnlc_test_meddles(long a, long b)
{
	dnlc_set_policy_word(2, (uint64_t)(a + b));
	return a * b;
}

KTEST(dnlc_api_refuses_other_points, 1)
{
	char reason[112];

	struct graft *g = ktest_graft_install(t, "dnlc-meddles", "test.method", dnlc_test_meddles, 0);
	KT_ASSERT(t, g, "no graft");
	KT_EXPECT(t, test_call_method(3, 4) == 7, "not the default's result after the abort");
	graft_last_abort(g, reason, sizeof(reason));
	KT_EXPECT(t, strstr(reason, "dnlc_set_policy_word called outside dnlc.evict") != NULL,
		  "abort reason '%s'", reason);
	/* Kernel code without the DNLC lock reads nothing and changes nothing. */
	KT_EXPECT(t, dnlc_capacity() == 0 && dnlc_lru_entry() == -1,
		  "the API answered outside a dnlc point");
	graft_destroy_builtin(g);
}
