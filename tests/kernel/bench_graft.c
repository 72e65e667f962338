// SPDX-License-Identifier: BSD-2-Clause
/*
 * Benchmarks of graft dispatch and transactions at test.method: a direct
 * call of the default, the call through the graft point with nothing
 * grafted (one indirect call), an empty graft in its transaction (begin
 * + commit), and an invocation that logs N undo records and then
 * commits or aborts, N = 0, 10, 100. Aborts are timed without their
 * console line (a benchmark graft does not log). Under `make bench`
 * (-icount shift=0) cycles are guest instructions.
 */
#include <scion/bench.h>
#include <scion/graft.h>
#include <scion/format.h>
#include <arch/cpu.h>
#include <graft/test.h>

#define CALLS 1000
#define ROUNDS 5
#define ABORT_ROUNDS 50

extern graft_fn_test_method *test_method_slot;
long test_method_direct(long a, long b);

static volatile long sink;
static volatile long records_wanted;
static volatile bool abort_wanted;

__used __noinline long bench_graft_empty(long a, long b)
{
	return a + b;
}

__used __noinline long bench_graft_records(long a, long b)
{
	for (long i = 0; i < records_wanted; i++)
		test_cell_set((unsigned)i % TEST_CELLS, (uint64_t)i);
	if (abort_wanted)
		graft_abort("benchmark");
	return a + b;
}

/* Least cycles per call over ROUNDS rounds of CALLS calls. */
static uint64_t per_call(bool through_slot)
{
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < ROUNDS; r++) {
		long acc = 0;
		uint64_t c0 = arch_cycles();
		for (long i = 0; i < CALLS; i++)
			acc += through_slot ? test_method_slot(i, 1) : test_method_direct(i, 1);
		uint64_t c = (arch_cycles() - c0) / CALLS;
		sink = acc;
		if (c < best)
			best = c;
	}
	return best;
}

static struct graft *installed(const char *name, void *fn)
{
	char err[96];
	struct graft *g = graft_create_builtin(name, "test.method", fn);
	if (!g)
		return NULL;
	g->quiet = true;
	if (graft_install(g, 0, err, sizeof(err))) {
		graft_destroy_builtin(g);
		return NULL;
	}
	return g;
}

BENCH(graft_dispatch, 1)
{
	bench_report("graft.call.direct", per_call(false), "cycles");
	bench_report("graft.call.ungrafted_point", per_call(true), "cycles");
	struct graft *g = installed("bench-empty", bench_graft_empty);
	if (!g)
		return;
	bench_report("graft.call.empty_graft_txn", per_call(true), "cycles");
	graft_destroy_builtin(g);
}

/* Least cycles of one invocation logging n records, then committing or aborting. */
static uint64_t invocation(long n, bool do_abort)
{
	uint64_t best = UINT64_MAX;
	records_wanted = n;
	abort_wanted = do_abort;
	struct graft *g = installed("bench-records", bench_graft_records);
	if (!g)
		return 0;
	for (int r = 0; r < ABORT_ROUNDS; r++) {
		char err[96];
		if (!g->installed && graft_install(g, 0, err, sizeof(err)))
			break;
		uint64_t c0 = arch_cycles();
		sink = test_method_slot(r, 1);
		uint64_t c = arch_cycles() - c0;
		if (c < best)
			best = c;
	}
	graft_destroy_builtin(g);
	return best;
}

BENCH(graft_txn, 1)
{
	static const long sizes[] = { 0, 10, 100 };
	char figure[48];
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(figure, sizeof(figure), "graft.commit.undo%ld", sizes[i]);
		bench_report(figure, invocation(sizes[i], false), "cycles");
		snprintf(figure, sizeof(figure), "graft.abort.undo%ld", sizes[i]);
		bench_report(figure, invocation(sizes[i], true), "cycles");
	}
}
