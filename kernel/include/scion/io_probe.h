/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The io provider (illumos's io, with plain arguments): four SDT probes
 * on block requests, io:kernel:<function>:<name> (scion/sdt.h's _P form).
 * This header is the one place their argument layout is written down;
 * every site goes through IO_PROBE or IO_PROBE_REQUEST.
 *
 *   io:::start       a request is submitted to a disk (blkdev_submit,
 *                    once it passed the checks, before the driver has it)
 *   io:::done        the disk completed it (blkdev_complete: interrupt
 *                    context, before the waiter may reuse the request),
 *                    or the driver refused it (its queue full: at once,
 *                    in blkdev_submit), so every start has one done
 *   io:::wait-start  a thread begins to sleep for a request (blkdev_wait,
 *                    the block cache's sleep_for_disk)
 *   io:::wait-done   that thread woke up (same functions)
 *
 * Arguments (the same for all four):
 *   arg0  the disk's index in the order found (vda 0, vdb 1, ...: `disk`)
 *   arg1  the request's first 512-byte sector (illumos's b_blkno); for a
 *         wait on no one request (room in the cache or in the disk's
 *         queue) -1
 *   arg2  its size in bytes (b_bcount); 0 for such a wait
 *   arg3  its direction: 0 read (B_READ), 1 write (B_WRITE)
 *   arg4  the pid of the process the I/O is for (r->pid, set by the
 *         submitter): the submitting thread's process for demand reads,
 *         eviction write-backs, sync writes and blkdev_read/blkdev_write;
 *         0 for the kernel (read-ahead, the flush thread's write-back,
 *         kernel threads). At the wait probes, the sleeping thread's
 *         pid (it may sleep for a read-ahead's request: pid 0's).
 *   arg5  at io:::done, how it ended (illumos's b_error): 0, or the
 *         negative errno the disk gave (-EIO) or the driver's refusal
 *         (-EAGAIN: its queue was full); 0 at the other three
 *
 * In flight, (arg0, arg1) names a request, as (b_edev, b_blkno) does in
 * illumos scripts: key start times by it, since done fires in interrupt
 * context where self-> variables belong to whichever thread was
 * interrupted.
 *
 * Zero cost while disabled: each site is an SDT no-op; its arguments are
 * loads of fields the caller already has in hand.
 */
#ifndef SCION_IO_PROBE_H
#define SCION_IO_PROBE_H

#include <scion/sdt.h>
#include <scion/blkdev.h>

#define IO_PROBE_NO_SECTOR ((uint64_t)-1)	/* arg1 of a wait on no one request */

#define IO_PROBE_start(dev, sector, bytes, write, pid) \
	SDT_PROBE5_P(io, start, dev, sector, bytes, write, pid)
#define IO_PROBE_wait_start(dev, sector, bytes, write, pid) \
	SDT_PROBE5_P(io, wait__start, dev, sector, bytes, write, pid)
#define IO_PROBE_wait_done(dev, sector, bytes, write, pid) \
	SDT_PROBE5_P(io, wait__done, dev, sector, bytes, write, pid)

/* IO_PROBE(start, dev, sector, bytes, write, pid): one site, the layout above. */
#define IO_PROBE(name, dev, sector, bytes, write, pid) \
	IO_PROBE_##name(dev, sector, bytes, write, pid)

/* io:::done of request r, which ended with error (0 or a negative errno). */
#define IO_PROBE_DONE(r, error) \
	SDT_PROBE6_P(io, done, (r)->dev_index, (r)->sector, \
		     (uint64_t)(r)->count << BLK_SECTOR_SHIFT, (r)->write, (r)->pid, \
		     (int64_t)(error))

/*
 * IO_PROBE_REQUEST(start, r): a site about request r (submitted, so
 * r->dev_index is set); IO_PROBE_REQUEST_BY(wait_start, r, pid): the
 * same for a wait, with the sleeper's pid.
 */
#define IO_PROBE_REQUEST_BY(name, r, pid) \
	IO_PROBE(name, (r)->dev_index, (r)->sector, (uint64_t)(r)->count << BLK_SECTOR_SHIFT, \
		 (r)->write, pid)
#define IO_PROBE_REQUEST(name, r) IO_PROBE_REQUEST_BY(name, r, (r)->pid)

#endif
