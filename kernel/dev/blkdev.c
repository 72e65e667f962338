// SPDX-License-Identifier: BSD-2-Clause
/*
 * The block layer (scion/blkdev.h, blkdev_driver.h): the table of disks,
 * request checks, the completion path shared by drivers, waiting, and the
 * synchronous blkdev_read/blkdev_write built on submit + wait.
 *
 * disks[] grows only (disks are never removed): an entry is complete
 * before ndisks is raised past it with release order, and a disk is
 * skipped until its driver publishes it, so readers take no lock;
 * registration takes disks_lock. Statistics are atomic counters.
 * A completion stores r->complete with release order after r->status;
 * waiters read it with acquire order under d->wq.lock, and blkdev_wake
 * takes that lock after the store, so no wake-up is lost.
 *
 * For the monitor, each request's latency (submission to completion) is
 * summed, and each disk's busy time (at least one request in flight) is
 * kept under its busy_lock, which nests inside nothing and is taken with
 * interrupts masked (completions run in interrupt context).
 *
 * The io provider's sites (scion/io_probe.h, where their arguments are
 * laid out): io:::start in blkdev_submit once the request is checked,
 * io:::done in blkdev_complete (interrupt context) before the request
 * is marked complete (after that the waiter may reuse it), or in
 * blkdev_submit when the driver refuses a started request, and
 * io:::wait-start/wait-done around blkdev_wait's sleep.
 */
#include <scion/blkdev.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/string.h>
#include <scion/printk.h>
#include <scion/spinlock.h>
#include <scion/clock.h>
#include <scion/thread.h>
#include <scion/proc.h>
#include <scion/io_probe.h>
#include "blkdev_driver.h"

/* blkdev_read/blkdev_write: how long to sleep before saying a request is late. */
#define SYNC_PATIENCE_SECONDS 10
#define SYNC_PATIENCE_TICKS (SYNC_PATIENCE_SECONDS * HZ)
#define DISK_LETTERS 26

static struct blkdev *disks[BLKDEV_MAX_DISKS];	/* disks_lock to add; read lock-free */
static unsigned ndisks;				/* disks_lock; read with acquire */
static struct spinlock disks_lock = SPINLOCK_INIT("blkdev-table");

int blkdev_register(struct blkdev *d, const char *prefix)
{
	irqflags_t f = spin_lock_irqsave(&disks_lock);
	unsigned same_prefix = 0;
	size_t plen = strlen(prefix);
	for (unsigned i = 0; i < ndisks; i++)
		if (!strncmp(disks[i]->name, prefix, plen))
			same_prefix++;
	if (ndisks == BLKDEV_MAX_DISKS || same_prefix >= DISK_LETTERS ||
	    plen + 2 > BLKDEV_NAME_MAX) {
		spin_unlock_irqrestore(&disks_lock, f);
		return -ENOSPC;
	}
	snprintf(d->name, sizeof(d->name), "%s%c", prefix, 'a' + same_prefix);
	waitq_init(&d->wq, "blkdev-wait");
	spin_init(&d->busy_lock, "blkdev-busy");
	d->index = ndisks;
	disks[ndisks] = d;
	__atomic_store_n(&ndisks, ndisks + 1, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&disks_lock, f);
	return 0;
}

void blkdev_publish(struct blkdev *d)
{
	__atomic_store_n(&d->live, true, __ATOMIC_RELEASE);
}

static bool is_live(const struct blkdev *d)
{
	return __atomic_load_n(&d->live, __ATOMIC_ACQUIRE);
}

struct blkdev *blkdev_find(const char *name)
{
	unsigned n = __atomic_load_n(&ndisks, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n; i++)
		if (is_live(disks[i]) && !strcmp(disks[i]->name, name))
			return disks[i];
	return NULL;
}

struct blkdev *blkdev_next(const struct blkdev *prev)
{
	unsigned n = __atomic_load_n(&ndisks, __ATOMIC_ACQUIRE);
	unsigned i = 0;

	if (prev) {
		while (i < n && disks[i] != prev)
			i++;
		i++;
	}
	for (; i < n; i++)
		if (is_live(disks[i]))
			return disks[i];
	return NULL;
}

