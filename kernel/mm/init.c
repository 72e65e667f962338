// SPDX-License-Identifier: BSD-2-Clause
/*
 * Memory set-up at boot, from the loader's memory map.
 *
 * Reserved: the first MiB (firmware data and the CPU start-up page), the
 * kernel image, the boot modules and the page descriptor array. Memory
 * below 4 GiB is handed to the allocator first, because only that much is
 * mapped until arch_mm_init installs the kernel's page tables; the rest
 * follows.
 */
#include <scion/mm.h>
#include <scion/boot.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <arch/init.h>
#include "mm_internal.h"

#define LOW_RESERVED_END (1ull << 20)
#define MAX_RESERVED (BOOT_MAX_MODULES + 4)

extern char __image_phys_start[], __image_reserved_end[];

static __initdata struct phys_range reserved[MAX_RESERVED];
static __initdata size_t nreserved;
static __initdata uint64_t add_limit_low, add_limit_high;

static __init void reserve(uint64_t start, uint64_t end)
{
	if (nreserved == MAX_RESERVED)
		panic("mm: too many reserved ranges");
	reserved[nreserved++] = (struct phys_range){ ALIGN_DOWN(start, PAGE_SIZE),
						     ALIGN_UP(end, PAGE_SIZE) };
}

static __init void add_clipped(uint64_t start, uint64_t end)
{
	start = MAX(start, add_limit_low);
	end = MIN(end, add_limit_high);
	if (start < end)
		pmm_add_free(start, end);
}

static __init void add_available(uint64_t low, uint64_t high)
{
	add_limit_low = low;
	add_limit_high = high;
	for (unsigned i = 0; i < boot_info.nmem; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];
		if (r->type == BOOT_MEM_AVAILABLE)
			phys_range_subtract(r->base, r->base + r->length, reserved, nreserved,
					    add_clipped);
	}
}

/* First place below the early limit where len bytes fit outside reserved ranges. */
static __init uint64_t find_early_space(uint64_t len)
{
	for (unsigned i = 0; i < boot_info.nmem; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];
		if (r->type != BOOT_MEM_AVAILABLE)
			continue;
		uint64_t start = ALIGN_UP(r->base, PAGE_SIZE);
		uint64_t end = MIN(r->base + r->length, ARCH_EARLY_PHYS_LIMIT);
		while (start + len <= end) {
			bool clash = false;
			for (size_t k = 0; k < nreserved; k++) {
				if (reserved[k].start < start + len && reserved[k].end > start) {
					start = ALIGN_UP(reserved[k].end, PAGE_SIZE);
					clash = true;
					break;
				}
			}
			if (!clash)
				return start;
		}
	}
	return PHYS_NONE;
}

__init void mm_init(void)
{
	uint64_t top = 0;

	for (unsigned i = 0; i < boot_info.nmem; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];
		if (r->type == BOOT_MEM_AVAILABLE && r->base + r->length > top)
			top = r->base + r->length;
	}
	if (top == 0)
		panic("mm: the boot memory map lists no available memory");

	reserve(0, LOW_RESERVED_END);
	/* The last byte's address: the end itself may lie past the image's mapping. */
	reserve((uintptr_t)__image_phys_start,
		virt_to_phys((const void *)((uintptr_t)__image_reserved_end - 1)) + 1);
	for (unsigned i = 0; i < boot_info.nmodules; i++)
		reserve(boot_info.modules[i].phys_start, boot_info.modules[i].phys_end);

	uint64_t npfn = top >> PAGE_SHIFT;
	size_t desc_bytes = ALIGN_UP(pmm_descriptor_bytes(npfn), PAGE_SIZE);
	uint64_t desc = find_early_space(desc_bytes);
	if (desc == PHYS_NONE)
		panic("mm: no room below 4 GiB for %zu bytes of page descriptors", desc_bytes);
	reserve(desc, desc + desc_bytes);
	memset(phys_to_virt(desc), 0, desc_bytes);
	pmm_init(phys_to_virt(desc), npfn);

	add_available(0, ARCH_EARLY_PHYS_LIMIT);
	arch_mm_init();
	add_available(ARCH_EARLY_PHYS_LIMIT, UINT64_MAX);
	kmalloc_init();

	struct pmm_stats s;
	pmm_get_stats(&s);
	printk("mm: %llu MiB managed, %llu MiB free, %zu KiB of page descriptors\n",
	       (unsigned long long)(s.managed_pages >> (20 - PAGE_SHIFT)),
	       (unsigned long long)(s.free_pages >> (20 - PAGE_SHIFT)), desc_bytes >> 10);
}
