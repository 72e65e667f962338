// SPDX-License-Identifier: BSD-2-Clause
/*
 * The policies the host simulator can run: the kernel's defaults
 * (kernel/bcache/policy_default.c, kernel/sched/policy_default.c) and
 * the block cache and pick-next grafts of grafts/, compiled from the
 * same sources for the host; their manifests
 * come from a table generated at build time (host/sim/sim.mk), never kept by
 * hand. A graft runs as in a simulation instance in the kernel: in a
 * transaction (env.c), its result checked like the graft point checks
 * it, the default answering when it aborts or reaches its own point.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <graft/manifest.h>
#include "sim_host.h"

/* Generated: the manifests of the grafts built in, NULL-terminated. */
extern const struct graft_manifest *const sim_graft_manifests[];

static const char *const point_of_kind[SIM_KINDS] = {
	[SIM_EVICT] = "bcache.evict", [SIM_READAHEAD] = "bcache.readahead",
};

/*
 * The grafts' static data (host/sim/sim.mk gathers it in these two
 * sections), put back as the program started before every replay: each
 * replay starts from a fresh graft, as a kernel simulation instance
 * loads a private copy (a recorded-order table must not carry over).
 */
extern char __start_sim_graft_data[] __attribute__((weak));
extern char __stop_sim_graft_data[] __attribute__((weak));
extern char __start_sim_graft_bss[] __attribute__((weak));
extern char __stop_sim_graft_bss[] __attribute__((weak));
static char *graft_data_at_start;

static void sim_host_grafts_fresh(void)
{
	size_t data = (size_t)(__stop_sim_graft_data - __start_sim_graft_data);
	if (data && !graft_data_at_start) {
		graft_data_at_start = malloc(data);
		if (!graft_data_at_start) {
			fprintf(stderr, "scion-sim: no memory for the grafts' data\n");
			exit(1);
		}
		memcpy(graft_data_at_start, __start_sim_graft_data, data);
	} else if (data) {
		memcpy(__start_sim_graft_data, graft_data_at_start, data);
	}
	size_t bss = (size_t)(__stop_sim_graft_bss - __start_sim_graft_bss);
	if (bss)
		memset(__start_sim_graft_bss, 0, bss);
}

static const struct graft_manifest *chosen[SIM_KINDS];	/* NULL: the default */
static bool running[SIM_KINDS];
static uint64_t aborts;

static const struct graft_manifest *find(const char *name)
{
	for (unsigned i = 0; sim_graft_manifests[i]; i++)
		if (!strcmp(sim_graft_manifests[i]->name, name))
			return sim_graft_manifests[i];
	return NULL;
}

enum sim_kind sim_host_kind_of(const char *name)
{
	for (unsigned k = 0; k < SIM_KINDS; k++)
		if (!strcmp(name, sim_default_names[k]))
			return (enum sim_kind)k;
	const struct graft_manifest *m = find(name);
	for (unsigned k = 0; m && k < SIM_KINDS; k++)
		if (!strcmp(m->point, point_of_kind[k]))
			return (enum sim_kind)k;
	return SIM_KINDS;
}

static uint64_t call_evict(const uint64_t args[6])
{
	(void)args;
	return (uint64_t)(uint32_t)((graft_fn_bcache_evict *)(uintptr_t)chosen[SIM_EVICT]->entry)();
}

static uint64_t call_readahead(const uint64_t args[6])
{
	((graft_fn_bcache_readahead *)(uintptr_t)chosen[SIM_READAHEAD]->entry)(args[0], args[1],
										  args[2] != 0);
	return 0;
}

/* Graft m, unless it is already running (it reached its own point): then the default. */
static bool run(const struct graft_manifest *m, bool *running,
		uint64_t (*call)(const uint64_t args[6]), const uint64_t args[6],
		const char *(*check)(uint64_t), uint64_t *r)
{
	if (*running)
		return false;
	*running = true;
	bool committed = sim_txn_run(m->name, call, args, check, r);
	*running = false;
	return committed;
}

static int graft_evict(void)
{
	const uint64_t args[6] = { 0 };
	uint64_t r;
	return run(chosen[SIM_EVICT], &running[SIM_EVICT], call_evict, args, bcache_check_victim, &r)
		? (int)(uint32_t)r : bcache_default_evict();
}

static void graft_readahead(uint64_t block, uint64_t previous, bool hit)
{
	const uint64_t args[6] = { block, previous, hit };
	uint64_t r;
	if (!run(chosen[SIM_READAHEAD], &running[SIM_READAHEAD], call_readahead, args, NULL, &r))
		bcache_default_readahead(block, previous, hit);
}

static struct sim_oracle *oracle;

