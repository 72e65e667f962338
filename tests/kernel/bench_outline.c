// SPDX-License-Identifier: BSD-2-Clause
/*
 * Benchmark of outlining (scion/outline.h): what a call of
 * outline_fix_checked (outline_fixtures.c) costs as compiled, with a
 * plain copy behind the entry redirect (what the redirect alone adds)
 * and with the copy whose error path is out of line, for short calls
 * (3 rounds of its loop) and long ones (40). Under `make bench`
 * (-icount shift=0) cycles are guest instructions; the outlined copy
 * runs the same instructions as the original but for the redirect and
 * the jumps its moved fall-throughs need, so its gain is in taken
 * branches and cache lines, which instruction counts do not show. A
 * port that cannot outline reports the refusal and no figures.
 */
#include <scion/bench.h>
#include <scion/outline.h>
#include <scion/codeadapt.h>
#include <scion/cfg.h>
#include <scion/printk.h>
#include <scion/format.h>
#include <arch/cpu.h>
#include "outline_test.h"

#define CALLS  1000
#define ROUNDS 5

static volatile long sink;

/* Cycles per call with y loop rounds, the least of ROUNDS rounds (a tick inflates one). */
static uint64_t per_call(long y)
{
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < ROUNDS; r++) {
		long acc = 0;
		uint64_t c0 = arch_cycles();
		for (long i = 0; i < CALLS; i++)
			acc += outline_fix_checked(i & 15, y);
		uint64_t c = (arch_cycles() - c0) / CALLS;
		sink = acc;
		if (c < best)
			best = c;
	}
	return best;
}

static void report(const char *how)
{
	char figure[64];
	snprintf(figure, sizeof(figure), "outline.checked_short.%s", how);
	bench_report(figure, per_call(3), "cycles");
	snprintf(figure, sizeof(figure), "outline.checked_long.%s", how);
	bench_report(figure, per_call(40), "cycles");
}

/* Cold: the blocks that can only reach the call of outline_fix_fail (the error path). */
static void mark_error_path(const struct cfg_function *f, bool *cold)
{
	for (uint32_t i = 0; i < f->nblocks; i++)
		cold[i] = false;
	for (uint32_t k = 0; k < f->ncalls; k++)
		if (f->calls[k].target == (uintptr_t)outline_fix_fail)
			cold[cfg_block_at(f, f->calls[k].site) - f->blocks] = true;
	for (bool grew = true; grew;) {
		grew = false;
		for (uint32_t i = 1; i < f->nblocks; i++) {
			const struct cfg_block *b = &f->blocks[i];
			bool only = b->nsucc && !cold[i];
			for (uint32_t s = 0; only && s < b->nsucc; s++)
				only = cold[f->succ[b->first_succ + s]];
			if (only)
				cold[i] = grew = true;
		}
	}
	cold[0] = false;
}

/* Install a copy (all hot, or with the error path cold), measure, remove. */
static bool measure_installed(const char *how, const bool *cold)
{
	struct outline_copy *c;
	char err[160];

	if (outline_build((uintptr_t)outline_fix_checked, cold, &c, err, sizeof(err))) {
		printk("bench outline: %s\n", err);
		return false;
	}
	int id = outline_install(c, err, sizeof(err));
	if (id < 0) {
		printk("bench outline: %s\n", err);
		return false;
	}
	report(how);
	codeadapt_remove((uint32_t)id);
	codeadapt_collect();
	return true;
}

BENCH(outline, 1)
{
	const struct cfg_function *f = cfg_function_at((uintptr_t)outline_fix_checked);
	bool cold[64];

	if (!f || f->nblocks > 64)
		return;
	report("original");
	if (!measure_installed("plain_copy", NULL))
		return;
	mark_error_path(f, cold);
	measure_installed("outlined", cold);
}
