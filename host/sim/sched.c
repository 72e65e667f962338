// SPDX-License-Identifier: BSD-2-Clause
/*
 * scion-sim's replay of a scheduler trace (main.c dispatches on the
 * trace's module): for each pick-next policy a simulation built from
 * the trace by the kernel's own code (kernel/insitu/sched_replay.c over the
 * kernel's run queue, kernel/sched/runq.c), its picks written as
 * OUT/NAME.log.bin, and the comparison printed as the kernel's `sim run`
 * prints it (kernel/insitu/cmd_sim_sched.c): a row per policy beside the
 * live one's, then each thread's wait and done ticks under every
 * policy. Every policy is checked before anything runs; a log is
 * written to NAME.log.bin.part and renamed only once whole. --follow
 * (the recorded history instead of the open-loop model) is follow.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sim_host.h"

#define MAX_POLICIES 16

struct sched_log_out {
	struct log_file *lf;
	const struct sched_sim *sim;
	bool progress;
	unsigned last_percent;
	const char *label;
};

static int emit(void *ctx, const struct rec_head *rec)
{
	struct sched_log_out *o = ctx;
	const struct sched_sim *sim = o->sim;
	uint64_t span = sim->last_tick - sim->start + 1;

	if (o->progress && span >= 1000) {
		uint64_t pct = sim->now * 100 / span;
		if (pct != o->last_percent && pct <= 100) {
			o->last_percent = (unsigned)pct;
			fprintf(stderr, "\rreplaying %s: about %u%% of the trace's ticks", o->label,
				(unsigned)pct);
		}
	}
	return log_put(o->lf, rec, rec->size);
}

/*
 * One policy: a simulation (built from the trace unless built is true: sim
 * was just built and has not run), its log into OUT_DIR/NAME.log.bin, one row.
 */
static int simulate(struct stream_file *trace, const char *name, const char *out_dir,
		    bool progress, struct sched_sim *sim, bool built)
{
	char why[300], policy[REC_POLICY_MAX], path[4300], line[512];

	if (!built && sched_sim_build(sim, &trace->header, reader(trace), why, sizeof(why)))
		return fail("%s: %s", trace->path, why);
	sim_host_sched_use(&sim->rq, name);
	sched_sim_policy_format(name, policy, sizeof(policy));
	snprintf(path, sizeof(path), "%s/%s.log.bin", out_dir, name);
	struct log_file lf;
	FILE *fp = log_open(&lf, trace, policy, path);
	if (!fp)
		return 1;
	struct sched_log_out o = { .lf = &lf, .sim = sim, .progress = progress, .last_percent = 101,
				   .label = name };
	int err = sched_sim_run(sim, emit, &o);
	if (o.last_percent != 101)
		fputc('\n', stderr);
	if (log_close(&lf, sim->sum.picks, err, NULL))
		return 1;
	sched_sim_format_row(line, sizeof(line), name, &sim->sum, path);
	printf("%s\n", line);
	if (sim_host_aborts())
		printf("scion-sim: %s: %llu graft invocations aborted (the default answered, as "
		       "live)\n", name, (unsigned long long)sim_host_aborts());
	return 0;
}

/* The summary line, the table's header and the live row. 0, or 1 (said why). */
static int describe(struct stream_file *trace, struct stream_file *log, struct sched_sim *sim)
{
	char why[300], line[512];

	if (sched_sim_build(sim, &trace->header, reader(trace), why, sizeof(why)))
		return fail("%s: %s", trace->path, why);
	const struct rec_file_header *th = &trace->header;
	printf("sim: %s: sched, %llu events, %u threads, %llu CPUs, %llu Hz, slice %llu ticks, "
	       "ticks %llu..%llu\n", trace->path, (unsigned long long)th->records, sim->nthreads,
	       (unsigned long long)th->config[REC_SCHED_CONFIG_CPUS],
	       (unsigned long long)th->config[REC_SCHED_CONFIG_HZ],
	       (unsigned long long)th->config[REC_SCHED_CONFIG_SLICE],
	       (unsigned long long)sim->start, (unsigned long long)sim->last_tick);
	sched_sim_format_header(line, sizeof(line));
	printf("%s\n", line);
	if (log) {
		struct sched_sim_summary live;
		char label[REC_POLICY_MAX + 8];
		sched_sim_live_summary(sim, reader(log), &live);
		snprintf(label, sizeof(label), "live %s", log->header.policy);
		sched_sim_format_row(line, sizeof(line), label, &live, "(measured)");
		printf("%s\n", line);
	}
	return 0;
}

