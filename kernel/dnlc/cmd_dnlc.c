// SPDX-License-Identifier: BSD-2-Clause
/*
 * The `dnlc` shell command: the size, the policies in force and the
 * counters (one per line), resizing, zeroing the counters, and built-in
 * workloads (`dnlc run`) for comparing replacement policies, such as
 * the Squid study's 6000 cache files against 2181 entries:
 *
 *   dnlc run random n=20000 range=6000
 *
 * A workload looks names up in directory 1 of a file system of its own
 * (DNLC_WORKLOAD_FS, so it never answers another's lookup) and enters
 * each miss, as a file system resolving it would. Name k is "wK" with
 * inode k + 1, or, when neg=M is given and k % M == 0, "nK", a negative
 * entry (so runs with different neg never give one name two answers).
 * The sequence of k is a pure function of the parameters (random:
 * xorshift64 from the seed), so a test computes the expected counts on
 * its own; every hit's answer is checked ("wrong" counts bad ones).
 * Errors are one line starting "dnlc:".
 */
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/format.h>
#include "dnlc_internal.h"

#define USAGE "dnlc [size N | reset | run loop|random [key=value ...]]"
#define DNLC_WORKLOAD_FS  0xfffffff0u
#define WORKLOAD_DIR      1
#define MAX_COUNT         10000000

struct workload {
	bool random;
	uint64_t n, range, seed, size, rounds, start, neg;
};

static uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

static void print_counter(const char *name, uint64_t v)
{
	printk("%-14s %llu\n", name, (unsigned long long)v);
}

static int cmd_stats(void)
{
	struct dnlc_stats s;
	char evict[64], enter[64];

	dnlc_get_stats(&s);
	dnlc_policy_name("dnlc.evict", "lru", evict, sizeof(evict));
	dnlc_policy_name("dnlc.enter", "all", enter, sizeof(enter));
	print_counter("size", s.capacity);
	print_counter("entries", s.entries);
	printk("%-14s %s\n", "eviction", evict);
	printk("%-14s %s\n", "admission", enter);
	print_counter("lookups", s.lookups);
	print_counter("hits", s.hits);
	print_counter("negative-hits", s.negative_hits);
	print_counter("misses", s.misses);
	print_counter("too-long", s.too_long);
	print_counter("enters", s.enters);
	print_counter("removes", s.removes);
	print_counter("evictions", s.evictions);
	print_counter("purges", s.purges);
	uint64_t found = s.hits + s.negative_hits;
	uint64_t permille = s.lookups ? found * 1000 / s.lookups : 0;
	printk("%-14s %llu.%llu%%\n", "hit-ratio", (unsigned long long)(permille / 10),
	       (unsigned long long)(permille % 10));
	return 0;
}

static int cmd_size(const char *arg)
{
	uint64_t n;

	if (parse_u64(arg, &n, false)) {
		printk("dnlc: '%s' is not a number of entries\n", arg);
		return -EINVAL;
	}
	int err = n > DNLC_MAX_ENTRIES ? -ERANGE : dnlc_resize((unsigned)n);
	if (err == -ERANGE)
		printk("dnlc: give 1 to %u entries, not %s\n", DNLC_MAX_ENTRIES, arg);
	else if (err)
		printk("dnlc: no memory for %llu entries; the cache keeps its size\n",
		       (unsigned long long)n);
	else
		printk("dnlc: size %llu, emptied\n", (unsigned long long)n);
	return err;
}

static int parse_workload(int argc, char **argv, struct workload *w)
{
	static const char *const keys[] = { "n", "range", "seed", "size", "rounds", "start", "neg" };
	uint64_t *fields[] = { &w->n, &w->range, &w->seed, &w->size, &w->rounds, &w->start,
			       &w->neg };

	*w = (struct workload){ .n = 1000, .range = 6000, .seed = 1, .size = 16, .rounds = 4 };
	if (argc < 1 || (strcmp(argv[0], "loop") && strcmp(argv[0], "random"))) {
		printk("dnlc: run: name a pattern: loop or random\n");
		return -EINVAL;
	}
	w->random = !strcmp(argv[0], "random");
	for (int a = 1; a < argc; a++) {
		char *eq = strchr(argv[a], '=');
		unsigned k = 0;
		uint64_t v;
		if (eq)
			*eq = '\0';
		while (eq && k < ARRAY_SIZE(keys) && strcmp(argv[a], keys[k]))
			k++;
		if (!eq || k == ARRAY_SIZE(keys) || parse_u64(eq + 1, &v, false)) {
			if (eq)
				*eq = '=';
			printk("dnlc: run: '%s': give key=number with key one of n range seed size "
			       "rounds start neg\n", argv[a]);
			return -EINVAL;
		}
		*fields[k] = v;
	}
	uint64_t steps = w->random ? w->n : w->size * w->rounds;
	if (!w->range || !w->size || !w->seed || steps > MAX_COUNT) {
		printk("dnlc: run: range, size and seed must be nonzero, at most %u lookups\n",
		       MAX_COUNT);
		return -EINVAL;
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	struct workload w;
	struct dnlc_stats before, after;
	uint64_t steps, hits = 0, negative = 0, misses = 0, wrong = 0, state;
	uint64_t wrong_key = 0, wrong_ino = 0;

	int err = parse_workload(argc, argv, &w);
	if (err)
		return err;
	steps = w.random ? w.n : w.size * w.rounds;
	state = w.seed;
	dnlc_get_stats(&before);
	for (uint64_t s = 0; s < steps; s++) {
		uint64_t k = w.random ? xorshift64(&state) % w.range : w.start + s % w.size;
		uint64_t want = w.neg && k % w.neg == 0 ? 0 : k + 1, ino = ~0ull;
		char name[24];
		size_t len = (size_t)snprintf(name, sizeof(name), "%c%llu", want ? 'w' : 'n',
					      (unsigned long long)k);
		if (dnlc_lookup(DNLC_WORKLOAD_FS, WORKLOAD_DIR, name, len, &ino) == 0) {
			if (ino != want && !wrong++) {
				wrong_key = k;
				wrong_ino = ino;
			}
			if (ino)
				hits++;
			else
				negative++;
		} else {
			misses++;
			dnlc_enter(DNLC_WORKLOAD_FS, WORKLOAD_DIR, name, len, want);
		}
	}
	dnlc_get_stats(&after);
	printk("dnlc run %s: %llu lookups, %llu hits, %llu negative hits, %llu misses, "
	       "%llu evictions, %llu wrong", w.random ? "random" : "loop",
	       (unsigned long long)steps, (unsigned long long)hits, (unsigned long long)negative,
	       (unsigned long long)misses, (unsigned long long)(after.evictions - before.evictions),
	       (unsigned long long)wrong);
	if (wrong)
		printk(" (first: key %llu gave inode %llu)", (unsigned long long)wrong_key,
		       (unsigned long long)wrong_ino);
	printk("\n");
	return wrong ? -EIO : 0;
}

static int cmd_dnlc(int argc, char **argv)
{
	if (argc == 1)
		return cmd_stats();
	if (argc == 3 && !strcmp(argv[1], "size"))
		return cmd_size(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "reset")) {
		dnlc_reset_stats();
		printk("dnlc: counters zero\n");
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	printk("dnlc: usage: " USAGE "\n");
	return -EINVAL;
}
SHELL_COMMAND(dnlc, "[size N | reset | run loop|random [key=value ...]]",
	      "the directory name lookup cache: size, counters, policy workloads", cmd_dnlc);
