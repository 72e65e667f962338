// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell: `sim run REC POLICY [POLICY ...] [mode=open|follow]` for a
 * recording of the scheduler (cmd_sim.c dispatches on the recording's
 * module). In the open-loop model (mode=open, the default) each
 * pick-next POLICY replays REC's trace in a simulation instance of its
 * own (sched_instance.c), its log kept as a new recording; the summary
 * of each is printed beside the live one's (from REC's log), then each
 * thread's wait and done ticks under every policy. mode=follow is
 * cmd_sim_follow.c's. Errors are one line starting "sim:"; every policy
 * is checked before anything runs.
 */
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include "insitu_internal.h"

#define SIM_MAX_POLICIES 8
#define LINE_MAX 512

static const struct rec_head *next_record(void *ctx)
{
	return rec_cursor_next(ctx);
}

/* Results kept for the per-thread table: waits[p * nthreads + i], dones alike. */
struct per_thread {
	uint64_t *waits, *dones;
	unsigned nthreads;
};

static void keep(struct per_thread *pt, unsigned p, const struct sched_sim *sim)
{
	for (unsigned i = 0; i < sim->nthreads && i < pt->nthreads; i++) {
		pt->waits[p * pt->nthreads + i] = sim->thread[i].wait;
		pt->dones[p * pt->nthreads + i] = sim->thread[i].done;
	}
}

/* One policy: an instance, its replay, its log kept as a recording, one row. */
static int simulate(struct recording *trace_rec, const char *name, unsigned p,
		    struct per_thread *pt)
{
	char why[200], policy[REC_POLICY_MAX], line[LINE_MAX];

	struct sched_instance *inst = sched_instance_create(trace_rec, name, why, sizeof(why));
	if (!inst) {
		printk("sim: %s\n", why);
		return -ENOENT;
	}
	sched_sim_policy_format(name, policy, sizeof(policy));
	struct recording *out = sim_log_recording(trace_rec, "simulated", policy);
	if (!out) {
		sched_instance_destroy(inst);
		printk("sim: no memory for the simulated log\n");
		return -ENOMEM;
	}
	int err = sched_instance_replay(inst, out, why, sizeof(why));
	uint64_t aborts = inst->aborts;
	keep(pt, p, &inst->sim);
	struct sched_sim_summary sum = inst->sim.sum;
	sched_instance_destroy(inst);
	rec_store_complete(out);
	char log[48];
	snprintf(log, sizeof(log), "rec%u%s", out->id, aborts ? " (grafts aborted)" : "");
	rec_store_put(out);
	if (err) {
		printk("sim: %s: %s; rec%u holds the log as far as it got\n", name, why, out->id);
		return err;
	}
	sched_sim_format_row(line, sizeof(line), name, &sum, log);
	printk("%s\n", line);
	if (aborts)
		printk("sim: %s: %llu graft invocations aborted (the default answered, as live)\n",
		       name, (unsigned long long)aborts);
	return 0;
}

/* The live row, the summary line, and the threads of the trace (a default instance). */
static int describe(struct recording *r, struct sched_sim *sim)
{
	char why[200], line[LINE_MAX];
	struct rec_cursor cur;

	rec_cursor_init(&cur, &r->stream[0]);
	int err = sched_sim_build(sim, &r->header[0], (struct sim_reader){ next_record, &cur }, why,
				  sizeof(why));
	if (err) {
		printk("sim: rec%u: %s\n", r->id, why);
		return err;
	}
	const struct rec_file_header *th = &r->header[0];
	printk("sim: rec%u: sched, %llu events, %u threads, %llu CPUs, %llu Hz, slice %llu ticks, "
	       "ticks %llu..%llu\n", r->id, (unsigned long long)r->stream[0].records,
	       sim->nthreads, (unsigned long long)th->config[REC_SCHED_CONFIG_CPUS],
	       (unsigned long long)th->config[REC_SCHED_CONFIG_HZ],
	       (unsigned long long)th->config[REC_SCHED_CONFIG_SLICE],
	       (unsigned long long)sim->start, (unsigned long long)sim->last_tick);
	sched_sim_format_header(line, sizeof(line));
	printk("%s\n", line);
	if (r->stream[1].records) {
		struct sched_sim_summary live;
		char label[REC_POLICY_MAX + 8];
		rec_cursor_init(&cur, &r->stream[1]);
		sched_sim_live_summary(sim, (struct sim_reader){ next_record, &cur }, &live);
		snprintf(label, sizeof(label), "live %s", r->header[1].policy);
		sched_sim_format_row(line, sizeof(line), label, &live, "(measured)");
		printk("%s\n", line);
	}
	return 0;
}