int sim_sched_replay(struct stream_file *trace, struct stream_file *log,
		     const char *const *policies, int npolicies, const char *out_dir, bool progress,
		     bool follow)
{
	char why[300], names[MAX_POLICIES][32], line[512];
	static struct sched_sim sim;

	if (sched_sim_check_header(&trace->header, REC_STREAM_TRACE, why, sizeof(why)))
		return fail("%s: %s", trace->path, why);
	if (log && sched_sim_check_header(&log->header, REC_STREAM_LOG, why, sizeof(why)))
		return fail("%s: %s", log->path, why);
	for (int k = 0; k < npolicies && k < MAX_POLICIES; k++)
		if (sched_sim_policy_parse(policies[k], sim_host_sched_known, names[k],
					   sizeof(names[k]), why, sizeof(why)))
			return fail("%s is a sched trace: %s", trace->path, why);
	if (follow)
		return sim_sched_follow(trace, log, names, npolicies, out_dir, progress);
	/*
	 * The build describe makes is the first policy's simulation (a build is most
	 * of a replay's time); the thread rows at the end need only what no replay
	 * changes (each thread's id, phases and ticks run): a copy of the threads.
	 */
	if (describe(trace, log, &sim))
		return 1;
	unsigned nthreads = sim.nthreads;
	size_t cells = (size_t)npolicies * (nthreads ? nthreads : 1);
	uint64_t *waits = calloc(cells, sizeof(*waits)), *dones = calloc(cells, sizeof(*dones));
	struct sched_sim_thread *threads = malloc((nthreads ? nthreads : 1) * sizeof(*threads));
	int status = waits && dones && threads ? 0 : fail("out of memory");
	if (threads && nthreads)
		memcpy(threads, sim.thread, nthreads * sizeof(*threads));
	for (int k = 0; k < npolicies && !status; k++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		status = simulate(trace, names[k], out_dir, progress, &sim, k == 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		for (unsigned i = 0; !status && i < sim.nthreads; i++) {
			waits[(size_t)k * nthreads + i] = sim.thread[i].wait;
			dones[(size_t)k * nthreads + i] = sim.thread[i].done;
		}
		double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (!status && (sim_verbose || getenv("SCION_SIM_RATE")))
			fprintf(stderr, "scion-sim: %s: %.0f events per second\n", names[k],
				s > 0 ? (double)trace->header.records / s : 0.0);
		sched_sim_free(&sim);
	}
	if (!status) {
		const char *labels[MAX_POLICIES];
		uint64_t w[MAX_POLICIES], d[MAX_POLICIES];
		for (int k = 0; k < npolicies; k++)
			labels[k] = names[k];
		sched_sim_format_threads_header(line, sizeof(line), labels, (unsigned)npolicies);
		printf("%s\n", line);
		for (unsigned i = 0; i < nthreads; i++) {
			for (int k = 0; k < npolicies; k++) {
				w[k] = waits[(size_t)k * nthreads + i];
				d[k] = dones[(size_t)k * nthreads + i];
			}
			sched_sim_format_thread_row(line, sizeof(line), &threads[i], w, d,
						    (unsigned)npolicies);
			printf("%s\n", line);
		}
	}
	free(waits);
	free(dones);
	free(threads);
	sched_sim_free(&sim);
	return status;
}
