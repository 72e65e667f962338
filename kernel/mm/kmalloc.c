// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel heap: power-of-two size classes from 16 to 2048 bytes kept
 * in one-page slabs, and whole page blocks for anything larger.
 *
 * A slab page's struct page records its class, its free count and its
 * free list, which threads through the free objects themselves. Each free
 * object carries FREE_MAGIC in its second word, so freeing an object
 * twice is caught (and confirmed against the free list before panicking).
 *
 * Each class has a lock guarding its partial list and its slabs' free
 * lists; class locks are taken before pmm_lock.
 */
#include <scion/mm.h>
#include <scion/spinlock.h>
#include <scion/printk.h>
#include <scion/string.h>
#include "mm_internal.h"

#define MIN_SHIFT   4
#define MAX_SHIFT   11
#define NCLASSES    (MAX_SHIFT - MIN_SHIFT + 1)
#define FREE_MAGIC  0x5c10f4eef4eef4eeull
#define LARGE_MARK  0xfe	/* slab_class of a page block from kmalloc */

struct size_class {
	struct spinlock lock;
	struct list_node partial;	/* lock: slab pages with free objects */
	size_t size;
	uint64_t allocs, frees;		/* lock */
	uint64_t slabs;			/* lock */
	uint64_t in_use;		/* lock: objects */
};

struct free_object {
	struct free_object *next;
	uint64_t magic;
};

static struct size_class classes[NCLASSES];
static struct spinlock large_lock = SPINLOCK_INIT("kmalloc-large");
static uint64_t large_allocs, large_frees, large_pages;	/* large_lock */
static bool initialized;

void kmalloc_init(void)
{
	for (unsigned i = 0; i < NCLASSES; i++) {
		spin_init(&classes[i].lock, "kmalloc-class");
		list_init(&classes[i].partial);
		classes[i].size = (size_t)1 << (i + MIN_SHIFT);
	}
	initialized = true;
}

static unsigned class_of(size_t size)
{
	unsigned shift = MIN_SHIFT;
	while (((size_t)1 << shift) < size)
		shift++;
	return shift - MIN_SHIFT;
}

static unsigned order_of(size_t size)
{
	unsigned order = 0;
	while ((PAGE_SIZE << order) < size)
		order++;
	return order;
}

static void *alloc_large(size_t size)
{
	/* Beyond the largest block order_of would shift past 64 bits and never end. */
	if (size > (PAGE_SIZE << PMM_MAX_ORDER))
		return NULL;
	unsigned order = order_of(size);
	uint64_t pa = pmm_alloc(order);
	if (pa == PHYS_NONE)
		return NULL;
	pmm_page(pa)->slab_class = LARGE_MARK;
	irqflags_t f = spin_lock_irqsave(&large_lock);
	large_allocs++;
	large_pages += 1ull << order;
	spin_unlock_irqrestore(&large_lock, f);
	return phys_to_virt(pa);
}

/* Carve a fresh page into objects. Called without the class lock. */
static struct page *new_slab(unsigned cls)
{
	uint64_t pa = pmm_alloc(0);
	if (pa == PHYS_NONE)
		return NULL;
	struct page *pg = pmm_page(pa);
	size_t size = classes[cls].size;
	char *base = phys_to_virt(pa);
	struct free_object *head = NULL;

	for (size_t off = PAGE_SIZE; off >= size; off -= size) {
		struct free_object *o = (struct free_object *)(base + off - size);
		o->next = head;
		o->magic = FREE_MAGIC;
		head = o;
	}
	pg->kind = PAGE_SLAB;
	pg->slab_class = (uint8_t)cls;
	pg->slab_free = (uint16_t)(PAGE_SIZE / size);
	pg->slab_freelist = head;
	return pg;
}

