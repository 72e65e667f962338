// SPDX-License-Identifier: BSD-2-Clause
/*
 * The `bcache` shell command: counters, the full state (dump), the
 * eviction policy's current choice (victim), reset and resize, the
 * built-in workloads (run), writing back every dirty block (sync) and
 * the flush thread's age and share (flush-age). Errors are one line
 * starting "bcache:".
 */
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/graft.h>
#include "bcache_internal.h"

#define USAGE "bcache [stats | dump | victim | reset [BUFFERS] | run PATTERN [key=value ...] | " \
	      "sync | flush-age [MS [PERCENT]]]"

static void print_stats(const char *prefix, const struct bcache_stats *s)
{
	printk("%sreads %llu hits %llu misses %llu waits %llu evictions %llu\n", prefix,
	       (unsigned long long)s->reads, (unsigned long long)s->hits,
	       (unsigned long long)s->misses, (unsigned long long)s->waits,
	       (unsigned long long)s->evictions);
	printk("%sprefetches %llu used %llu cached %llu dropped %llu disk-reads %llu "
	       "disk-errors %llu\n", prefix, (unsigned long long)s->prefetches,
	       (unsigned long long)s->prefetch_used, (unsigned long long)s->prefetch_cached,
	       (unsigned long long)s->prefetch_dropped, (unsigned long long)s->io_reads,
	       (unsigned long long)s->io_errors);
	printk("%swrites %llu hits %llu misses %llu dirty %llu write-backs %llu sync-writes %llu "
	       "disk-writes %llu write-errors %llu\n", prefix, (unsigned long long)s->writes,
	       (unsigned long long)s->write_hits, (unsigned long long)s->write_misses,
	       (unsigned long long)s->dirty, (unsigned long long)s->writebacks,
	       (unsigned long long)s->sync_writes, (unsigned long long)s->io_writes,
	       (unsigned long long)s->write_errors);
}

static void print_line(const char *line, void *arg)
{
	(void)arg;
	printk("%s\n", line);
}

static const char *policy_name(const char *point)
{
	return graft_point_grafted(point) ? "grafted" : "default";
}

static int cmd_stats(void)
{
	struct bcache_stats s;

	bcache_get_stats(&s);
	printk("bcache: %u buffers of %u bytes over %s; eviction %s, read-ahead %s\n",
	       READ_ONCE(bcache.cache.nbuffers), BCACHE_BLOCK_SIZE, blkdev_name(bcache.disk),
	       policy_name("bcache.evict"), policy_name("bcache.readahead"));
	print_stats("  ", &s);
	return 0;
}

static int cmd_victim(void)
{
	uint64_t block = 0;
	int i = bcache_victim(&block);

	if (i == -EAGAIN)
		printk("bcache: a buffer is free: nothing would be evicted\n");
	else if (i == -EBUSY)
		printk("bcache: every buffer is loading, dirty or being written back: nothing "
		       "can be evicted now\n");
	else if (i >= 0)
		printk("bcache victim: buffer %d (block %llu)\n", i, (unsigned long long)block);
	return i < 0 ? i : 0;
}

static int cmd_reset(int argc, char **argv)
{
	uint64_t n = READ_ONCE(bcache.cache.nbuffers);

	if (argc == 3 && parse_u64(argv[2], &n, false)) {
		printk("bcache: '%s' is not a number of buffers\n", argv[2]);
		return -EINVAL;
	}
	int err = n > BCACHE_MAX_BUFFERS ? -ERANGE : bcache_reset((unsigned)n);
	if (err == -ERANGE)
		printk("bcache: give 1 to %u buffers\n", BCACHE_MAX_BUFFERS);
	else if (err == -EIO)
		printk("bcache: reset: the disk refused the writes of dirty blocks; the cache "
		       "keeps them (see `bcache dump`), try again when the disk takes writes\n");
	else
		printk("bcache: reset, %llu buffers, counters zero\n", (unsigned long long)n);
	return err;
}

