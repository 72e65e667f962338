/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host simulator's own interfaces (sim/): its environment (env.c),
 * its policies (policies.c) and the command (main.c). The replay itself
 * is the kernel's, kernel/sim/replay.c, built here unchanged.
 */
#ifndef SIM_HOST_H
#define SIM_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include "../kernel/sim/replay.h"

extern bool sim_verbose;

/* Catch faults and the budget alarm inside grafts. Once, at start. */
void sim_env_init(void);

/*
 * sim_txn_run - run call(args) as a graft invocation in a transaction;
 *   check (may be NULL) refuses a result by returning why.
 * Return value: true with *result when it committed; false when it
 *   aborted (its changes undone, sim_note_abort told) or transactions
 *   nest too deep: the caller then runs the default, as the kernel does.
 */
bool sim_txn_run(const char *policy, uint64_t (*call)(const uint64_t args[6]),
		 const uint64_t args[6], const char *(*check)(uint64_t result), uint64_t *result);

/* An invocation of policy aborted, for why (counted and, verbose, printed). */
void sim_note_abort(const char *policy, const char *why);

/* The kind of policy name is (SIM_KINDS: none): for sim_policy_parse. */
enum sim_kind sim_host_kind_of(const char *name);

/*
 * sim_host_use - make c's slots run the policies named (defaults or
 *   grafts built into this program). Return value: false with why.
 */
bool sim_host_use(struct bcache_cache *c, const struct sim_policy_names *names, char *why,
		  size_t whylen);

/* Aborted invocations since the last sim_host_use. */
uint64_t sim_host_aborts(void);

/* Print the policies this program knows, one per line. */
void sim_host_list(void);

#endif
