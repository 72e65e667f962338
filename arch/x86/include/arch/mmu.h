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
 * The lower half is unmapped once boot is over; each user address space
 * (struct arch_as) maps its own lower half and shares this kernel half:
 *   USER_BASE        0x0000000000010000  lowest user mapping (NULL pages stay unmapped)
 *   USER_LIMIT       0x00007ffffffff000  end of user mappings (exclusive): the last
 *                                         canonical page stays unmapped so that no
 *                                         SYSRET ever returns to a non-canonical pc
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
/* No far patch arena: jmp rel32 reaches the whole near one from all the text. */
#define PATCH_FAR_CODE_BASE 0ull
#define PATCH_FAR_CODE_SIZE 0ull
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
#define MAP_USER     0x8u	/* user-accessible: arch_as_map only */

#define USER_BASE    0x0000000000010000ull
#define USER_LIMIT   0x00007ffffffff000ull

/* Whether [addr, addr + len) lies wholly in the user range (len 0: addr itself). */
static inline int user_range_ok(uintptr_t addr, size_t len)
{
	return addr >= USER_BASE && addr <= USER_LIMIT && len <= USER_LIMIT - addr;
}

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
 * arch_page_zero, arch_page_copy - clear or copy one whole page-aligned
 *   4 KiB page with one string instruction of 8-byte words: fast on
 *   hardware, and 512 counted instructions under QEMU's -icount, which
 *   counts every iteration of a rep as one (a byte loop would be 4096).
 * Caller's context: any; both pages mapped.
 */
static inline void arch_page_zero(void *page)
{
	void *d = page;
	size_t n = PAGE_SIZE / 8;
	__asm__ __volatile__("rep stosq" : "+D"(d), "+c"(n) : "a"(0ull) : "memory");
}

static inline void arch_page_copy(void *dst, const void *src)
{
	void *d = dst;
	const void *s = src;
	size_t n = PAGE_SIZE / 8;
	__asm__ __volatile__("rep movsq" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

#include <scion/mmu_arch.h>

#endif
