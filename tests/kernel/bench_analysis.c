// SPDX-License-Identifier: BSD-2-Clause
/*
 * Benchmark of the structural analysis: a fresh analysis of the whole
 * kernel, in cycles (guest instructions under -icount) per kernel
 * instruction analysed.
 */
#include <scion/bench.h>
#include <scion/cfg.h>
#include <scion/symtab.h>
#include <arch/cpu.h>
#include <arch/insn.h>

/* The decoder alone: every kernel function, front to back. */
BENCH(decode, 1)
{
	const struct symtab *st = &kernel_symtab;
	uint64_t insns = 0;
	struct insn in;

	uint64_t c0 = arch_cycles();
	for (uint32_t i = 0; i < st->count; i++) {
		const uint8_t *code = (const uint8_t *)(uintptr_t)st->syms[i].addr;
		for (uint32_t off = 0; off < st->syms[i].size; off += in.length ? in.length : 1, insns++)
			insn_decode(&in, code + off, st->syms[i].size - off, st->syms[i].addr + off);
	}
	uint64_t c1 = arch_cycles();
	if (insns)
		bench_report("decode.per_kernel_instruction", (c1 - c0) / insns, "cycles");
}

BENCH(analysis, 1)
{
	struct cfg_totals t;

	cfg_forget();
	uint64_t c0 = arch_cycles();
	if (cfg_analyse_kernel())
		return;
	uint64_t c1 = arch_cycles();
	cfg_get_totals(&t);
	bench_report("analysis.whole_kernel", c1 - c0, "cycles");
	if (t.insns)
		bench_report("analysis.per_kernel_instruction", (c1 - c0) / t.insns, "cycles");
	bench_report("analysis.kernel_instructions", t.insns, "instructions");
}
