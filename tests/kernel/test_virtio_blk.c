// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the block layer and the virtio-blk driver, on the
 * test disk vda (tools/mkdisk.py: every sector holds a pattern that
 * blk_pattern_check verifies). The test harness attaches the disk with
 * snapshot=on; the write test restores what it overwrote anyway, so a
 * `make run` disk (writable) stays intact. Without a disk every test
 * reports SKIPPED.
 */
#include <scion/ktest.h>
#include <scion/blkdev.h>
#include <scion/blk_pattern.h>
#include <scion/thread.h>
#include <scion/cpu.h>
#include <scion/clock.h>
#include <scion/errno.h>
#include <scion/features.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/printk.h>
#include <arch/trap.h>
#include <arch/cpu.h>
#include "probe_test.h"

#define WAIT_TICKS           (5 * HZ)
#define IN_FLIGHT            32
#define IN_FLIGHT_MAX_COUNT  8
#define READER_THREADS       4
#define READS_PER_THREAD     64
#define READER_MAX_COUNT     16
#define SPANNING_COUNT       20	/* 10 KiB: three pages from a mid-page start */
#define SPANNING_OFFSET      1024
#define SPLIT_COUNT          300	/* more than one request's worth */
#define VMAP_BYTES           (4 * PAGE_SIZE)
#define LCG_MULTIPLIER       6364136223846793005ull
#define LCG_INCREMENT        1442695040888963407ull
#define LCG_SHIFT            33
#define WRITE_FILL_XOR       0xa5
#define CHAIN_LENGTH         64

static struct blkdev *test_disk(void)
{
	return blkdev_find("vda");
}

#define NEED_DISK(t, d) do { \
	if (!(d)) \
		KT_SKIP((t), "no disk vda (boot QEMU with the virtio-blk test disk)"); \
} while (0)

/* First sector of count in buf that does not hold its pattern, or -1. */
static int64_t first_bad_sector(uint64_t sector, uint32_t count, const void *buf)
{
	for (uint32_t i = 0; i < count; i++)
		if (!blk_pattern_check(sector + i, (const uint8_t *)buf + (size_t)i * BLK_SECTOR_SIZE,
				       NULL))
			return (int64_t)(sector + i);
	return -1;
}

static uint64_t lcg_next(uint64_t *state)
{
	*state = *state * LCG_MULTIPLIER + LCG_INCREMENT;
	return *state >> LCG_SHIFT;
}

KTEST(blk_read_first_middle_last, 1)
{
	struct blkdev *d = test_disk();
	NEED_DISK(t, d);
	uint64_t n = blkdev_sectors(d);
	const uint64_t sectors[] = { 0, 1, n / 2, n - 2, n - 1 };
	uint8_t *buf = kmalloc(BLK_SECTOR_SIZE);
	KT_ASSERT(t, buf, "no memory");
	for (unsigned i = 0; i < ARRAY_SIZE(sectors); i++) {
		memset(buf, 0, BLK_SECTOR_SIZE);
		int err = blkdev_read(d, sectors[i], 1, buf);
		KT_EXPECT(t, err == 0, "read of sector %llu: %s", (unsigned long long)sectors[i],
			  errno_name(err));
		unsigned bad = 0;
		KT_EXPECT(t, blk_pattern_check(sectors[i], buf, &bad),
			  "sector %llu differs from the pattern at byte %u",
			  (unsigned long long)sectors[i], bad);
	}
	kfree(buf);
}

