// SPDX-License-Identifier: BSD-2-Clause
/*
 * Benchmarks of self-removing block coverage (scion/coverage.h) over the
 * directory name lookup cache's functions (dnlc_*), KernInst's "the
 * overhead decreases over time": a workload's rounds with no coverage,
 * with permanent counters (a run that is never reaped) and with
 * self-removing splices (a reap after each round, as the reaper thread
 * would do, here at fixed points so the figures repeat), each round
 * reaching a few blocks the earlier ones did not. Also what arming costs
 * per block, what one reap costs, and what a counter splice adds per
 * block hit. Under `make bench` cycles are guest instructions.
 */
#include <scion/bench.h>
#include <scion/coverage.h>
#include <scion/dnlc.h>
#include <scion/format.h>
#include <arch/cpu.h>

#define ROUNDS   4
#define CALLS    200
#define BENCH_FS 0xfffffff2u

static const char *const functions[] = { "dnlc_*" };

/*
 * One round: enters, hits, misses and removals of CALLS names; round r
 * also looks up names too long to cache from round 2 on and purges the
 * file system in the last, so later rounds still reach new blocks.
 */
static uint64_t workload_round(unsigned r)
{
	char name[48];
	uint64_t ino, c0 = arch_cycles();

	for (unsigned i = 0; i < CALLS; i++) {
		size_t len = (size_t)snprintf(name, sizeof(name), "cov%u-%u", r, i);
		dnlc_enter(BENCH_FS, 2, name, len, i + 10);
		dnlc_lookup(BENCH_FS, 2, name, len, &ino);
		dnlc_lookup(BENCH_FS, 3, name, len, &ino);
		if (i % 2)
			dnlc_remove(BENCH_FS, 2, name, len);
		if (r >= 1) {
			len = (size_t)snprintf(name, sizeof(name), "a-name-longer-than-the-cache-"
					       "keeps-%u-%u", r, i);
			dnlc_lookup(BENCH_FS, 2, name, len, &ino);
		}
	}
	if (r == ROUNDS - 1)
		dnlc_purge_fs(BENCH_FS);
	return arch_cycles() - c0;
}

static bool add_hits(const struct coverage_block *b, void *arg)
{
	*(uint64_t *)arg += b->hits;
	return true;
}

static void report_round(const char *how, unsigned r, uint64_t cycles)
{
	char figure[64];
	snprintf(figure, sizeof(figure), "coverage.dnlc_round%u.%s", r + 1, how);
	bench_report(figure, cycles, "cycles");
}

BENCH(coverage, 1)
{
	uint64_t none[ROUNDS];
	const char *why;

	dnlc_purge_fs(BENCH_FS);
	for (unsigned r = 0; r < ROUNDS; r++)
		report_round("none", r, none[r] = workload_round(r));

	/* Permanent counters: armed, never reaped. (The first start runs the analysis.) */
	if (coverage_start(functions, 1, 0, &why) <= 0)
		return;
	uint64_t first_hits = 0, first = 0;
	for (unsigned r = 0; r < ROUNDS; r++) {
		uint64_t c = workload_round(r);
		report_round("permanent", r, c);
		if (!r) {
			first = c;
			coverage_foreach_block(add_hits, &first_hits);
		}
	}
	coverage_stop();
	if (first_hits && first > none[0])
		bench_report("coverage.per_block_hit", (first - none[0]) / first_hits, "cycles");

	/* Self-removing: a reap after each round. */
	uint64_t c0 = arch_cycles();
	int blocks = coverage_start(functions, 1, 0, &why);
	uint64_t armed = arch_cycles() - c0;
	if (blocks <= 0)
		return;
	bench_report("coverage.arm_per_block", armed / (uint64_t)blocks, "cycles");
	for (unsigned r = 0; r < ROUNDS; r++) {
		report_round("self_removing", r, workload_round(r));
		c0 = arch_cycles();
		unsigned out = coverage_reap();
		if (!r && out)
			bench_report("coverage.reap_per_splice", (arch_cycles() - c0) / out,
				     "cycles");
	}
	coverage_stop();
}
