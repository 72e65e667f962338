// SPDX-License-Identifier: BSD-2-Clause
/*
 * Which kernel addresses tracing may read (arch_trace_readable in
 * arch/safe_read.h). Reads of device registers have side effects that
 * arch_safe_read's fault recovery cannot undo, so trace loads are
 * refused, before any byte is read, on:
 *   - the MMIO window: mmio_map puts every device mapping there, uncached;
 *   - the legacy hole (physical 0xA0000-0xFFFFF: VGA memory, option
 *     ROMs), which the direct map covers with the rest of the first MiB;
 *   - direct-map pages whose physical address is not RAM in the boot
 *     memory map (the direct map rounds RAM regions out to 2 MiB, which
 *     can take in device memory beside them);
 *   - any other page the page tables map uncached (the direct map and
 *     the kernel image are RAM mapped write-back: no walk for them).
 * Unmapped addresses pass: arch_safe_read fails them without touching
 * anything.
 *
 * No locks: the boot memory map does not change after boot (last_ram
 * points into it), and the
 * page tables are walked the way arch_translate walks them (entries are
 * written whole, tables never freed).
 */
#include <scion/boot.h>
#include <arch/mmu.h>
#include <arch/safe_read.h>
#include "x86_internal.h"

#define LEGACY_HOLE_START 0xa0000ull
#define LEGACY_HOLE_END   0x100000ull	/* exclusive */
#define FIRST_MIB         0x100000ull

static bool overlaps(uint64_t first, uint64_t last, uint64_t start, uint64_t end)
{
	return first < end && last >= start;
}

static bool in_ram_region(const struct boot_mem_region *r, uint64_t pa)
{
	return mmu_direct_mapped_type(r->type) && pa >= r->base && pa - r->base < r->length;
}

/*
 * The RAM region the last lookup found: a trace reads the same heap
 * again and again (probe names, a thread's strings), so it is tried
 * first. Any CPU may write it; it only ever points at a RAM region.
 */
static const struct boot_mem_region *last_ram;

/* Is the physical page at pa RAM the boot memory map lists (or the first MiB but the hole)? */
static bool is_ram_page(uint64_t pa)
{
	if (pa < FIRST_MIB)
		return pa < LEGACY_HOLE_START;
	const struct boot_mem_region *hint = READ_ONCE(last_ram);
	if (hint && in_ram_region(hint, pa))
		return true;
	for (unsigned i = 0; i < boot_info.nmem; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];
		if (in_ram_region(r, pa)) {
			WRITE_ONCE(last_ram, r);
			return true;
		}
	}
	return false;
}

extern char __bss_end[];	/* arch/x86/kernel.ld: the end of the kernel image */

static bool page_readable(uint64_t page)
{
	/*
	 * The direct map maps RAM write-back and the image is RAM: no page
	 * walk for them (devices are mapped uncached only in the MMIO window,
	 * by mmio_map, and refused before this).
	 */
	if (page >= DIRECT_MAP_BASE && page < DIRECT_MAP_LIMIT)
		return is_ram_page(page - DIRECT_MAP_BASE);
	if (page >= KERNEL_VIRT_BASE + FIRST_MIB && page < (uintptr_t)__bss_end)
		return true;
	unsigned flags = 0;
	if (arch_translate((uintptr_t)page, &flags) == UINT64_MAX)
		return true;	/* unmapped: arch_safe_read fails it harmlessly */
	return !(flags & MAP_NOCACHE);
}

bool arch_trace_readable(uint64_t addr, size_t n)
{
	if (n == 0)
		return true;
	uint64_t last = addr + (n - 1);
	if (last < addr)
		return false;
	if (overlaps(addr, last, MMIO_BASE, MMIO_LIMIT) ||
	    overlaps(addr, last, DIRECT_MAP_BASE + LEGACY_HOLE_START,
		     DIRECT_MAP_BASE + LEGACY_HOLE_END) ||
	    overlaps(addr, last, KERNEL_VIRT_BASE + LEGACY_HOLE_START,
		     KERNEL_VIRT_BASE + LEGACY_HOLE_END))
		return false;
	for (uint64_t page = addr & ~(PAGE_SIZE - 1); ; page += PAGE_SIZE) {
		if (!page_readable(page))
			return false;
		if (last - page < PAGE_SIZE)
			return true;
	}
}
