// SPDX-License-Identifier: BSD-2-Clause
/*
 * The graft area: where loaded grafts live, within the arch's branch
 * reach of the kernel text (GRAFT_AREA_BASE and ARCH_CODE_REACH,
 * arch/mmu.h) so that graft code calls the exported API directly and
 * the relocations of the kernel's code model fit.
 *
 * A bitmap of the area's pages, guarded by graft_mem_lock; each region
 * is followed by one page that stays unmapped, so a graft running off
 * the end of its data faults instead of reaching its neighbour. Pages
 * are mapped read/write while the loader fills them; graft_mem_protect
 * then gives text read+execute, rodata read-only, data read/write
 * without execute. Only the loading CPU has touched a region before it
 * is protected, so the local TLB flush of arch_unmap_page suffices; for
 * the same reason graft_mem_free is only for regions no other CPU ran
 * (a failed load).
 */
#include <scion/mm.h>
#include <scion/mutex.h>
#include <scion/string.h>
#include <scion/printk.h>
#include <arch/mmu.h>
#include "graft_internal.h"

#define GRAFT_AREA_PAGES (GRAFT_AREA_SIZE / PAGE_SIZE)

/* Every graft reaches the whole kernel image (which starts at KERNEL_VIRT_BASE) directly. */
_Static_assert(GRAFT_AREA_BASE > KERNEL_VIRT_BASE &&
	       GRAFT_AREA_BASE + GRAFT_AREA_SIZE - KERNEL_VIRT_BASE <= ARCH_CODE_REACH,
	       "the graft area must lie within ARCH_CODE_REACH of the kernel text");
#define GUARD_PAGES 1

static struct mutex graft_mem_lock = MUTEX_INIT(graft_mem_lock, "graft-area");
static uint64_t page_used[GRAFT_AREA_PAGES / 64];	/* graft_mem_lock: bit per page */
static size_t pages_in_use;				/* graft_mem_lock */

static bool used(size_t i)
{
	return page_used[i / 64] & (1ull << (i % 64));
}

static void mark(size_t first, size_t n, bool on)
{
	for (size_t i = first; i < first + n; i++) {
		if (on)
			page_used[i / 64] |= 1ull << (i % 64);
		else
			page_used[i / 64] &= ~(1ull << (i % 64));
	}
}

/* First run of n free pages starting at a multiple of align pages, or GRAFT_AREA_PAGES. */
static size_t find_run(size_t n, size_t align)
{
	for (size_t first = 0; first + n <= GRAFT_AREA_PAGES; first += align) {
		size_t i = first;
		while (i < first + n && !used(i))
			i++;
		if (i == first + n)
			return first;
	}
	return GRAFT_AREA_PAGES;
}

static void unmap_pages(uintptr_t va, size_t npages)
{
	for (size_t i = 0; i < npages; i++) {
		uint64_t pa = arch_unmap_page(va + i * PAGE_SIZE);
		if (pa != UINT64_MAX)
			pmm_free(pa, 0);
	}
}

static void release_pages(size_t first, size_t npages)
{
	mutex_lock(&graft_mem_lock);
	mark(first, npages + GUARD_PAGES, false);
	pages_in_use -= npages;
	mutex_unlock(&graft_mem_lock);
}

uintptr_t graft_mem_alloc(size_t bytes)
{
	return graft_mem_alloc_aligned(bytes, PAGE_SIZE);
}

uintptr_t graft_mem_alloc_aligned(size_t bytes, size_t align)
{
	size_t npages = ALIGN_UP(bytes, PAGE_SIZE) / PAGE_SIZE;
	size_t align_pages = align > PAGE_SIZE ? align / PAGE_SIZE : 1;
	if (!npages || npages + GUARD_PAGES > GRAFT_AREA_PAGES)
		return 0;
	mutex_lock(&graft_mem_lock);
	size_t first = find_run(npages + GUARD_PAGES, align_pages);
	if (first == GRAFT_AREA_PAGES) {
		mutex_unlock(&graft_mem_lock);
		return 0;
	}
	mark(first, npages + GUARD_PAGES, true);
	pages_in_use += npages;
	mutex_unlock(&graft_mem_lock);

	uintptr_t va = GRAFT_AREA_BASE + first * PAGE_SIZE;
	for (size_t i = 0; i < npages; i++) {
		uint64_t pa = pmm_alloc(0);
		if (pa == PHYS_NONE || arch_map_page(va + i * PAGE_SIZE, pa, MAP_WRITE)) {
			if (pa != PHYS_NONE)
				pmm_free(pa, 0);
			unmap_pages(va, i);
			release_pages(first, npages);
			return 0;
		}
		memset((void *)(va + i * PAGE_SIZE), 0, PAGE_SIZE);
	}
	return va;
}

void graft_mem_protect(uintptr_t va, size_t bytes, unsigned map_flags)
{
	size_t npages = ALIGN_UP(bytes, PAGE_SIZE) / PAGE_SIZE;
	for (size_t i = 0; i < npages; i++) {
		uintptr_t page = va + i * PAGE_SIZE;
		uint64_t pa = arch_unmap_page(page);
		if (pa == UINT64_MAX || arch_map_page(page, pa, map_flags))
			panic("graft area: cannot remap page 0x%llx", (unsigned long long)page);
	}
}

void graft_mem_free(uintptr_t va, size_t bytes)
{
	size_t npages = ALIGN_UP(bytes, PAGE_SIZE) / PAGE_SIZE;
	if (!va || !npages)
		return;
	unmap_pages(va, npages);
	release_pages((va - GRAFT_AREA_BASE) / PAGE_SIZE, npages);
}

size_t graft_mem_pages_in_use(void)
{
	mutex_lock(&graft_mem_lock);
	size_t n = pages_in_use;
	mutex_unlock(&graft_mem_lock);
	return n;
}
