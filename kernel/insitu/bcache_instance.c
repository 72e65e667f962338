// SPDX-License-Identifier: BSD-2-Clause
/*
 * Simulation instances in the kernel: a block cache instance of its own
 * (kernel/bcache/cache.h) whose policies are the defaults or private
 * copies of loaded grafts, replaying a recording's trace in a kernel
 * thread of its own into a new recording's log.
 *
 * What it must not touch: the live cache, its graft points, the disk and
 * other threads. The instance is separate memory; a graft policy runs
 * as a private copy (graft_load_private: its own code and static data,
 * never installed anywhere) in a transaction like a live graft, so an
 * abort undoes its changes to the instance and the default answers, as
 * in the live cache; its API calls reach the instance because it is
 * the current one on the CPU while the policy runs (cache.h). Each
 * request is replayed with interrupts masked, so the thread stays on
 * that CPU and nothing else runs a policy there meanwhile.
 */
#include <scion/graft.h>
#include <scion/txn.h>
#include <scion/record.h>
#include <scion/spinlock.h>
#include <scion/thread.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include "insitu_internal.h"

static struct sim_instance *instance_of(struct bcache_cache *c)
{
	return container_of(c, struct sim_instance, cache);
}

struct recording *sim_log_recording(const struct recording *trace_rec, const char *how,
				    const char *policy)
{
	char origin[REC_ORIGIN_MAX];
	const struct rec_file_header *th = &trace_rec->header[0];

	snprintf(origin, sizeof(origin), "%s rec%u with %s", how, trace_rec->id, policy);
	struct recording *out = rec_store_create(origin);
	if (!out)
		return NULL;
	out->header[0] = *th;
	out->header[0].records = 0;
	out->header[1] = *th;
	out->header[1].stream = REC_STREAM_LOG;
	out->header[1].drops = 0;
	for (unsigned k = 0; k < 2; k++) {	/* zero-padded, as the host writes it */
		memset(out->header[k].policy, 0, sizeof(out->header[k].policy));
		strlcpy(out->header[k].policy, policy, sizeof(out->header[k].policy));
	}
	return out;
}

int sim_log_close(struct recording *log, int err, const char *policy, const char *reason,
		  unsigned *log_id, char *why, size_t whylen)
{
	*log_id = log->id;
	rec_store_complete(log);
	rec_store_put(log);
	if (err)
		snprintf(why, whylen, "%s: %s; rec%u holds the log as far as it got", policy,
			 reason, *log_id);
	return err;
}

bool sim_run_private(struct graft *g, const uint64_t args[6], uint64_t *r, uint64_t *aborts)
{
	if (txn_graft_active(g))
		return false;		/* it reached its own point: the default answers */
	if (txn_run(g->point, g, args, r) == TXN_COMMITTED)
		return true;
	(*aborts)++;
	return false;
}

static int private_evict(void)
{
	const uint64_t args[6] = { 0 };
	uint64_t r;
	struct sim_instance *inst = instance_of(cache_env_current());
	return sim_run_private(inst->graft[SIM_EVICT], args, &r, &inst->aborts) ? (int)r
										: bcache_default_evict();
}

static void private_readahead(uint64_t block, uint64_t previous, bool hit)
{
	const uint64_t args[6] = { block, previous, hit };
	uint64_t r;
	struct sim_instance *inst = instance_of(cache_env_current());
	if (!sim_run_private(inst->graft[SIM_READAHEAD], args, &r, &inst->aborts))
		bcache_default_readahead(block, previous, hit);
}

/* The optimum's policies: they read the future from the instance's oracle (the caller's). */
static int optimal_evict(void)
{
	struct sim_instance *inst = instance_of(cache_env_current());
	return inst->oracle ? sim_optimal_evict(inst->oracle, &inst->cache) : bcache_default_evict();
}

static void oracle_readahead(uint64_t block, uint64_t previous, bool hit)
{
	struct sim_instance *inst = instance_of(cache_env_current());
	if (inst->oracle)
		sim_oracle_readahead(inst->oracle, &inst->cache);
	else
		bcache_default_readahead(block, previous, hit);
}

/* Point the slot of kind at the policy of that kind of the two given. */
static void set_slot(struct sim_instance *inst, enum sim_kind kind, graft_fn_bcache_evict *evict,
		     graft_fn_bcache_readahead *readahead)
{
	if (kind == SIM_EVICT)
		inst->evict = evict;
	else
		inst->readahead = readahead;
}

/* Set one kind of policy from a name: the default's, or a loaded graft's for that point. */
static int choose(struct sim_instance *inst, enum sim_kind kind, const char *name, char *why,
		  size_t whylen)
{
	static const char *const points[] = { [SIM_EVICT] = "bcache.evict",
					      [SIM_READAHEAD] = "bcache.readahead" };
	if (!strcmp(name, sim_default_names[kind])) {
		set_slot(inst, kind, bcache_default_evict, bcache_default_readahead);
		return 0;
	}
	if (!strcmp(name, sim_optimal_names[kind])) {
		set_slot(inst, kind, optimal_evict, oracle_readahead);
		return 0;
	}
	struct graft *g = graft_find(name);
	if (!g || strcmp(g->point->name, points[kind])) {
		snprintf(why, whylen, "no %s policy '%s' (the default '%s', or a graft for %s: "
			 "`graft avail`)", kind == SIM_EVICT ? "eviction" : "read-ahead", name,
			 sim_default_names[kind], points[kind]);
		return -ENOENT;
	}
	inst->graft[kind] = graft_load_private(g, why, whylen);
	if (!inst->graft[kind])
		return -ENOMEM;
	set_slot(inst, kind, private_evict, private_readahead);
	return 0;
}

