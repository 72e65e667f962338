// SPDX-License-Identifier: BSD-2-Clause
/*
 * build/host/d-oracle: the D oracle's command (tests/dref/dref.h says
 * what it compares). It runs the fixed regression programs -- D as
 * people write it, each over several scenarios -- then N random
 * programs, and prints one line per regression, one for the random run
 * and `N passed, M failed`; a failure prints the program, the firings
 * and the first difference, and how to run that program alone.
 *
 *   d-oracle                      regressions, then 8000 random programs (seed from the clock, printed)
 *   d-oracle --seed 7 --programs 100
 *   d-oracle --seed 7 --only 42   random program 42 of seed 7, printed, with its verdict
 *   d-oracle --reports 50         print up to 50 failures' reports (3 by default)
 *   d-oracle --regressions | --random
 *   d-oracle --nojit              the kernel's side interprets every program (by default
 *                                 it runs the DIF compiler's native code, scion/dif_jit.h)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dref.h"
#include "host_jit.h"
#include <scion/dif_jit.h>

#define DEFAULT_PROGRAMS 8000
#define MAX_FIRINGS 160
#define REPORTS_SHOWN 3		/* failure reports printed (--reports N) */

struct regression {
	const char *name;
	const char *src;
};

/*
 * The class of commit bcd5aac's bug: an aggregation's key or value that
 * loads a thread-local or an array element (which builds its own key in
 * a per-CPU buffer), set by another clause. Then the two the oracle
 * found first: a string key kept more than strsize - 1 bytes when
 * strsize is not a multiple of 8, and integer keys were not converted
 * to their array's or aggregation's key type.
 */
static const struct regression regressions[] = {
	{ "lock_avg_self",
	  "sdt:::acquire { self->t = timestamp; }\n"
	  "sdt:::release /self->t/ { @[\"lock\"] = avg(timestamp - self->t); self->t = 0; }\n" },
	{ "probefunc_quantize_self",
	  "fbt:::entry { self->ts = timestamp; }\n"
	  "fbt:::return /self->ts/ { @[probefunc] = quantize(timestamp - self->ts); self->ts = 0; }\n" },
	{ "probefunc_quantize_self_array",
	  "fbt:::entry { self->ts[probefunc] = timestamp; }\n"
	  "fbt:::return /self->ts[probefunc]/\n"
	  "{\n\t@[probefunc] = quantize(timestamp - self->ts[probefunc]);\n"
	  "\tself->ts[probefunc] = 0;\n}\n" },
	{ "two_keys_second_self",
	  "fbt:::entry { self->n = arg0 & 3; self->s = probefunc; }\n"
	  "sdt:::acquire, fbt:::return\n"
	  "{\n\t@[probefunc, self->n] = count();\n"
	  "\t@bytes[execname, self->s] = sum(arg1 & 0xffff);\n}\n" },
	{ "string_key_self_and_value_self",
	  "sdt:::acquire { self->lock = strjoin(\"lock-\", lltostr(arg0 & 3)); self->t = timestamp; }\n"
	  "sdt:::release /self->t/\n"
	  "{\n\t@hold[self->lock] = avg(timestamp - self->t);\n"
	  "\t@longest[self->lock, cpu] = max(timestamp - self->t);\n"
	  "\t@spread[self->lock] = stddev(timestamp - self->t);\n\tself->t = 0;\n}\n" },
	{ "global_array_keys_and_values",
	  "int last[string];\n"
	  "fbt:::entry { last[probefunc] = arg0 & 0xff; n[probefunc, tid] = timestamp; }\n"
	  "fbt:::return /n[probefunc, tid]/\n"
	  "{\n\t@sd[probefunc] = stddev(last[probefunc]);\n"
	  "\t@lq[probefunc, last[probefunc] & 1] = lquantize(last[probefunc], 0, 256, 16);\n"
	  "\t@llq[probefunc] = llquantize(last[probefunc] * 37, 10, 0, 4, 20, arg1 & 3);\n"
	  "\t@w[last[probefunc] > 100 ? \"big\" : \"small\"] = quantize(timestamp - n[probefunc, tid], "
	  "arg1 & 3);\n\tn[probefunc, tid] = 0;\n}\n" },
	{ "this_and_self_in_keys",
	  "profile:::tick-100 { this->c = cpu; self->ticks++; }\n"
	  "profile:::tick-100 { @ticks[this->c, self->ticks % 3] = count(); trace(self->ticks); }\n" },
	{ "string_keys_cut_at_strsize",
	  "#pragma D option strsize=20\n"
	  "sdt:::acquire, sdt:::release\n"
	  "{\n\t@[execname, probename] = count();\n"
	  "\t@[strjoin(execname, \"\"), probename] = count();\n\ttrace(execname);\n}\n" },
	{ "narrow_keys_convert",
	  "int8_t small[uint8_t];\n"
	  "fbt:::entry { small[arg0 & 0x1ff] = (int8_t)arg1; @k[(uint8_t)(arg0 & 0x1ff)] = count(); }\n"
	  "fbt:::return { trace(small[arg0 & 0x1ff]); @k[arg0 & 0x1ff] = count(); }\n" },
};

#define NREGRESSIONS (sizeof(regressions) / sizeof(regressions[0]))

