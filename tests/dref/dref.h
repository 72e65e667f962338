/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The D oracle (tests/dref/): a differential test of the D compiler's
 * code generator and the kernel's clause machinery. One program, two
 * runs over the same firings, one answer:
 *
 *   reference  the checked D program (dtrace.h's AST, with the types
 *              the checker gave it) walked by a reference evaluator
 *              written from D's semantics (dref_eval.c, dref_strings.c,
 *              dref_clause.c), which shares no code with the compiler's
 *              back end or the kernel;
 *   compiled   the trace object dt_generate made, loaded by the
 *              kernel's own dof_load and fired through the kernel's own
 *              handler (trace_probe_handler_for) -> trace_fire ->
 *              predicate, actions, aggregate (ecb.c), the DIF
 *              environment (env.c), dynamic
 *              variables (dynvar.c), aggregation and trace buffers
 *              (aggbuf.c, kernel/tbuf/tbuf.c): dref_session.c, over the host stand-
 *              ins of dref_kernel.c.
 *
 * Both produce struct dref_results: every aggregation entry per CPU
 * (key bytes laid out as the kernel sends them, values merged over the
 * snapshots), every record per CPU in order (trace(), printf() and exit()
 * data, error records), every global scalar's final value, exit()'s
 * status and the counters; they must be equal (dref_compare.c).
 * Programs come from the generator (dref_gen*.c), which writes only
 * well-typed D over what the evaluator supports, or are fixed
 * regressions (main.c).
 *
 * Invariant: everything is deterministic from a seed (or the fuzz
 * input): programs, threads, CPUs, arguments, clock. No global state but
 * the host CPU table of dref_kernel.c.
 */
#ifndef DREF_H
#define DREF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../../host/dtrace/dtrace.h"

#define DREF_STRMAX	256	/* largest strsize a program may set (bytes, NUL included) */
#define DREF_CPUS	4
#define DREF_THREADS	4
#define DREF_NPROBES	10
#define DREF_MAX_FIRINGS 256
#define DREF_MAX_ECBS	(DOF_MAX_CLAUSES * DREF_NPROBES)

/* ---- randomness: a seed, or bytes from a fuzzer (then zeros) ---- */

struct dref_rng {
	uint64_t state;
	const uint8_t *data;		/* non-NULL: decisions come from these bytes */
	size_t len, pos;
};

void dref_rng_seed(struct dref_rng *r, uint64_t seed);
void dref_rng_bytes(struct dref_rng *r, const uint8_t *data, size_t len);
uint64_t dref_rng_u64(struct dref_rng *r);
/* A number in [0, n) (n > 0). */
uint32_t dref_below(struct dref_rng *r, uint32_t n);
/* True with probability percent / 100. */
bool dref_chance(struct dref_rng *r, unsigned percent);
/* An integer worth testing: small, at a type's edge, or any 64 bits. */
uint64_t dref_interesting(struct dref_rng *r);

/* ---- text ---- */

struct dref_buf {
	char *text;
	size_t len, cap;
};

