// SPDX-License-Identifier: BSD-2-Clause
/*
 * What memory management publishes to the monitor (scion/monitor.h):
 * free memory and the kernel heap in use, both in bytes.
 */
#include <scion/monitor.h>
#include <scion/mm.h>

static uint64_t free_bytes(void)
{
	struct pmm_stats s;
	pmm_get_stats(&s);
	return s.free_pages * PAGE_SIZE;
}

static uint64_t heap_bytes(void)
{
	struct kmalloc_stats s;
	kmalloc_get_stats(&s);
	return s.bytes_in_use;
}

MONITOR_GLOBAL(mm_free, "mm.free", "bytes", MONITOR_GAUGE, free_bytes);
MONITOR_GLOBAL(mm_heap, "mm.heap", "bytes", MONITOR_GAUGE, heap_bytes);