static uint64_t program_seed(uint64_t seed, unsigned index)
{
	struct dref_rng r;
	dref_rng_seed(&r, seed ^ ((uint64_t)index << 32 | index));
	return dref_rng_u64(&r);
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *verdict_name(enum dref_verdict v)
{
	switch (v) {
	case DREF_AGREE: return "agree";
	case DREF_DISAGREE: return "DISAGREE";
	case DREF_BAD_PROGRAM: return "does not compile (a generator bug)";
	default: return "inconclusive";
	}
}

/* Each regression over a few scenarios: all must agree. */
static int run_regressions(void)
{
	int failed = 0;
	for (unsigned i = 0; i < NREGRESSIONS; i++) {
		struct dref_stats st = { 0 };
		struct dref_buf report = { 0 };
		enum dref_verdict v = DREF_AGREE;
		for (unsigned s = 0; s < 6 && v == DREF_AGREE; s++) {
			struct dref_rng r;
			struct dref_scenario *sc = malloc(sizeof(*sc));
			if (!sc)
				abort();
			dref_rng_seed(&r, 1000 + s);
			dref_scenario_random(&r, sc, MAX_FIRINGS);
			v = dref_check(regressions[i].src, sc, &st, &report);
			free(sc);
		}
		if (v == DREF_AGREE) {
			printf("d-oracle regress %s: OK (%u firings; %u aggregation entries, %u records "
			       "compared)\n", regressions[i].name, st.firings, st.agg_entries,
			       st.records);
		} else {
			printf("d-oracle regress %s: FAILED: the runs %s\n%s", regressions[i].name,
			       verdict_name(v), report.text);
			failed++;
		}
		dref_buf_free(&report);
	}
	return failed;
}

/* Program index of seed: its source and scenario. */
static void make_program(uint64_t seed, unsigned index, struct dref_buf *src,
			 struct dref_scenario *sc)
{
	struct dref_rng r;
	dref_rng_seed(&r, program_seed(seed, index));
	dref_generate(&r, src);
	dref_scenario_random(&r, sc, MAX_FIRINGS);
}

static int run_random(uint64_t seed, unsigned programs, int only, unsigned reports)
{
	struct dref_stats st = { 0 };
	struct dref_scenario *sc = malloc(sizeof(*sc));
	struct dref_buf src = { 0 };
	unsigned shown = 0, first = only >= 0 ? (unsigned)only : 0;
	unsigned last = only >= 0 ? (unsigned)only + 1 : programs;
	double start = seconds();
	if (!sc)
		abort();
	for (unsigned i = first; i < last; i++) {
		struct dref_buf report = { 0 };
		make_program(seed, i, &src, sc);
		enum dref_verdict v = dref_check(src.text, sc, &st, &report);
		if (only >= 0) {
			printf("program %u of seed %" PRIu64 ": the runs %s\n", i, seed, verdict_name(v));
			if (v == DREF_AGREE) {
				printf("%s", src.text);
				struct dref_buf b = { 0 };
				dref_scenario_print(&b, sc);
				printf("%s", b.text);
				dref_buf_free(&b);
			}
		}
		if (v != DREF_AGREE && shown < reports) {
			printf("d-oracle: program %u of seed %" PRIu64 ": the runs %s "
			       "(alone: build/host/d-oracle --seed %" PRIu64 " --only %u)\n%s", i, seed,
			       verdict_name(v), seed, i, report.text);
			shown++;
		}
		dref_buf_free(&report);
	}
	double took = seconds() - start;
	bool ok = !st.disagree && !st.bad_program && !st.inconclusive;
	printf("d-oracle random: %s (%u programs of seed %" PRIu64 ": %u firings of %u enabled "
	       "probes; %u comparisons: %u aggregation entries, %u records, %u globals, "
	       "%" PRIu64 " run-time errors agreed on; %u disagree, %u do not compile, "
	       "%u inconclusive; %.1f s)\n", ok ? "OK" : "FAILED", st.programs, seed, st.firings,
	       st.ecbs, st.comparisons, st.agg_entries, st.records, st.globals, st.errors_seen,
	       st.disagree, st.bad_program, st.inconclusive, took);
	dref_buf_free(&src);
	free(sc);
	return ok ? 0 : 1;
}

/*
 * The programs ran as native code wherever this machine has a DIF
 * compiler: a kernel that silently stopped compiling would otherwise
 * pass as well as one that compiles.
 */
static int check_native(void)
{
	static const struct dif_insn ret[] = { { .op = DIF_OP_RET } };
	struct dif_prog p = { .insns = ret, .ninsns = 1 };
	bool has_compiler = !dif_jit_compile(&p);
	dif_jit_release(&p);
	size_t n = host_jit_compiled();
	bool ok = !has_compiler || n > 1;
	printf("d-oracle native: %s (%zu programs compiled to native code%s)\n",
	       ok ? "OK" : "FAILED", n - has_compiler,
	       has_compiler ? "" : "; this machine has no DIF compiler");
	return ok ? 0 : 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: d-oracle [--seed N] [--programs N] [--only I] [--reports N] "
		"[--regressions | --random] [--nojit]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20);
	unsigned programs = DEFAULT_PROGRAMS, reports = REPORTS_SHOWN;
	int only = -1;
	bool regress = true, random = true;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--programs") && i + 1 < argc)
			programs = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--reports") && i + 1 < argc)
			reports = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = (int)strtol(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--regressions"))
			random = false;
		else if (!strcmp(argv[i], "--random"))
			regress = false;
		else if (!strcmp(argv[i], "--nojit"))
			host_jit_enabled = false;
		else
			usage();
	}
	if (only >= 0)
		regress = false;
	int failed = 0, passed = 0;
	if (regress) {
		int f = run_regressions();
		failed += f;
		passed += (int)NREGRESSIONS - f;
	}
	if (random) {
		int f = run_random(seed, programs, only, reports);
		failed += f;
		passed += !f;
	}
	if (host_jit_enabled && only < 0) {
		int f = check_native();
		failed += f;
		passed += !f;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
