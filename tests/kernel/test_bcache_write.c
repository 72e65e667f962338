// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the block cache's write path (bcache_write_bytes,
 * bcache_sync, bcache_sync_block, the flush thread): whole and partial,
 * synchronous and write-back writes read back through the cache and,
 * after a reset (which syncs and empties), from the cache again and from
 * the disk itself (blkdev_read, past the cache); dirty blocks kept
 * through a workload bigger than the cache; concurrent writers of one
 * block with the flush thread writing it back underneath them; write
 * errors (injected with bcache_fail_writes) reported by sync once, the
 * data kept dirty in the cache, never dropped; the flush thread writing
 * a block back once it is older than the flush age, and when too many
 * buffers are dirty.
 *
 * The boot's test disk is a snapshot, so writes never reach the image;
 * all the same every test writes the test pattern back over the blocks
 * it changed, so later tests of the same boot read the pattern. The
 * blocks used (FIRST_BLOCK and up) are far from the other tests' ones.
 * Without a disk every test reports SKIPPED.
 */
#include <scion/ktest.h>
#include <scion/bcache.h>
#include <scion/blk_pattern.h>
#include <scion/blkdev.h>
#include <scion/sched.h>
#include <scion/thread.h>
#include <scion/clock.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/mm.h>

#define NEED_CACHE(t) do { \
	if (!bcache_available()) \
		KT_SKIP((t), "no disk vda, so no block cache (boot QEMU with the virtio-blk test disk)"); \
} while (0)

#define FIRST_BLOCK     4000
#define BUFFERS         8
#define LONG_AGE_MS     3600000		/* the flush thread leaves blocks alone */
#define WRITERS         3
#define WRITES_EACH     120

/* A block's worth of data that is not the disk's pattern: byte i of block b for tag. */
static uint8_t marked(uint64_t block, unsigned i, unsigned tag)
{
	return (uint8_t)((block * 13 + i * 7 + tag * 101) ^ 0xa5);
}

static void fill_marked(uint64_t block, unsigned tag, uint8_t *buf)
{
	for (unsigned i = 0; i < BCACHE_BLOCK_SIZE; i++)
		buf[i] = marked(block, i, tag);
}

static void fill_pattern(uint64_t block, uint8_t *buf)
{
	for (unsigned s = 0; s < BCACHE_BLOCK_SECTORS; s++)
		blk_pattern_fill(block * BCACHE_BLOCK_SECTORS + s, buf + s * BLK_SECTOR_SIZE);
}

/* Read block past the cache, from the disk itself. */
static int read_disk(uint64_t block, uint8_t *buf)
{
	return blkdev_read(blkdev_find("vda"), block * BCACHE_BLOCK_SECTORS, BCACHE_BLOCK_SECTORS,
			   buf);
}

/* Put the test pattern back over blocks first .. first + n - 1 (synchronously), and the defaults. */
static void restore(uint64_t first, unsigned n)
{
	uint8_t *buf = kmalloc(BCACHE_BLOCK_SIZE);

	bcache_fail_writes(0);
	bcache_set_flush_age(BCACHE_FLUSH_AGE_MS, BCACHE_FLUSH_SHARE_PERCENT);
	for (unsigned k = 0; buf && k < n; k++) {
		fill_pattern(first + k, buf);
		bcache_write_bytes(first + k, 0, buf, BCACHE_BLOCK_SIZE, true);
	}
	bcache_sync();
	bcache_reset(BCACHE_DEFAULT_BUFFERS);
	kfree(buf);
}

/* Where a and b first differ, or -1. */
static long first_difference(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}

/* The four blocks of write_read_back: what each should hold after its writes. */
struct expected {
	uint8_t *want[4];
};

