/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * x86_64 page-table entry bits and the walk both the kernel's tables
 * (mmu.c) and user address spaces (address_space.c) use.
 */
#ifndef X86_PTE_H
#define X86_PTE_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#define PTE_PRESENT  0x1ull
#define PTE_WRITE    0x2ull
#define PTE_USER     0x4ull
#define PTE_PWT      0x8ull
#define PTE_PCD      0x10ull
#define PTE_LARGE    0x80ull
#define PTE_GLOBAL   0x100ull
#define PTE_NX       (1ull << 63)
#define PTE_ADDR     0x000ffffffffff000ull
#define PTE_TABLE    (PTE_PRESENT | PTE_WRITE)
#define LARGE_PAGE   (2ull << 20)
#define PT_ENTRIES   512
#define PML4_KERNEL_FIRST 256	/* top-level slots 256..511 map the kernel half */

static inline unsigned pt_index(uintptr_t va, int level)
{
	return (va >> (12 + 9 * level)) & 511;
}

/* A zeroed page for a table, or NULL. */
uint64_t *pt_alloc_table(void);

/*
 * pt_walk - the entry for va at level stop (0: the 4 KiB PTE, 1: the PD
 *   entry) under root, creating tables with the rights of table_flags
 *   when create is set (counting them in *tables_made, if not NULL).
 *   NULL if absent, out of memory, or a large page is in the way.
 *   Caller's context: holds whatever lock guards root's tables.
 */
uint64_t *pt_walk(uint64_t *root, uintptr_t va, int stop, bool create, uint64_t table_flags,
		  size_t *tables_made);

/* PTE bits for MAP_* flags. */
uint64_t pt_flags(unsigned map_flags);

/* MAP_* flags of a present PTE. */
unsigned pt_map_flags(uint64_t pte);

/* The kernel's top-level table. */
uint64_t *mmu_kernel_pml4(void);

#endif
