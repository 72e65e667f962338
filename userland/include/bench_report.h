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
 *
 * A row that may wait (for the disk, say) is also measured by the calling
 * thread's CPU clock (clock_gettime(CLOCK_THREAD_CPUTIME_ID), the same
 * call on both kernels): under -icount sleep=off the TSC jumps over the
 * guest's idle time, so only the thread's own clock counts the
 * instructions it ran (in guest nanoseconds, one per instruction under
 * shift=0). Such a row prints a twin, NAME_cpu, whose figures have the
 * clock's own cost (one read's return and the next read's entry, the
 * least of many back-to-back pairs) taken off each window.
 */
#ifndef USERLAND_BENCH_REPORT_H
#define USERLAND_BENCH_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		_exit(3);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One timed window on both clocks. */
struct bench_window {
	uint64_t tsc, cpu;
};

static inline struct bench_window window_open(void)
{
	struct bench_window w;
	w.cpu = thread_cpu_ns();
	w.tsc = tsc();
	return w;
}

/* What the window took on each clock, into *tsc_total and *cpu_total. */
static inline void window_close(struct bench_window w, uint64_t *tsc_total, uint64_t *cpu_total)
{
	uint64_t t = tsc();
	uint64_t c = thread_cpu_ns();
	*tsc_total += t - w.tsc;
	*cpu_total += c - w.cpu;
}

/* The thread clock's cost inside a window: the least of many back-to-back reads. */
static inline uint64_t thread_cpu_overhead(void)
{
	uint64_t least = UINT64_MAX;
	for (int i = 0; i < 200; i++) {
		uint64_t a = thread_cpu_ns(), b = thread_cpu_ns();
		if (b - a < least)
			least = b - a;
	}
	return least;
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

/*
 * The twin row NAME_cpu: cpu[0..k) hold the k batches' thread-clock totals
 * over windows windows each; the clock's overhead comes off every window
 * (never below zero).
 */
static inline void bench_report_cpu(const char *row, uint64_t *cpu, int k, int n, int windows,
				    uint64_t overhead)
{
	char name[64];
	for (int i = 0; i < k; i++) {
		uint64_t off = overhead * (uint64_t)windows;
		cpu[i] = cpu[i] > off ? cpu[i] - off : 0;
	}
	snprintf(name, sizeof(name), "%s_cpu", row);
	bench_report(name, cpu, k, n);
}

#endif
