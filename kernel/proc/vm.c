// SPDX-License-Identifier: BSD-2-Clause
/*
 * A process's memory map: a sorted array of areas (the program image,
 * the heap, anonymous mappings, the stack) over an arch address space.
 * Pages are given on first touch (demand paging, proc_page_fault) and
 * counted against PROC_PAGE_LIMIT. fork shares every page with the child
 * (copy-on-write): a page's map_count (struct page) counts the address
 * spaces that map it, a shared page is mapped read-only even where its
 * area is writable, and the first write to it from either side takes a
 * copy (or, when the other side has let go meanwhile, the page itself).
 * Unmapping a page puts it; the last put frees it.
 *
 * Only the process's own thread changes its map, or the thread making
 * it before it runs (proc_internal.h): no lock.
 */
#include <scion/mm.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/cpu.h>
#include <scion/printk.h>
#include "proc_internal.h"

int vm_init(struct vm *vm)
{
	memset(vm, 0, sizeof(*vm));
	vm->as = arch_as_create();
	return vm->as ? 0 : -ENOMEM;
}

/* Drop one address space's hold on the user page at pa; free it at the last. */
static void page_put(uint64_t pa)
{
	struct page *pg = pmm_page(pa);
	if (__atomic_sub_fetch(&pg->map_count, 1, __ATOMIC_ACQ_REL) == 0)
		pmm_free(pa, 0);
}

static void page_get(uint64_t pa)
{
	__atomic_fetch_add(&pmm_page(pa)->map_count, 1, __ATOMIC_RELAXED);
}

static bool page_shared(uint64_t pa)
{
	return __atomic_load_n(&pmm_page(pa)->map_count, __ATOMIC_ACQUIRE) > 1;
}

void vm_page_release(uint64_t pa, void *arg)
{
	struct vm *vm = arg;
	page_put(pa);
	if (vm)
		WRITE_ONCE(vm->pages, vm->pages - 1);
}

void vm_destroy(struct vm *vm)
{
	if (!vm->as)
		return;
	/* Every page lies in an area: unmapping the areas, the tables hold nothing more. */
	for (unsigned i = 0; i < vm->nareas; i++)
		arch_as_unmap_range(vm->as, vm->areas[i].start, vm->areas[i].end, vm_page_release, vm);
	arch_as_destroy(vm->as, NULL, NULL);
	vm->as = NULL;
	vm->nareas = 0;
}

struct vm_area *vm_find(struct vm *vm, uintptr_t addr)
{
	for (unsigned i = 0; i < vm->nareas; i++)
		if (addr >= vm->areas[i].start && addr < vm->areas[i].end)
			return &vm->areas[i];
	return NULL;
}

static bool overlaps_any(struct vm *vm, uintptr_t start, uintptr_t end)
{
	for (unsigned i = 0; i < vm->nareas; i++)
		if (start < vm->areas[i].end && vm->areas[i].start < end)
			return true;
	return false;
}

/* Insert an area; the caller has made sure nothing overlaps it. */
static int insert_area(struct vm *vm, struct vm_area a)
{
	if (vm->nareas == VM_MAX_AREAS)
		return -ENOMEM;
	unsigned i = 0;
	while (i < vm->nareas && vm->areas[i].start < a.start)
		i++;
	memmove(&vm->areas[i + 1], &vm->areas[i], (vm->nareas - i) * sizeof(a));
	vm->areas[i] = a;
	vm->nareas++;
	return 0;
}

int vm_add_area(struct vm *vm, uintptr_t start, uintptr_t end, unsigned prot, enum vm_kind kind)
{
	if (start >= end || (start | end) & (PAGE_SIZE - 1) || !user_range_ok(start, end - start))
		return -EINVAL;
	if (overlaps_any(vm, start, end))
		return -EEXIST;
	/*
	 * Grow a neighbour of the same kind and rights instead of adding one
	 * (mmap hands out addresses downwards, so the neighbour is as often
	 * above as below); when the new range joins two, they become one.
	 */
	struct vm_area *below = NULL, *above = NULL;
	for (unsigned i = 0; i < vm->nareas; i++) {
		struct vm_area *n = &vm->areas[i];
		if (n->kind != kind || n->prot != prot)
			continue;
		if (n->end == start)
			below = n;
		else if (n->start == end)
			above = n;
	}
	if (below && above) {
		below->end = above->end;
		unsigned k = (unsigned)(above - vm->areas);
		memmove(above, above + 1, (vm->nareas - k - 1) * sizeof(*above));
		vm->nareas--;
		return 0;
	}
	if (below || above) {
		if (below)
			below->end = end;
		else
			above->start = start;
		return 0;
	}
	return insert_area(vm, (struct vm_area){ start, end, prot, kind });
}