KTEST(blk_read_spanning_pages, 1)
{
	struct blkdev *d = test_disk();
	NEED_DISK(t, d);
	/* Physically contiguous, starting mid-page: one descriptor over three pages. */
	uint8_t *buf = kmalloc(SPANNING_OFFSET + SPANNING_COUNT * BLK_SECTOR_SIZE);
	KT_ASSERT(t, buf, "no memory");
	int err = blkdev_read(d, 1000, SPANNING_COUNT, buf + SPANNING_OFFSET);
	int64_t bad = first_bad_sector(1000, SPANNING_COUNT, buf + SPANNING_OFFSET);
	kfree(buf);
	KT_ASSERT(t, err == 0, "read of %u sectors at 1000: %s", SPANNING_COUNT, errno_name(err));
	KT_ASSERT(t, bad < 0, "sector %lld of a %u-sector read is wrong", (long long)bad,
		  SPANNING_COUNT);

	/* Virtually contiguous only (a vmap area): one descriptor per page. */
	uintptr_t area = vmap_stack_alloc(VMAP_BYTES);
	KT_ASSERT(t, area, "no vmap area");
	uint32_t count = VMAP_BYTES / BLK_SECTOR_SIZE;
	err = blkdev_read(d, 4000, count, (void *)area);
	bad = first_bad_sector(4000, count, (void *)area);
	vmap_stack_free(area, VMAP_BYTES);
	KT_ASSERT(t, err == 0, "read into a vmap area: %s", errno_name(err));
	KT_ASSERT(t, bad < 0, "sector %lld read into a vmap area is wrong", (long long)bad);

	/* Longer than one request: blkdev_read splits it. */
	uint32_t split = MIN((uint32_t)SPLIT_COUNT, (uint32_t)blkdev_sectors(d));
	KT_ASSERT(t, blkdev_max_sectors(d) < split, "max %u sectors per request; test needs fewer",
		  blkdev_max_sectors(d));
	buf = kmalloc((size_t)split * BLK_SECTOR_SIZE);
	KT_ASSERT(t, buf, "no memory");
	err = blkdev_read(d, 0, split, buf);
	bad = first_bad_sector(0, split, buf);
	kfree(buf);
	KT_ASSERT(t, err == 0, "read of %u sectors: %s", split, errno_name(err));
	KT_ASSERT(t, bad < 0, "sector %lld of a split read is wrong", (long long)bad);
}

struct in_flight_count {
	uint64_t done_calls;
	uint64_t done_in_interrupt;
};

static void count_done(struct blk_request *r)
{
	struct in_flight_count *c = r->ctx;
	__atomic_fetch_add(&c->done_calls, 1, __ATOMIC_RELAXED);
	if (in_interrupt())
		__atomic_fetch_add(&c->done_in_interrupt, 1, __ATOMIC_RELAXED);
}

KTEST(blk_32_requests_in_flight, 1)
{
	struct blkdev *d = test_disk();
	NEED_DISK(t, d);
	struct blk_request *reqs = kzalloc(IN_FLIGHT * sizeof(*reqs));
	struct in_flight_count counts = { 0, 0 };
	uint64_t seed = 32, n = blkdev_sectors(d);
	KT_ASSERT(t, reqs, "no memory");

	for (unsigned i = 0; i < IN_FLIGHT; i++) {
		uint32_t count = 1 + (uint32_t)(lcg_next(&seed) % IN_FLIGHT_MAX_COUNT);
		reqs[i] = (struct blk_request){
			.sector = lcg_next(&seed) % (n - count), .count = count,
			.buf = kmalloc((size_t)count * BLK_SECTOR_SIZE), .done = count_done,
			.ctx = &counts,
		};
		KT_ASSERT(t, reqs[i].buf, "no memory for request %u", i);
	}
	for (unsigned i = 0; i < IN_FLIGHT; i++) {
		int err = blkdev_submit(d, &reqs[i]);
		KT_ASSERT(t, err == 0, "submit %u of %u: %s", i, IN_FLIGHT, errno_name(err));
	}
	for (unsigned i = 0; i < IN_FLIGHT; i++) {
		int err = blkdev_wait(&reqs[i], WAIT_TICKS);
		/* A request still in flight owns its buffer: leak rather than free it. */
		KT_ASSERT(t, err != -ETIMEDOUT, "request %u did not complete within %u ticks", i,
			  WAIT_TICKS);
		KT_EXPECT(t, err == 0, "request %u: %s", i, errno_name(err));
		int64_t bad = first_bad_sector(reqs[i].sector, reqs[i].count, reqs[i].buf);
		KT_EXPECT(t, bad < 0, "request %u: sector %lld is wrong", i, (long long)bad);
	}
	/* done runs after the request is marked complete: give the last one time. */
	uint64_t deadline = clock_ticks() + WAIT_TICKS;
	while (__atomic_load_n(&counts.done_calls, __ATOMIC_ACQUIRE) < IN_FLIGHT &&
	       clock_ticks() < deadline)
		thread_sleep_ms(1);
	KT_EXPECT(t, counts.done_calls == IN_FLIGHT, "done called %llu times for %u requests",
		  (unsigned long long)counts.done_calls, IN_FLIGHT);
	/* Without device interrupts the driver's poller thread completes requests. */
	uint64_t expected_in_interrupt = machine_lacks(FEATURE_DEVICE_IRQS) ? 0 : counts.done_calls;
	KT_EXPECT(t, counts.done_in_interrupt == expected_in_interrupt,
		  "done ran in interrupt context %llu of %llu times, expected %llu",
		  (unsigned long long)counts.done_in_interrupt,
		  (unsigned long long)counts.done_calls, (unsigned long long)expected_in_interrupt);
	for (unsigned i = 0; i < IN_FLIGHT; i++)
		kfree(reqs[i].buf);
	kfree(reqs);
}

