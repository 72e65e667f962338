// SPDX-License-Identifier: BSD-2-Clause
/*
 * User address spaces (arch/mmu.h): a top-level table whose kernel half
 * is a copy of the kernel's slots (their tables exist from boot on and
 * are shared) and whose user half holds the space's own tables, which
 * carry PTE_USER so that ring 3 reaches what they map.
 *
 * Only the thread running in a space, or the one making or tearing it
 * down while no thread runs in it, changes it (arch/mmu.h), so its
 * tables need no lock; the invlpg after a change is for the CPU it is
 * live on, which is this one. Tables are freed only by arch_as_destroy.
 */
#include <scion/mm.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/cpu.h>
#include <arch/mmu.h>
#include <arch/x86.h>
#include "pte.h"

#define USER_TABLE (PTE_PRESENT | PTE_WRITE | PTE_USER)

struct arch_as {
	uint64_t *pml4;
	size_t table_pages;	/* tables of the user half, the top one included */
};

struct arch_as *arch_as_create(void)
{
	struct arch_as *as = kzalloc(sizeof(*as));
	if (!as)
		return NULL;
	as->pml4 = pt_alloc_table();
	if (!as->pml4) {
		kfree(as);
		return NULL;
	}
	const uint64_t *kernel = mmu_kernel_pml4();
	for (unsigned i = PML4_KERNEL_FIRST; i < PT_ENTRIES; i++)
		as->pml4[i] = kernel[i];
	as->table_pages = 1;
	return as;
}

size_t arch_as_table_pages(const struct arch_as *as)
{
	return as->table_pages;
}

/*
 * Visit the PTEs of [start, end) in as, level by level, skipping
 * absent tables. visit gets the PTE's address and its va; returning
 * nonzero stops the walk. When free_tables is set, each table below the
 * top is freed after its subtree is visited (teardown); with visit NULL
 * as well, the caller has unmapped every page already, so the last
 * level's tables are freed without looking into them. Only the entries
 * that [start, end) covers are looked at, at every level.
 */
struct pte_visit {
	int (*visit)(uint64_t *pte, uintptr_t va, void *arg);
	void *arg;
	bool free_tables;
	struct arch_as *as;
};

static int visit_table(struct pte_visit *v, uint64_t *table, int level, uintptr_t base,
		       uintptr_t start, uintptr_t end)
{
	uintptr_t span = 1ull << (12 + 9 * level);
	unsigned first = start > base ? (unsigned)((start - base) / span) : 0;
	unsigned last = (end - 1 - base) / span < PT_ENTRIES - 1 ? (unsigned)((end - 1 - base) / span) :
		       PT_ENTRIES - 1;
	for (unsigned i = first; i <= last; i++) {
		uintptr_t va = base + i * span;
		uint64_t *e = &table[i];
		if (!(*e & PTE_PRESENT))
			continue;
		int r = 0;
		if (level == 0) {
			r = v->visit(e, va, v->arg);
		} else {
			uint64_t *next = phys_to_virt(*e & PTE_ADDR);
			if (level > 1 || v->visit)
				r = visit_table(v, next, level - 1, va, start, end);
			if (v->free_tables) {
				pmm_free(*e & PTE_ADDR, 0);
				*e = 0;
				v->as->table_pages--;
			}
		}
		if (r)
			return r;
	}
	return 0;
}

static int visit_user(struct arch_as *as, uintptr_t start, uintptr_t end, bool free_tables,
		      int (*visit)(uint64_t *pte, uintptr_t va, void *arg), void *arg)
{
	if (start < USER_BASE)
		start = USER_BASE;
	if (end > USER_LIMIT)
		end = USER_LIMIT;
	if (start >= end)
		return 0;
	struct pte_visit v = { visit, arg, free_tables, as };
	return visit_table(&v, as->pml4, 3, 0, start, end);
}

static bool is_live_here(const struct arch_as *as)
{
	return this_cpu()->arch.active_as == as;
}

struct unmap_ctx {
	struct arch_as *as;
	void (*release)(uint64_t pa, void *arg);
	void *arg;
	size_t count;
};

