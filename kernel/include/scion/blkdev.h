/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Block devices (kernel/dev/blkdev.c): disks of 512-byte sectors, named
 * "vda", "vdb", ... in the order they were found. I/O is asynchronous at
 * heart: a caller-owned struct blk_request is submitted, the device
 * completes it from its interrupt, and the caller learns of it through
 * its done callback or by sleeping in blkdev_wait. blkdev_read and
 * blkdev_write wrap that for threads.
 *
 * Requests may be submitted from several threads on several CPUs at once
 * and several may be in flight; the driver orders nothing between them
 * (two writes of one sector in flight together finish in either order).
 *
 * A request belongs to the block layer from a successful blkdev_submit
 * until it completes: r->status is set, the request is marked complete
 * (blkdev_wait returns), then done(r) is called, which is the driver's
 * last access to r. A caller that both sets done and waits must keep r
 * valid until done has run.
 */
#ifndef SCION_BLKDEV_H
#define SCION_BLKDEV_H

#include <scion/compiler.h>

#define BLK_SECTOR_SIZE  512
#define BLK_SECTOR_SHIFT 9

struct blkdev;					/* opaque */

struct blk_request {				/* caller-owned; one I/O */
	uint64_t sector;			/* first sector */
	uint32_t count;				/* sectors, 1 .. blkdev_max_sectors() */
	void *buf;				/* count * 512 bytes of mapped kernel memory;
						   physically discontiguous pages are fine */
	bool write;
	int status;				/* after completion: 0 or negative errno */
	void (*done)(struct blk_request *r);	/* interrupt context, may be NULL */
	void *ctx;				/* for the caller */
	uint32_t pid;				/* the process the I/O is for, 0 the kernel
						   (io probes' arg4): blkdev_caller_pid() for
						   a thread's own I/O, 0 for read-ahead and
						   write-back it did not ask for */

	/* Private to the block layer and the driver: callers leave them alone. */
	struct blkdev *dev;			/* set by blkdev_submit */
	uint32_t dev_index;			/* set by blkdev_submit: blkdev_index(dev) */
	uint64_t submitted_ns;			/* set by blkdev_submit: clock_ns() */
	bool complete;				/* set once, with release order, at completion */
	struct blk_request *completed_next;	/* driver: batch of completions */
	uint32_t driver_slot;			/* driver: its bookkeeping for r */
};

struct blkdev_stats {
	uint64_t reads, writes;			/* requests completed without error */
	uint64_t sectors_read, sectors_written;	/* by those requests */
	uint64_t interrupts;			/* the disk's completion interrupts */
	uint64_t errors;			/* requests the device failed */
	uint64_t latency_ns;			/* submission to completion, summed over the
						   requests completed (the mean: / reads + writes
						   + errors) */
	uint64_t busy_ns;			/* time with at least one request in flight */
};

/*
 * blkdev_find - the disk called name ("vda").
 * Return value: the disk, or NULL when there is none. Any context.
 */
struct blkdev *blkdev_find(const char *name);

/* The disk after prev in the order found (NULL: the first), or NULL. Any context. */
struct blkdev *blkdev_next(const struct blkdev *prev);

const char *blkdev_name(const struct blkdev *d);
uint64_t blkdev_sectors(const struct blkdev *d);	/* 512-byte sectors */
uint32_t blkdev_max_sectors(const struct blkdev *d);	/* per request */
bool blkdev_read_only(const struct blkdev *d);
const char *blkdev_model(const struct blkdev *d);	/* "virtio-blk" */
unsigned blkdev_index(const struct blkdev *d);		/* in the order found: vda 0 */

/*
 * blkdev_caller_pid - the pid to put in r->pid for I/O the current
 *   thread does on its process's behalf: its process's pid, 0 in a
 *   kernel thread. Caller's context: thread (in interrupt context the
 *   interrupted thread is no caller: use 0).
 */
uint32_t blkdev_caller_pid(void);

/*
 * blkdev_submit - start one I/O.
 * Arguments: r with sector, count, buf, write, done and ctx filled in.
 * Return value: 0 when the request is in flight; otherwise r is not
 *   submitted, r->status holds the error and r counts as complete (so a
 *   blkdev_wait on it returns the error at once; done is not called):
 *   -EINVAL for a zero count, a count above blkdev_max_sectors, a range
 *   beyond the disk's end, a NULL or unmapped buffer, or a buffer in more
 *   physical pieces than the device takes in one request;
 *   -EPERM for a write to a read-only disk;
 *   -EAGAIN when the device queue is full (nothing waits for room: retry
 *   after a completion, as blkdev_read does).
 * Caller's context: any (interrupt handlers and done callbacks too);
 *   takes the driver's queue lock with interrupts masked, never sleeps.
 */
int blkdev_submit(struct blkdev *d, struct blk_request *r);

/*
 * blkdev_wait - sleep until r (submitted to some disk) completes.
 * Arguments: timeout_ticks, 0 for no time limit.
 * Return value: r->status, or -ETIMEDOUT with r still in flight (its
 *   buffer still belongs to the device: wait again before reusing it).
 * Caller's context: thread, no spinlocks held; may sleep.
 */
int blkdev_wait(struct blk_request *r, uint64_t timeout_ticks);

/*
 * blkdev_read, blkdev_write - synchronous I/O of count sectors at sector,
 * split into requests of at most blkdev_max_sectors; waits for room when
 * the device queue is full; the requests are the calling thread's
 * process's (r->pid: blkdev_caller_pid).
 * Return value: 0 or the first error (-EINVAL, -EPERM as for
 *   blkdev_submit, -EIO or -ENOTSUP from the device). A range beyond the
 *   end is refused before any I/O.
 * Caller's context: thread, no spinlocks held; sleeps until done.
 */
int blkdev_read(struct blkdev *d, uint64_t sector, uint32_t count, void *buf);
int blkdev_write(struct blkdev *d, uint64_t sector, uint32_t count, const void *buf);

/* A snapshot of d's counters (each read atomically, not all together). Any context. */
void blkdev_get_stats(const struct blkdev *d, struct blkdev_stats *s);

#endif