struct reader {
	struct blkdev *disk;
	uint64_t seed;
	unsigned reads_ok;
	int first_error;
	int64_t bad_sector;
	unsigned cpu_seen_mask;
};

static void reader_thread(void *arg)
{
	struct reader *rd = arg;
	uint64_t n = blkdev_sectors(rd->disk);
	uint8_t *buf = kmalloc(READER_MAX_COUNT * BLK_SECTOR_SIZE);

	rd->bad_sector = -1;
	if (!buf) {
		rd->first_error = -ENOMEM;
		return;
	}
	for (unsigned i = 0; i < READS_PER_THREAD; i++) {
		uint32_t count = 1 + (uint32_t)(lcg_next(&rd->seed) % READER_MAX_COUNT);
		uint64_t sector = lcg_next(&rd->seed) % (n - count);
		rd->cpu_seen_mask |= 1u << (this_cpu_index() % 32);
		int err = blkdev_read(rd->disk, sector, count, buf);
		if (err) {
			rd->first_error = err;
			break;
		}
		rd->bad_sector = first_bad_sector(sector, count, buf);
		if (rd->bad_sector >= 0)
			break;
		rd->reads_ok++;
	}
	kfree(buf);
}

KTEST(blk_concurrent_readers, 1)
{
	struct blkdev *d = test_disk();
	NEED_DISK(t, d);
	struct reader readers[READER_THREADS];
	struct thread *threads[READER_THREADS];
	unsigned cpus = 0;

	for (unsigned i = 0; i < READER_THREADS; i++) {
		readers[i] = (struct reader){ .disk = d, .seed = 1000 + i };
		threads[i] = thread_create("blk-reader", reader_thread, &readers[i], -1);
		KT_ASSERT(t, threads[i], "cannot create reader %u", i);
	}
	for (unsigned i = 0; i < READER_THREADS; i++) {
		thread_join(threads[i]);
		cpus |= readers[i].cpu_seen_mask;
	}
	for (unsigned i = 0; i < READER_THREADS; i++) {
		KT_EXPECT(t, readers[i].first_error == 0, "reader %u: %s", i,
			  errno_name(readers[i].first_error));
		KT_EXPECT(t, readers[i].bad_sector < 0, "reader %u: sector %lld is wrong", i,
			  (long long)readers[i].bad_sector);
		KT_EXPECT(t, readers[i].reads_ok == READS_PER_THREAD, "reader %u: %u of %u reads",
			  i, readers[i].reads_ok, READS_PER_THREAD);
	}
	printk("blk_concurrent_readers: %u threads x %u reads, CPU mask 0x%x\n", READER_THREADS,
	       READS_PER_THREAD, cpus);
}

struct chain {
	struct blkdev *disk;
	struct blk_request r;
	uint8_t *buf;			/* CHAIN_LENGTH sectors */
	uint64_t first;
	unsigned next;			/* index of the sector r reads now */
	int error;
	int64_t bad_sector;
	bool finished;			/* release: the chain ended */
};

/* done: check the sector just read, then submit the next from interrupt context. */
static void chain_step(struct blk_request *r)
{
	struct chain *c = r->ctx;
	bool end = true;

	if (r->status)
		c->error = r->status;
	else if (!blk_pattern_check(r->sector, r->buf, NULL))
		c->bad_sector = (int64_t)r->sector;
	else if (++c->next < CHAIN_LENGTH) {
		r->sector = c->first + c->next;
		r->buf = c->buf + (size_t)c->next * BLK_SECTOR_SIZE;
		c->error = blkdev_submit(c->disk, r);
		end = c->error != 0;
	}
	if (end)
		__atomic_store_n(&c->finished, true, __ATOMIC_RELEASE);
}