static int cmd_run(int argc, char **argv)
{
	struct bcache_workload w;
	struct bcache_workload_result r;
	char err[160];

	int e = bcache_workload_parse(argc - 2, argv + 2, &w, err, sizeof(err));
	if (e) {
		printk("bcache: run: %s\n", err);
		return e;
	}
	e = bcache_workload_run(&w, &r);
	if (e) {
		printk("bcache: run: out of memory\n");
		return e;
	}
	printk("bcache run %s: %llu reads, %llu hits, %llu misses, %llu prefetches, "
	       "%llu used, %llu evictions, %llu disk reads, %llu errors, %llu bad blocks",
	       bcache_pattern_name(w.pattern), (unsigned long long)r.reads,
	       (unsigned long long)r.delta.hits, (unsigned long long)r.delta.misses,
	       (unsigned long long)r.delta.prefetches, (unsigned long long)r.delta.prefetch_used,
	       (unsigned long long)r.delta.evictions, (unsigned long long)r.delta.io_reads,
	       (unsigned long long)r.errors, (unsigned long long)r.bad_blocks);
	if (r.bad_blocks)
		printk(" (first: block %llu)", (unsigned long long)r.first_bad_block);
	printk(", %llu cycles\n", (unsigned long long)r.cycles);
	if (r.writes)
		printk("bcache run: %llu writes (%s), %llu write hits, %llu write misses, "
		       "%llu write-backs, %llu sync writes, %llu write errors\n",
		       (unsigned long long)r.writes, w.sync ? "synchronous" : "written back",
		       (unsigned long long)r.delta.write_hits, (unsigned long long)r.delta.write_misses,
		       (unsigned long long)r.delta.writebacks, (unsigned long long)r.delta.sync_writes,
		       (unsigned long long)r.delta.write_errors);
	return r.errors || r.bad_blocks ? -EIO : 0;
}

static int cmd_sync(void)
{
	int err = bcache_sync();
	if (err)
		printk("bcache: sync: a write-back failed (%s); blocks the disk refused stay dirty "
		       "in the cache\n", errno_name(err));
	else
		printk("bcache: synced\n");
	return err;
}

static int cmd_flush_age(int argc, char **argv)
{
	uint64_t ms = 0, share = 0;
	unsigned share_now;

	if (argc >= 3 && parse_u64(argv[2], &ms, false)) {
		printk("bcache: flush-age: '%s' is not a number of milliseconds\n", argv[2]);
		return -EINVAL;
	}
	if (argc == 4) {
		size_t n = strlen(argv[3]);
		if (n && argv[3][n - 1] == '%')
			argv[3][n - 1] = '\0';
		if (parse_u64(argv[3], &share, false) || share > 100) {
			printk("bcache: flush-age: give the share of dirty buffers as 1 to 100 "
			       "(percent)\n");
			return -EINVAL;
		}
	}
	if (argc >= 3 && (ms < 1 || bcache_set_flush_age(ms, (unsigned)share))) {
		printk("bcache: flush-age: give 1 to %u ms\n", BCACHE_FLUSH_AGE_MAX_MS);
		return -ERANGE;
	}
	bcache_get_flush_age(&ms, &share_now);
	printk("bcache: dirty blocks are written back after %llu ms, or when more than %u%% of "
	       "the buffers are dirty\n", (unsigned long long)ms, share_now);
	return 0;
}

static int cmd_bcache(int argc, char **argv)
{
	if (!bcache_available()) {
		printk("bcache: no block cache (no disk vda)\n");
		return -ENODEV;
	}
	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "stats")))
		return cmd_stats();
	if (argc == 2 && !strcmp(argv[1], "dump")) {
		bcache_dump(print_line, NULL);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "victim"))
		return cmd_victim();
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "reset"))
		return cmd_reset(argc, argv);
	if (argc >= 3 && !strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (argc == 2 && !strcmp(argv[1], "sync"))
		return cmd_sync();
	if (argc >= 2 && argc <= 4 && !strcmp(argv[1], "flush-age"))
		return cmd_flush_age(argc, argv);
	printk("bcache: usage: " USAGE "\n");
	return -EINVAL;
}
SHELL_COMMAND(bcache, "[stats|dump|victim|reset [N]|run PATTERN [key=value ...]|sync|"
	      "flush-age [MS [PERCENT]]]",
	      "the block cache: counters, state, policy choice, workloads, write-back", cmd_bcache);
