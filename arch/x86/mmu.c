// SPDX-License-Identifier: BSD-2-Clause
/*
 * Kernel page tables (4-level, 4 KiB and 2 MiB pages).
 *
 * mmu_init replaces the boot tables with the kernel's own: the image with
 * the rights of each part (text read-only and executable, rodata
 * read-only, data and bss read/write, no-execute), and the direct map of
 * RAM, no-execute, where the 2 MiB chunks holding the image are split
 * into 4 KiB pages so that its text and rodata are read-only there too:
 * no writable alias of kernel text exists outside text_poke's moments.
 * CR0.WP is set, so the kernel itself cannot write read-only pages.
 *
 * pt_lock guards every change of the tables; walks for translation read
 * without it (entries are written whole, tables never freed).
 */
#include <scion/mm.h>
#include <scion/boot.h>
#include <scion/printk.h>
#include <scion/spinlock.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <arch/mmu.h>
#include <arch/x86.h>
#include "x86_internal.h"
#include "pte.h"


extern char __text_start[], __init_text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __image_end[], __image_phys_start[];

static uint64_t *kernel_pml4;
static struct spinlock pt_lock = SPINLOCK_INIT("page-tables");

uint64_t *pt_alloc_table(void)
{
	uint64_t pa = pmm_alloc(0);
	if (pa == PHYS_NONE)
		return NULL;
	uint64_t *t = phys_to_virt(pa);
	arch_page_zero(t);
	return t;
}

uint64_t *pt_walk(uint64_t *root, uintptr_t va, int stop, bool create, uint64_t table_flags,
		  size_t *tables_made)
{
	uint64_t *table = root;

	for (int level = 3; level > stop; level--) {
		uint64_t *e = &table[pt_index(va, level)];
		if (!(*e & PTE_PRESENT)) {
			if (!create)
				return NULL;
			uint64_t *next = pt_alloc_table();
			if (!next)
				return NULL;
			if (tables_made)
				WRITE_ONCE(*tables_made, *tables_made + 1);
			*e = virt_to_phys(next) | table_flags;
		} else if (*e & PTE_LARGE) {
			return NULL;
		}
		table = phys_to_virt(*e & PTE_ADDR);
	}
	return &table[pt_index(va, stop)];
}

static size_t kernel_table_pages;	/* pt_lock: tables of the kernel half, never freed */

static uint64_t *walk(uintptr_t va, int stop, bool create)
{
	return pt_walk(kernel_pml4, va, stop, create, PTE_TABLE, &kernel_table_pages);
}

size_t arch_kernel_table_pages(void)
{
	return READ_ONCE(kernel_table_pages);
}

uint64_t *mmu_kernel_pml4(void)
{
	return kernel_pml4;
}

uint64_t pt_flags(unsigned flags)
{
	uint64_t f = PTE_PRESENT;

	if (flags & MAP_USER)
		f |= PTE_USER;

	if (flags & MAP_WRITE)
		f |= PTE_WRITE;
	if (!(flags & MAP_EXEC))
		f |= PTE_NX;
	if (flags & MAP_NOCACHE)
		f |= PTE_PCD | PTE_PWT;
	return f;
}

unsigned pt_map_flags(uint64_t e)
{
	return ((e & PTE_WRITE) ? MAP_WRITE : 0) | ((e & PTE_NX) ? 0 : MAP_EXEC) |
	       ((e & PTE_PCD) ? MAP_NOCACHE : 0) | ((e & PTE_USER) ? MAP_USER : 0);
}

int arch_map_page(uintptr_t va, uint64_t pa, unsigned flags)
{
	int err = 0;
	irqflags_t f = spin_lock_irqsave(&pt_lock);
	uint64_t *e = walk(va, 0, true);
	if (!e)
		err = -ENOMEM;
	else if (*e & PTE_PRESENT)
		err = -EEXIST;
	else
		*e = (pa & PTE_ADDR) | pt_flags(flags);
	spin_unlock_irqrestore(&pt_lock, f);
	return err;
}

uint64_t arch_unmap_page(uintptr_t va)
{
	uint64_t pa = UINT64_MAX;
	irqflags_t f = spin_lock_irqsave(&pt_lock);
	uint64_t *e = walk(va, 0, false);
	if (e && (*e & PTE_PRESENT)) {
		pa = *e & PTE_ADDR;
		*e = 0;
		invlpg(va);
	}
	spin_unlock_irqrestore(&pt_lock, f);
	return pa;
}

