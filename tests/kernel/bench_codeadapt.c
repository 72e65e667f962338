// SPDX-License-Identifier: BSD-2-Clause
/*
 * Benchmarks of code adaptations (scion/codeadapt.h): guest instructions
 * per call of codeadapt_fix_sum with n == 16 as compiled, and with its
 * clone for n == 16 installed behind "arg1 == 16" at its entry (the
 * guard, the jump, the clone's body); a call with n == 3, which the
 * guard declines, with and without the splice (what a declined guard
 * adds); and what installing and removing the splice cost. Under
 * `make bench` cycles are guest instructions.
 */
#include <scion/bench.h>
#include <scion/codeadapt.h>
#include <scion/symtab.h>
#include <arch/cpu.h>
#include "codeadapt_fixture.h"

#define CALLS 2000

static uint8_t bytes[64];

static uint64_t per_call(unsigned long n)
{
	volatile uint64_t sink = 0;
	uint64_t c0 = arch_cycles();
	for (unsigned i = 0; i < CALLS; i++)
		sink += codeadapt_fix_sum(bytes, n, i);
	(void)sink;
	return (arch_cycles() - c0) / CALLS;
}

static int install_clone(void)
{
	char err[160];
	const struct ksym *k = symtab_lookup_addr(&kernel_symtab,
						  (uintptr_t)codeadapt_fix_sum_n16, NULL);
	struct codeadapt_spec s = {
		.kind = CODEADAPT_SPECIALIZE, .function = (uintptr_t)codeadapt_fix_sum,
		.version = (uintptr_t)codeadapt_fix_sum_n16,
		.version_start = (uintptr_t)codeadapt_fix_sum_n16,
		.version_end = (uintptr_t)codeadapt_fix_sum_n16 + (k ? k->size : 1),
		.arg = 1, .value = CODEADAPT_SPECIAL_N, .source = "bench",
	};
	return codeadapt_install(&s, err, sizeof(err));
}

BENCH(codeadapt, 1)
{
	uint64_t original = per_call(CODEADAPT_SPECIAL_N), declined_before = per_call(3);

	/* The first install runs the structural analysis (probe_lookup's first use). */
	int id = install_clone();
	if (id <= 0)
		return;
	codeadapt_remove((uint32_t)id);
	uint64_t c0 = arch_cycles();
	id = install_clone();
	uint64_t install = arch_cycles() - c0;
	if (id <= 0)
		return;
	uint64_t specialized = per_call(CODEADAPT_SPECIAL_N), declined = per_call(3);
	c0 = arch_cycles();
	codeadapt_remove((uint32_t)id);
	uint64_t removal = arch_cycles() - c0;

	bench_report("codeadapt.sum_n16.original", original, "cycles");
	bench_report("codeadapt.sum_n16.specialized", specialized, "cycles");
	bench_report("codeadapt.sum_n3.original", declined_before, "cycles");
	bench_report("codeadapt.sum_n3.guard_declined", declined, "cycles");
	bench_report("codeadapt.install", install, "cycles");
	bench_report("codeadapt.remove", removal, "cycles");
}
