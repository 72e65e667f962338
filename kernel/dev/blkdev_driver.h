/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The block layer's side for drivers (private to kernel/dev): the disk
 * object behind the opaque struct blkdev, registration, and the
 * completion path.
 *
 * A driver embeds a struct blkdev in its own state, fills in the fields
 * marked "set once" and calls blkdev_register. Its submit method gets
 * requests blkdev_submit already checked (range, count, read-only); on
 * completion it sets each r->status, then, outside its own locks, calls
 * blkdev_complete for each and blkdev_wake once for the batch.
 *
 * Lock order: driver queue locks -> (nothing); d->wq.lock is taken
 * only by blkdev_wake and the sleepers, never with a driver lock held.
 */
#ifndef KERNEL_DEV_BLKDEV_DRIVER_H
#define KERNEL_DEV_BLKDEV_DRIVER_H

#include <scion/blkdev.h>
#include <scion/wait.h>

#define BLKDEV_NAME_MAX 8
#define BLKDEV_MAX_DISKS 16

struct blkdev_ops {
	/*
	 * submit - queue a checked request on the device.
	 * Return value: 0, -EINVAL for a buffer the device cannot take,
	 *   -EAGAIN when the queue is full. Caller's context: any.
	 */
	int (*submit)(struct blkdev *d, struct blk_request *r);
};

struct blkdev {
	char name[BLKDEV_NAME_MAX];		/* set once, by blkdev_register */
	unsigned index;				/* set once, by blkdev_register: in disks[] */
	const char *model;			/* set once */
	uint64_t sectors;			/* set once */
	uint32_t max_sectors;			/* set once: per request */
	bool read_only;				/* set once */
	const struct blkdev_ops *ops;		/* set once */
	struct waitq wq;			/* completions wake it (blkdev_wait, room) */
	uint64_t completions;			/* atomic: requests completed so far */
	struct blkdev_stats stats;		/* atomic adds, lock-free reads; busy_ns:
						   busy_lock */
	struct spinlock busy_lock;		/* in_flight, busy_since, stats.busy_ns */
	unsigned in_flight;			/* busy_lock: submitted, not completed */
	uint64_t busy_since;			/* busy_lock: clock_ns() when in_flight left 0 */
	bool live;				/* set once, release order: findable */
};

/*
 * blkdev_register - name d: prefix and the next letter ("vda", "vdb").
 * The disk is not findable until blkdev_publish; a disk whose set-up
 * fails after this keeps its name unused.
 * Return value: 0, or -ENOSPC beyond BLKDEV_MAX_DISKS disks or 26 letters.
 * Caller's context: thread or boot; d must live forever.
 */
int blkdev_register(struct blkdev *d, const char *prefix);

/* Make a registered, working d findable (blkdev_find, blkdev_next). Any context. */
void blkdev_publish(struct blkdev *d);

/*
 * blkdev_complete - finish r: count it, mark it complete, call r->done.
 * r->status was set by the driver. Caller's context: the driver's
 * completion path (interrupt), no driver lock held.
 */
void blkdev_complete(struct blkdev *d, struct blk_request *r);

/* Wake the threads sleeping on d (after a batch of blkdev_complete). Any context. */
void blkdev_wake(struct blkdev *d);

/* Count one completion interrupt of d. Any context. */
void blkdev_note_interrupt(struct blkdev *d);

#endif
