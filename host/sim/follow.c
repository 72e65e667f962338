// SPDX-License-Identifier: BSD-2-Clause
/*
 * scion-sim's follow of a scheduler recording (`scion sim replay DIR
 * --policy P --follow`; sched.c hands it over): for each pick-next
 * policy, the kernel's own follow (kernel/insitu/sched_follow.c over the
 * kernel's run queue) of the trace and log together, the policy asked
 * at each recorded pick, its answers written as OUT/NAME.follow.log.bin
 * (as NAME.follow.log.bin.part until whole), and a row per policy with
 * its agreement, as the kernel's `sim run REC ... mode=follow` prints
 * it (kernel/insitu/cmd_sim_follow.c). The follow's checks do not depend on
 * the policy, so a recording whose records do not fit its history is
 * refused with one line by the first policy, before the table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sim_host.h"

struct follow_out {
	struct log_file *lf;
	bool write_failed;
	const struct sched_follow *f;
	uint64_t picks;			/* the recorded log's, for progress */
	bool progress;
	unsigned last_percent;
	const char *label;
};

static int emit(void *ctx, const struct rec_head *rec)
{
	struct follow_out *o = ctx;

	if (o->progress && o->picks >= 1000) {
		unsigned pct = (unsigned)(o->f->sum.picks * 100 / o->picks);
		if (pct != o->last_percent) {
			o->last_percent = pct;
			fprintf(stderr, "\rfollowing with %s: %u%% (%llu of %llu picks)", o->label,
				pct, (unsigned long long)o->f->sum.picks,
				(unsigned long long)o->picks);
		}
	}
	if (!log_put(o->lf, rec, rec->size))
		return 0;
	o->write_failed = true;
	return -EIO;
}

/* The summary line, the table's header and the live row. */
static void describe(struct stream_file *trace, struct stream_file *log)
{
	const struct rec_file_header *th = &trace->header;
	struct sched_follow_summary live;
	char line[512], label[REC_POLICY_MAX + 8];

	printf("sim: %s: sched, %llu events, %llu picks, %llu CPUs, %llu Hz, slice %llu ticks; "
	       "mode=follow: each policy asked at each recorded pick\n", trace->path,
	       (unsigned long long)th->records, (unsigned long long)log->header.records,
	       (unsigned long long)th->config[REC_SCHED_CONFIG_CPUS],
	       (unsigned long long)th->config[REC_SCHED_CONFIG_HZ],
	       (unsigned long long)th->config[REC_SCHED_CONFIG_SLICE]);
	sched_sim_format_follow_header(line, sizeof(line));
	printf("%s\n", line);
	sched_follow_live_summary(reader(log), &live);
	snprintf(label, sizeof(label), "live %s", log->header.policy);
	sched_sim_format_follow_row(line, sizeof(line), label, &live, false, "(measured)");
	printf("%s\n", line);
}

/* One policy: a follow, its log into OUT_DIR/NAME.follow.log.bin, one row. 0, or 1. */
static int follow(struct stream_file *trace, struct stream_file *log, const char *name,
		  const char *out_dir, bool progress, bool first)
{
	static struct sched_follow f;
	char why[300], policy[REC_POLICY_MAX], path[4300], line[512];

	int err = sched_follow_init(&f, &trace->header, &log->header, reader(trace), reader(log),
				    why, sizeof(why));
	if (err) {
		sched_follow_free(&f);
		return fail("%s: %s", trace->path, why);
	}
	sim_host_sched_use(&f.rq, name);
	sched_sim_policy_format(name, policy, sizeof(policy));
	snprintf(path, sizeof(path), "%s/%s.follow.log.bin", out_dir, name);
	struct log_file lf;
	FILE *fp = log_open(&lf, trace, policy, path);
	if (!fp) {
		sched_follow_free(&f);
		return 1;
	}
	struct follow_out o = { .lf = &lf, .f = &f, .picks = log->header.records,
				.progress = progress, .last_percent = 101, .label = name };
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = sched_follow_run(&f, emit, &o);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o.last_percent != 101)
		fputc('\n', stderr);
	struct sched_follow_summary sum = f.sum;
	snprintf(why, sizeof(why), "%s", f.why);
	sched_follow_free(&f);
	if (err && !o.write_failed) {		/* the recording's fault: one line, no log */
		log_discard(&lf);
		return fail("%s: %s", trace->path, why);
	}
	if (log_close(&lf, sum.picks, err, NULL))
		return 1;
	if (first)
		describe(trace, log);
	sched_sim_format_follow_row(line, sizeof(line), name, &sum, true, path);
	printf("%s\n", line);
	if (sim_host_aborts())
		printf("scion-sim: %s: %llu graft invocations aborted (the default answered, as "
		       "live)\n", name, (unsigned long long)sim_host_aborts());
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (sim_verbose || getenv("SCION_SIM_RATE"))
		fprintf(stderr, "scion-sim: %s: %.0f picks per second\n", name,
			s > 0 ? (double)sum.picks / s : 0.0);
	return 0;
}

int sim_sched_follow(struct stream_file *trace, struct stream_file *log, char names[][32],
		     int npolicies, const char *out_dir, bool progress)
{
	if (!log || !log->header.records)
		return fail("%s: %s: --follow replays a recording's trace and log together (a "
			    "recording directory with its log.bin, or --log LOG; or leave out "
			    "--follow for the open-loop model)", trace->path,
			    log ? "its log has no picks" : "no log");
	for (int k = 0; k < npolicies; k++)
		if (follow(trace, log, names[k], out_dir, progress, k == 0))
			return 1;
	return 0;
}