KTEST(blk_resubmit_from_done, 1)
{
	struct blkdev *d = test_disk();
	NEED_DISK(t, d);
	struct chain *c = kzalloc(sizeof(*c));
	KT_ASSERT(t, c, "no memory");
	c->buf = kmalloc(CHAIN_LENGTH * BLK_SECTOR_SIZE);
	KT_ASSERT(t, c->buf, "no memory");
	c->disk = d;
	c->first = 2000;
	c->bad_sector = -1;
	c->r = (struct blk_request){ .sector = c->first, .count = 1, .buf = c->buf,
				     .done = chain_step, .ctx = c };
	int err = blkdev_submit(d, &c->r);
	KT_ASSERT(t, err == 0, "first submit: %s", errno_name(err));
	uint64_t deadline = clock_ticks() + WAIT_TICKS;
	while (!__atomic_load_n(&c->finished, __ATOMIC_ACQUIRE) && clock_ticks() < deadline)
		thread_sleep_ms(1);
	/* A chain still running owns c: leak it rather than free it. */
	KT_ASSERT(t, __atomic_load_n(&c->finished, __ATOMIC_ACQUIRE),
		  "chain stopped at sector %u of %u", c->next, CHAIN_LENGTH);
	KT_EXPECT(t, c->error == 0, "chain error at sector %u: %s", c->next, errno_name(c->error));
	KT_EXPECT(t, c->bad_sector < 0, "sector %lld is wrong", (long long)c->bad_sector);
	KT_EXPECT(t, c->next == CHAIN_LENGTH, "chain read %u of %u sectors", c->next, CHAIN_LENGTH);
	kfree(c->buf);
	kfree(c);
}

/* Submit r and expect a refusal with err; the refusal completes r at once. */
static bool refused_with(struct blkdev *d, struct blk_request *r, int err)
{
	return blkdev_submit(d, r) == err && blkdev_wait(r, 1) == err && r->status == err;
}

KTEST(blk_refuses_bad_requests, 1)
{
	struct blkdev *d = test_disk();
	NEED_DISK(t, d);
	uint64_t n = blkdev_sectors(d);
	uint32_t max = blkdev_max_sectors(d);
	struct blkdev_stats before, after;
	uint8_t *buf = kmalloc((size_t)(max + 1) * BLK_SECTOR_SIZE);
	KT_ASSERT(t, buf, "no memory");
	blkdev_get_stats(d, &before);

	struct blk_request r = { .sector = 0, .count = 0, .buf = buf };
	KT_EXPECT(t, refused_with(d, &r, -EINVAL), "zero count not refused");
	r = (struct blk_request){ .sector = n, .count = 1, .buf = buf };
	KT_EXPECT(t, refused_with(d, &r, -EINVAL), "sector %llu (the end) not refused",
		  (unsigned long long)n);
	r = (struct blk_request){ .sector = n - 1, .count = 2, .buf = buf };
	KT_EXPECT(t, refused_with(d, &r, -EINVAL), "two sectors from the last not refused");
	r = (struct blk_request){ .sector = UINT64_MAX, .count = 2, .buf = buf };
	KT_EXPECT(t, refused_with(d, &r, -EINVAL), "a sector range that wraps not refused");
	r = (struct blk_request){ .sector = 0, .count = max + 1, .buf = buf };
	KT_EXPECT(t, refused_with(d, &r, -EINVAL), "count %u above the maximum not refused",
		  max + 1);
	r = (struct blk_request){ .sector = 0, .count = 1, .buf = NULL };
	KT_EXPECT(t, refused_with(d, &r, -EINVAL), "NULL buffer not refused");
	KT_EXPECT(t, blkdev_read(d, n, 1, buf) == -EINVAL, "blkdev_read past the end not refused");
	KT_EXPECT(t, blkdev_read(d, 0, 0, buf) == -EINVAL, "blkdev_read of 0 sectors not refused");
	KT_EXPECT(t, blkdev_write(d, n - 1, 2, buf) == -EINVAL,
		  "blkdev_write past the end not refused");

	/* The device still works, and the refusals reached neither it nor the counters. */
	int err = blkdev_read(d, 7, 1, buf);
	KT_EXPECT(t, err == 0 && blk_pattern_check(7, buf, NULL),
		  "read after the refusals: %s, pattern %s", errno_name(err),
		  blk_pattern_check(7, buf, NULL) ? "ok" : "wrong");
	blkdev_get_stats(d, &after);
	KT_EXPECT(t, after.reads == before.reads + 1 && after.errors == before.errors &&
		  after.writes == before.writes, "counters moved by refusals: reads %llu -> %llu, "
		  "writes %llu -> %llu, errors %llu -> %llu",
		  (unsigned long long)before.reads, (unsigned long long)after.reads,
		  (unsigned long long)before.writes, (unsigned long long)after.writes,
		  (unsigned long long)before.errors, (unsigned long long)after.errors);
	kfree(buf);
}

