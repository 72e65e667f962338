// SPDX-License-Identifier: BSD-2-Clause
/*
 * The physical page allocator: a binary buddy system over page frames.
 *
 * Every frame has a struct page. A free block of 2^order frames is on
 * free_lists[order] through its first frame (kind PAGE_FREE, order set);
 * the frames after it are PAGE_FREE_TAIL. Allocated blocks are marked
 * the same way with PAGE_ALLOCATED(_TAIL), so freeing checks that the
 * caller returns exactly a block it got: anything else is a kernel bug
 * and panics, before it can corrupt the lists.
 *
 * All state is guarded by pmm_lock (taken with interrupts masked).
 */
#include <scion/mm.h>
#include <scion/spinlock.h>
#include <scion/printk.h>
#include <scion/string.h>

static struct page *pages;			/* pmm_lock (descriptor contents) */
static uint64_t max_pfn;			/* set once */
static struct list_node free_lists[PMM_MAX_ORDER + 1];	/* pmm_lock */
static uint64_t free_blocks[PMM_MAX_ORDER + 1];	/* pmm_lock */
static uint64_t managed_pages, free_pages;	/* pmm_lock */
static struct spinlock pmm_lock = SPINLOCK_INIT("pmm");

size_t pmm_descriptor_bytes(uint64_t npfn)
{
	return (size_t)npfn * sizeof(struct page);
}

void pmm_init(struct page *descriptors, uint64_t npfn)
{
	pages = descriptors;
	max_pfn = npfn;
	managed_pages = free_pages = 0;
	for (unsigned o = 0; o <= PMM_MAX_ORDER; o++) {
		list_init(&free_lists[o]);
		free_blocks[o] = 0;
	}
	for (uint64_t i = 0; i < npfn; i++)
		list_init(&pages[i].node);
}

static void mark_block(uint64_t pfn, unsigned order, enum page_kind head, enum page_kind tail)
{
	pages[pfn].kind = (uint8_t)head;
	pages[pfn].order = (uint8_t)order;
	for (uint64_t i = 1; i < (1ull << order); i++) {
		pages[pfn + i].kind = (uint8_t)tail;
		pages[pfn + i].order = 0;
	}
}

static void push_free(uint64_t pfn, unsigned order)
{
	mark_block(pfn, order, PAGE_FREE, PAGE_FREE_TAIL);
	list_add_head(&free_lists[order], &pages[pfn].node);
	free_blocks[order]++;
}

static void pop_free(uint64_t pfn, unsigned order)
{
	list_remove(&pages[pfn].node);
	free_blocks[order]--;
}

/* Insert a block, merging it with its free buddies. pmm_lock held. */
static void free_block(uint64_t pfn, unsigned order)
{
	while (order < PMM_MAX_ORDER) {
		uint64_t buddy = pfn ^ (1ull << order);
		if (buddy >= max_pfn || pages[buddy].kind != PAGE_FREE || pages[buddy].order != order)
			break;
		pop_free(buddy, order);
		/* The buddy's head becomes a tail of the merged block. */
		pages[buddy].kind = PAGE_FREE_TAIL;
		pfn &= ~(1ull << order);
		order++;
	}
	push_free(pfn, order);
}

void pmm_add_free(uint64_t phys_start, uint64_t phys_end)
{
	/* Round the start up without ALIGN_UP, which wraps to 0 in the top page. */
	uint64_t pfn = (phys_start >> PAGE_SHIFT) + !!(phys_start & (PAGE_SIZE - 1));
	uint64_t end = phys_end >> PAGE_SHIFT;

	if (end > max_pfn)
		end = max_pfn;
	irqflags_t f = spin_lock_irqsave(&pmm_lock);
	while (pfn < end) {
		unsigned order = 0;
		while (order < PMM_MAX_ORDER && !(pfn & ((2ull << order) - 1)) &&
		       pfn + (2ull << order) <= end)
			order++;
		for (uint64_t i = 0; i < (1ull << order); i++)
			if (pages[pfn + i].kind != PAGE_RESERVED)
				panic("pmm: frame 0x%llx handed to the allocator twice",
				      (unsigned long long)(pfn + i));
		managed_pages += 1ull << order;
		free_pages += 1ull << order;
		free_block(pfn, order);
		pfn += 1ull << order;
	}
	spin_unlock_irqrestore(&pmm_lock, f);
}

uint64_t pmm_alloc(unsigned order)
{
	if (order > PMM_MAX_ORDER)
		return PHYS_NONE;
	irqflags_t f = spin_lock_irqsave(&pmm_lock);
	unsigned o = order;
	while (o <= PMM_MAX_ORDER && list_empty(&free_lists[o]))
		o++;
	if (o > PMM_MAX_ORDER) {
		spin_unlock_irqrestore(&pmm_lock, f);
		return PHYS_NONE;
	}
	struct page *head = list_entry(free_lists[o].next, struct page, node);
	uint64_t pfn = (uint64_t)(head - pages);
	pop_free(pfn, o);
	while (o > order) {
		o--;
		push_free(pfn + (1ull << o), o);
	}
	mark_block(pfn, order, PAGE_ALLOCATED, PAGE_ALLOCATED_TAIL);
	pages[pfn].slab_class = 0;
	free_pages -= 1ull << order;
	spin_unlock_irqrestore(&pmm_lock, f);
	return pfn << PAGE_SHIFT;
}

void pmm_free(uint64_t phys, unsigned order)
{
	uint64_t pfn = phys >> PAGE_SHIFT;

	if ((phys & (PAGE_SIZE - 1)) || pfn >= max_pfn || order > PMM_MAX_ORDER)
		panic("pmm_free(0x%llx, %u): not a page this allocator manages",
		      (unsigned long long)phys, order);
	irqflags_t f = spin_lock_irqsave(&pmm_lock);
	struct page *p = &pages[pfn];
	if (p->kind == PAGE_FREE || p->kind == PAGE_FREE_TAIL)
		panic("pmm_free(0x%llx, %u): double free", (unsigned long long)phys, order);
	if ((p->kind != PAGE_ALLOCATED && p->kind != PAGE_SLAB) || p->order != order)
		panic("pmm_free(0x%llx, %u): not the start of an allocated block of that order",
		      (unsigned long long)phys, order);
	free_pages += 1ull << order;
	free_block(pfn, order);
	spin_unlock_irqrestore(&pmm_lock, f);
}

struct page *pmm_page(uint64_t phys)
{
	uint64_t pfn = phys >> PAGE_SHIFT;
	return pfn < max_pfn ? &pages[pfn] : NULL;
}

void pmm_get_stats(struct pmm_stats *s)
{
	irqflags_t f = spin_lock_irqsave(&pmm_lock);
	s->managed_pages = managed_pages;
	s->free_pages = free_pages;
	s->max_pfn = max_pfn;
	for (unsigned o = 0; o <= PMM_MAX_ORDER; o++)
		s->free_blocks[o] = free_blocks[o];
	spin_unlock_irqrestore(&pmm_lock, f);
}