void sim_host_use_oracle(struct sim_oracle *o)
{
	oracle = o;
}

static int optimal_evict(void)
{
	return oracle ? sim_optimal_evict(oracle, cache_env_current()) : bcache_default_evict();
}

static void oracle_readahead(uint64_t block, uint64_t previous, bool hit)
{
	if (oracle)
		sim_oracle_readahead(oracle, cache_env_current());
	else
		bcache_default_readahead(block, previous, hit);
}

static graft_fn_bcache_evict *evict_slot;
static graft_fn_bcache_readahead *readahead_slot;

bool sim_host_use(struct bcache_cache *c, const struct sim_policy_names *names, char *why,
		  size_t whylen)
{
	bool optimal[SIM_KINDS];
	sim_host_grafts_fresh();
	for (unsigned k = 0; k < SIM_KINDS; k++) {
		chosen[k] = NULL;
		optimal[k] = !strcmp(names->name[k], sim_optimal_names[k]);
		if (optimal[k] || !strcmp(names->name[k], sim_default_names[k]))
			continue;
		chosen[k] = find(names->name[k]);
		if (!chosen[k] || strcmp(chosen[k]->point, point_of_kind[k])) {
			snprintf(why, whylen, "no %s policy '%s' (`scion sim policies` lists them)",
				 point_of_kind[k], names->name[k]);
			return false;
		}
	}
	evict_slot = chosen[SIM_EVICT] ? graft_evict
		   : optimal[SIM_EVICT] ? optimal_evict : bcache_default_evict;
	readahead_slot = chosen[SIM_READAHEAD] ? graft_readahead
		       : optimal[SIM_READAHEAD] ? oracle_readahead : bcache_default_readahead;
	c->evict = &evict_slot;
	c->readahead = &readahead_slot;
	aborts = 0;
	return true;
}

/* --- The scheduler's pick-next policies -------------------------------------- */

static const struct graft_manifest *pick_chosen;	/* NULL: the default */
static bool pick_running;
static graft_fn_sched_pick_next *pick_slot;

bool sim_host_sched_known(const char *name)
{
	const struct graft_manifest *m = find(name);
	return !strcmp(name, SCHED_SIM_DEFAULT_POLICY) ||
	       (m && !strcmp(m->point, "sched.pick_next"));
}

static uint64_t call_pick_next(const uint64_t args[6])
{
	graft_fn_sched_pick_next *fn = (graft_fn_sched_pick_next *)(uintptr_t)pick_chosen->entry;
	return (uint64_t)(uintptr_t)fn((struct cpu *)(uintptr_t)args[0]);
}

static struct thread *graft_pick_next(struct cpu *c)
{
	const uint64_t args[6] = { (uintptr_t)c };
	uint64_t r;
	return run(pick_chosen, &pick_running, call_pick_next, args, sched_check_pick, &r)
		? (struct thread *)(uintptr_t)r : sched_default_pick_next(c);
}

void sim_host_sched_use(struct sched_runq *rq, const char *name)
{
	sim_host_grafts_fresh();
	pick_chosen = strcmp(name, SCHED_SIM_DEFAULT_POLICY) ? find(name) : NULL;
	pick_slot = pick_chosen ? graft_pick_next : sched_default_pick_next;
	rq->pick_next = &pick_slot;
	aborts = 0;
}

void sim_note_abort(const char *policy, const char *why)
{
	aborts++;
	if (sim_verbose)
		fprintf(stderr, "scion-sim: graft '%s' aborted: %s; default used\n", policy, why);
}

uint64_t sim_host_aborts(void)
{
	return aborts;
}

void sim_host_list(void)
{
	printf("  %-16s %s (default)\n", sim_default_names[SIM_EVICT], point_of_kind[SIM_EVICT]);
	printf("  %-16s %s (default)\n", sim_default_names[SIM_READAHEAD],
	       point_of_kind[SIM_READAHEAD]);
	printf("  %-16s %s (default)\n", SCHED_SIM_DEFAULT_POLICY, "sched.pick_next");
	printf("  %-16s %s (Belady's MIN: knows the recorded future)\n",
	       sim_optimal_names[SIM_EVICT], point_of_kind[SIM_EVICT]);
	printf("  %-16s %s (plans the blocks the recording requests next)\n",
	       sim_optimal_names[SIM_READAHEAD], point_of_kind[SIM_READAHEAD]);
	printf("  %-16s min+oracle; optimal-evict: min with the recorded read-ahead\n", "optimal");
	for (unsigned i = 0; sim_graft_manifests[i]; i++)
		printf("  %-16s %s (graft)\n", sim_graft_manifests[i]->name,
		       sim_graft_manifests[i]->point);
}