KTEST(blk_write_read_back_and_stats, 1)
{
	struct blkdev *d = test_disk();
	NEED_DISK(t, d);
	if (blkdev_read_only(d))
		KT_SKIP(t, "vda is read-only");
	const uint64_t sector = blkdev_sectors(d) - 3;
	const uint32_t count = 2;
	const size_t bytes = count * BLK_SECTOR_SIZE;
	uint8_t *out = kmalloc(bytes), *in = kmalloc(bytes);
	struct blkdev_stats before, after;
	KT_ASSERT(t, out && in, "no memory");

	blkdev_get_stats(d, &before);
	for (size_t i = 0; i < bytes; i++)
		out[i] = (uint8_t)(i ^ WRITE_FILL_XOR);
	int err = blkdev_write(d, sector, count, out);
	KT_ASSERT(t, err == 0, "write of %u sectors at %llu: %s", count,
		  (unsigned long long)sector, errno_name(err));
	memset(in, 0, bytes);
	err = blkdev_read(d, sector, count, in);
	KT_EXPECT(t, err == 0, "read back: %s", errno_name(err));
	KT_EXPECT(t, memcmp(in, out, bytes) == 0, "read back differs from what was written");

	/* Put the pattern back (the disk of `make run` is writable). */
	for (uint32_t i = 0; i < count; i++)
		blk_pattern_fill(sector + i, out + (size_t)i * BLK_SECTOR_SIZE);
	err = blkdev_write(d, sector, count, out);
	KT_EXPECT(t, err == 0, "restoring write: %s", errno_name(err));
	err = blkdev_read(d, sector, count, in);
	KT_EXPECT(t, err == 0 && first_bad_sector(sector, count, in) < 0,
		  "pattern not back after restoring: %s", errno_name(err));
	blkdev_get_stats(d, &after);

	/* Four requests, one after another: each one interrupt (none when polled). */
	uint64_t expected_interrupts = machine_lacks(FEATURE_DEVICE_IRQS) ? 0 : 4;
	KT_EXPECT(t, after.writes - before.writes == 2, "writes counted %llu, expected 2",
		  (unsigned long long)(after.writes - before.writes));
	KT_EXPECT(t, after.sectors_written - before.sectors_written == 2 * count,
		  "sectors written counted %llu, expected %u",
		  (unsigned long long)(after.sectors_written - before.sectors_written), 2 * count);
	KT_EXPECT(t, after.reads - before.reads == 2, "reads counted %llu, expected 2",
		  (unsigned long long)(after.reads - before.reads));
	KT_EXPECT(t, after.sectors_read - before.sectors_read == 2 * count,
		  "sectors read counted %llu, expected %u",
		  (unsigned long long)(after.sectors_read - before.sectors_read), 2 * count);
	KT_EXPECT(t, after.interrupts - before.interrupts == expected_interrupts,
		  "interrupts counted %llu for 4 requests in turn, expected %llu",
		  (unsigned long long)(after.interrupts - before.interrupts),
		  (unsigned long long)expected_interrupts);
	KT_EXPECT(t, after.errors == before.errors, "errors counted %llu",
		  (unsigned long long)(after.errors - before.errors));
	kfree(out);
	kfree(in);
}

/* --- The io provider (scion/io_probe.h) --------------------------------- */

#define IO_PROBE_MAX_REQUESTS 1024	/* more than the virtio queue holds */

struct io_site_count {
	uint64_t hits, bytes, kernel_pid;	/* firings, arg2 summed, those with arg4 0 */
	uint64_t refusals;			/* those with arg5 -EAGAIN (the others: 0) */
	uint64_t other_errors;			/* arg5 anything else */
};

static void io_site_handler(const struct probe_hit *hit, void *arg)
{
	struct io_site_count *c = arg;
	atomic_add(&c->hits, 1);
	atomic_add(&c->bytes, trap_frame_arg(hit->regs, 2));
	if (trap_frame_arg(hit->regs, 4) == 0)
		atomic_add(&c->kernel_pid, 1);
	int64_t error = (int64_t)trap_frame_arg(hit->regs, 5);
	if (error == -EAGAIN)
		atomic_add(&c->refusals, 1);
	else if (error)
		atomic_add(&c->other_errors, 1);
}

