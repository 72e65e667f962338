// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: the D oracle (tests/dref/) with its decisions taken
 * from the fuzz input instead of a seed. The input's bytes choose the
 * program (options, variables, clauses, statements, expressions) and
 * then the firings (probes, CPUs, threads, arguments, clock, drains);
 * past its end every choice is the first one, so any input makes a
 * valid program. The program is compiled by the D library and run by the
 * reference evaluator and by the kernel's trace machinery (kernel/trace/
 * on the host stand-ins of tests/dref/dref_kernel.c); a difference, a
 * program that does not compile (a generator bug) or a run the oracle
 * cannot judge is a crash, with the program, the firings and the
 * difference on stderr. Few firings per input, to stay fast.
 */
#include <string.h>
#include "fuzz.h"
#include "../dref/dref.h"

#define FIRINGS 48

static const char *verdict_name(enum dref_verdict v)
{
	switch (v) {
	case DREF_DISAGREE: return "the runs disagree";
	case DREF_BAD_PROGRAM: return "the generated program does not compile";
	default: return "the oracle cannot judge the run";
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dref_scenario sc;
	struct dref_rng r;
	struct dref_buf src = { 0 }, report = { 0 };
	struct dref_stats stats = { 0 };

	dref_rng_bytes(&r, data, size);
	dref_generate(&r, &src);
	dref_scenario_random(&r, &sc, FIRINGS);
	enum dref_verdict v = dref_check(src.text, &sc, &stats, &report);
	if (v != DREF_AGREE) {
		fprintf(stderr, "%s", report.text);
		FUZZ_ASSERT(v == DREF_AGREE, "d-oracle: %s", verdict_name(v));
	}
	dref_buf_free(&src);
	dref_buf_free(&report);
	return 0;
}
