/* SPDX-License-Identifier: BSD-2-Clause */
/* Interfaces between the files of kernel/mm. */
#ifndef KERNEL_MM_INTERNAL_H
#define KERNEL_MM_INTERNAL_H

#include <scion/compiler.h>

/* Set up the size classes; before the first kmalloc. */
void kmalloc_init(void);

/* A physical range [start, end). */
struct phys_range {
	uint64_t start, end;
};

/*
 * Call add(start, end) for every part of [start, end) that overlaps none
 * of the n ranges in reserved (which need not be sorted or disjoint).
 */
void phys_range_subtract(uint64_t start, uint64_t end, const struct phys_range *reserved,
			 size_t n, void (*add)(uint64_t start, uint64_t end));

#endif