static int unmap_one(uint64_t *pte, uintptr_t va, void *arg)
{
	struct unmap_ctx *u = arg;
	uint64_t pa = *pte & PTE_ADDR;
	*pte = 0;
	if (is_live_here(u->as))
		invlpg(va);
	if (u->release)
		u->release(pa, u->arg);
	u->count++;
	return 0;
}

void arch_as_destroy(struct arch_as *as, void (*release)(uint64_t pa, void *arg), void *arg)
{
	if (!as)
		return;
	struct unmap_ctx u = { as, release, arg, 0 };
	visit_user(as, USER_BASE, USER_LIMIT, true, release ? unmap_one : NULL, &u);
	pmm_free(virt_to_phys(as->pml4), 0);
	kfree(as);
}

/* The PTE for va, making the tables on the way when create is set. */
static uint64_t *user_walk(struct arch_as *as, uintptr_t va, bool create)
{
	return pt_walk(as->pml4, va, 0, create, USER_TABLE, &as->table_pages);
}

int arch_as_map(struct arch_as *as, uintptr_t va, uint64_t pa, unsigned flags)
{
	if ((va & (PAGE_SIZE - 1)) || va < USER_BASE || va >= USER_LIMIT)
		return -EINVAL;
	uint64_t *e = user_walk(as, va, true);
	if (!e)
		return -ENOMEM;
	if (*e & PTE_PRESENT)
		return -EEXIST;
	*e = (pa & PTE_ADDR) | pt_flags(flags | MAP_USER);
	return 0;
}

size_t arch_as_unmap_range(struct arch_as *as, uintptr_t start, uintptr_t end,
			   void (*release)(uint64_t pa, void *arg), void *arg)
{
	struct unmap_ctx u = { as, release, arg, 0 };
	visit_user(as, start, end, false, unmap_one, &u);
	return u.count;
}

struct protect_ctx {
	struct arch_as *as;
	unsigned flags;
	size_t count;
};

static int protect_one(uint64_t *pte, uintptr_t va, void *arg)
{
	struct protect_ctx *p = arg;
	*pte = (*pte & PTE_ADDR) | pt_flags(p->flags | MAP_USER);
	if (is_live_here(p->as))
		invlpg(va);
	p->count++;
	return 0;
}

size_t arch_as_protect_range(struct arch_as *as, uintptr_t start, uintptr_t end, unsigned flags)
{
	struct protect_ctx p = { as, flags & (MAP_WRITE | MAP_EXEC), 0 };
	visit_user(as, start, end, false, protect_one, &p);
	return p.count;
}

struct walk_ctx {
	int (*fn)(uintptr_t va, uint64_t pa, unsigned flags, void *arg);
	void *arg;
};

static int walk_one(uint64_t *pte, uintptr_t va, void *arg)
{
	struct walk_ctx *w = arg;
	return w->fn(va, *pte & PTE_ADDR, pt_map_flags(*pte), w->arg);
}

int arch_as_walk(struct arch_as *as, uintptr_t start, uintptr_t end,
		 int (*fn)(uintptr_t va, uint64_t pa, unsigned flags, void *arg), void *arg)
{
	struct walk_ctx w = { fn, arg };
	return visit_user(as, start, end, false, walk_one, &w);
}

uint64_t arch_as_translate(struct arch_as *as, uintptr_t va, unsigned *flags)
{
	if (!user_range_ok(va, 1))
		return UINT64_MAX;
	uint64_t *e = user_walk(as, va, false);
	if (!e || !(*e & PTE_PRESENT))
		return UINT64_MAX;
	if (flags)
		*flags = pt_map_flags(*e);
	return (*e & PTE_ADDR) | (va & (PAGE_SIZE - 1));
}

void arch_as_activate(struct arch_as *as)
{
	struct cpu *c = this_cpu();
	if (c->arch.active_as == as)
		return;
	c->arch.active_as = as;
	write_cr3(virt_to_phys(as ? as->pml4 : mmu_kernel_pml4()));
}
