/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sparc64 (sun4u) kernel address space and the arch interface to its
 * translations (arch/sparc64/mmu.c). Same contract as
 * arch/x86/include/arch/mmu.h; everything is context 0.
 *
 * Decision: sun4u has no hardware page-table walker, only TLBs the miss
 * handlers fill (arch/sparc64/trap_entry.S), so "page tables" are what
 * those handlers compute or look up:
 *   KERNEL_VIRT_BASE 0x40000000          the image: one locked 4 MB TTE
 *     PATCH_CODE_BASE  +3 MB              probe patches (768 KB), in the same
 *     PATCH_DATA_BASE  +3.75 MB           page's tail, and their counters (256 KB):
 *                                         within ba,a's +-8 MB of all the text,
 *                                         so a splice is one ba,a (kernel.ld
 *                                         keeps the image below them)
 *   KMAP_BASE        0x80000000          the kernel's 8 KB mappings: one
 *                                         flat array of TTEs (sparc64_kmap_ttes,
 *                                         in the image, so a miss never
 *                                         misses on it), looked up by the
 *                                         fast miss handler at any TL:
 *     MMIO_BASE         +0              device registers, uncached, side effects
 *     VMAP_BASE         +16 MB          thread stacks with guard pages (256 MB)
 *     VBUF_BASE         +272 MB         large buffers (kernel/mm/vbuf.c, 64 MB)
 *     GRAFT_AREA_BASE   +336 MB         loaded grafts (32 MB)
 *     TEXT_ALIAS_BASE   +368 MB         two pages: text_poke's writable alias
 *     PATCH_FAR_CODE_BASE +368 MB + 16 KB far probe patches (1 MB), 1.4 GB from
 *                                         the text: sites reach them through
 *                                         springboards (scion/probe_arch.h)
 * The window is below 4 GB, so that grafts built -mcmodel=medlow (absolute
 * addresses from sethi/or pairs) run there, and within a call's 2 GB of
 * the kernel text.
 *   DIRECT_MAP_BASE  0xfffff80000000000  all RAM, computed 4 MB TTEs (cacheable,
 *                                         writable) for PA < the RAM top the
 *                                         firmware reported; nothing beyond.
 * So the allocator gets every RAM page through the direct map from the
 * first instruction (ARCH_EARLY_PHYS_LIMIT covers the whole direct map),
 * and arch_map_page serves vmap (stacks), mmio_map and vbuf.
 * sun4u TTEs have no no-execute bit: MAP_EXEC is implied for every page.
 * No user address spaces yet: arch_as_create refuses (NULL), user_range_ok
 * accepts nothing.
 */
#ifndef ARCH_MMU_H
#define ARCH_MMU_H

#include <stdint.h>
#include <stddef.h>

#define PAGE_SHIFT        13
#define PAGE_SIZE         8192ull
#define KERNEL_VIRT_BASE  0x40000000ull
#define KERNEL_IMAGE_PHYS 0x400000ull
#define KERNEL_IMAGE_SIZE (4ull << 20)
#define DIRECT_MAP_BASE   0xfffff80000000000ull
#define DIRECT_MAP_LIMIT  (DIRECT_MAP_BASE + (4ull << 30))
#define KMAP_BASE_ADDR    0x80000000ull
#define MMIO_BASE         KMAP_BASE_ADDR
#define MMIO_LIMIT        (MMIO_BASE + (16ull << 20))
#define VMAP_BASE         MMIO_LIMIT
#define VMAP_LIMIT        (VMAP_BASE + (256ull << 20))
#define VBUF_BASE         VMAP_LIMIT
#define VBUF_SIZE         (64ull << 20)
#define GRAFT_AREA_BASE   (VBUF_BASE + VBUF_SIZE)
#define GRAFT_AREA_SIZE   (32ull << 20)
#define TEXT_ALIAS_BASE   (GRAFT_AREA_BASE + GRAFT_AREA_SIZE)
#define PATCH_FAR_CODE_BASE (TEXT_ALIAS_BASE + 2 * PAGE_SIZE)
#define PATCH_FAR_CODE_SIZE (1ull << 20)
#define KMAP_LIMIT_ADDR   (PATCH_FAR_CODE_BASE + PATCH_FAR_CODE_SIZE)

/* The probe patch heap (kernel/probe/patch_heap.c), in the image's 4 MB page. */
#define PATCH_CODE_BASE   (KERNEL_VIRT_BASE + 0x300000ull)
#define PATCH_CODE_SIZE   (768ull << 10)
#define PATCH_DATA_BASE   (PATCH_CODE_BASE + PATCH_CODE_SIZE)
#define PATCH_DATA_SIZE   (256ull << 10)

/* A call's reach (30-bit word displacement): the graft area is within it of the text. */
#define ARCH_CODE_REACH   (2ull << 30)

#define MAP_WRITE    0x1u
#define MAP_EXEC     0x2u
#define MAP_NOCACHE  0x4u
#define MAP_USER     0x8u

/* No user processes on sparc64 yet: an empty user range. */
#define USER_BASE    0x0000000000010000ull
#define USER_LIMIT   0x0000000000010000ull

static inline int user_range_ok(uintptr_t addr, size_t len)
{
	(void)addr;
	(void)len;
	return 0;
}

static inline void *phys_to_virt(uint64_t pa)
{
	return (void *)(uintptr_t)(DIRECT_MAP_BASE + pa);
}

/* Physical address of a direct-map or image address; others: arch_translate. */
static inline uint64_t virt_to_phys(const void *va)
{
	uintptr_t v = (uintptr_t)va;
	if (v >= KERNEL_VIRT_BASE && v < KERNEL_VIRT_BASE + KERNEL_IMAGE_SIZE)
		return v - KERNEL_VIRT_BASE + KERNEL_IMAGE_PHYS;
	return v - DIRECT_MAP_BASE;
}

/* Clear or copy one 8 KB page, 8 bytes at a time. */
static inline void arch_page_zero(void *page)
{
	uint64_t *d = page;
	for (size_t i = 0; i < PAGE_SIZE / 8; i++)
		d[i] = 0;
}

static inline void arch_page_copy(void *dst, const void *src)
{
	uint64_t *d = dst;
	const uint64_t *s = src;
	for (size_t i = 0; i < PAGE_SIZE / 8; i++)
		d[i] = s[i];
}

/*
 * The contract's functions are in scion/mmu_arch.h. Here: arch_map_page
 * serves the kmap window [KMAP_BASE_ADDR, KMAP_LIMIT_ADDR) only, and
 * MAP_NOCACHE maps uncached with side effects and little-endian (TTE.IE),
 * so PCI registers read as on x86; arch_unmap_page demaps its page at once
 * and a miss never installs an invalid TTE, so arch_flush_tlb_local has
 * nothing to do; arch_translate knows the image, the direct map within RAM
 * and the kmap TTEs; no user address spaces yet (arch_as_create refuses).
 */
#include <scion/mmu_arch.h>

#endif