static void write_read_back(struct ktest_ctx *t, uint8_t *buf, uint8_t *got, struct expected *e)
{
	struct bcache_stats s;
	char why[160];
	const uint64_t b0 = FIRST_BLOCK;
	long d;

	KT_ASSERT(t, bcache_reset(BUFFERS) == 0, "reset failed");
	KT_ASSERT(t, bcache_set_flush_age(LONG_AGE_MS, 100) == 0, "flush-age refused");

	/* 0: a whole block, left dirty: no disk read, no disk write. */
	fill_marked(b0, 1, e->want[0]);
	KT_ASSERT(t, bcache_write_bytes(b0, 0, e->want[0], BCACHE_BLOCK_SIZE, false) == 0,
		  "whole write of %llu failed", (unsigned long long)b0);
	/* 1: 300 bytes at 100 of a block not cached: read first, the rest is the disk's. */
	fill_pattern(b0 + 1, e->want[1]);
	fill_marked(b0 + 1, 2, buf);
	memcpy(e->want[1] + 100, buf, 300);
	KT_ASSERT(t, bcache_write_bytes(b0 + 1, 100, buf, 300, false) == 0, "partial write failed");
	/* 2: a whole block, synchronously. */
	fill_marked(b0 + 2, 3, e->want[2]);
	KT_ASSERT(t, bcache_write_bytes(b0 + 2, 0, e->want[2], BCACHE_BLOCK_SIZE, true) == 0,
		  "synchronous whole write failed");
	/* 3: the last 96 bytes, synchronously. */
	fill_pattern(b0 + 3, e->want[3]);
	fill_marked(b0 + 3, 4, buf);
	memcpy(e->want[3] + 4000, buf, 96);
	KT_ASSERT(t, bcache_write_bytes(b0 + 3, 4000, buf, 96, true) == 0,
		  "synchronous partial write failed");
	/* A write hit: 16 bytes at the start of block 0, still dirty. */
	fill_marked(b0, 5, buf);
	memcpy(e->want[0], buf, 16);
	KT_ASSERT(t, bcache_write_bytes(b0, 0, buf, 16, false) == 0, "write hit failed");

	bcache_settle();
	bcache_get_stats(&s);
	KT_EXPECT(t, s.writes == 5 && s.write_hits == 1 && s.write_misses == 4,
		  "writes %llu hits %llu misses %llu (want 5, 1, 4)", (unsigned long long)s.writes,
		  (unsigned long long)s.write_hits, (unsigned long long)s.write_misses);
	KT_EXPECT(t, s.io_reads == 2 && s.sync_writes == 2 && s.io_writes == 2 && s.dirty == 2 &&
		  s.writebacks == 0 && s.write_errors == 0,
		  "disk reads %llu (the two partial misses), sync writes %llu, disk writes %llu, "
		  "dirty %llu, write-backs %llu, errors %llu", (unsigned long long)s.io_reads,
		  (unsigned long long)s.sync_writes, (unsigned long long)s.io_writes,
		  (unsigned long long)s.dirty, (unsigned long long)s.writebacks,
		  (unsigned long long)s.write_errors);
	KT_EXPECT(t, bcache_check(why, sizeof(why)), "%s", why);

	/* Read back through the cache (dirty blocks give their new data). */
	for (unsigned k = 0; k < 4; k++) {
		KT_ASSERT(t, bcache_read(b0 + k, got) == 0, "read of %llu failed",
			  (unsigned long long)(b0 + k));
		d = first_difference(got, e->want[k], BCACHE_BLOCK_SIZE);
		KT_EXPECT(t, d < 0, "cached block %llu differs at byte %ld",
			  (unsigned long long)(b0 + k), d);
	}
	/* The synchronous ones are on the disk already; the dirty ones are not. */
	KT_ASSERT(t, read_disk(b0 + 2, got) == 0, "disk read failed");
	KT_EXPECT(t, first_difference(got, e->want[2], BCACHE_BLOCK_SIZE) < 0,
		  "the synchronous write of %llu is not on the disk", (unsigned long long)(b0 + 2));
	KT_ASSERT(t, read_disk(b0, got) == 0, "disk read failed");
	fill_pattern(b0, buf);
	KT_EXPECT(t, first_difference(got, buf, BCACHE_BLOCK_SIZE) < 0,
		  "dirty block %llu reached the disk before any write-back",
		  (unsigned long long)b0);

	/* The reset syncs and empties; then from the cache (misses) and from the disk. */
	KT_ASSERT(t, bcache_reset(BUFFERS) == 0, "reset with dirty blocks failed");
	bcache_get_stats(&s);
	KT_EXPECT(t, s.dirty == 0, "%llu dirty after the reset", (unsigned long long)s.dirty);
	for (unsigned k = 0; k < 4; k++) {
		KT_ASSERT(t, bcache_read(b0 + k, got) == 0, "read after reset failed");
		d = first_difference(got, e->want[k], BCACHE_BLOCK_SIZE);
		KT_EXPECT(t, d < 0, "block %llu read after the reset differs at byte %ld",
			  (unsigned long long)(b0 + k), d);
		KT_ASSERT(t, read_disk(b0 + k, got) == 0, "disk read failed");
		d = first_difference(got, e->want[k], BCACHE_BLOCK_SIZE);
		KT_EXPECT(t, d < 0, "block %llu on the disk differs at byte %ld",
			  (unsigned long long)(b0 + k), d);
	}
	bcache_settle();
	bcache_get_stats(&s);
	/* Sequential: 0 and 1 miss, 2 and 3 were prefetched. */
	KT_EXPECT(t, s.reads == 4 && s.misses + s.prefetch_used == 4,
		  "reading back after the reset: %llu reads, %llu misses, %llu prefetched "
		  "(want 4 reads, each a miss or prefetched)", (unsigned long long)s.reads,
		  (unsigned long long)s.misses, (unsigned long long)s.prefetch_used);

	/* Refused: ranges, a block beyond the disk. */
	KT_EXPECT(t, bcache_write_bytes(b0, 4000, buf, 97, false) == -EINVAL, "a range past the end");
	KT_EXPECT(t, bcache_write_bytes(bcache_disk_blocks(), 0, buf, 1, false) == -EINVAL,
		  "a block beyond the disk");
	KT_EXPECT(t, bcache_sync_block(bcache_disk_blocks()) == -EINVAL, "sync of a block beyond");
	KT_EXPECT(t, bcache_sync_block(b0 + 40) == 0, "sync of a block not cached");
}

