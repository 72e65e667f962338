/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The arch contract for translations: what the portable memory code
 * (kernel/mm/, the patch heap, text_poke, processes) asks of a port's MMU,
 * written once here. Each port implements it in arch/<arch>/mmu.c (and
 * address_space.c), and its arch/mmu.h holds the layout (PAGE_SIZE, the
 * kernel ranges, MAP_* flags) and says which ranges arch_map_page serves;
 * arch/mmu.h includes this file after its constants.
 */
#ifndef SCION_MMU_ARCH_H
#define SCION_MMU_ARCH_H

#include <stdint.h>
#include <stddef.h>

/*
 * arch_map_page - map one page (PAGE_SIZE) in the kernel address space.
 * Arguments: va, pa page aligned; flags MAP_* (arch/mmu.h says which
 *   kernel ranges the port maps this way).
 * Return value: 0, -ENOMEM when a page table cannot be allocated,
 *   -EEXIST when va is already mapped, -EINVAL for a va the port does
 *   not map page by page.
 * Caller's context: any thread; interrupts masked inside. Other CPUs
 *   never cached a translation for an unmapped va, so no TLB shootdown
 *   is needed.
 */
int arch_map_page(uintptr_t va, uint64_t pa, unsigned flags);

/*
 * arch_unmap_page - remove the mapping of one page and flush it from this
 * CPU's TLB. Return value: the physical address that was mapped, or
 * UINT64_MAX when nothing was. Caller's context: as arch_map_page; the
 * caller shoots down other CPUs' TLBs if they may have used va.
 */
uint64_t arch_unmap_page(uintptr_t va);

/*
 * arch_translate - the physical address a kernel va maps to.
 * Return value: the physical address, or UINT64_MAX; *flags (if not
 * NULL) receives MAP_* for the mapping.
 * Caller's context: any; lock-free.
 */
uint64_t arch_translate(uintptr_t va, unsigned *flags);

/*
 * Pages the kernel's translation tables take (never freed). Caller's
 * context: any.
 */
size_t arch_kernel_table_pages(void);

/* Flush this CPU's TLB of every non-global translation. */
void arch_flush_tlb_local(void);

/*
 * User address spaces (x86: arch/x86/address_space.c; a port without
 * user processes refuses arch_as_create).
 *
 * An arch_as is the translation tables of one user address space, the
 * kernel's mappings shared with every other. It maps pages the caller
 * owns: the arch layer never allocates or frees a mapped page, only its
 * own tables.
 *
 * An address space is changed only by the thread that runs in it, or
 * when no thread does (before its first run, after its last): so a
 * change needs no TLB shootdown, only a local flush when it is live
 * here. Each switch between address spaces reloads the root, which
 * flushes the user half (kernel mappings are global).
 */
struct arch_as;

/*
 * arch_as_create - a new user address space with nothing mapped.
 * Return value: the space, or NULL when memory ran out.
 * Caller's context: thread; may take the page allocator's lock.
 */
struct arch_as *arch_as_create(void);

/*
 * arch_as_destroy - release an address space's tables.
 * Arguments: as, not active on any CPU; release is called with the
 *   physical address of every page still mapped; NULL promises that
 *   none is (the caller unmapped them all), which spares looking.
 * Caller's context: thread.
 */
void arch_as_destroy(struct arch_as *as, void (*release)(uint64_t pa, void *arg), void *arg);

/*
 * arch_as_map - map one user page.
 * Arguments: va page aligned in [USER_BASE, USER_LIMIT); pa; flags MAP_*
 *   (MAP_USER is implied).
 * Return value: 0, -ENOMEM when a table cannot be allocated, -EEXIST
 *   when va is already mapped, -EINVAL for a va outside the user range.
 */
int arch_as_map(struct arch_as *as, uintptr_t va, uint64_t pa, unsigned flags);

/*
 * arch_as_unmap_range - unmap the pages of [start, end) that are mapped.
 * Arguments: release, if not NULL, gets each unmapped page's physical
 *   address; empty tables are skipped, so a sparse range is cheap.
 * Return value: the number of pages unmapped.
 */
size_t arch_as_unmap_range(struct arch_as *as, uintptr_t start, uintptr_t end,
			   void (*release)(uint64_t pa, void *arg), void *arg);

/*
 * arch_as_protect_range - set the rights (MAP_WRITE, MAP_EXEC) of the
 *   mapped pages of [start, end). Return value: pages changed.
 */
size_t arch_as_protect_range(struct arch_as *as, uintptr_t start, uintptr_t end, unsigned flags);

/*
 * arch_as_walk - call fn for every mapped page of [start, end), in
 *   address order; stop early when fn returns nonzero.
 * Return value: fn's nonzero value, or 0.
 */
int arch_as_walk(struct arch_as *as, uintptr_t start, uintptr_t end,
		 int (*fn)(uintptr_t va, uint64_t pa, unsigned flags, void *arg), void *arg);

/*
 * arch_as_translate - the physical address va maps to in as, or
 *   UINT64_MAX; *flags (if not NULL) receives its MAP_* rights.
 */
uint64_t arch_as_translate(struct arch_as *as, uintptr_t va, unsigned *flags);

/*
 * arch_as_activate - make as this CPU's user address space (NULL: none,
 *   only the kernel half). Caller's context: interrupts masked, or the
 *   thread that runs in as.
 */
void arch_as_activate(struct arch_as *as);

/* Pages of page tables that as holds (for accounting). */
size_t arch_as_table_pages(const struct arch_as *as);

#endif