void dref_printf(struct dref_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dref_buf_free(struct dref_buf *b);

/* ---- the world the programs run in: probes, threads, firings ---- */

enum dref_site {
	DREF_SITE_SESSION,		/* dtrace:::BEGIN / END: the session fires it, args 0 */
	DREF_SITE_ENTRY,		/* fbt entry: arguments from the registers */
	DREF_SITE_RETURN,		/* fbt return: arg0 the ret's offset, arg1 the value */
	DREF_SITE_INSIDE,		/* sdt, profile: arguments from the registers */
};

struct dref_probe {
	uint32_t id;
	const char *provider, *module, *function, *name;
	enum dref_site site;
};

/* The fixed probes: BEGIN, END, ERROR, then fbt, sdt and profile ones. */
extern const struct dref_probe dref_probes[DREF_NPROBES];
#define DREF_PROBE_BEGIN 0
#define DREF_PROBE_END   1
#define DREF_PROBE_ERROR 2
#define DREF_FIRST_FIRED 3	/* the probes a scenario fires at random */

struct dref_thread {
	uint64_t tid;
	const char *name;
	uint64_t run_ns, oncpu_since;
	int affinity;
	uint64_t ticks_run, switches_in;
};

struct dref_firing {
	unsigned probe;			/* index into dref_probes */
	unsigned cpu, thread;
	uint64_t regs[6];		/* rdi, rsi, rdx, rcx, r8, r9; RETURN: [0] the ret's
					   offset, [1] rax */
	uint64_t now;			/* clock_ns() throughout the firing */
	bool drain_after;		/* the consumer takes the buffers after it */
};

struct dref_scenario {
	unsigned ncpus;
	struct dref_thread threads[DREF_THREADS];
	unsigned nthreads;
	uint64_t wall_base;		/* walltimestamp - timestamp */
	struct dref_firing begin, end;	/* BEGIN and END's firings */
	struct dref_firing firings[DREF_MAX_FIRINGS];
	unsigned nfirings;
};

/* A scenario from r: CPUs, threads, 20..max firings of the fired probes. */
void dref_scenario_random(struct dref_rng *r, struct dref_scenario *sc, unsigned max);
/* arg0..arg5 as D sees them at firing f. */
void dref_firing_args(const struct dref_firing *f, uint64_t args[6]);
/* One line per firing into b: for failure reports. */
void dref_scenario_print(struct dref_buf *b, const struct dref_scenario *sc);

/* Enabled probes: (clause, probe) pairs in clause order, EPIDs from 1, as session.c has them. */
struct dref_ecbs {
	unsigned n;
	struct {
		int clause;
		unsigned probe;
	} ecb[DREF_MAX_ECBS];
};

/* Match every clause's descriptions against dref_probes (a part left empty matches anything). */
void dref_match(const struct dt_program *p, struct dref_ecbs *out);

/* ---- results, and the tables both runs fill ---- */

struct dref_aggent {
	unsigned cpu;
	uint32_t agg;
	uint32_t keybytes, nvals;
	uint8_t *key;			/* the kernel's layout: dt_agg_code.keys */
	uint64_t *vals;			/* DOF_AGG_* values (scion/dof.h) */
};

struct dref_record {
	unsigned cpu;
	uint32_t size;
	uint8_t *bytes;			/* struct dof_rechdr, then data; error records with their
					   pc zeroed (the evaluator has no instruction counts) */
};

struct dref_results {
	struct dref_aggent *aggs;
	unsigned naggs, aggcap;
	uint32_t nbuckets;		/* aggs' hash index: bucket[], next[] hold entry index + 1 */
	uint32_t *bucket, *next;
	struct dref_record *recs;
	unsigned nrecs, reccap;
	unsigned nglobals;		/* the program's global variables, by id */
	bool *global_is_string;
	bool *global_is_array;		/* arrays are not compared here */
	uint64_t *global_int;
	char (*global_str)[DREF_STRMAX];
	uint64_t errors, dynvar_drops, agg_drops, record_drops;
	bool exited;			/* exit() ran: the first one's status */
	int32_t exit_status;
};

void dref_results_init(struct dref_results *r, const struct dt_program *p);
void dref_results_free(struct dref_results *r);
/*
 * The values of (cpu, agg, key), made (zeroed, nvals of them) when new;
 * *fresh says which.
 */
uint64_t *dref_agg_entry(struct dref_results *r, unsigned cpu, uint32_t agg, const uint8_t *key,
			 uint32_t keybytes, uint32_t nvals, bool *fresh);
void dref_add_record(struct dref_results *r, unsigned cpu, const void *bytes, uint32_t size);
/* How many values an aggregation of object obj has (quantize: 127, lquantize: levels + 2...). */
uint32_t dref_agg_nvals(const struct dt_agg_code *ac);

/* ---- the two runs ---- */

/*
 * The reference evaluator: run every firing of sc (BEGIN first, END last)
 * through the clauses of obj's checked program. Return value: 0, or -1
 * with why when the program uses something the evaluator does not model.
 */
int dref_evaluate(const struct dt_object *obj, const struct dref_scenario *sc,
		  const struct dref_ecbs *ecbs, struct dref_results *out, char *why, size_t whylen);

/*
 * The kernel: load obj's bytes with dof_load, build the session's ECBs
 * and buffers as session.c does, fire sc through the handler of
 * trace_probe_handler_for
 * and trace_fire_session_probe, and read the buffers back as the
 * consumer does. Return value: 0, or -1 with why (the loader refused).
 */
int dref_kernel_run(const struct dt_object *obj, const struct dref_scenario *sc,
		    const struct dref_ecbs *ecbs, struct dref_results *out, char *why, size_t whylen);

struct dref_stats {
	unsigned programs, firings, ecbs;
	unsigned comparisons;		/* all of the below, and each run's error count */
	unsigned agg_entries, records, globals;
	unsigned disagree, bad_program, inconclusive;
	uint64_t errors_seen;		/* run-time errors both runs agreed on */
};

/*
 * Compare; false with the first difference (and what surrounds it)
 * described in b. What was compared is counted in stats.
 */
bool dref_compare(const struct dt_object *obj, const struct dref_results *want,
		  const struct dref_results *got, struct dref_buf *b, struct dref_stats *stats);

/* ---- the generator ---- */

/* A random well-typed D program over dref_probes into b (which it resets). */
void dref_generate(struct dref_rng *r, struct dref_buf *b);

/* ---- one program end to end ---- */

enum dref_verdict {
	DREF_AGREE,
	DREF_DISAGREE,			/* the two runs differ: a bug in the compiler or kernel */
	DREF_BAD_PROGRAM,		/* it did not compile: a generator bug (or a regression's) */
	DREF_INCONCLUSIVE,		/* drops, or the evaluator cannot model it */
};

/*
 * Compile src, run it both ways over sc and compare. report receives,
 * for anything but DREF_AGREE, the program, the firings and the first
 * difference.
 */
enum dref_verdict dref_check(const char *src, const struct dref_scenario *sc,
			     struct dref_stats *stats, struct dref_buf *report);

#endif