KTEST(bcache_write_read_back, 1)
{
	NEED_CACHE(t);
	uint8_t *buf = kmalloc(BCACHE_BLOCK_SIZE), *got = kmalloc(BCACHE_BLOCK_SIZE);
	struct expected e;
	bool ok = buf && got;

	for (unsigned k = 0; k < 4; k++)
		ok &= (e.want[k] = kmalloc(BCACHE_BLOCK_SIZE)) != NULL;
	if (ok)
		write_read_back(t, buf, got, &e);
	else
		KT_EXPECT(t, false, "out of memory");
	restore(FIRST_BLOCK, 4);
	for (unsigned k = 0; k < 4; k++)
		kfree(e.want[k]);
	kfree(buf);
	kfree(got);
}

/*
 * Dirty blocks under eviction pressure: 6 of 8 buffers dirty, then 40
 * reads of other blocks (only the 2 clean buffers turn over), then 10
 * more dirty blocks (more than the buffers: the cache must write dirty
 * ones back to make room); every written block reads back right, from
 * the cache and from the disk after a reset.
 */
#define PRESSURE_DIRTY  6
#define PRESSURE_READS  40
#define PRESSURE_MORE   10
#define PRESSURE_WRITTEN (PRESSURE_DIRTY + PRESSURE_MORE)

