/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Dynamic probes on the running kernel's text (kernel/probe/).
 *
 * A probe is a named point, provider:module:function:name, with one or
 * more sites (addresses): fbt:kernel:thread_create:entry has one,
 * fbt:kernel:thread_create:return one per ret. Creating a probe touches
 * no text; enabling it attaches a consumer to each of its sites, and the
 * first consumer at an address patches the text there:
 *
 *   - jump probe (djprobe): a 5-byte jmp to a code patch holding inline
 *     annotations (counters, accumulators) or a call to the dispatcher
 *     with every register saved, the relocated instructions the jmp
 *     displaced, and a jmp back. Used when the analysis shows it safe.
 *   - int3 probe: a breakpoint; the trap handler runs the consumers and
 *     sends the CPU through an out-of-line copy of the instruction.
 *
 * Probes on the same address share one site and one patch. Removing the
 * last consumer restores the original bytes; `text verify` proves it.
 *
 * Lock order: probe_mutex (sleeping) -> text_poke's mutex -> spinlocks.
 */
#ifndef SCION_PROBE_H
#define SCION_PROBE_H

#include <scion/compiler.h>
#include <scion/list.h>
#include <arch/trap.h>

struct probe;
struct probe_site;

/* What a consumer does when its probe fires. */
enum probe_action {
	PROBE_COUNT,		/* add 1 to a counter (inline when possible) */
	PROBE_ENTER,		/* accumulator +1: a thread enters the measured region */
	PROBE_EXIT,		/* accumulator -1: a thread leaves it */
	PROBE_HANDLER,		/* call a C function with the registers */
};

enum probe_mechanism {
	PROBE_MECH_AUTO,	/* jump when safe, else int3 */
	PROBE_MECH_JUMP,	/* jump or refuse */
	PROBE_MECH_INT3,
};

struct probe_hit {
	struct probe *probe;
	uint64_t addr;			/* the probed instruction */
	struct trap_frame *regs;	/* registers there (read them; changes are ignored) */
};

typedef void (*probe_handler_fn)(const struct probe_hit *hit, void *arg);

/*
 * Time-weighted count of threads inside a region: each CPU keeps its own
 * three slots (struct cpu.probe_slots); the sums over CPUs give the total.
 */
struct probe_accumulator {
	unsigned slot;			/* index of the first of 3 per-CPU slots */
	uint64_t started;		/* cycle counter when it was set up */
};

struct probe_consumer {
	enum probe_action action;
	uint64_t *counter;		/* PROBE_COUNT: in patch data memory */
	struct probe_accumulator *acc;	/* PROBE_ENTER / PROBE_EXIT */
	probe_handler_fn handler;	/* PROBE_HANDLER */
	void *arg;
	uint64_t tid;			/* fire only in this thread (0: any); never inline */
	bool no_inline;			/* run it in C even where inline code could */
	enum probe_mechanism mechanism;	/* what a site it creates uses (AUTO by default) */
	struct probe *probe;		/* set while enabled, NULL otherwise (probe_mutex) */
	struct list_node node;		/* the probe's consumers (probe_mutex) */
};

struct probe {
	uint32_t id;			/* 1, 2, ...: never reused */
	const char *provider;		/* these four and sites live with the probe */
	const char *module;
	const char *function;
	const char *name;
	uint32_t nsites;
	const uint64_t *sites;		/* addresses of the instructions it probes */
	struct list_node consumers;	/* probe_mutex: struct probe_consumer */
	unsigned nconsumers;		/* probe_mutex */
};

/*
 * probe_create - register a probe (touches no text). Providers call it;
 * the sites must be instruction boundaries (checked when enabled).
 * Return value: the probe, or NULL when out of memory.
 * Caller's context: thread, may sleep.
 */
struct probe *probe_create(const char *provider, const char *module, const char *function,
			   const char *name, const uint64_t *sites, uint32_t nsites);

/* A probe's full name into buf: provider:module:function:name. */
char *probe_fullname(const struct probe *p, char *buf, size_t size);

