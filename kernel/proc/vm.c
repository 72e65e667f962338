// SPDX-License-Identifier: BSD-2-Clause
/*
 * A process's memory map: a sorted array of areas (the program image,
 * the heap, anonymous mappings, the stack) over an arch address space.
 * Pages are given on first touch (demand paging, proc_page_fault) and
 * counted against PROC_PAGE_LIMIT; every page the space maps is the
 * process's own (fork copies, it does not share), so unmapping frees it.
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

void vm_page_release(uint64_t pa, void *arg)
{
	struct vm *vm = arg;
	pmm_free(pa, 0);
	if (vm)
		WRITE_ONCE(vm->pages, vm->pages - 1);
}

void vm_destroy(struct vm *vm)
{
	if (!vm->as)
		return;
	arch_as_destroy(vm->as, vm_page_release, vm);
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
	/* Grow a neighbour of the same kind and rights instead of adding one. */
	for (unsigned i = 0; i < vm->nareas; i++) {
		struct vm_area *n = &vm->areas[i];
		if (n->kind == kind && n->prot == prot && n->end == start) {
			n->end = end;
			return 0;
		}
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
	memset(phys_to_virt(pa), 0, PAGE_SIZE);
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
	if (arch_as_translate(vm->as, addr, NULL) != UINT64_MAX)
		return false;	/* present: a protection fault, not a missing page */
	return vm_populate(vm, addr, a->prot) == 0;
}

struct copy_ctx {
	struct vm *dst;
	int err;
};

static int copy_page(uintptr_t va, uint64_t pa, unsigned flags, void *arg)
{
	struct copy_ctx *c = arg;
	uint64_t npa = pmm_alloc(0);
	if (npa == PHYS_NONE) {
		c->err = -ENOMEM;
		return 1;
	}
	memcpy(phys_to_virt(npa), phys_to_virt(pa), PAGE_SIZE);
	int err = arch_as_map(c->dst->as, va, npa, flags & (MAP_WRITE | MAP_EXEC));
	if (err) {
		pmm_free(npa, 0);
		c->err = err;
		return 1;
	}
	c->dst->pages++;
	return 0;
}

/* Copy src's map and every page it has into dst, a fresh vm (fork). */
int vm_copy(struct vm *dst, struct vm *src)
{
	memcpy(dst->areas, src->areas, sizeof(src->areas));
	dst->nareas = src->nareas;
	dst->brk_start = src->brk_start;
	dst->brk = src->brk;
	struct copy_ctx c = { dst, 0 };
	arch_as_walk(src->as, USER_BASE, USER_LIMIT, copy_page, &c);
	return c.err;
}