static void dirty_under_pressure(struct ktest_ctx *t, uint8_t *buf, uint8_t *got)
{
	struct bcache_stats s;
	char why[160];
	const uint64_t b0 = FIRST_BLOCK + 100;
	long d;

	KT_ASSERT(t, bcache_reset(BUFFERS) == 0, "reset failed");
	KT_ASSERT(t, bcache_set_flush_age(LONG_AGE_MS, 100) == 0, "flush-age refused");
	for (unsigned k = 0; k < PRESSURE_DIRTY; k++) {
		fill_marked(b0 + k, 7, buf);
		KT_ASSERT(t, bcache_write_bytes(b0 + k, 0, buf, BCACHE_BLOCK_SIZE, false) == 0,
			  "write %u failed", k);
	}
	for (unsigned k = 0; k < PRESSURE_READS; k++) {
		uint64_t block = FIRST_BLOCK + 300 + k * 3;
		KT_ASSERT(t, bcache_read(block, got) == 0, "read %u failed", k);
		fill_pattern(block, buf);
		KT_EXPECT(t, first_difference(got, buf, BCACHE_BLOCK_SIZE) < 0,
			  "block %llu has the wrong data", (unsigned long long)block);
	}
	bcache_settle();
	bcache_get_stats(&s);
	KT_EXPECT(t, s.dirty == PRESSURE_DIRTY && s.writebacks == 0 && s.evictions >= PRESSURE_READS - 2,
		  "after the reads: %llu dirty (want %u), %llu write-backs (want 0), %llu evictions",
		  (unsigned long long)s.dirty, PRESSURE_DIRTY, (unsigned long long)s.writebacks,
		  (unsigned long long)s.evictions);
	uint64_t victim = 0;
	int vi = bcache_victim(&victim);
	KT_EXPECT(t, vi >= 0 && (victim < b0 || victim >= b0 + PRESSURE_WRITTEN),
		  "the eviction policy would take buffer %d, block %llu: a dirty block", vi,
		  (unsigned long long)victim);
	for (unsigned k = PRESSURE_DIRTY; k < PRESSURE_WRITTEN; k++) {
		fill_marked(b0 + k, 7, buf);
		KT_ASSERT(t, bcache_write_bytes(b0 + k, 0, buf, BCACHE_BLOCK_SIZE, false) == 0,
			  "write %u failed", k);
	}
	bcache_settle();
	bcache_get_stats(&s);
	KT_EXPECT(t, s.writebacks > 0 && s.write_errors == 0 && s.dirty <= BUFFERS,
		  "%llu write-backs to make room (want some), %llu errors, %llu dirty",
		  (unsigned long long)s.writebacks, (unsigned long long)s.write_errors,
		  (unsigned long long)s.dirty);
	KT_EXPECT(t, bcache_check(why, sizeof(why)), "%s", why);
	for (unsigned k = 0; k < PRESSURE_WRITTEN; k++) {
		fill_marked(b0 + k, 7, buf);
		KT_ASSERT(t, bcache_read(b0 + k, got) == 0, "read back %u failed", k);
		d = first_difference(got, buf, BCACHE_BLOCK_SIZE);
		KT_EXPECT(t, d < 0, "block %llu read back differs at byte %ld",
			  (unsigned long long)(b0 + k), d);
	}
	KT_ASSERT(t, bcache_reset(BUFFERS) == 0, "reset failed");
	for (unsigned k = 0; k < PRESSURE_WRITTEN; k++) {
		fill_marked(b0 + k, 7, buf);
		KT_ASSERT(t, read_disk(b0 + k, got) == 0, "disk read failed");
		d = first_difference(got, buf, BCACHE_BLOCK_SIZE);
		KT_EXPECT(t, d < 0, "block %llu on the disk differs at byte %ld",
			  (unsigned long long)(b0 + k), d);
	}
}

KTEST(bcache_write_dirty_survives_eviction, 1)
{
	NEED_CACHE(t);
	uint8_t *buf = kmalloc(BCACHE_BLOCK_SIZE), *got = kmalloc(BCACHE_BLOCK_SIZE);

	if (buf && got)
		dirty_under_pressure(t, buf, got);
	else
		KT_EXPECT(t, false, "out of memory");
	restore(FIRST_BLOCK + 100, PRESSURE_WRITTEN);
	kfree(buf);
	kfree(got);
}

/*
 * Concurrent writers of one block, each writing whole blocks of its own
 * byte (sometimes synchronously), while a reader checks it never sees a
 * mixture and the flush thread (age 1 ms) writes the block back under
 * them. At the end the cache's copy is the last write; after the reset
 * (sync) the disk holds it: no write-back of older data won.
 */
struct writer {
	unsigned id, errors;
	uint64_t block;
};

static volatile bool writers_done;
static unsigned torn_reads, read_errors;

static void writer_thread(void *arg)
{
	struct writer *w = arg;
	uint8_t *buf = kmalloc(BCACHE_BLOCK_SIZE);

	if (!buf) {
		w->errors++;
		return;
	}
	memset(buf, 0x10 + w->id, BCACHE_BLOCK_SIZE);
	for (unsigned k = 0; k < WRITES_EACH; k++) {
		if (bcache_write_bytes(w->block, 0, buf, BCACHE_BLOCK_SIZE, k % 7 == 3))
			w->errors++;
		if (k % 5 == 0)
			thread_yield();
	}
	kfree(buf);
}

