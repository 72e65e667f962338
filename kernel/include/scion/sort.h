/* SPDX-License-Identifier: BSD-2-Clause */
/* Sorting and searching arrays of 64-bit values (addresses, mostly). */
#ifndef SCION_SORT_H
#define SCION_SORT_H

#include <scion/compiler.h>

/* Sort a[0..n) ascending, in place, in O(n log n) without allocating (heapsort). */
void sort_u64(uint64_t *a, size_t n);

/*
 * Whether sorted a[0..n) holds a value v with lo < v < hi. Inline: every
 * probe site being created asks, and a call would hit the probes already
 * enabled on it while fbt::: is being enabled (issue 28).
 */
static inline bool sorted_u64_any_between(const uint64_t *a, size_t n, uint64_t lo, uint64_t hi)
{
	size_t first = 0, count = n;	/* first element > lo */
	while (count) {
		size_t half = count / 2;
		if (a[first + half] <= lo) {
			first += half + 1;
			count -= half + 1;
		} else {
			count = half;
		}
	}
	return first < n && a[first] < hi;
}

#endif
