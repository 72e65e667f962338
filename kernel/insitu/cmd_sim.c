// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell: `sim run REC POLICY [POLICY ...] [model=HIT_NS,MISS_NS]` replays
 * recording REC's trace once per POLICY in a simulation instance of its
 * module (the block cache's here, model= only for it; the scheduler's in
 * cmd_sim_sched.c, mode= only for it) and prints each policy's summary beside the live
 * one's (from REC's log), keeping each simulated log as a new
 * recording; `sim policies` lists what can be named. Errors are one
 * line starting "sim:".
 */
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/graft.h>
#include <scion/mm.h>
#include "insitu_internal.h"
#include "bcache_evaluate.h"

#define USAGE "sim run REC POLICY [POLICY ...] [model=HIT_NS,MISS_NS | mode=open|follow] | " \
	"sim policies"
#define SIM_MAX_POLICIES 8

/* The table's rows so far (the live one first, when recorded), for the gap to the optimum. */
struct sim_table {
	unsigned rows;
	char label[SIM_MAX_POLICIES + 1][REC_POLICY_MAX + 8];
	struct sim_summary sum[SIM_MAX_POLICIES + 1];
};

static void table_add(struct sim_table *t, const char *label, const struct sim_summary *s)
{
	strlcpy(t->label[t->rows], label, sizeof(t->label[t->rows]));
	t->sum[t->rows++] = *s;
}

/* After the table: each row's distance from the optimum's, when it was simulated. */
static void print_gap(const struct sim_table *t)
{
	const char *labels[SIM_MAX_POLICIES + 1];
	int ref[2];
	char line[600];

	for (unsigned k = 0; k < t->rows; k++)
		labels[k] = t->label[k];
	if (!sim_gap_refs(labels, t->rows, ref))
		return;
	sim_format_gap_header(line, sizeof(line), labels, ref);
	printk("%s\n", line);
	for (unsigned k = 0; k < t->rows; k++) {
		sim_format_gap_row(line, sizeof(line), labels[k], &t->sum[k], t->sum, ref);
		printk("%s\n", line);
	}
}

static void list_graft(struct graft *g, void *arg)
{
	(void)arg;
	if (!strcmp(g->point->name, "bcache.evict") || !strcmp(g->point->name, "bcache.readahead") ||
	    !strcmp(g->point->name, "sched.pick_next"))
		printk("  %-16s %s (graft from %s)\n", g->name, g->point->name, g->source);
}

static int cmd_policies(void)
{
	printk("  %-16s bcache.evict (default)\n", sim_default_names[SIM_EVICT]);
	printk("  %-16s bcache.readahead (default)\n", sim_default_names[SIM_READAHEAD]);
	printk("  %-16s sched.pick_next (default)\n", SCHED_SIM_DEFAULT_POLICY);
	printk("  %-16s bcache.evict (Belady's MIN: knows the recorded future)\n",
	       sim_optimal_names[SIM_EVICT]);
	printk("  %-16s bcache.readahead (plans the blocks the recording requests next)\n",
	       sim_optimal_names[SIM_READAHEAD]);
	printk("  %-16s min+oracle; optimal-evict: min with the recorded read-ahead\n",
	       "optimal");
	graft_foreach(list_graft, NULL);
	return 0;
}

static void print_row(const char *label, const struct sim_summary *s, uint64_t requests,
		      bool agree_known, const char *log)
{
	char line[512];
	sim_format_row(line, sizeof(line), label, s, requests, agree_known, log);
	printk("%s\n", line);
}

static bool parse_model(const char *arg, struct sim_model *m)
{
	char hit[24];
	const char *comma = strchr(arg, ',');
	if (strncmp(arg, "model=", 6) || !comma || (size_t)(comma - arg - 6) >= sizeof(hit))
		return false;
	memcpy(hit, arg + 6, (size_t)(comma - arg - 6));
	hit[comma - arg - 6] = '\0';
	return !parse_u64(hit, &m->hit_ns, false) && !parse_u64(comma + 1, &m->miss_ns, false);
}

/* One policy: its simulation (bcache_evaluate.c), its log kept as a recording, one row. */
static int simulate(struct recording *trace_rec, const char *spec, const struct sim_model *model,
		    struct sim_future *future, struct sim_table *table)
{
	struct sim_outcome o;
	char why[300];

