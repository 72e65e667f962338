// SPDX-License-Identifier: BSD-2-Clause
/*
 * One block cache policy simulated on a recording, without printing
 * (bcache_evaluate.h): `sim run` (cmd_sim.c) prints each outcome as a
 * row, the adaptation loop (kernel/adapt/) decides by them. A policy's
 * instance runs its own private graft copies (insitu_internal.h), so a
 * candidate that aborts costs the simulation only: the count comes back
 * in the outcome. No locks of its own.
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/graft.h>
#include "insitu_internal.h"
#include "bcache_evaluate.h"

enum sim_kind sim_bcache_kind_of(const char *name)
{
	for (unsigned k = 0; k < SIM_KINDS; k++)
		if (!strcmp(name, sim_default_names[k]))
			return (enum sim_kind)k;
	struct graft *g = graft_find(name);
	if (g && !strcmp(g->point->name, "bcache.evict"))
		return SIM_EVICT;
	if (g && !strcmp(g->point->name, "bcache.readahead"))
		return SIM_READAHEAD;
	return SIM_KINDS;
}

static const struct rec_head *next_record(void *ctx)
{
	return rec_cursor_next(ctx);
}

/* The trace's future for the optimum's policies, built at the first that needs it. */
static int future_for(struct recording *trace_rec, struct sim_future *f, char *why,
		      size_t whylen)
{
	char reason[160];
	struct rec_cursor cur;

	if (f->built) {
		sim_oracle_rewind(&f->oracle);
		return 0;
	}
	rec_cursor_init(&cur, &trace_rec->stream[0]);
	int err = sim_oracle_build(&f->oracle, &trace_rec->header[0],
				   (struct sim_reader){ next_record, &cur },
				   trace_rec->stream[0].records, reason, sizeof(reason));
	if (err) {
		snprintf(why, whylen, "rec%u: %s; `scion sim replay` on the host has more memory",
			 trace_rec->id, reason);
		return err;
	}
	f->built = true;
	return 0;
}

int sim_bcache_simulate(struct recording *trace_rec, const char *spec,
			const struct sim_model *model, struct sim_future *future,
			struct sim_outcome *out, char *why, size_t whylen)
{
	struct sim_policy_names names;
	const struct rec_file_header *th = &trace_rec->header[0];

	*out = (struct sim_outcome){ 0 };
	if (sim_policy_parse(spec, th->policy, sim_bcache_kind_of, &names, why, whylen))
		return -EINVAL;
	struct sim_instance *inst = sim_instance_create(th, &names, why, whylen);
	if (!inst)
		return -ENOENT;
	if (sim_policy_needs_oracle(&names)) {
		int err = future_for(trace_rec, future, why, whylen);
		if (err) {
			sim_instance_destroy(inst);
			return err;
		}
		inst->oracle = &future->oracle;
	}
	sim_policy_format(&names, out->policy, sizeof(out->policy));
	struct recording *log = sim_log_recording(trace_rec, "simulated", out->policy);
	if (!log) {
		sim_instance_destroy(inst);
		snprintf(why, whylen, "no memory for the simulated log");
		return -ENOMEM;
	}
	char reason[160];
	int err = sim_instance_replay(inst, trace_rec, model, log, &out->sum, reason,
				      sizeof(reason));
	out->aborts = inst->aborts;
	out->cpu_ns = inst->cpu_ns;
	sim_instance_destroy(inst);
	return sim_log_close(log, err, out->policy, reason, &out->log_id, why, whylen);
}

int sim_bcache_live(struct recording *r, struct sim_summary *live, struct sim_model *model,
		    bool model_given, char *why, size_t whylen)
{
	struct rec_cursor cur;
	char reason[160];

	*live = (struct sim_summary){ 0 };
	if (sim_check_header(&r->header[0], REC_STREAM_TRACE, reason, sizeof(reason)) ||
	    r->stream[0].records == 0) {
		snprintf(why, whylen, "rec%u: %s", r->id,
			 r->stream[0].records ? reason : "its trace is empty");
		return -EINVAL;
	}
	rec_cursor_init(&cur, &r->stream[1]);
	for (const struct rec_head *h; (h = rec_cursor_next(&cur));)
		if (h->type == REC_BCACHE_RESULT)
			sim_summary_add(live, (const void *)h);
	if (model_given)
		return 0;
	rec_cursor_init(&cur, &r->stream[1]);
	if (!r->stream[1].records ||
	    !sim_model_calibrate((struct sim_reader){ next_record, &cur }, model)) {
		snprintf(why, whylen, "rec%u's log has no hit and miss to calibrate the latency "
			 "model; give model=HIT_NS,MISS_NS", r->id);
		return -EINVAL;
	}
	return 0;
}