static void reader_of_one(void *arg)
{
	uint64_t block = *(uint64_t *)arg;
	uint8_t *buf = kmalloc(BCACHE_BLOCK_SIZE);

	if (!buf) {
		read_errors++;
		return;
	}
	while (!READ_ONCE(writers_done)) {
		if (bcache_read(block, buf))
			read_errors++;
		else
			for (unsigned i = 1; i < BCACHE_BLOCK_SIZE; i++)
				if (buf[i] != buf[0]) {
					torn_reads++;
					break;
				}
		thread_yield();
	}
	kfree(buf);
}

static void concurrent_writers(struct ktest_ctx *t, uint8_t *got)
{
	struct writer w[WRITERS];
	struct thread *th[WRITERS];
	static uint64_t block = FIRST_BLOCK + 200;
	struct bcache_stats s;
	char why[160];

	KT_ASSERT(t, bcache_reset(BUFFERS) == 0, "reset failed");
	KT_ASSERT(t, bcache_set_flush_age(1, 100) == 0, "flush-age refused");
	WRITE_ONCE(writers_done, false);
	torn_reads = read_errors = 0;
	memset(got, 0x10, BCACHE_BLOCK_SIZE);	/* writer 0's: the reader never sees the pattern */
	KT_ASSERT(t, bcache_write_bytes(block, 0, got, BCACHE_BLOCK_SIZE, true) == 0,
		  "first write failed");
	struct thread *reader = thread_create("bcache-rd1", reader_of_one, &block, -1);
	KT_ASSERT(t, reader, "no reader thread");
	for (unsigned i = 0; i < WRITERS; i++) {
		w[i] = (struct writer){ .id = i, .block = block };
		th[i] = thread_create("bcache-writer", writer_thread, &w[i], -1);
		KT_ASSERT(t, th[i], "cannot create writer %u", i);
	}
	for (unsigned i = 0; i < WRITERS; i++) {
		thread_join(th[i]);
		KT_EXPECT(t, w[i].errors == 0, "writer %u: %u errors", i, w[i].errors);
	}
	WRITE_ONCE(writers_done, true);
	thread_join(reader);
	KT_EXPECT(t, torn_reads == 0 && read_errors == 0,
		  "the reader saw %u blocks mixing two writes, %u errors", torn_reads, read_errors);
	bcache_get_stats(&s);
	KT_EXPECT(t, s.writes == WRITERS * WRITES_EACH + 1 && s.write_errors == 0,
		  "%llu writes (want %u), %llu errors", (unsigned long long)s.writes,
		  WRITERS * WRITES_EACH + 1, (unsigned long long)s.write_errors);
	KT_EXPECT(t, bcache_check(why, sizeof(why)), "%s", why);
	KT_ASSERT(t, bcache_read(block, got) == 0, "read failed");
	uint8_t last = got[0];
	KT_EXPECT(t, last >= 0x10 && last < 0x10 + WRITERS, "the block holds 0x%x, no writer's", last);
	KT_ASSERT(t, bcache_reset(BUFFERS) == 0, "reset failed");
	KT_ASSERT(t, read_disk(block, got) == 0, "disk read failed");
	long d = -1;
	for (unsigned i = 0; i < BCACHE_BLOCK_SIZE && d < 0; i++)
		if (got[i] != last)
			d = (long)i;
	KT_EXPECT(t, d < 0, "the disk holds 0x%x at byte %ld, the last write was 0x%x",
		  d < 0 ? 0 : got[d], d, last);
}

KTEST(bcache_write_concurrent_writers, 2)
{
	NEED_CACHE(t);
	uint8_t *got = kmalloc(BCACHE_BLOCK_SIZE);

	if (got)
		concurrent_writers(t, got);
	else
		KT_EXPECT(t, false, "out of memory");
	restore(FIRST_BLOCK + 200, 1);
	kfree(got);
}