	int err = sim_bcache_simulate(trace_rec, spec, model, future, &o, why, sizeof(why));
	if (err) {
		printk("sim: %s\n", why);
		return err;
	}
	char log[48];
	snprintf(log, sizeof(log), "rec%u%s", o.log_id, o.aborts ? " (grafts aborted)" : "");
	print_row(o.policy, &o.sum, trace_rec->stream[0].records, trace_rec->stream[1].records != 0,
		  log);
	table_add(table, o.policy, &o.sum);
	if (o.aborts)
		printk("sim: %s: %llu graft invocations aborted (their default answered, as live)\n",
		       o.policy, (unsigned long long)o.aborts);
	return 0;
}

/* `sim run` of a block cache recording r (one user held). */
static int run_bcache(struct recording *r, int argc, char **argv)
{
	unsigned id = r->id;
	struct sim_model model = { 0 };
	bool model_given = false;
	int npolicies = argc - 3;

	if (npolicies > 0 && !strncmp(argv[argc - 1], "model=", 6)) {
		if (!parse_model(argv[argc - 1], &model)) {
			printk("sim: '%s': give model=HIT_NS,MISS_NS\n", argv[argc - 1]);
			return -EINVAL;
		}
		model_given = true;
		npolicies--;
	}
	if (npolicies < 1 || npolicies > SIM_MAX_POLICIES) {
		printk("sim: name 1 to %d policies, e.g. `sim run rec1 lru 2q clock`\n",
		       SIM_MAX_POLICIES);
		return -EINVAL;
	}
	char why[200];
	struct sim_summary live;
	int err = sim_bcache_live(r, &live, &model, model_given, why, sizeof(why));
	if (err) {
		printk("sim: %s\n", why);
		return err;
	}
	const struct rec_file_header *th = &r->header[0];
	printk("sim: rec%u: %llu requests, %llu buffers, %llu blocks; model: hit %llu ns, "
	       "miss %llu ns (%s)\n", id, (unsigned long long)r->stream[0].records,
	       (unsigned long long)th->config[REC_BCACHE_CONFIG_BUFFERS],
	       (unsigned long long)th->config[REC_BCACHE_CONFIG_BLOCKS],
	       (unsigned long long)model.hit_ns, (unsigned long long)model.miss_ns,
	       model_given ? "given" : "measured in its log");
	char head[160];
	sim_format_header(head, sizeof(head));
	printk("%s\n", head);
	struct sim_table *table = kzalloc(sizeof(*table));
	if (!table) {
		printk("sim: no memory for the table\n");
		return -ENOMEM;
	}
	if (r->stream[1].records) {
		char label[REC_POLICY_MAX + 8];
		snprintf(label, sizeof(label), "live %s", r->header[1].policy);
		print_row(label, &live, r->stream[0].records, false, "(measured)");
		table_add(table, label, &live);
	}
	struct sim_future future = { 0 };
	for (int k = 0; k < npolicies && !err; k++)
		err = simulate(r, argv[3 + k], &model, &future, table);
	if (!err)
		print_gap(table);
	sim_oracle_free(&future.oracle);
	kfree(table);
	return err;
}

/* `sim run REC ...`: the replay of REC's module. */
static int cmd_run(int argc, char **argv)
{
	unsigned id;

	if (!rec_parse_id(argv[2], &id)) {
		printk("sim: '%s' is not a recording (rec1, rec2, ...: `record list`)\n", argv[2]);
		return -EINVAL;
	}
	struct recording *r = rec_store_get(id, false);
	if (!r) {
		printk("sim: no complete recording rec%u (`record list`)\n", id);
		return -ENOENT;
	}
	int err;
	const char *module = r->header[0].module;
	if (!strncmp(module, "sched", sizeof(r->header[0].module)))
		err = sim_sched_command(r, argc - 3, argv + 3);
	else if (!strncmp(module, "bcache", sizeof(r->header[0].module)))
		err = run_bcache(r, argc, argv);
	else {
		printk("sim: rec%u is a recording of module '%.*s'; `sim run` replays bcache and "
		       "sched\n", id, (int)sizeof(r->header[0].module), module);
		err = -EINVAL;
	}
	rec_store_put(r);
	return err;
}

static int cmd_sim(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "policies"))
		return cmd_policies();
	if (argc >= 3 && !strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	printk("sim: usage: " USAGE "\n");
	return -EINVAL;
}
SHELL_COMMAND(sim, "run REC POLICY [POLICY ...] [model=HIT_NS,MISS_NS | mode=open|follow] | "
	      "policies",
	      "replay a recorded trace against alternate policies in simulation instances", cmd_sim);
