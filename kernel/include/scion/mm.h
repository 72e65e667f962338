/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Memory: the physical page allocator (buddy, kernel/mm/pmm.c), the
 * kernel heap (kernel/mm/kmalloc.c) and mapped areas with guard pages
 * (kernel/mm/vmap.c).
 *
 * Lock order: kmalloc class locks -> pmm_lock; vmap_lock -> pmm_lock.
 */
#ifndef SCION_MM_H
#define SCION_MM_H

#include <scion/compiler.h>
#include <scion/list.h>
#include <arch/mmu.h>

#define PMM_MAX_ORDER 10	/* largest block: 2^10 pages = 4 MiB */
#define PHYS_NONE UINT64_MAX

enum page_kind {
	PAGE_RESERVED = 0,	/* not managed: firmware, kernel image, holes */
	PAGE_FREE,		/* head of a free block of 2^order pages */
	PAGE_FREE_TAIL,		/* inside a free block */
	PAGE_ALLOCATED,		/* head of an allocated block of 2^order pages */
	PAGE_ALLOCATED_TAIL,
	PAGE_SLAB,		/* a kmalloc slab page */
};

/* One descriptor per physical page frame. */
struct page {
	uint8_t kind;			/* pmm_lock (slab fields: class lock) */
	uint8_t order;			/* pmm_lock */
	uint8_t slab_class;		/* class lock */
	uint16_t slab_free;		/* class lock: free objects */
	uint16_t map_count;		/* atomic: user address spaces mapping it
					   (kernel/proc/vm.c: copy-on-write after fork) */
	void *slab_freelist;		/* class lock */
	struct list_node node;		/* pmm_lock: free list; class lock: partial list */
};

struct pmm_stats {
	uint64_t managed_pages;		/* pages handed to the allocator */
	uint64_t free_pages;
	uint64_t free_blocks[PMM_MAX_ORDER + 1];
	uint64_t max_pfn;
};

/*
 * pmm_init - start the allocator for frames 0 .. max_pfn - 1, with the
 * descriptor array at pages (max_pfn entries, zeroed by the caller).
 * Every frame starts reserved; pmm_add_free hands ranges over.
 */
void pmm_init(struct page *pages, uint64_t max_pfn);
void pmm_add_free(uint64_t phys_start, uint64_t phys_end);
/* Bytes of descriptors pmm_init needs for max_pfn frames. */
size_t pmm_descriptor_bytes(uint64_t max_pfn);

/*
 * pmm_alloc - a block of 2^order contiguous pages.
 * Return value: its physical address, or PHYS_NONE when none is free.
 * Caller's context: any; takes pmm_lock.
 */
uint64_t pmm_alloc(unsigned order);

/* Return a block from pmm_alloc with the same order. Panics on misuse. */
void pmm_free(uint64_t phys, unsigned order);

struct page *pmm_page(uint64_t phys);
void pmm_get_stats(struct pmm_stats *s);

/*
 * kmalloc - at least size bytes, 16-byte aligned (page aligned from
 * 4 KiB up). Return value: the memory, or NULL. Caller's context: any,
 * not holding pmm_lock.
 */
void *kmalloc(size_t size);
void *kzalloc(size_t size);
/* Release memory from kmalloc; NULL is ignored; a double free panics. */
void kfree(void *p);

struct kmalloc_stats {
	uint64_t allocs, frees;
	uint64_t bytes_in_use;		/* by size class, rounded up */
	uint64_t slab_pages, large_pages;
};
void kmalloc_get_stats(struct kmalloc_stats *s);

/*
 * vmap_stack_alloc - a kernel stack of size bytes (a multiple of the page
 * size) with an unmapped guard page below it, so that an overflow faults
 * instead of corrupting memory.
 * Return value: the lowest usable address, or 0.
 * Caller's context: thread or boot, may not be called with spinlocks held.
 */
uintptr_t vmap_stack_alloc(size_t size);
void vmap_stack_free(uintptr_t base, size_t size);
/* True when addr lies in a guard page of the stack area. */
bool vmap_is_guard(uintptr_t addr);

/*
 * A large buffer (kernel/mm/vbuf.c): size bytes at data, virtually
 * contiguous, of single pages (pages[], their physical addresses).
 */
struct vbuf {
	uint8_t *data;
	size_t size;
	uint64_t *pages;
};

/*
 * vbuf_alloc - Overview: map size bytes (rounded up to pages) of fresh
 *   pages, contiguous in the kernel's large-buffer area, with an unmapped
 *   gap after them. Their contents are not cleared.
 * Return value: 0, or -ENOMEM (no memory or no room in the area) or
 *   -EINVAL (size 0, or more than the area can hold), with *b empty.
 * Caller's context: thread, no spinlocks held (allocates, maps).
 */
int vbuf_alloc(struct vbuf *b, size_t size);

/*
 * vbuf_free - Overview: unmap b, make every CPU drop its translations of
 *   it (a cross-call), then free its pages; b is empty afterwards (freeing
 *   an empty buffer does nothing). Caller's context: thread, no spinlocks
 *   held; nothing uses b any more.
 */
void vbuf_free(struct vbuf *b);

/*
 * mmio_map - map device registers uncached.
 * Return value: the virtual address of phys, or NULL.
 */
void *mmio_map(uint64_t phys, size_t len);

/* Set up every allocator from the boot memory map. */
void mm_init(void);

#endif