static void print_threads(const struct sched_sim *sim, const struct per_thread *pt,
			  char names[][GRAFT_NAME_MAX], unsigned npolicies)
{
	const char *labels[SIM_MAX_POLICIES];
	uint64_t waits[SIM_MAX_POLICIES], dones[SIM_MAX_POLICIES];
	char line[LINE_MAX];

	for (unsigned p = 0; p < npolicies; p++)
		labels[p] = names[p];
	sched_sim_format_threads_header(line, sizeof(line), labels, npolicies);
	printk("%s\n", line);
	for (unsigned i = 0; i < sim->nthreads; i++) {
		for (unsigned p = 0; p < npolicies; p++) {
			waits[p] = pt->waits[p * pt->nthreads + i];
			dones[p] = pt->dones[p * pt->nthreads + i];
		}
		sched_sim_format_thread_row(line, sizeof(line), &sim->thread[i], waits, dones,
					    npolicies);
		printk("%s\n", line);
	}
}

/* A last word mode=open or mode=follow: false when it is another mode= (a line printed). */
static bool parse_mode(int *npolicies, char **policies, bool *follow)
{
	*follow = false;
	if (*npolicies < 1 || strncmp(policies[*npolicies - 1], "mode=", 5))
		return true;
	const char *mode = policies[--*npolicies] + 5;
	*follow = !strcmp(mode, "follow");
	if (*follow || !strcmp(mode, "open"))
		return true;
	printk("sim: 'mode=%s': give mode=open (the open-loop model, the default) or mode=follow "
	       "(the recorded history, asking each policy at each recorded pick)\n", mode);
	return false;
}

int sim_sched_command(struct recording *r, int npolicies, char **policies)
{
	char why[200], names[SIM_MAX_POLICIES][GRAFT_NAME_MAX];
	bool follow;

	if (!parse_mode(&npolicies, policies, &follow))
		return -EINVAL;
	if (sched_sim_check_header(&r->header[0], REC_STREAM_TRACE, why, sizeof(why)) ||
	    r->stream[0].records == 0) {
		printk("sim: rec%u: %s\n", r->id, r->stream[0].records ? why : "its trace is empty");
		return -EINVAL;
	}
	if (npolicies < 1 || npolicies > SIM_MAX_POLICIES) {
		printk("sim: name 1 to %d policies, e.g. `sim run rec1 rr fair lifo`\n",
		       SIM_MAX_POLICIES);
		return -EINVAL;
	}
	for (int k = 0; k < npolicies; k++)
		if (sched_sim_policy_parse(policies[k], sched_policy_known, names[k],
					   sizeof(names[k]), why, sizeof(why))) {
			printk("sim: rec%u is a sched recording: %s\n", r->id, why);
			return -EINVAL;
		}
	if (follow)
		return sim_sched_follow_command(r, (unsigned)npolicies, names);
	struct sched_sim *sim = kzalloc(sizeof(*sim));
	if (!sim) {
		printk("sim: no memory for the replay\n");
		return -ENOMEM;
	}
	int err = describe(r, sim);
	struct per_thread pt = { .nthreads = sim->nthreads };
	size_t cells = (size_t)npolicies * (sim->nthreads ? sim->nthreads : 1);
	pt.waits = err ? NULL : kzalloc(cells * sizeof(uint64_t));
	pt.dones = err ? NULL : kzalloc(cells * sizeof(uint64_t));
	if (!err && (!pt.waits || !pt.dones)) {
		printk("sim: no memory for the replay\n");
		err = -ENOMEM;
	}
	for (int k = 0; k < npolicies && !err; k++)
		err = simulate(r, names[k], (unsigned)k, &pt);
	if (!err)
		print_threads(sim, &pt, names, (unsigned)npolicies);
	kfree(pt.waits);
	kfree(pt.dones);
	sched_sim_free(sim);
	kfree(sim);
	return err;
}
