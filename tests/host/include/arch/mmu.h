/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Host stand-in for the kernel address space: "physical memory" is an
 * arena the test allocates (host_phys_base, host_phys_size), and the
 * direct map is the arena itself.
 */
#ifndef ARCH_MMU_H
#define ARCH_MMU_H

#include <stdint.h>
#include <stddef.h>

extern uintptr_t host_phys_base;
extern size_t host_phys_size;

#define PAGE_SHIFT       12
#define PAGE_SIZE        4096ull
#define DIRECT_MAP_BASE  (host_phys_base)
#define DIRECT_MAP_LIMIT (host_phys_base + host_phys_size)

#define MAP_WRITE    0x1u
#define MAP_EXEC     0x2u
#define MAP_NOCACHE  0x4u

/* The user range as the kernel's: the host tests have no process, so no user memory is read. */
#define USER_BASE    0x0000000000010000ull
#define USER_LIMIT   0x00007ffffffff000ull

static inline int user_range_ok(uintptr_t addr, size_t len)
{
	return addr >= USER_BASE && addr <= USER_LIMIT && len <= USER_LIMIT - addr;
}

static inline void *phys_to_virt(uint64_t pa)
{
	return (void *)(host_phys_base + (uintptr_t)pa);
}

static inline uint64_t virt_to_phys(const void *va)
{
	return (uint64_t)((uintptr_t)va - host_phys_base);
}

#endif
