// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the block layer publishes to the monitor (scion/monitor.h), over
 * every disk: requests completed, bytes moved, busy time (at least one
 * request in flight) and the summed latency of the requests (the mean
 * latency over an interval is its difference over the requests').
 */
#include <scion/monitor.h>
#include <scion/blkdev.h>

static struct blkdev_stats all_disks(void)
{
	struct blkdev_stats sum = { 0 }, s;
	for (struct blkdev *d = blkdev_next(NULL); d; d = blkdev_next(d)) {
		blkdev_get_stats(d, &s);
		sum.reads += s.reads;
		sum.writes += s.writes;
		sum.errors += s.errors;
		sum.sectors_read += s.sectors_read;
		sum.sectors_written += s.sectors_written;
		sum.busy_ns += s.busy_ns;
		sum.latency_ns += s.latency_ns;
	}
	return sum;
}

static uint64_t disk_requests(void)
{
	struct blkdev_stats s = all_disks();
	return s.reads + s.writes + s.errors;
}

static uint64_t disk_bytes(void)
{
	struct blkdev_stats s = all_disks();
	return (s.sectors_read + s.sectors_written) << BLK_SECTOR_SHIFT;
}

static uint64_t disk_busy_ns(void)
{
	return all_disks().busy_ns;
}

static uint64_t disk_latency_ns(void)
{
	return all_disks().latency_ns;
}

MONITOR_GLOBAL(disk_requests, "disk.requests", "requests", MONITOR_COUNTER, disk_requests);
MONITOR_GLOBAL(disk_bytes, "disk.bytes", "bytes", MONITOR_COUNTER, disk_bytes);
MONITOR_GLOBAL(disk_busy, "disk.busy", "ns", MONITOR_COUNTER, disk_busy_ns);
MONITOR_GLOBAL(disk_latency, "disk.latency", "ns", MONITOR_COUNTER, disk_latency_ns);
