// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel's mapping on sun4u: virtual KERNEL_VIRT .. +4 MB is
 * physical KERNEL_PHYS .. +4 MB (where QEMU loaded the image, OpenBIOS
 * having mapped it at 0x40000000), context 0, by one 4 MB TTE.
 *
 * Decision: the TTE is LOCKED into both TLBs at boot, and the fast MMU
 * miss handlers (trap_entry.S) compute the same TTE on the fly for any
 * miss inside the window. The lock is needed, not just convenient: the
 * trap table itself lives in that window, and an instruction TLB miss on
 * the miss handler's own page could never be served (each attempt traps
 * again, one TL deeper, up to MAXTL). With the locked entry a kernel
 * miss cannot happen; the computed refill stays as the rule the handler
 * follows (and serves the window if a future TLB flush drops the lock).
 * Every other address is unmapped: a miss there is a fault (trap.c).
 * Known simplification: OpenBIOS's 8 KB entries for the same pages stay
 * in the TLBs beside the 4 MB one; they translate identically.
 */
#include <scion/errno.h>
#include <scion/printk.h>
#include <arch/cpu.h>
#include <arch/mmu.h>

#include "sparc64_internal.h"

#define TTE_LOCKED	0x40ul

static uint64_t kernel_tte(void)
{
	return (uint64_t)KERNEL_TTE_HIGH << 32 | KERNEL_TTE_LOW;
}

/*
 * mmu_lock_kernel - lock the kernel's 4 MB TTE into the I- and D-TLB.
 * Steps, for each TLB:
 *  1. the tag: the window's address, context 0, into TAG_ACCESS;
 *  2. membar #Sync (an MMU register write completes before the next);
 *  3. the TTE (with L, locked) through the data-in register;
 *  4. flush (the instruction side sees the new entry).
 * Caller: sparc64_trap_init, interrupts masked, before %tba changes.
 */
void mmu_lock_kernel(void)
{
	uint64_t tag = KERNEL_VIRT, tte = kernel_tte() | TTE_LOCKED;

	__asm__ __volatile__("stxa %0, [%1] %2\n\t"
			     "membar #Sync\n\t"
			     "stxa %3, [%%g0] %4\n\t"
			     "membar #Sync\n\t"
			     "flush %5"
			     : : "r"(tag), "r"((uint64_t)MMU_TAG_ACCESS), "i"(ASI_DMMU), "r"(tte),
			       "i"(ASI_DTLB_DATA_IN), "r"(KERNEL_VIRT)
			     : "memory");
	__asm__ __volatile__("stxa %0, [%1] %2\n\t"
			     "membar #Sync\n\t"
			     "stxa %3, [%%g0] %4\n\t"
			     "membar #Sync\n\t"
			     "flush %5"
			     : : "r"(tag), "r"((uint64_t)MMU_TAG_ACCESS), "i"(ASI_IMMU), "r"(tte),
			       "i"(ASI_ITLB_DATA_IN), "r"(KERNEL_VIRT)
			     : "memory");
	early_printf("mmu: kernel 0x%x..0x%x -> phys 0x%x, one locked 4 MB TTE (0x%016lx) "
		     "in both TLBs\n", KERNEL_VIRT, KERNEL_VIRT + (1u << KERNEL_MAP_SHIFT),
		     KERNEL_PHYS, (unsigned long)tte);
}

/* ---- The kmap window and the direct map (arch/mmu.h) ---------------------------- */

#define TTE_V		(1ul << 63)
#define TTE_IE		(1ul << 59)	/* invert endianness: little-endian accesses */
#define TTE_PA_MASK	0x000001ffffffe000ul
#define TTE_CP		0x20ul
#define TTE_CV		0x10ul
#define TTE_E		0x08ul
#define TTE_P		0x04ul
#define TTE_W		0x02ul
#define ASI_IMMU_DEMAP	0x57

_Static_assert(SPARC64_DIRECT_MAP == DIRECT_MAP_BASE, "sparc64.h and arch/mmu.h agree");
_Static_assert(SPARC64_KMAP_BASE == KMAP_BASE_ADDR, "sparc64.h and arch/mmu.h agree");
_Static_assert((uint64_t)KMAP_PAGES << PAGE_SHIFT == KMAP_LIMIT_ADDR - KMAP_BASE_ADDR,
	       "KMAP_PAGES covers the kmap window");

/* Read by the MMU miss handlers (trap_entry.S), written under kmap_lock. */
uint64_t sparc64_kmap_ttes[KMAP_PAGES];
uint64_t sparc64_ram_top;		/* set once at boot: the direct map's extent */
static size_t kmap_used;		/* valid entries, for arch_kernel_table_pages */

static long kmap_index(uintptr_t va)
{
	if (va < KMAP_BASE_ADDR || va >= KMAP_LIMIT_ADDR)
		return -1;
	return (long)((va - KMAP_BASE_ADDR) >> PAGE_SHIFT);
}