const char *blkdev_name(const struct blkdev *d)
{
	return d->name;
}

uint64_t blkdev_sectors(const struct blkdev *d)
{
	return d->sectors;
}

uint32_t blkdev_max_sectors(const struct blkdev *d)
{
	return d->max_sectors;
}

bool blkdev_read_only(const struct blkdev *d)
{
	return d->read_only;
}

const char *blkdev_model(const struct blkdev *d)
{
	return d->model;
}

unsigned blkdev_index(const struct blkdev *d)
{
	return d->index;
}

uint32_t blkdev_caller_pid(void)
{
	struct thread *t = thread_current();
	return t ? (uint32_t)proc_pid(t->proc) : 0;
}

/* A request entered (+1) or left (-1) the disk at now: the busy time's bookkeeping. */
static void busy_change(struct blkdev *d, uint64_t now, int by)
{
	irqflags_t f = spin_lock_irqsave(&d->busy_lock);
	if (by > 0 && d->in_flight++ == 0)
		d->busy_since = now;
	else if (by < 0 && --d->in_flight == 0 && now > d->busy_since)
		__atomic_store_n(&d->stats.busy_ns, d->stats.busy_ns + (now - d->busy_since),
				 __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&d->busy_lock, f);
}

static int refuse(struct blk_request *r, int err)
{
	r->status = err;
	__atomic_store_n(&r->complete, true, __ATOMIC_RELEASE);
	return err;
}

int blkdev_submit(struct blkdev *d, struct blk_request *r)
{
	r->dev = d;
	r->dev_index = d->index;
	r->status = 0;
	r->completed_next = NULL;
	__atomic_store_n(&r->complete, false, __ATOMIC_RELAXED);
	if (r->count == 0 || r->count > d->max_sectors || !r->buf)
		return refuse(r, -EINVAL);
	if (r->sector >= d->sectors || r->count > d->sectors - r->sector)
		return refuse(r, -EINVAL);
	if (r->write && d->read_only)
		return refuse(r, -EPERM);
	r->submitted_ns = clock_ns();
	IO_PROBE_REQUEST(start, r);
	busy_change(d, r->submitted_ns, +1);
	int err = d->ops->submit(d, r);
	if (err) {
		busy_change(d, clock_ns(), -1);
		IO_PROBE_DONE(r, err);	/* it ended here: every start has its done */
		return refuse(r, err);
	}
	return 0;
}