/*
 * probe_lookup - the probes matching spec, one per call of fn.
 * spec is provider:module:function:name where each part may be empty
 * (any) or a glob, or function+0xoff for one instruction (created on
 * demand in the insn provider). Return value: how many matched, or a
 * negative errno with *why for a malformed spec or a refused address.
 */
int probe_lookup(const char *spec, bool (*fn)(struct probe *p, void *arg), void *arg,
		 const char **why);

struct probe *probe_by_id(uint32_t id);

/*
 * probe_enable - attach c to every site of p, patching text as needed.
 * Return value: 0; -EINVAL (with a message printed) for a site that
 *   cannot be probed; -EEXIST when a jump probe was required and would
 *   overlap another; -ENOMEM.
 * Caller's context: thread, no spinlocks, may sleep (takes probe_mutex).
 */
int probe_enable(struct probe *p, struct probe_consumer *c);

/* Detach c; text is restored where no consumer is left. Caller: as probe_enable. */
void probe_disable(struct probe_consumer *c);

/*
 * probe_enable_batch - enable many probes with one consumer each,
 * installing their sites in batches (up to PROBE_BATCH sites per round of
 * three CPU synchronisations) instead of one round per site.
 * Return value: the number of probes enabled.
 */
#define PROBE_BATCH 256
unsigned probe_enable_batch(struct probe **probes, struct probe_consumer **consumers, unsigned n);

/* Detach many consumers, batched like probe_enable_batch. Cannot fail. */
void probe_disable_batch(struct probe_consumer **consumers, unsigned n);

/*
 * Disable every consumer of every probe, batched. Their owners see
 * c->probe == NULL (for `probe clear` and tests that must leave clean).
 */
void probe_disable_all(void);

/* A counter in patch data memory (reachable from patches). NULL if exhausted. */
uint64_t *probe_counter_alloc(void);
void probe_counter_free(uint64_t *counter);

/* Set up / read / release an accumulator. */
int probe_accumulator_init(struct probe_accumulator *acc);
void probe_accumulator_read(const struct probe_accumulator *acc, int64_t *inside,
			    uint64_t *area, uint64_t *elapsed);
void probe_accumulator_release(struct probe_accumulator *acc);

/*
 * probe_check_address - whether an instruction probe may go at addr.
 * Return value: 0, or -EINVAL with *why (not kernel text, not an
 *   instruction boundary, the probe machinery's own code, boot-only code).
 */
int probe_check_address(uint64_t addr, const char **why);

/* What the site at addr uses and why (probe info). */
struct probe_site_info {
	bool present;
	enum probe_mechanism mechanism;	/* JUMP or INT3 */
	unsigned length;		/* bytes patched */
	const char *why_not_jump;	/* NULL for a jump probe */
	uint64_t hits, missed;
	unsigned consumers;
	uint64_t patch;			/* address of the patch / out-of-line copy */
};
void probe_site_info(uint64_t addr, struct probe_site_info *info);

/* Counts since boot, for `stats` and benchmarks. */
struct probe_stats {
	uint32_t probes, sites, jump_sites, int3_sites;
	uint64_t installs, removals, sync_rounds, refused_jumps;
};
void probe_get_stats(struct probe_stats *s);

/*
 * Called by the arch breakpoint handler for every int3 in kernel mode.
 * Return value: true when it was a probe's (frame->rip is then set to
 * where execution goes on).
 */
bool probe_breakpoint(struct trap_frame *frame);

/*
 * For tests of the text-changing protocol (site.c): fn is called, with
 * the probe lock held, after steps 1, 3 and 4 of every commit, when the
 * text of that step is in place on every CPU. NULL turns it off.
 */
void probe_set_step_observer(void (*fn)(unsigned step, void *arg), void *arg);

/*
 * probe_patch_origin - the kernel text address code at pc stands for, when
 * pc lies in a probe patch: the original of a relocated instruction, or
 * the probed address for code a probe inserted. For fault reports and
 * backtraces. Return value: false when pc is in no live patch.
 * Caller's context: any (no locks; reads the patch's own header).
 */
bool probe_patch_origin(uint64_t pc, uint64_t *origin);

/* Call fn for each probe (probe_mutex held: fn may not enable or disable). */
void probe_foreach(void (*fn)(struct probe *p, void *arg), void *arg);

#endif