/*
 * Remove [start, end) from the map: areas inside it go, areas across
 * its ends are trimmed or split, and the pages in it are freed.
 */
int vm_remove_range(struct vm *vm, uintptr_t start, uintptr_t end)
{
	for (unsigned i = 0; i < vm->nareas; i++) {
		struct vm_area *a = &vm->areas[i];
		if (a->end <= start || a->start >= end)
			continue;
		if (a->start < start && a->end > end) {
			struct vm_area tail = { end, a->end, a->prot, a->kind };
			if (vm->nareas == VM_MAX_AREAS)
				return -ENOMEM;
			a->end = start;
			insert_area(vm, tail);
			break;
		}
		if (a->start < start) {
			a->end = start;
		} else if (a->end > end) {
			a->start = end;
		} else {
			memmove(a, a + 1, (vm->nareas - i - 1) * sizeof(*a));
			vm->nareas--;
			i--;
		}
	}
	arch_as_unmap_range(vm->as, start, end, vm_page_release, vm);
	return 0;
}

/*
 * A free range of len bytes for mmap, the highest below MMAP_TOP (top
 * down, as Linux lays them out), above the room the heap may grow into.
 * Return value: its start, or 0 when there is none.
 */
uintptr_t vm_find_gap(struct vm *vm, size_t len)
{
	uintptr_t lowest = vm->brk_start ? vm->brk_start + BRK_ROOM : USER_BASE;
	uintptr_t top = MMAP_TOP;

	if (!len || len > MMAP_TOP)
		return 0;
	for (int i = (int)vm->nareas - 1; i >= -1; i--) {
		uintptr_t floor = i >= 0 ? vm->areas[i].end : lowest;
		if (floor < lowest)
			floor = lowest;
		if (i >= 0 && vm->areas[i].start >= top)
			continue;
		if (top > floor && top - floor >= len)
			return top - len;
		if (i >= 0)
			top = vm->areas[i].start;
		if (top <= lowest)
			break;
	}
	return 0;
}

/*
 * Give the page at addr a zeroed frame with the rights prot.
 * Return value: 0, -ENOMEM (no memory, or the process's limit).
 */
int vm_populate(struct vm *vm, uintptr_t addr, unsigned prot)
{
	if (vm->pages >= PROC_PAGE_LIMIT)
		return -ENOMEM;
	uint64_t pa = pmm_alloc(0);
	if (pa == PHYS_NONE)
		return -ENOMEM;
	arch_page_zero(phys_to_virt(pa));
	pmm_page(pa)->map_count = 1;
	int err = arch_as_map(vm->as, addr & ~(PAGE_SIZE - 1), pa, prot);
	if (err) {
		pmm_free(pa, 0);
		return err == -EEXIST ? 0 : err;
	}
	WRITE_ONCE(vm->pages, vm->pages + 1);
	return 0;
}

bool proc_page_fault(uintptr_t addr, unsigned access, bool from_user)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;
	if (!t || !t->proc)
		return false;
	/*
	 * From the kernel only inside copyin/copyout, never in an interrupt,
	 * and never for a probe's consumers (a D load, stringof, copyin in a
	 * probe that fired inside copyin): a fault there is the trace's error.
	 */
	if (!from_user && (!t->in_uaccess || c->irq_depth || cpu_probe_running(c)))
		return false;
	struct vm *vm = &t->proc->vm;
	struct vm_area *a = vm_find(vm, addr);
	if (!a)
		return false;
	if ((access == PROC_ACCESS_WRITE && !(a->prot & MAP_WRITE)) ||
	    (access == PROC_ACCESS_EXEC && !(a->prot & MAP_EXEC)))
		return false;
	uintptr_t page = addr & ~(PAGE_SIZE - 1);
	unsigned flags;
	uint64_t pa = arch_as_translate(vm->as, page, &flags);
	if (pa != UINT64_MAX) {
		/* Present: a write to a page fork shares, or a real protection fault. */
		if (access != PROC_ACCESS_WRITE || (flags & MAP_WRITE))
			return false;
		if (vm_break_cow(vm, page, pa, a->prot))
			return false;
		WRITE_ONCE(vm->faults, vm->faults + 1);
		return true;
	}
	if (vm_populate(vm, page, a->prot))
		return false;
	WRITE_ONCE(vm->faults, vm->faults + 1);
	if (a->kind == VMA_ANON || a->kind == VMA_BRK || a->kind == VMA_STACK) {
		/* The policy may give more of the area at once (vm.fault_around). */
		int n = vm_policy.fault_around(addr, a->start, a->end);
		if (n > VM_FAULT_AROUND_MAX)
			n = VM_FAULT_AROUND_MAX;
		for (int i = 1; i < n && page + i * PAGE_SIZE < a->end; i++) {
			uintptr_t next = page + i * PAGE_SIZE;
			if (arch_as_translate(vm->as, next, NULL) == UINT64_MAX &&
			    vm_populate(vm, next, a->prot))
				break;
		}
	}
	return true;
}

