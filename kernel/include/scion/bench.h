/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Benchmarks run inside the kernel by the shell command `bench`. Each
 * reports figures as lines `bench NAME VALUE UNIT` that the host side
 * (tools/bench.py, `make bench`) collects with the run's configuration.
 *
 *   BENCH(xcall_all, 2) { ... bench_report("xcall.all", cycles, "cycles"); }
 */
#ifndef SCION_BENCH_H
#define SCION_BENCH_H

#include <scion/compiler.h>

struct bench {
	const char *name;
	void (*fn)(void);
	unsigned min_cpus;
};

LINKER_TABLE_DECLARE(struct bench, benches);

#define BENCH(bname, cpus) \
	static void bench_##bname(void); \
	static const struct bench bench_entry_##bname LINKER_TABLE_ENTRY(benches) = { \
		.name = #bname, .fn = bench_##bname, .min_cpus = (cpus), \
	}; \
	static void bench_##bname(void)

/* Print one figure. value is per operation; unit says what is counted. */
void bench_report(const char *figure, uint64_t value, const char *unit);

#endif
