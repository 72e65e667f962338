// SPDX-License-Identifier: BSD-2-Clause
/*
 * Step 3 of the adaptation loop, in parallel: the candidate pairs are
 * simulated on the recording by one worker thread per CPU, each taking
 * the next row until none is left. Every row is a simulation instance of
 * its own (kernel/insitu/bcache_instance.c: separate memory, private
 * graft copies, replayed with interrupts masked on whichever CPU runs
 * it), so rows share nothing but the recording, which they only read,
 * and their outcome does not depend on the order or the CPU. The rows
 * of the optimum share the trace's future and run after, one by one.
 * Runs in the loop's thread with adapt.lock held; the workers take no
 * lock of the loop's (they write only their own rows).
 */
#include <scion/atomic.h>
#include <scion/cpu.h>
#include <scion/thread.h>
#include <scion/string.h>
#include "adapt_internal.h"
#include "../insitu/bcache_evaluate.h"

struct eval_job {
	struct recording *r;
	const struct sim_model *model;
	const char (*spec)[REC_POLICY_MAX];
	struct sim_outcome *out;
	int *err;
	char (*why)[ADAPT_WHY_MAX];
	unsigned rows;
	unsigned next;			/* atomic: the next row to take */
};

static void worker(void *arg)
{
	struct eval_job *j = arg;

	for (;;) {
		unsigned k = atomic_fetch_add(&j->next, 1);
		if (k >= j->rows)
			return;
		struct sim_future unused = { 0 };	/* candidates are named policies */
		j->err[k] = sim_bcache_simulate(j->r, j->spec[k], j->model, &unused, &j->out[k],
						j->why[k], ADAPT_WHY_MAX);
		sim_oracle_free(&unused.oracle);
	}
}

unsigned adapt_simulate_rows(struct recording *r, const struct sim_model *model,
			     const char (*spec)[REC_POLICY_MAX], unsigned rows,
			     struct sim_outcome *out, int *err, char (*why)[ADAPT_WHY_MAX])
{
	struct eval_job job = { .r = r, .model = model, .spec = spec, .out = out, .err = err,
				.why = why, .rows = rows };
	struct thread *t[ADAPT_CANDIDATES_MAX];
	unsigned n = cpu_count() < rows ? cpu_count() : rows, started = 0;

	if (n > ADAPT_CANDIDATES_MAX)
		n = ADAPT_CANDIDATES_MAX;
	for (unsigned k = 0; k < n; k++) {
		t[started] = thread_create("adapt-sim", worker, &job, -1);
		if (t[started])
			started++;
	}
	/* Without any worker (no memory) this thread does the rows itself. */
	if (!started)
		worker(&job);
	for (unsigned k = 0; k < started; k++)
		thread_join(t[k]);
	return started ? started : 1;
}