void blkdev_complete(struct blkdev *d, struct blk_request *r)
{
	void (*done)(struct blk_request *) = r->done;
	uint64_t *requests = r->write ? &d->stats.writes : &d->stats.reads;
	uint64_t *sectors = r->write ? &d->stats.sectors_written : &d->stats.sectors_read;
	uint64_t now = clock_ns();

	if (now > r->submitted_ns)
		__atomic_fetch_add(&d->stats.latency_ns, now - r->submitted_ns, __ATOMIC_RELAXED);
	busy_change(d, now, -1);

	if (r->status) {
		__atomic_fetch_add(&d->stats.errors, 1, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(requests, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(sectors, r->count, __ATOMIC_RELAXED);
	}
	IO_PROBE_DONE(r, r->status);
	__atomic_fetch_add(&d->completions, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&r->complete, true, __ATOMIC_RELEASE);
	if (done)
		done(r);
}

void blkdev_wake(struct blkdev *d)
{
	waitq_wake_all(&d->wq);
}

void blkdev_note_interrupt(struct blkdev *d)
{
	__atomic_fetch_add(&d->stats.interrupts, 1, __ATOMIC_RELAXED);
}

static bool is_complete(const struct blk_request *r)
{
	return __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE);
}

int blkdev_wait(struct blk_request *r, uint64_t timeout_ticks)
{
	struct blkdev *d = r->dev;

	if (!d)
		return -EINVAL;
	if (is_complete(r))
		return r->status;
	uint64_t from = clock_ns();
	bool late = false;
	uint32_t pid = blkdev_caller_pid();
	IO_PROBE_REQUEST_BY(wait_start, r, pid);
	if (timeout_ticks == 0)
		wait_event(&d->wq, is_complete(r));
	else
		late = !wait_event_timeout(&d->wq, is_complete(r), timeout_ticks);
	IO_PROBE_REQUEST_BY(wait_done, r, pid);
	struct thread *self = thread_current();
	__atomic_store_n(&self->disk_wait_ns, self->disk_wait_ns + (clock_ns() - from),
			 __ATOMIC_RELAXED);
	return late ? -ETIMEDOUT : r->status;
}

/* Submit r, sleeping for room while the queue is full; 0 or the refusal. */
static int submit_waiting_for_room(struct blkdev *d, struct blk_request *r)
{
	for (;;) {
		uint64_t seen = __atomic_load_n(&d->completions, __ATOMIC_ACQUIRE);
		int err = blkdev_submit(d, r);
		if (err != -EAGAIN)
			return err;
		wait_event_timeout(&d->wq, __atomic_load_n(&d->completions, __ATOMIC_ACQUIRE) != seen,
				   SYNC_PATIENCE_TICKS);
	}
}

/* One request of a synchronous transfer: submit and sleep until it is done. */
static int transfer_one(struct blkdev *d, struct blk_request *r)
{
	int err = submit_waiting_for_room(d, r);
	if (err)
		return err;
	err = blkdev_wait(r, SYNC_PATIENCE_TICKS);
	if (err == -ETIMEDOUT) {
		/* The buffer is the device's until it answers: keep waiting. */
		printk("%s: %s of sector %llu not done after %u s; still waiting\n", d->name,
		       r->write ? "write" : "read", (unsigned long long)r->sector,
		       SYNC_PATIENCE_SECONDS);
		err = blkdev_wait(r, 0);
	}
	return err;
}

static int transfer(struct blkdev *d, uint64_t sector, uint32_t count, void *buf, bool write)
{
	if (count == 0 || !buf || sector >= d->sectors || count > d->sectors - sector)
		return -EINVAL;
	if (write && d->read_only)
		return -EPERM;
	while (count) {
		struct blk_request r = {
			.sector = sector, .count = MIN(count, d->max_sectors), .buf = buf,
			.write = write, .pid = blkdev_caller_pid(),
		};
		int err = transfer_one(d, &r);
		if (err)
			return err;
		sector += r.count;
		count -= r.count;
		buf = (char *)buf + (size_t)r.count * BLK_SECTOR_SIZE;
	}
	return 0;
}

int blkdev_read(struct blkdev *d, uint64_t sector, uint32_t count, void *buf)
{
	return transfer(d, sector, count, buf, false);
}

int blkdev_write(struct blkdev *d, uint64_t sector, uint32_t count, const void *buf)
{
	return transfer(d, sector, count, (void *)buf, true);
}

void blkdev_get_stats(const struct blkdev *d, struct blkdev_stats *s)
{
	s->reads = __atomic_load_n(&d->stats.reads, __ATOMIC_RELAXED);
	s->writes = __atomic_load_n(&d->stats.writes, __ATOMIC_RELAXED);
	s->sectors_read = __atomic_load_n(&d->stats.sectors_read, __ATOMIC_RELAXED);
	s->sectors_written = __atomic_load_n(&d->stats.sectors_written, __ATOMIC_RELAXED);
	s->interrupts = __atomic_load_n(&d->stats.interrupts, __ATOMIC_RELAXED);
	s->errors = __atomic_load_n(&d->stats.errors, __ATOMIC_RELAXED);
	s->latency_ns = __atomic_load_n(&d->stats.latency_ns, __ATOMIC_RELAXED);
	irqflags_t f = spin_lock_irqsave((struct spinlock *)&d->busy_lock);
	s->busy_ns = d->stats.busy_ns;
	uint64_t now = clock_ns();
	if (d->in_flight && now > d->busy_since)
		s->busy_ns += now - d->busy_since;	/* the period still going on */
	spin_unlock_irqrestore((struct spinlock *)&d->busy_lock, f);
}
