/* SPDX-License-Identifier: BSD-2-Clause */
/* Sorting and searching arrays of 64-bit values (addresses, mostly). */
#ifndef SCION_SORT_H
#define SCION_SORT_H

#include <scion/compiler.h>

/* Sort a[0..n) ascending, in place, in O(n log n) without allocating (heapsort). */
void sort_u64(uint64_t *a, size_t n);

/* Whether sorted a[0..n) holds a value v with lo < v < hi. */
bool sorted_u64_any_between(const uint64_t *a, size_t n, uint64_t lo, uint64_t hi);

#endif