uint64_t arch_translate(uintptr_t va, unsigned *flags)
{
	uint64_t *table = kernel_pml4;

	for (int level = 3; level >= 0; level--) {
		uint64_t e = READ_ONCE(table[pt_index(va, level)]);
		if (!(e & PTE_PRESENT))
			return UINT64_MAX;
		if (level == 0 || (e & PTE_LARGE)) {
			uint64_t page_mask = (1ull << (12 + 9 * level)) - 1;
			if (flags)
				*flags = pt_map_flags(e);
			return (e & PTE_ADDR & ~page_mask) | (va & page_mask);
		}
		table = phys_to_virt(e & PTE_ADDR);
	}
	return UINT64_MAX;
}

void arch_flush_tlb_local(void)
{
	write_cr3(read_cr3());
}

/* Rights of the image page at virtual address va. */
static unsigned image_rights(uintptr_t va)
{
	if (va >= (uintptr_t)__text_start && va < (uintptr_t)__init_text_end)
		return MAP_EXEC;
	if (va >= (uintptr_t)__rodata_start && va < (uintptr_t)__data_start)
		return 0;
	return MAP_WRITE;
}

static uint64_t image_phys_end(void)
{
	return virt_to_phys(__image_end);
}

static __init void map_image(void)
{
	for (uintptr_t va = (uintptr_t)__text_start; va < (uintptr_t)__image_end; va += PAGE_SIZE) {
		uint64_t *e = walk(va, 0, true);
		if (!e)
			panic("mmu: out of memory mapping the kernel image");
		*e = virt_to_phys((void *)va) | pt_flags(image_rights(va)) | PTE_GLOBAL;
	}
}

/* Direct-map the 2 MiB chunk at pa, splitting it when it holds image pages. */
static __init void map_direct_chunk(uint64_t pa)
{
	uintptr_t va = (uintptr_t)phys_to_virt(pa);
	uint64_t img_start = (uint64_t)(uintptr_t)__image_phys_start;
	uint64_t img_end = image_phys_end();

	uint64_t *pde = walk(va, 1, true);
	if (!pde)
		panic("mmu: out of memory building the direct map");
	if (*pde & PTE_PRESENT)
		return;
	if (pa + LARGE_PAGE <= img_start || pa >= img_end) {
		*pde = pa | pt_flags(MAP_WRITE) | PTE_LARGE | PTE_GLOBAL;
		return;
	}
	for (uint64_t p = pa; p < pa + LARGE_PAGE; p += PAGE_SIZE) {
		unsigned rights = MAP_WRITE;
		if (p >= virt_to_phys(__text_start) && p < virt_to_phys(__data_start))
			rights = 0;	/* text and rodata: read-only alias */
		uint64_t *e = walk(va + (p - pa), 0, true);
		if (!e)
			panic("mmu: out of memory building the direct map");
		*e = p | pt_flags(rights) | PTE_GLOBAL;
	}
}

bool mmu_direct_mapped_type(uint32_t type)
{
	return type == BOOT_MEM_AVAILABLE || type == BOOT_MEM_ACPI_RECLAIMABLE ||
	       type == BOOT_MEM_ACPI_NVS;
}

__init void mmu_init(void)
{
	kernel_pml4 = pt_alloc_table();
	if (!kernel_pml4)
		panic("mmu: no memory for the top-level page table");
	/*
	 * Every top-level slot of the kernel half gets its table now: user
	 * address spaces copy these slots when they are made, so a kernel
	 * mapping added later must never need a new top-level entry.
	 */
	for (unsigned i = PML4_KERNEL_FIRST; i < PT_ENTRIES; i++) {
		uint64_t *t = pt_alloc_table();
		if (!t)
			panic("mmu: no memory for the kernel half's tables");
		kernel_pml4[i] = virt_to_phys(t) | PTE_TABLE;
	}
	map_image();
	for (uint64_t pa = 0; pa < (1ull << 20); pa += LARGE_PAGE)
		map_direct_chunk(pa);
	for (unsigned i = 0; i < boot_info.nmem; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];
		if (!mmu_direct_mapped_type(r->type))
			continue;
		uint64_t end = ALIGN_UP(r->base + r->length, LARGE_PAGE);
		for (uint64_t pa = ALIGN_DOWN(r->base, LARGE_PAGE); pa < end; pa += LARGE_PAGE)
			map_direct_chunk(pa);
	}
	write_cr4(read_cr4() | CR4_PGE);
	write_cr3(virt_to_phys(kernel_pml4));
}

/* Physical address of the kernel's top-level table (for starting other CPUs). */
uint64_t mmu_kernel_root(void)
{
	return virt_to_phys(kernel_pml4);
}
