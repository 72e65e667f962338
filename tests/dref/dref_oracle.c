// SPDX-License-Identifier: BSD-2-Clause
/*
 * One program end to end (dref_check): compile it with the real front
 * end and code generator, match its clauses to the probes, run it
 * through the reference evaluator and through the kernel, compare.
 *
 * Verdicts: the runs agree; they disagree (a bug in the compiler or the
 * kernel, reported with the program, the firings and the first
 * difference); the program does not compile (a generator bug, counted as
 * such); or the run says nothing (the kernel dropped data for want of
 * room, ran out of scratch space, or the evaluator met something it does
 * not model: the generator should make none of these, so they are
 * counted and shown too).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <scion/dif_exec.h>
#include "dref.h"

static bool kernel_ran_short(const struct dref_results *got, struct dref_buf *why)
{
	if (got->dynvar_drops || got->agg_drops || got->record_drops) {
		dref_printf(why, "the kernel dropped data: %llu dynamic variable, %llu aggregation, "
			    "%llu record drops\n", (unsigned long long)got->dynvar_drops,
			    (unsigned long long)got->agg_drops, (unsigned long long)got->record_drops);
		return true;
	}
	for (unsigned i = 0; i < got->nrecs; i++) {
		const struct dref_record *r = &got->recs[i];
		const struct dof_rechdr *h = (const struct dof_rechdr *)r->bytes;
		if (r->size == sizeof(*h) + sizeof(struct dof_error) && h->epid == DOF_EPID_ERROR &&
		    ((const struct dof_error *)(h + 1))->fault == DIF_FAULT_NOSCRATCH) {
			dref_printf(why, "the kernel ran out of scratch space (EPID %u)\n",
				    ((const struct dof_error *)(h + 1))->epid);
			return true;
		}
	}
	return false;
}

static void describe(struct dref_buf *report, const char *src, const struct dref_scenario *sc,
		     const struct dref_buf *why)
{
	dref_printf(report, "---- program ----\n%s", src);
	if (src[0] && src[strlen(src) - 1] != '\n')
		dref_printf(report, "\n");
	dref_printf(report, "---- ");
	dref_scenario_print(report, sc);
	dref_printf(report, "---- outcome ----\n%s", why->text ? why->text : "");
}

enum dref_verdict dref_check(const char *src, const struct dref_scenario *sc,
			     struct dref_stats *stats, struct dref_buf *report)
{
	struct dref_buf why = { 0 };
	struct dt_object *obj = NULL;
	struct dref_results want, got;
	struct dref_ecbs *ecbs = malloc(sizeof(*ecbs));
	enum dref_verdict verdict;
	char line[512];

	if (!ecbs)
		abort();
	stats->programs++;
	struct dt_program *p = dt_compile(src, strlen(src), "oracle.d", 0, NULL, 0);
	if (!p || p->nerrors || dt_generate(p, &obj)) {
		if (p && p->nerrors)
			dt_error_format(&p->errors[0], DT_ERRFMT_TAGGED, line, sizeof(line));
		else
			snprintf(line, sizeof(line), "out of memory");
		dref_printf(&why, "the program does not compile: %s\n", line);
		stats->bad_program++;
		describe(report, src, sc, &why);
		dref_buf_free(&why);
		dt_program_free(p);
		free(ecbs);
		return DREF_BAD_PROGRAM;
	}
	dref_match(p, ecbs);
	stats->ecbs += ecbs->n;
	stats->firings += sc->nfirings + 2;
	dref_results_init(&want, p);
	dref_results_init(&got, p);
	if (dref_kernel_run(obj, sc, ecbs, &got, line, sizeof(line))) {
		dref_printf(&why, "the kernel refused the compiler's object: %s\n", line);
		verdict = DREF_DISAGREE;
	} else if (dref_evaluate(obj, sc, ecbs, &want, line, sizeof(line))) {
		dref_printf(&why, "%s\n", line);
		verdict = DREF_INCONCLUSIVE;
	} else if (kernel_ran_short(&got, &why)) {
		verdict = DREF_INCONCLUSIVE;
	} else if (dref_compare(obj, &want, &got, &why, stats)) {
		verdict = DREF_AGREE;
		stats->errors_seen += got.errors;
	} else {
		verdict = DREF_DISAGREE;
	}
	if (verdict == DREF_DISAGREE)
		stats->disagree++;
	if (verdict == DREF_INCONCLUSIVE)
		stats->inconclusive++;
	if (verdict != DREF_AGREE)
		describe(report, src, sc, &why);
	dref_results_free(&want);
	dref_results_free(&got);
	dref_buf_free(&why);
	dt_program_free(p);
	free(ecbs);
	return verdict;
}