struct sim_instance *sim_instance_create(const struct rec_file_header *th,
					 const struct sim_policy_names *names, char *why,
					 size_t whylen)
{
	struct sim_instance *inst = kzalloc(sizeof(*inst));
	if (!inst) {
		snprintf(why, whylen, "no memory for a simulation instance");
		return NULL;
	}
	cache_init(&inst->cache, (unsigned)th->config[REC_BCACHE_CONFIG_BUFFERS],
		   th->config[REC_BCACHE_CONFIG_BLOCKS]);
	inst->cache.evict = &inst->evict;
	inst->cache.readahead = &inst->readahead;
	inst->cache.start_io = sim_start_io;
	spin_init(&inst->lock, "sim-instance");
	if (choose(inst, SIM_EVICT, names->name[SIM_EVICT], why, whylen) ||
	    choose(inst, SIM_READAHEAD, names->name[SIM_READAHEAD], why, whylen)) {
		sim_instance_destroy(inst);
		return NULL;
	}
	return inst;
}

void sim_instance_destroy(struct sim_instance *inst)
{
	graft_unload_private(inst->graft[SIM_EVICT]);
	graft_unload_private(inst->graft[SIM_READAHEAD]);
	kfree(inst);
}

/* --- The replay thread ---------------------------------------------------- */

struct replay_job {
	struct sim_instance *inst;
	struct recording *trace_rec;	/* the recording replayed (a user held) */
	struct recording *out;		/* the log written (a user held) */
	const struct sim_model *model;
	struct rec_cursor reference;	/* the recorded log, when there is one */
	const struct rec_head *ref_next;
	struct sim_summary sum;
	int err;
	char why[160];
};

static const struct rec_head *next_trace(void *ctx)
{
	return rec_cursor_next(ctx);
}

/* Append to the new log and compare with the recorded log's record of the same request. */
static int emit(void *ctx, const struct rec_head *rec)
{
	struct replay_job *j = ctx;
	uint64_t seq = rec_seq(rec);

	while (j->ref_next && rec_seq(j->ref_next) < seq)
		j->ref_next = rec_cursor_next(&j->reference);
	if (j->ref_next && rec_seq(j->ref_next) == seq &&
	    sim_same_decision((const void *)j->ref_next, (const void *)rec))
		j->sum.agree++;
	return rec_data_append(&j->out->stream[1], rec, rec->size);
}

static void replay_all(struct replay_job *j);

/* The replay, and what it cost: the thread's CPU time, kept in the instance. */
static void replay_thread(void *arg)
{
	struct replay_job *j = arg;
	replay_all(j);
	j->inst->cpu_ns = thread_cpu_ns_self();
}

static void replay_all(struct replay_job *j)
{
	struct rec_cursor trace;
	const struct rec_file_header *th = &j->trace_rec->header[0];
	uint64_t index = 0, last_seq = 0;

	rec_cursor_init(&trace, &j->trace_rec->stream[0]);
	rec_cursor_init(&j->reference, &j->trace_rec->stream[1]);
	j->ref_next = rec_cursor_next(&j->reference);
	for (const struct rec_head *h; (h = next_trace(&trace));) {
		if (sim_check_request(h, ++index, last_seq, th, j->why, sizeof(j->why))) {
			j->err = -EINVAL;
			return;
		}
		last_seq = rec_seq(h);
		irqflags_t f = spin_lock_irqsave(&j->inst->lock);
		int err = sim_replay_one(&j->inst->cache, (const void *)h, j->model, emit, j, &j->sum);
		spin_unlock_irqrestore(&j->inst->lock, f);
		if (err) {
			snprintf(j->why, sizeof(j->why), "record %llu: the log could not be kept (%s)",
				 (unsigned long long)index, errno_name(err));
			j->err = err;
			return;
		}
	}
}

int sim_instance_replay(struct sim_instance *inst, struct recording *trace_rec,
			const struct sim_model *model, struct recording *out,
			struct sim_summary *sum, char *why, size_t whylen)
{
	struct replay_job *j = kzalloc(sizeof(*j));
	if (!j) {
		snprintf(why, whylen, "no memory for the replay");
		return -ENOMEM;
	}
	*j = (struct replay_job){ .inst = inst, .trace_rec = trace_rec, .out = out,
				  .model = model };
	struct thread *t = thread_create("sim-replay", replay_thread, j, -1);
	if (!t) {
		kfree(j);
		snprintf(why, whylen, "cannot start the replay thread");
		return -ENOMEM;
	}
	thread_join(t);
	int err = j->err;
	*sum = j->sum;
	if (err)
		strlcpy(why, j->why, whylen);
	kfree(j);
	return err;
}
