// SPDX-License-Identifier: BSD-2-Clause
/*
 * Large buffers (scion/mm.h, struct vbuf): virtually contiguous, built
 * of single pages, for buffers larger than the physical allocator's
 * biggest block, or too large to hope for one: a tracing session's
 * aggregation buffers (kernel/trace/aggbuf.c), which a user may size to
 * whatever memory allows.
 *
 * The area [VBUF_BASE, VBUF_BASE + VBUF_SIZE) is handed out in granules
 * of VBUF_GRANULE from a bitmap. A buffer takes one granule more than it
 * maps, so that an overrun faults instead of running into the next one.
 * It is given back in steps:
 *   1. unmap its pages (this CPU forgets them);
 *   2. make every CPU reload its page tables (a cross-call), so that no
 *      stale translation reaches the pages;
 *   3. free the pages (their addresses kept in the buffer's page list),
 *      then the granules.
 *
 * Lock order: vbuf_lock is a leaf, held only to take or return granules.
 */
#include <scion/mm.h>
#include <scion/errno.h>
#include <scion/spinlock.h>
#include <scion/xcall.h>
#include <scion/string.h>

#define VBUF_GRANULE   (1ull << 20)
#define VBUF_GRANULES  (VBUF_SIZE / VBUF_GRANULE)

_Static_assert(VBUF_BASE + VBUF_SIZE <= TEXT_ALIAS_BASE, "the large buffers overlap the text aliases");

static struct spinlock vbuf_lock = SPINLOCK_INIT("vbuf");
static uint64_t granule_used[VBUF_GRANULES / 64];	/* vbuf_lock */

static bool granule_taken(uint64_t g)
{
	return granule_used[g / 64] & (1ull << (g % 64));
}

/* Caller holds vbuf_lock. */
static void mark(uint64_t first, uint64_t n, bool taken)
{
	for (uint64_t g = first; g < first + n; g++) {
		if (taken)
			granule_used[g / 64] |= 1ull << (g % 64);
		else
			granule_used[g / 64] &= ~(1ull << (g % 64));
	}
}

static uint64_t granules_for(size_t size)
{
	return (size + VBUF_GRANULE - 1) / VBUF_GRANULE + 1;	/* one unmapped after it */
}

/* The first of n free granules in a row, now taken; UINT64_MAX when there is no such run. */
static uint64_t take_granules(uint64_t n)
{
	irqflags_t f = spin_lock_irqsave(&vbuf_lock);
	uint64_t run = 0, found = UINT64_MAX;
	for (uint64_t g = 0; g < VBUF_GRANULES && found == UINT64_MAX; g++) {
		run = granule_taken(g) ? 0 : run + 1;
		if (run == n) {
			found = g + 1 - n;
			mark(found, n, true);
		}
	}
	spin_unlock_irqrestore(&vbuf_lock, f);
	return found;
}

static void reload_page_tables(void *arg)
{
	(void)arg;
	arch_flush_tlb_local();
}

/* Steps 1 to 3 for b, whose first mapped pages are mapped. */
static void give_back(struct vbuf *b, size_t mapped)
{
	uintptr_t base = (uintptr_t)b->data;
	for (size_t i = 0; i < mapped; i++)
		(void)arch_unmap_page(base + i * PAGE_SIZE);
	xcall_all(reload_page_tables, NULL);
	for (size_t i = 0; i < mapped; i++)
		pmm_free(b->pages[i], 0);
	irqflags_t f = spin_lock_irqsave(&vbuf_lock);
	mark((base - VBUF_BASE) / VBUF_GRANULE, granules_for(b->size), false);
	spin_unlock_irqrestore(&vbuf_lock, f);
	kfree(b->pages);
	*b = (struct vbuf){ 0 };
}

int vbuf_alloc(struct vbuf *b, size_t size)
{
	*b = (struct vbuf){ 0 };
	size = (size + PAGE_SIZE - 1) & ~(size_t)(PAGE_SIZE - 1);
	if (size == 0 || size > VBUF_SIZE / 2)
		return -EINVAL;
	size_t npages = size / PAGE_SIZE;
	b->pages = kmalloc(npages * sizeof(*b->pages));
	if (!b->pages)
		return -ENOMEM;
	uint64_t first = take_granules(granules_for(size));
	if (first == UINT64_MAX) {
		kfree(b->pages);
		b->pages = NULL;
		return -ENOMEM;
	}
	b->data = (uint8_t *)(uintptr_t)(VBUF_BASE + first * VBUF_GRANULE);
	b->size = size;
	for (size_t i = 0; i < npages; i++) {
		uint64_t pa = pmm_alloc(0);
		if (pa == PHYS_NONE || arch_map_page((uintptr_t)b->data + i * PAGE_SIZE, pa,
						     MAP_WRITE)) {
			if (pa != PHYS_NONE)
				pmm_free(pa, 0);
			give_back(b, i);
			return -ENOMEM;
		}
		b->pages[i] = pa;
	}
	return 0;
}

void vbuf_free(struct vbuf *b)
{
	if (b->data)
		give_back(b, b->size / PAGE_SIZE);
}