/* Drop va's translation from both TLBs (demap page, primary context 0). */
static void demap(uintptr_t va)
{
	__asm__ __volatile__("stxa %%g0, [%0] %1\n\t"
			     "stxa %%g0, [%0] %2\n\t"
			     "membar #Sync\n\t"
			     "flush %3"
			     : : "r"(va & ~(PAGE_SIZE - 1)), "i"(ASI_DMMU_DEMAP), "i"(ASI_IMMU_DEMAP),
			       "r"(KERNEL_VIRT)
			     : "memory");
}

void sparc64_mm_set_ram_top(uint64_t top)
{
	sparc64_ram_top = top;
}

int arch_map_page(uintptr_t va, uint64_t pa, unsigned flags)
{
	long i = kmap_index(va);

	if (i < 0 || (va | pa) & (PAGE_SIZE - 1))
		return -EINVAL;
	uint64_t tte = TTE_V | (pa & TTE_PA_MASK) | TTE_P;
	if (flags & MAP_NOCACHE)
		tte |= TTE_E | TTE_IE;
	else
		tte |= TTE_CP | TTE_CV;
	if (flags & MAP_WRITE)
		tte |= TTE_W;
	irqflags_t f = arch_irq_save();
	if ((int64_t)sparc64_kmap_ttes[i] < 0) {
		arch_irq_restore(f);
		return -EEXIST;
	}
	sparc64_kmap_ttes[i] = tte;
	kmap_used++;
	arch_irq_restore(f);
	return 0;
}

uint64_t arch_unmap_page(uintptr_t va)
{
	long i = kmap_index(va);

	if (i < 0)
		return UINT64_MAX;
	irqflags_t f = arch_irq_save();
	uint64_t tte = sparc64_kmap_ttes[i];
	if ((int64_t)tte >= 0) {
		arch_irq_restore(f);
		return UINT64_MAX;
	}
	sparc64_kmap_ttes[i] = 0;
	kmap_used--;
	demap(va);
	arch_irq_restore(f);
	return tte & TTE_PA_MASK;
}

uint64_t arch_translate(uintptr_t va, unsigned *flags)
{
	unsigned fl = MAP_WRITE | MAP_EXEC;
	uint64_t pa = UINT64_MAX;

	if (va >= KERNEL_VIRT_BASE && va < KERNEL_VIRT_BASE + KERNEL_IMAGE_SIZE) {
		pa = va - KERNEL_VIRT_BASE + KERNEL_IMAGE_PHYS;
	} else if (va >= DIRECT_MAP_BASE && va - DIRECT_MAP_BASE < sparc64_ram_top) {
		pa = va - DIRECT_MAP_BASE;
	} else {
		long i = kmap_index(va);
		uint64_t tte = i < 0 ? 0 : __atomic_load_n(&sparc64_kmap_ttes[i], __ATOMIC_RELAXED);
		if ((int64_t)tte < 0) {
			pa = (tte & TTE_PA_MASK) | (va & (PAGE_SIZE - 1));
			fl = MAP_EXEC | (tte & TTE_W ? MAP_WRITE : 0) | (tte & TTE_E ? MAP_NOCACHE : 0);
		}
	}
	if (flags && pa != UINT64_MAX)
		*flags = fl;
	return pa;
}

size_t arch_kernel_table_pages(void)
{
	return sizeof(sparc64_kmap_ttes) / PAGE_SIZE;
}

void arch_flush_tlb_local(void)
{
}

/* No user address spaces on sparc64 yet (issue 25): creation refuses, the rest has nothing to do. */
struct arch_as *arch_as_create(void)
{
	return NULL;
}

void arch_as_activate(struct arch_as *as)
{
	if (as)
		panic("sparc64: no user address spaces yet (issue 25)");
}

/* kernel.ld's PATCH_HEAP_OFFSET, the room it keeps the image below. */
extern char __patch_heap_start[];

void sparc64_mm_arch_init(void)
{
	if ((uintptr_t)__patch_heap_start != PATCH_CODE_BASE)
		panic("mmu: kernel.ld's patch heap (0x%lx) is not arch/mmu.h's PATCH_CODE_BASE (0x%llx)",
		      (unsigned long)(uintptr_t)__patch_heap_start, (unsigned long long)PATCH_CODE_BASE);
	printk("mmu: direct map of %llu MiB of RAM at 0x%llx (4 MB TTEs), kmap window "
	       "0x%llx..0x%llx (%u TTEs of 8 KB)\n", (unsigned long long)(sparc64_ram_top >> 20),
	       (unsigned long long)DIRECT_MAP_BASE, (unsigned long long)KMAP_BASE_ADDR,
	       (unsigned long long)KMAP_LIMIT_ADDR, (unsigned)KMAP_PAGES);
}