/*
 * Write errors, injected: a failed write-back is reported by the next
 * sync, once; the block stays dirty with its data (reads give it, the
 * flush thread does not retry it, a sync does and succeeds once the
 * disk takes writes again); a failed synchronous write is reported at
 * once; a reset that cannot write a dirty block refuses and keeps it.
 */
static void write_errors(struct ktest_ctx *t, uint8_t *buf, uint8_t *got)
{
	struct bcache_stats s;
	char why[160];
	const uint64_t b0 = FIRST_BLOCK + 300;
	long d;

	KT_ASSERT(t, bcache_reset(BUFFERS) == 0, "reset failed");
	KT_ASSERT(t, bcache_set_flush_age(LONG_AGE_MS, 100) == 0, "flush-age refused");

	/* A write-back that fails: sync reports it, the data stays, a second sync writes it. */
	fill_marked(b0, 9, buf);
	KT_ASSERT(t, bcache_write_bytes(b0, 0, buf, BCACHE_BLOCK_SIZE, false) == 0, "write failed");
	bcache_fail_writes(1);
	KT_EXPECT(t, bcache_sync() == -EIO, "sync did not report the failed write-back");
	bcache_get_stats(&s);
	KT_EXPECT(t, s.dirty == 1 && s.write_errors == 1, "after the failure: %llu dirty, %llu "
		  "errors (want 1, 1)", (unsigned long long)s.dirty,
		  (unsigned long long)s.write_errors);
	KT_ASSERT(t, bcache_read(b0, got) == 0, "read failed");
	d = first_difference(got, buf, BCACHE_BLOCK_SIZE);
	KT_EXPECT(t, d < 0, "the block whose write failed reads back different at byte %ld", d);
	KT_EXPECT(t, bcache_sync() == 0, "the second sync (the disk takes writes) failed, or "
		  "reported the old error again");
	KT_ASSERT(t, read_disk(b0, got) == 0, "disk read failed");
	KT_EXPECT(t, first_difference(got, buf, BCACHE_BLOCK_SIZE) < 0,
		  "the retried block is not on the disk");

	/* A synchronous write that fails: reported at once, the block dirty with the new data. */
	fill_marked(b0 + 1, 10, buf);
	bcache_fail_writes(1);
	KT_EXPECT(t, bcache_write_bytes(b0 + 1, 0, buf, BCACHE_BLOCK_SIZE, true) == -EIO,
		  "the failed synchronous write returned success");
	KT_ASSERT(t, bcache_read(b0 + 1, got) == 0, "read failed");
	KT_EXPECT(t, first_difference(got, buf, BCACHE_BLOCK_SIZE) < 0,
		  "the failed synchronous write's data is not in the cache");
	/* It was reported to its writer: the next sync writes it and reports nothing. */
	bcache_fail_writes(1000);
	KT_EXPECT(t, bcache_sync_block(b0 + 1) == -EIO, "sync_block on a refusing disk succeeded");
	KT_EXPECT(t, bcache_reset(BUFFERS) == -EIO, "reset with an unwritable dirty block succeeded");
	bcache_get_stats(&s);
	KT_EXPECT(t, s.dirty == 1 && s.writes == 2, "the refused reset changed the cache: %llu "
		  "dirty, %llu writes (want 1, 2)", (unsigned long long)s.dirty,
		  (unsigned long long)s.writes);
	KT_EXPECT(t, bcache_check(why, sizeof(why)), "%s", why);
	bcache_fail_writes(0);
	KT_EXPECT(t, bcache_sync() == -EIO, "the reset's failed write-back was not reported");
	KT_EXPECT(t, bcache_sync() == 0, "an error was reported twice");
	KT_ASSERT(t, read_disk(b0 + 1, got) == 0, "disk read failed");
	KT_EXPECT(t, first_difference(got, buf, BCACHE_BLOCK_SIZE) < 0,
		  "the block is not on the disk after the disk took writes again");

	/* The flush thread's failure: not retried by it; reported by the next sync. */
	fill_marked(b0 + 2, 11, buf);
	bcache_get_stats(&s);
	uint64_t errors_before = s.write_errors;
	bcache_fail_writes(1);
	KT_ASSERT(t, bcache_write_bytes(b0 + 2, 0, buf, BCACHE_BLOCK_SIZE, false) == 0, "write failed");
	KT_ASSERT(t, bcache_set_flush_age(20, 0) == 0, "flush-age refused");
	uint64_t deadline = clock_ticks() + 5 * HZ;
	do {
		thread_sleep_ticks(1);
		bcache_get_stats(&s);
	} while (s.write_errors == errors_before && clock_ticks() < deadline);
	KT_EXPECT(t, s.write_errors == errors_before + 1, "the flush thread's write-back did not "
		  "fail as injected (%llu errors, %llu before)", (unsigned long long)s.write_errors,
		  (unsigned long long)errors_before);
	uint64_t io_writes = s.io_writes;
	thread_sleep_ticks(HZ / 5);	/* ten flush ages: it must not try again */
	bcache_get_stats(&s);
	KT_EXPECT(t, s.dirty == 1 && s.io_writes == io_writes,
		  "the flush thread retried a failed block: %llu dirty, %llu disk writes, %llu "
		  "before", (unsigned long long)s.dirty, (unsigned long long)s.io_writes,
		  (unsigned long long)io_writes);
	KT_EXPECT(t, bcache_sync() == -EIO, "sync did not report the flush thread's failure");
	KT_EXPECT(t, bcache_sync() == 0, "an error was reported twice");
	KT_ASSERT(t, read_disk(b0 + 2, got) == 0, "disk read failed");
	KT_EXPECT(t, first_difference(got, buf, BCACHE_BLOCK_SIZE) < 0,
		  "the block is not on the disk after the sync");
}