/*
 * Requests submitted until the queue refuses one: io:::start fires for
 * each submission, io:::done once per start, from the completion for a
 * request in flight and at once in blkdev_submit for the refused one;
 * sizes are the requests' bytes and pid is the kernel's (0: this is a
 * kernel thread); the refused one's done says -EAGAIN in arg5, every
 * other done 0.
 */
KTEST_NEEDS(blk_io_probes_pair_start_and_done, 1, FEATURE_PROBES)
{
	static const char *const specs[3] = { "io:kernel:blkdev_submit:start",
					      "io:kernel:blkdev_complete:done",
					      "io:kernel:blkdev_submit:done" };
	struct blkdev *d = test_disk();
	NEED_DISK(t, d);
	struct io_site_count counts[3] = { { 0 }, { 0 }, { 0 } };
	struct probe_consumer c[3];
	struct blk_request *reqs = kzalloc(IO_PROBE_MAX_REQUESTS * sizeof(*reqs));
	void *buf = kmalloc(BLK_SECTOR_SIZE);	/* shared: the reads' data is not looked at */
	unsigned enabled = 0, submitted = 0, refused = 0;

	KT_ASSERT(t, reqs && buf, "no memory");
	for (; enabled < 3; enabled++) {
		struct probe *p = probe_named(specs[enabled]);
		c[enabled] = (struct probe_consumer){ .action = PROBE_HANDLER,
						      .handler = io_site_handler,
						      .arg = &counts[enabled] };
		if (!p || probe_enable(p, &c[enabled]))
			break;
	}
	KT_EXPECT(t, enabled == 3, "cannot enable %s", specs[enabled < 3 ? enabled : 0]);
	/*
	 * With interrupts masked the thread stays on this CPU, whose queue
	 * interrupts this CPU: the device may finish requests as fast as
	 * they come, but nothing gives their slots back until the loop ends,
	 * so the queue fills.
	 */
	irqflags_t f = arch_irq_save();
	for (unsigned i = 0; enabled == 3 && i < IO_PROBE_MAX_REQUESTS; i++) {
		reqs[i] = (struct blk_request){ .sector = i, .count = 1, .buf = buf };
		int err = blkdev_submit(d, &reqs[i]);
		if (err == -EAGAIN) {
			refused = 1;
			break;
		}
		KT_EXPECT(t, err == 0, "submit %u: %s", i, errno_name(err));
		if (err)
			break;
		submitted++;
	}
	arch_irq_restore(f);
	for (unsigned i = 0; i < submitted; i++)
		KT_EXPECT(t, blkdev_wait(&reqs[i], WAIT_TICKS) == 0, "request %u failed", i);
	while (enabled)
		probe_disable(&c[--enabled]);
	KT_EXPECT(t, refused == 1, "the queue took all %u requests (none refused)", submitted);
	KT_EXPECT(t, counts[0].hits == submitted + refused && counts[1].hits == submitted &&
		  counts[2].hits == refused, "%u submitted, %u refused: start %llu, done at "
		  "completion %llu, done at refusal %llu", submitted, refused,
		  (unsigned long long)counts[0].hits, (unsigned long long)counts[1].hits,
		  (unsigned long long)counts[2].hits);
	KT_EXPECT(t, counts[2].refusals == refused && counts[1].refusals == 0 &&
		  counts[1].other_errors == 0 && counts[2].other_errors == 0,
		  "done's arg5: %llu -EAGAIN and %llu other errors at refusal, %llu and %llu at "
		  "completion", (unsigned long long)counts[2].refusals,
		  (unsigned long long)counts[2].other_errors, (unsigned long long)counts[1].refusals,
		  (unsigned long long)counts[1].other_errors);
	for (unsigned k = 0; k < 3; k++)
		KT_EXPECT(t, counts[k].bytes == counts[k].hits * BLK_SECTOR_SIZE &&
			  counts[k].kernel_pid == counts[k].hits,
			  "%s: %llu firings, %llu bytes, %llu with pid 0", specs[k],
			  (unsigned long long)counts[k].hits, (unsigned long long)counts[k].bytes,
			  (unsigned long long)counts[k].kernel_pid);
	kfree(buf);
	kfree(reqs);
}
