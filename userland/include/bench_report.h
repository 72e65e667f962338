/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the benchmark programs share (bench_syscalls.c, bench_fs.c): the
 * time-stamp counter, unbuffered output (one write a line, never stdio:
 * musl's stdout asks the terminal's size on first use), and the row line
 * tools/bench_compare.py parses (its ROW_RE is bench_report's printf's
 * twin):
 *
 *   bench: NAME VALUE insns/op (min of K batches of N; median MEDIAN)
 *
 * VALUE and MEDIAN are a batch's total over N, rounded to the nearest.
 */
#ifndef USERLAND_BENCH_REPORT_H
#define USERLAND_BENCH_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline uint64_t tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline void say(const char *line)
{
	size_t len = strlen(line), done = 0;
	while (done < len) {
		ssize_t n = write(1, line + done, len - done);
		if (n <= 0)
			_exit(2);
		done += (size_t)n;
	}
}

static inline int bench_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* values[0..k) hold k batch totals of n operations each: sort them, print the row. */
static inline void bench_report(const char *row, uint64_t *values, int k, int n)
{
	char line[160];
	qsort(values, (size_t)k, sizeof(values[0]), bench_cmp_u64);
	uint64_t min = (values[0] + (uint64_t)n / 2) / (uint64_t)n;
	uint64_t med = (values[k / 2] + (uint64_t)n / 2) / (uint64_t)n;
	snprintf(line, sizeof(line), "bench: %s %llu insns/op (min of %d batches of %d; median %llu)\n",
		 row, (unsigned long long)min, k, n, (unsigned long long)med);
	say(line);
}

#endif