KTEST(bcache_write_errors_reported, 1)
{
	NEED_CACHE(t);
	uint8_t *buf = kmalloc(BCACHE_BLOCK_SIZE), *got = kmalloc(BCACHE_BLOCK_SIZE);

	if (buf && got)
		write_errors(t, buf, got);
	else
		KT_EXPECT(t, false, "out of memory");
	restore(FIRST_BLOCK + 300, 3);
	kfree(buf);
	kfree(got);
}

/*
 * The flush thread: a dirty block is written back once older than the
 * flush age (and not at once); with a long age, once more than the
 * share of the buffers is dirty.
 */
static bool wait_clean(uint64_t ticks, struct bcache_stats *s)
{
	uint64_t deadline = clock_ticks() + ticks;
	do {
		thread_sleep_ticks(1);
		bcache_get_stats(s);
	} while (s->dirty && clock_ticks() < deadline);
	return s->dirty == 0;
}

static void flush_thread(struct ktest_ctx *t, uint8_t *buf, uint8_t *got)
{
	struct bcache_stats s;
	const uint64_t b0 = FIRST_BLOCK + 400;
	const uint64_t age_ms = 300;

	KT_ASSERT(t, bcache_reset(BUFFERS) == 0, "reset failed");
	KT_ASSERT(t, bcache_set_flush_age(age_ms, 100) == 0, "flush-age refused");
	fill_marked(b0, 12, buf);
	uint64_t start = clock_ns();
	KT_ASSERT(t, bcache_write_bytes(b0, 0, buf, BCACHE_BLOCK_SIZE, false) == 0, "write failed");
	bcache_get_stats(&s);
	bool early = clock_ns() - start < age_ms * 1000000 / 2;
	KT_EXPECT(t, !early || (s.dirty == 1 && s.writebacks == 0),
		  "written back at once: %llu dirty, %llu write-backs",
		  (unsigned long long)s.dirty, (unsigned long long)s.writebacks);
	KT_EXPECT(t, wait_clean(ms_to_ticks(age_ms) + 5 * HZ, &s),
		  "still dirty 5 s after its flush age");
	bcache_settle();	/* its write-back started; now it is on the disk */
	KT_EXPECT(t, s.writebacks == 1 && clock_ns() - start >= age_ms * 1000000,
		  "%llu write-backs (want 1) after %llu ms (the age is %llu ms)",
		  (unsigned long long)s.writebacks,
		  (unsigned long long)((clock_ns() - start) / 1000000), (unsigned long long)age_ms);
	KT_ASSERT(t, read_disk(b0, got) == 0, "disk read failed");
	KT_EXPECT(t, first_difference(got, buf, BCACHE_BLOCK_SIZE) < 0,
		  "the flushed block is not on the disk");

	/* The share: 3 of 8 dirty is above 25%, so the flush thread writes them all. */
	KT_ASSERT(t, bcache_set_flush_age(LONG_AGE_MS, 25) == 0, "flush-age refused");
	for (unsigned k = 1; k <= 3; k++) {
		fill_marked(b0 + k, 12, buf);
		KT_ASSERT(t, bcache_write_bytes(b0 + k, 0, buf, BCACHE_BLOCK_SIZE, false) == 0,
			  "write failed");
	}
	KT_EXPECT(t, wait_clean(5 * HZ, &s), "%llu blocks still dirty 5 s after passing the share",
		  (unsigned long long)s.dirty);
	bcache_settle();
	KT_EXPECT(t, s.writebacks == 4, "%llu write-backs (want 4)", (unsigned long long)s.writebacks);
	for (unsigned k = 1; k <= 3; k++) {
		fill_marked(b0 + k, 12, buf);
		KT_ASSERT(t, read_disk(b0 + k, got) == 0, "disk read failed");
		KT_EXPECT(t, first_difference(got, buf, BCACHE_BLOCK_SIZE) < 0,
			  "block %llu is not on the disk", (unsigned long long)(b0 + k));
	}
}