/*
 * The first write to a shared page at va (mapped at pa, read-only) in
 * an area whose rights are prot: steps
 *   1. if no other address space maps it any more, it is ours: make it
 *      writable;
 *   2. else copy it to a new page, map that in its place (writable),
 *      and put the shared one (freeing it if the other side has put it
 *      meanwhile).
 * Return value: 0, -ENOMEM.
 */
int vm_break_cow(struct vm *vm, uintptr_t va, uint64_t pa, unsigned prot)
{
	/* Step 1. */
	if (!page_shared(pa)) {
		arch_as_protect_range(vm->as, va, va + PAGE_SIZE, prot);
		return 0;
	}
	/* Step 2. */
	uint64_t npa = pmm_alloc(0);
	if (npa == PHYS_NONE)
		return -ENOMEM;
	arch_page_copy(phys_to_virt(npa), phys_to_virt(pa));
	pmm_page(npa)->map_count = 1;
	arch_as_unmap_range(vm->as, va, va + PAGE_SIZE, NULL, NULL);
	int err = arch_as_map(vm->as, va, npa, prot);
	if (err) {
		/* The table is there (it held the old page): cannot fail; keep the old mapping's accounting. */
		pmm_free(npa, 0);
		arch_as_map(vm->as, va, pa, prot & ~MAP_WRITE);
		return err;
	}
	page_put(pa);
	return 0;
}

/*
 * Set the rights of the mapped pages of [start, end) to prot, but keep
 * pages that fork shares read-only: their first write must copy them.
 */
struct protect_ctx {
	struct vm *vm;
	unsigned prot;
};

static int protect_page(uintptr_t va, uint64_t pa, unsigned flags, void *arg)
{
	struct protect_ctx *c = arg;
	unsigned want = (c->prot & MAP_WRITE) && page_shared(pa) ? c->prot & ~MAP_WRITE : c->prot;
	if ((flags & (MAP_WRITE | MAP_EXEC)) != want)
		arch_as_protect_range(c->vm->as, va, va + PAGE_SIZE, want);
	return 0;
}

void vm_protect(struct vm *vm, uintptr_t start, uintptr_t end, unsigned prot)
{
	struct protect_ctx c = { vm, prot & (MAP_WRITE | MAP_EXEC) };
	arch_as_walk(vm->as, start, end, protect_page, &c);
}

struct share_ctx {
	struct vm *src, *dst;
	int err;
};

/* fork: map src's page into dst too, read-only in both (copy-on-write). */
static int share_page(uintptr_t va, uint64_t pa, unsigned flags, void *arg)
{
	struct share_ctx *c = arg;
	unsigned shared = flags & MAP_EXEC;
	int err = arch_as_map(c->dst->as, va, pa, shared);
	if (err) {
		c->err = err;
		return 1;
	}
	page_get(pa);
	if (flags & MAP_WRITE)
		arch_as_protect_range(c->src->as, va, va + PAGE_SIZE, shared);
	c->dst->pages++;
	return 0;
}

/* Give dst, a fresh vm, src's map and share every page with it (fork). */
int vm_copy(struct vm *dst, struct vm *src)
{
	memcpy(dst->areas, src->areas, sizeof(src->areas));
	dst->nareas = src->nareas;
	dst->brk_start = src->brk_start;
	dst->brk = src->brk;
	dst->faults = 0;
	struct share_ctx c = { src, dst, 0 };
	for (unsigned i = 0; i < src->nareas && !c.err; i++)
		arch_as_walk(src->as, src->areas[i].start, src->areas[i].end, share_page, &c);
	return c.err;
}
