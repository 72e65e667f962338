// SPDX-License-Identifier: BSD-2-Clause
/*
 * Kernel virtual areas outside the direct map: thread stacks with guard
 * pages, and uncached device mappings.
 *
 * Stacks live in fixed slots of SLOT_SIZE; the lowest page of a slot is
 * never mapped (the guard). A freed slot is not reused at once: another
 * CPU may still hold a TLB entry for it. Freed slots collect as dirty
 * and are recycled in bulk after one TLB flush on every CPU, when the
 * clean ones run out.
 *
 * vmap_lock guards the slot states and the device-mapping cursor.
 */
#include <scion/mm.h>
#include <scion/spinlock.h>
#include <scion/printk.h>
#include <scion/xcall.h>
#include <scion/string.h>

#define SLOT_SIZE  (64 * 1024)
#define NSLOTS     4096

enum slot_state { SLOT_CLEAN = 0, SLOT_USED, SLOT_DIRTY };

static uint8_t slots[NSLOTS];		/* vmap_lock */
static unsigned dirty_slots;		/* vmap_lock */
static uintptr_t mmio_cursor = MMIO_BASE;	/* vmap_lock */
static struct spinlock vmap_lock = SPINLOCK_INIT("vmap");

static uintptr_t slot_base(unsigned i)
{
	return VMAP_BASE + (uintptr_t)i * SLOT_SIZE;
}

static void flush_tlb(void *arg)
{
	(void)arg;
	arch_flush_tlb_local();
}

static int claim_slot(void)
{
	irqflags_t f = spin_lock_irqsave(&vmap_lock);
	for (unsigned i = 0; i < NSLOTS; i++) {
		if (slots[i] == SLOT_CLEAN) {
			slots[i] = SLOT_USED;
			spin_unlock_irqrestore(&vmap_lock, f);
			return (int)i;
		}
	}
	unsigned dirty = dirty_slots;
	spin_unlock_irqrestore(&vmap_lock, f);
	return dirty ? -1 : -2;
}

static void recycle_dirty_slots(void)
{
	xcall_all(flush_tlb, NULL);
	irqflags_t f = spin_lock_irqsave(&vmap_lock);
	for (unsigned i = 0; i < NSLOTS; i++)
		if (slots[i] == SLOT_DIRTY)
			slots[i] = SLOT_CLEAN;
	dirty_slots = 0;
	spin_unlock_irqrestore(&vmap_lock, f);
}

uintptr_t vmap_stack_alloc(size_t size)
{
	if (size == 0 || size % PAGE_SIZE || size > SLOT_SIZE - PAGE_SIZE)
		return 0;
	int slot = claim_slot();
	if (slot == -1) {
		recycle_dirty_slots();
		slot = claim_slot();
	}
	if (slot < 0)
		return 0;

	uintptr_t base = slot_base((unsigned)slot) + SLOT_SIZE - size;
	for (size_t off = 0; off < size; off += PAGE_SIZE) {
		uint64_t pa = pmm_alloc(0);
		if (pa == PHYS_NONE || arch_map_page(base + off, pa, MAP_WRITE) != 0) {
			if (pa != PHYS_NONE)
				pmm_free(pa, 0);
			vmap_stack_free(base, off);
			return 0;
		}
	}
	return base;
}

void vmap_stack_free(uintptr_t base, size_t size)
{
	unsigned slot = (unsigned)((base - VMAP_BASE) / SLOT_SIZE);

	for (size_t off = 0; off < size; off += PAGE_SIZE) {
		uint64_t pa = arch_unmap_page(base + off);
		if (pa != UINT64_MAX)
			pmm_free(pa, 0);
	}
	irqflags_t f = spin_lock_irqsave(&vmap_lock);
	slots[slot] = SLOT_DIRTY;
	dirty_slots++;
	spin_unlock_irqrestore(&vmap_lock, f);
}

bool vmap_is_guard(uintptr_t addr)
{
	if (addr < VMAP_BASE || addr >= VMAP_BASE + (uintptr_t)NSLOTS * SLOT_SIZE)
		return false;
	return arch_translate(addr, NULL) == UINT64_MAX;
}

void *mmio_map(uint64_t phys, size_t len)
{
	uint64_t first = ALIGN_DOWN(phys, PAGE_SIZE);
	uint64_t last = ALIGN_UP(phys + len, PAGE_SIZE);

	irqflags_t f = spin_lock_irqsave(&vmap_lock);
	uintptr_t va = mmio_cursor;
	if (va + (last - first) > MMIO_LIMIT) {
		spin_unlock_irqrestore(&vmap_lock, f);
		return NULL;
	}
	mmio_cursor += last - first;
	spin_unlock_irqrestore(&vmap_lock, f);
	for (uint64_t pa = first; pa < last; pa += PAGE_SIZE)
		if (arch_map_page(va + (pa - first), pa, MAP_WRITE | MAP_NOCACHE) != 0)
			return NULL;
	return (void *)(va + (phys - first));
}
