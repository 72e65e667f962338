// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell: `sim run REC POLICY [POLICY ...] mode=follow` for a recording
 * of the scheduler (cmd_sim_sched.c parses it): each pick-next POLICY
 * follows REC's recorded history (sched_follow.h) in a simulation
 * instance of its own (sched_instance.c), asked at each recorded pick;
 * its answers are kept as a new recording's log, and a row per policy
 * says how many agreed with live's choices, beside the live row (REC's
 * log). With the live policy every pick agrees and the log is REC's.
 *
 * A follow's checks do not depend on the policy (the instance applies
 * the recorded choices, whatever the policy answered), so the first
 * policy finds any record that does not fit: then that one line is all
 * that is printed, and its partial log is deleted. The table is printed
 * once the first policy has followed the whole recording.
 */
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include "insitu_internal.h"

#define LINE_MAX 512

static const struct rec_head *next_record(void *ctx)
{
	return rec_cursor_next(ctx);
}

/* The summary line, the table's header and the live row. */
static void describe(struct recording *r)
{
	const struct rec_file_header *th = &r->header[0];
	struct sched_follow_summary live;
	char line[LINE_MAX], label[REC_POLICY_MAX + 8];
	struct rec_cursor cur;

	printk("sim: rec%u: sched, %llu events, %llu picks, %llu CPUs, %llu Hz, slice %llu ticks; "
	       "mode=follow: each policy asked at each recorded pick\n", r->id,
	       (unsigned long long)r->stream[0].records, (unsigned long long)r->stream[1].records,
	       (unsigned long long)th->config[REC_SCHED_CONFIG_CPUS],
	       (unsigned long long)th->config[REC_SCHED_CONFIG_HZ],
	       (unsigned long long)th->config[REC_SCHED_CONFIG_SLICE]);
	sched_sim_format_follow_header(line, sizeof(line));
	printk("%s\n", line);
	rec_cursor_init(&cur, &r->stream[1]);
	sched_follow_live_summary((struct sim_reader){ next_record, &cur }, &live);
	snprintf(label, sizeof(label), "live %s", r->header[1].policy);
	sched_sim_format_follow_row(line, sizeof(line), label, &live, false, "(measured)");
	printk("%s\n", line);
}

/* One policy: an instance following r, its log kept as a recording, one row. */
static int follow(struct recording *r, const char *name, bool first)
{
	char why[240], policy[REC_POLICY_MAX], line[LINE_MAX], log[48];

	struct sched_instance *inst = sched_instance_follow(r, name, why, sizeof(why));
	if (!inst) {
		printk("sim: rec%u: %s\n", r->id, why);
		return -EINVAL;
	}
	sched_sim_policy_format(name, policy, sizeof(policy));
	struct recording *out = sim_log_recording(r, "followed", policy);
	if (!out) {
		sched_instance_destroy(inst);
		printk("sim: no memory for the simulated log\n");
		return -ENOMEM;
	}
	int err = sched_instance_replay(inst, out, why, sizeof(why));
	uint64_t aborts = inst->aborts;
	struct sched_follow_summary sum = inst->follow.sum;
	sched_instance_destroy(inst);
	rec_store_complete(out);
	if (err == -EINVAL || err == -E2BIG) {	/* r does not fit (or is too big): no output */
		rec_store_discard(out);
		printk("sim: rec%u: %s\n", r->id, why);
		return err;
	}
	snprintf(log, sizeof(log), "rec%u%s", out->id, aborts ? " (grafts aborted)" : "");
	rec_store_put(out);
	if (err) {
		printk("sim: %s: %s; rec%u holds the log as far as it got\n", name, why, out->id);
		return err;
	}
	if (first)
		describe(r);
	sched_sim_format_follow_row(line, sizeof(line), name, &sum, true, log);
	printk("%s\n", line);
	if (aborts)
		printk("sim: %s: %llu graft invocations aborted (the default answered, as live)\n",
		       name, (unsigned long long)aborts);
	return 0;
}

int sim_sched_follow_command(struct recording *r, unsigned npolicies,
			     char names[][GRAFT_NAME_MAX])
{
	char why[200];

	if (!r->stream[1].records) {
		printk("sim: rec%u has no log: mode=follow replays a recording's trace and log "
		       "together (record both; or leave out mode=follow for the open-loop model)\n",
		       r->id);
		return -EINVAL;
	}
	if (sched_sim_check_header(&r->header[1], REC_STREAM_LOG, why, sizeof(why))) {
		printk("sim: rec%u: %s\n", r->id, why);
		return -EINVAL;
	}
	int err = 0;
	for (unsigned k = 0; k < npolicies && !err; k++)
		err = follow(r, names[k], k == 0);
	return err;
}