KTEST(bcache_write_flush_thread, 1)
{
	NEED_CACHE(t);
	uint8_t *buf = kmalloc(BCACHE_BLOCK_SIZE), *got = kmalloc(BCACHE_BLOCK_SIZE);

	if (buf && got)
		flush_thread(t, buf, got);
	else
		KT_EXPECT(t, false, "out of memory");
	restore(FIRST_BLOCK + 400, 4);
	kfree(buf);
	kfree(got);
}

/*
 * On a read-only disk (a boot with the disk offered read-only:
 * tests/integration/test_bcache_write.py) every write is refused with
 * -EROFS before anything changes, and reads go on. Skipped on a
 * writable disk.
 */
KTEST(bcache_write_read_only_disk, 1)
{
	NEED_CACHE(t);
	struct blkdev *d = blkdev_find("vda");
	uint8_t *buf = kmalloc(BCACHE_BLOCK_SIZE);
	struct bcache_stats s;

	if (!blkdev_read_only(d)) {
		kfree(buf);
		KT_SKIP(t, "vda is writable (boot with the disk read-only to run this)");
	}
	KT_ASSERT(t, buf, "out of memory");
	KT_ASSERT(t, bcache_reset(BUFFERS) == 0, "reset failed");
	fill_marked(FIRST_BLOCK, 13, buf);
	KT_EXPECT(t, bcache_write_bytes(FIRST_BLOCK, 0, buf, BCACHE_BLOCK_SIZE, false) == -EROFS,
		  "a write-back write to a read-only disk was not refused");
	KT_EXPECT(t, bcache_write_bytes(FIRST_BLOCK, 8, buf, 8, true) == -EROFS,
		  "a synchronous write to a read-only disk was not refused");
	KT_EXPECT(t, bcache_read(FIRST_BLOCK, buf) == 0, "a read failed");
	for (unsigned k = 0; k < BCACHE_BLOCK_SECTORS; k++)
		KT_EXPECT(t, blk_pattern_check(FIRST_BLOCK * BCACHE_BLOCK_SECTORS + k,
					       buf + k * BLK_SECTOR_SIZE, NULL),
			  "sector %u of the block read back is not the disk's pattern", k);
	bcache_get_stats(&s);
	KT_EXPECT(t, s.writes == 0 && s.dirty == 0 && s.io_writes == 0 && s.reads == 1,
		  "refused writes changed the cache: %llu writes, %llu dirty, %llu disk writes",
		  (unsigned long long)s.writes, (unsigned long long)s.dirty,
		  (unsigned long long)s.io_writes);
	KT_EXPECT(t, bcache_sync() == 0, "sync failed with nothing to write");
	KT_EXPECT(t, bcache_reset(BCACHE_DEFAULT_BUFFERS) == 0, "reset failed");
	kfree(buf);
}
