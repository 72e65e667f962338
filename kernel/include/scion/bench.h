/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Benchmarks run inside the kernel (the test kernel's, tests/kernel/
 * bench_*.c): by the shell command `bench`, which prints each figure as
 * a line `bench NAME VALUE UNIT` for people, and by the channel's
 * "bench" stream (kernel/test/bench_stream.c), which also sends each
 * one as a struct chan_bench_record: `make bench` (tools/bench.py)
 * collects those.
 *
 *   BENCH(xcall_all, 2) { ... bench_report("xcall.all", cycles, "cycles"); }
 */
#ifndef SCION_BENCH_H
#define SCION_BENCH_H

#include <scion/compiler.h>
#include <scion/chan_proto.h>

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

/* Report one figure of the running benchmark. value is per operation; unit says what is counted. */
void bench_report(const char *figure, uint64_t value, const char *unit);

/*
 * Who a run reports to besides the console: report gets every item
 *   (kind: enum chan_bench_kind) in order; stopped, when set, is asked
 *   before each benchmark and ends the run when it says so.
 * Caller's context of both: the running benchmark's thread, which may
 *   sleep; report must not sleep for long (it runs between measurements).
 */
struct bench_client {
	void (*report)(struct bench_client *c, enum chan_bench_kind kind, const char *name,
		       uint64_t value, const char *unit);
	bool (*stopped)(struct bench_client *c);
};

/*
 * bench_claim / bench_unclaim - one run at a time: claim takes the run
 *   (-EBUSY while another is claimed or running), unclaim gives back a
 *   claim that will not run. The stream claims when it opens, so a
 *   second request is refused at once, before its thread starts.
 * Caller's context: any.
 */
int bench_claim(void);
void bench_unclaim(void);

/*
 * bench_run - Overview: run the benchmarks selector matches (a glob
 *   list, "*" for all), printing each figure on the console and handing
 *   it to client too; the claim ends with it.
 * Arguments: selector; client, or NULL (the shell's `bench`).
 * Return value: the number run; -ENOENT when none matched or this
 *   kernel has none (KTEST_NONE_HERE).
 * Caller's context: thread, may sleep; no locks held; the caller holds
 *   the claim (bench_claim).
 */
int bench_run(const char *selector, struct bench_client *client);

/* How many benchmarks selector matches (0: none, or none in this kernel). Any thread. */
unsigned bench_count(const char *selector);

#endif