void *kmalloc(size_t size)
{
	if (size == 0)
		size = 1;
	if (size > ((size_t)1 << MAX_SHIFT))
		return alloc_large(size);

	unsigned cls = class_of(size);
	struct size_class *c = &classes[cls];
	irqflags_t f = spin_lock_irqsave(&c->lock);
	if (list_empty(&c->partial)) {
		spin_unlock_irqrestore(&c->lock, f);
		struct page *pg = new_slab(cls);
		if (!pg)
			return NULL;
		f = spin_lock_irqsave(&c->lock);
		list_add_head(&c->partial, &pg->node);
		c->slabs++;
	}
	struct page *pg = list_entry(c->partial.next, struct page, node);
	struct free_object *o = pg->slab_freelist;
	pg->slab_freelist = o->next;
	if (--pg->slab_free == 0)
		list_remove(&pg->node);
	c->allocs++;
	c->in_use++;
	spin_unlock_irqrestore(&c->lock, f);
	o->magic = 0;
	return o;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);
	if (p)
		memset(p, 0, size);
	return p;
}

static bool on_freelist(const struct page *pg, const void *obj)
{
	for (const struct free_object *o = pg->slab_freelist; o; o = o->next)
		if (o == obj)
			return true;
	return false;
}

void kfree(void *p)
{
	if (!p)
		return;
	uintptr_t va = (uintptr_t)p;
	if (va < DIRECT_MAP_BASE || va >= DIRECT_MAP_LIMIT)
		panic("kfree(%p): not a heap address", p);
	uint64_t pa = virt_to_phys(p);
	struct page *pg = pmm_page(pa);
	if (!pg)
		panic("kfree(%p): not a heap address", p);

	if (pg->kind == PAGE_ALLOCATED && pg->slab_class == LARGE_MARK && !(pa & (PAGE_SIZE - 1))) {
		unsigned order = pg->order;
		pg->slab_class = 0;
		irqflags_t f = spin_lock_irqsave(&large_lock);
		large_frees++;
		large_pages -= 1ull << order;
		spin_unlock_irqrestore(&large_lock, f);
		pmm_free(pa, order);
		return;
	}
	if (pg->kind != PAGE_SLAB)
		panic("kfree(%p): not memory from kmalloc", p);

	struct size_class *c = &classes[pg->slab_class];
	if ((pa & (PAGE_SIZE - 1)) % c->size)
		panic("kfree(%p): not the start of a %zu-byte object", p, c->size);
	struct free_object *o = p;
	irqflags_t f = spin_lock_irqsave(&c->lock);
	if (o->magic == FREE_MAGIC && on_freelist(pg, o))
		panic("kfree(%p): double free of a %zu-byte object", p, c->size);
	o->magic = FREE_MAGIC;
	o->next = pg->slab_freelist;
	pg->slab_freelist = o;
	c->frees++;
	c->in_use--;
	bool release = false;
	if (pg->slab_free++ == 0) {
		list_add_head(&c->partial, &pg->node);
	} else if (pg->slab_free == PAGE_SIZE / c->size && c->partial.next != c->partial.prev) {
		/* Completely free and not the class's only partial slab: give it back. */
		list_remove(&pg->node);
		c->slabs--;
		release = true;
	}
	spin_unlock_irqrestore(&c->lock, f);
	if (release)
		pmm_free(pa & ~(PAGE_SIZE - 1), 0);
}

void kmalloc_get_stats(struct kmalloc_stats *s)
{
	*s = (struct kmalloc_stats){ 0 };
	for (unsigned i = 0; i < NCLASSES && initialized; i++) {
		struct size_class *c = &classes[i];
		irqflags_t f = spin_lock_irqsave(&c->lock);
		s->allocs += c->allocs;
		s->frees += c->frees;
		s->bytes_in_use += c->in_use * c->size;
		s->slab_pages += c->slabs;
		spin_unlock_irqrestore(&c->lock, f);
	}
	irqflags_t f = spin_lock_irqsave(&large_lock);
	s->allocs += large_allocs;
	s->frees += large_frees;
	s->large_pages = large_pages;
	s->bytes_in_use += large_pages * PAGE_SIZE;
	spin_unlock_irqrestore(&large_lock, f);
}
