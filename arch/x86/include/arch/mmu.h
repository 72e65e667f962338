/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The x86_64 address space and the arch interface to page tables.
 *
 * Layout of the kernel half (4-level paging, 48-bit addresses):
 *   DIRECT_MAP_BASE  0xffff800000000000  all RAM, read/write, no-execute,
 *                                         except that the kernel image's
 *                                         text and rodata are read-only
 *   MMIO_BASE        0xffffc00000000000  device registers, uncached
 *   VMAP_BASE        0xffffc80000000000  thread stacks with guard pages
 *   (0xffffd00000000000: sandboxed grafts' windows, arch/x86/sfi.c)
 *   VBUF_BASE        0xfffff00000000000  large buffers built of pages (kernel/mm/vbuf.c)
 *   TEXT_ALIAS_BASE  0xfffffe0000000000  temporary writable text aliases
 *   KERNEL_VIRT_BASE 0xffffffff80000000  the kernel image (phys + base)
 *   PATCH_CODE_BASE  0xffffffffc0000000  probe patches, read-only executable
 *   PATCH_DATA_BASE  0xffffffffc1000000  probe counters, read/write
 *   GRAFT_AREA_BASE  0xffffffffc2000000  loaded grafts: text read-only executable,
 *                                         rodata read-only, data read/write
 * (the patch and graft areas are within rel32 reach of the kernel and of each
 * other: ARCH_CODE_REACH)
 * The lower half is unmapped once boot is over.
 */
#ifndef ARCH_MMU_H
#define ARCH_MMU_H

#include <stdint.h>
#include <stddef.h>

#define PAGE_SHIFT        12
#define PAGE_SIZE         4096ull
#define KERNEL_VIRT_BASE  0xffffffff80000000ull
#define DIRECT_MAP_BASE   0xffff800000000000ull
#define DIRECT_MAP_LIMIT  0xffffc00000000000ull
#define MMIO_BASE         0xffffc00000000000ull
#define MMIO_LIMIT        0xffffc80000000000ull
#define VMAP_BASE         0xffffc80000000000ull
#define VMAP_LIMIT        0xffffd00000000000ull
#define VBUF_BASE         0xfffff00000000000ull
#define VBUF_SIZE         (256ull << 30)
#define TEXT_ALIAS_BASE   0xfffffe0000000000ull
#define PATCH_CODE_BASE   0xffffffffc0000000ull
#define PATCH_CODE_SIZE   (16ull << 20)
#define PATCH_DATA_BASE   0xffffffffc1000000ull
#define PATCH_DATA_SIZE   (16ull << 20)
#define GRAFT_AREA_BASE   0xffffffffc2000000ull
#define GRAFT_AREA_SIZE   (32ull << 20)

/*
 * How far a direct branch, call or PC-relative operand reaches: rel32,
 * 2 GiB either way. Code placed within it of the kernel text (probe
 * patches, grafts) branches back to the text and calls the kernel
 * directly, and a graft's relocations (arch/elf.h) fit their 32-bit
 * fields; kernel/probe/patch_heap.c and kernel/graft/graft_mem.c check
 * their areas against it at build time.
 */
#define ARCH_CODE_REACH   (2ull << 30)

/* Flags for arch_map_page. A mapping is always readable. */
#define MAP_WRITE    0x1u
#define MAP_EXEC     0x2u
#define MAP_NOCACHE  0x4u

static inline void *phys_to_virt(uint64_t pa)
{
	return (void *)(uintptr_t)(DIRECT_MAP_BASE + pa);
}

/*
 * Physical address of a kernel virtual address in the direct map or the
 * kernel image; other addresses go through arch_translate.
 */
static inline uint64_t virt_to_phys(const void *va)
{
	uintptr_t v = (uintptr_t)va;
	if (v >= KERNEL_VIRT_BASE)
		return v - KERNEL_VIRT_BASE;
	return v - DIRECT_MAP_BASE;
}

/*
 * arch_map_page - map one 4 KiB page in the kernel address space.
 * Arguments: va, pa page aligned; flags MAP_*.
 * Return value: 0, -ENOMEM when a page table cannot be allocated,
 *   -EEXIST when va is already mapped.
 * Caller's context: any thread; takes the page-table lock with
 *   interrupts masked. Other CPUs never cached a translation for an
 *   unmapped va, so no TLB shootdown is needed.
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
 * arch_translate - walk the kernel page tables.
 * Return value: the physical address va maps to, or UINT64_MAX; *flags
 * (if not NULL) receives MAP_* for the mapping.
 * Caller's context: any; lock-free read of the tables.
 */
uint64_t arch_translate(uintptr_t va, unsigned *flags);

/* Flush this CPU's whole non-global TLB. */
void arch_flush_tlb_local(void);

#endif
