/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Trace sessions inside kernel/trace/: a loaded trace object (dof.c),
 * its enabling control blocks on probes (ecb.c), the DIF environment
 * of a firing (env.c), dynamic variables (dynvar.c), aggregation
 * buffers (aggbuf.c), speculations (spec.c) and the session's life
 * (session.c, its memory in session_state.c).
 *
 * Probe context: everything reached from trace_fire runs with
 * interrupts masked and this CPU's probe_nesting raised, so no probe
 * fires inside it; it takes only leaf spinlocks (dynamic variables, a
 * speculation) and never sleeps.
 *
 * Lock order: sessions_lock (mutex) -> dynvar lock / speculation lock
 * (leaf spinlocks, probe context).
 */
#ifndef TRACE_INTERNAL_H
#define TRACE_INTERNAL_H

#include <scion/dof.h>
#include <scion/dif_exec.h>
#include <scion/probe.h>
#include <scion/spinlock.h>
#include <scion/tbuf.h>
#include <scion/cpu.h>
#include <scion/clock.h>

#define TRACE_SCRATCH   16384		/* bytes of scratch per CPU per firing */
#define TRACE_MAX_ECBS  16384		/* per session */
#define TRACE_NOTICE_MAX 96
#define TRACE_SESSIONS  4

/* One action of a clause, checked when loaded. */
struct trace_action {
	uint16_t kind;			/* DOF_ACT_* */
	uint16_t nprogs;
	uint32_t arg;
	const struct dif_prog **progs;
	uint32_t offset;		/* RECORD, STACK, EXIT: where its data goes */
	uint32_t size;			/* its bytes of data (0: none) */
	uint16_t key_probe_name;	/* AGGREGATE: its key is the firing probe's name,
					   built-in DIF_VAR_* V + 1 (trace_key_probe_name),
					   or 0 */
};

struct trace_clause {
	uint32_t flags;			/* DOF_CLAUSE_* */
	uint32_t nprobes;
	char (*desc)[4][DOF_MAX_PROBEDESC + 1];
	const struct dif_prog *predicate;	/* NULL: always */
	uint32_t nactions;
	struct trace_action *actions;
	uint32_t record_size;		/* header + data, 8-aligned; 0 without DOF_CLAUSE_RECORD */
	bool speculative;		/* first action is SPECULATE */
	bool padded;			/* a datum leaves alignment padding: the record is
					   zeroed before the actions write it */
	bool writes_principal;		/* an action (commit) writes the principal buffer
					   while the record is being built */
	bool in_place;			/* set at the start (trace_bufpolicy_start): a record,
					   neither speculative nor writes_principal, and
					   bufpolicy=switch: built in the principal buffer */
};

struct trace_agg {
	uint8_t func;			/* DOF_AGG_* */
	uint8_t nkeys;
	uint8_t nkeyprogs;		/* keys with a program: all but the stacks */
	uint8_t key_type[DIF_MAX_TUPLE];	/* DIF_TYPE_* or DOF_KEY_STACK */
	uint16_t key_size[DIF_MAX_TUPLE];
	uint32_t keybytes;
	uint32_t valbytes;
	uint32_t nvalues;		/* value programs: 0 for count, else 1 */
	int64_t lq_low, lq_high, lq_step;
};

/* A variable's storage rules, gathered over every program of the object. */
struct trace_var {
	bool used;
	uint8_t kind, type, nkeys;
	uint16_t size;			/* string bytes (NUL included), a by-reference
					   variable's bytes; 8 for integers */
	uint32_t offset;		/* globals, clause-locals: into their area */
};

struct trace_object {
	uint64_t option[DOF_OPT_LIMIT];
	bool option_given[DOF_OPT_LIMIT];	/* the object set it (else the default) */
	uint32_t nprogs;
	struct dif_prog *progs;
	uint32_t njit;			/* of them with native code (scion/dif_jit.h) */
	uint32_t naggs;
	struct trace_agg *aggs;
	uint32_t nclauses;
	struct trace_clause *clauses;
	struct trace_var globals[DIF_MAX_VARS];
	struct trace_var thread_vars[DIF_MAX_VARS];
	struct trace_var locals[DIF_MAX_VARS];
	uint32_t globals_bytes, locals_bytes;
	/* The variables held by reference come first in each area: what programs write. */
	uint32_t globals_byref_bytes, locals_byref_bytes;
};

/*
 * dof_load - take a trace object apart and check all of it: framing,
 * limits, every program through dif_verify, actions against the
 * programs and aggregations they name, variables used consistently.
 * Return value: 0 with *obj filled (dof_free releases it), or -EINVAL /
 *   -ENOMEM with one line in why.
 * Caller's context: thread, may sleep.
 */
int dof_load(const uint8_t *data, uint32_t len, struct trace_object *obj, char *why,
	     size_t whylen);
void dof_free(struct trace_object *obj);

/* Enabled probe: one clause on one probe. */
/* Where a probe fires, for the arguments and stacks DTrace gives there. */
enum trace_site {
	TRACE_SITE_INSIDE,		/* sdt, profile, an instruction: args as at the site */
	TRACE_SITE_ENTRY,		/* fbt entry: the call's arguments */
	TRACE_SITE_RETURN,		/* fbt return: arg0 the ret's offset, arg1 the return value */
};

struct trace_ecb {
	uint32_t epid;
	struct trace_clause *clause;
	struct probe *probe;
	enum trace_site site;
	struct trace_ecb *next;		/* the next ECB on the same probe (clause order) */
};

/* One probe consumer per probe a session enables; its ECBs in order. */
struct trace_enabling {
	struct probe_consumer consumer;
	struct trace_session *session;
	struct trace_ecb *ecbs;
	uint64_t function;		/* TRACE_SITE_RETURN: the probed function's first byte */
	struct trace_plan *plan;	/* set at the start: its firing's plan (plan.c), or NULL */
};

/*
 * A planned firing (plan.c): one step per action, everything it needs
 * decided at the start.
 */
#define TRACE_PLAN_STEPS 8
struct trace_plan_step {
	bool aggregate;			/* else a record's datum */
	uint8_t value;			/* 0..5: argN; 6: the timestamp; 7: none (count()) */
	uint16_t action;		/* its index in the clause */
	uint32_t at;			/* a datum: its offset in the record; else the
					   aggregation's id */
	const struct trace_agg *g;	/* an aggregation's description */
	uint64_t tag;			/* an aggregation's key tag (aggbuf_fold_known) */
};

struct trace_plan {
	struct trace_session *session;
	struct trace_ecb *ecb;		/* the enabling's only one */
	uint32_t record_size;		/* 0: the clause writes no record */
	bool reads_clock;		/* a record or a timestamp: the clock is read once */
	bool aggregates;		/* a step aggregates (else records only) */
	uint64_t header;		/* the record header's first word: EPID, probe id */
	uint32_t nsteps;
	struct trace_plan_step step[TRACE_PLAN_STEPS];
};

/* Dynamic variables (dynvar.c). */
struct dynvar_space;
struct dynvar_space *dynvar_create(uint32_t bytes);
void dynvar_destroy(struct dynvar_space *d);
/*
 * dynvar_lookup - the value slot (valbytes long) of (scope, var id,
 *   key) or NULL; with create, a zeroed slot is made when there is none
 *   (NULL when the space is full). dynvar_delete frees it. Caller holds
 *   the space's lock (dynvar_lock / dynvar_unlock). Probe context.
 */
void *dynvar_lookup(struct dynvar_space *d, uint8_t scope, uint16_t id, const uint8_t *key,
		    uint32_t keylen, uint32_t valbytes, bool create);
void dynvar_delete(struct dynvar_space *d, uint8_t scope, uint16_t id, const uint8_t *key,
		   uint32_t keylen);
/*
 * dynvar_lookup_byref - the storage (valbytes long, zeroed when new) of
 *   the element (scope, var id, key) of a variable held by reference (a
 *   struct or array value of an associative array, or a thread-local
 *   one), made when there is none; NULL when the space is full. Such
 *   storage is never freed while the space lives (no D store deletes
 *   it: the verifier refuses stores to such variables), so a program
 *   may keep its address for the rest of the firing and write through
 *   it. Caller holds the space's lock. Probe context.
 */
void *dynvar_lookup_byref(struct dynvar_space *d, uint8_t scope, uint16_t id,
			  const uint8_t *key, uint32_t keylen, uint32_t valbytes);
/*
 * dynvar_byref_area - where every such storage lies, [*base, *base +
 *   return value): what a program may write of the space. Read without
 *   the lock; the area only grows, so an older answer is a part of it.
 */
uint32_t dynvar_byref_area(struct dynvar_space *d, const uint8_t **base);
irqflags_t dynvar_lock(struct dynvar_space *d);
void dynvar_unlock(struct dynvar_space *d, irqflags_t f);
uint32_t dynvar_count(struct dynvar_space *d);

/* Aggregation buffers (aggbuf.c): per CPU, switched like trace buffers. */
struct aggbuf_set;
/*
 * aggbuf_create - two buffers of bytes per CPU, indexed for entries of
 * at least min_entry bytes (a dof_aggent, its key, its values). NULL when
 * memory is short. aggbuf_bytes_needed says beforehand how much it takes.
 * Caller's context: thread.
 */
struct aggbuf_set *aggbuf_create(uint32_t bytes, uint32_t min_entry);
uint64_t aggbuf_bytes_needed(uint32_t bytes, uint32_t min_entry, unsigned ncpus);
void aggbuf_destroy(struct aggbuf_set *a);
/*
 * aggbuf_update - fold one value into (agg, key) on this CPU's active
 *   buffer, creating the entry. incr is what a quantize or lquantize
 *   bucket grows by (1 unless weighted; two's complement); the other
 *   functions ignore it. Return value: false when the buffer is full (an
 *   aggregation drop). Probe context.
 * Arguments: key's first keylen bytes (8-aligned, at most agg->keybytes)
 *   are the key; the rest of its agg->keybytes are zero and need not be
 *   written. keylen must be the same for equal keys and must take in the
 *   last string component's NUL (build_agg_key, ecb.c): then comparing
 *   keylen bytes tells keys apart, and a short string key is hashed and
 *   compared in a few words, not strsize bytes. tag: 0, or as for
 *   aggbuf_fold_known.
 */
bool aggbuf_update(struct aggbuf_set *a, uint32_t agg_id, const struct trace_agg *agg,
		   const uint8_t *key, uint32_t keylen, uint64_t value, uint64_t incr,
		   uint64_t tag);
/*
 * aggbuf_fold_known - aggbuf_update for a key the caller names by a tag
 *   (non-zero, one tag for one key of agg_id, e.g. a probe's id for a key
 *   that is the probe's name): when an aggbuf_update with this tag has
 *   made or found the entry on this CPU since its last switch, fold into
 *   it without the key. Return value: true when it did; false, and
 *   nothing changed, when the caller must call aggbuf_update (with the
 *   tag, which remembers the entry). Probe context.
 */
bool aggbuf_fold_known(struct aggbuf_set *a, uint32_t agg_id, const struct trace_agg *agg,
		       uint64_t tag, uint64_t value, uint64_t incr);
/* Switch every CPU's buffers (cross-call); then aggbuf_taken gives each CPU's. Thread. */
void aggbuf_switch(struct aggbuf_set *a);
const uint8_t *aggbuf_taken(struct aggbuf_set *a, unsigned cpu, uint32_t *bytes);

/* Speculations (spec.c). */
struct spec_set;
struct spec_set *spec_create(uint32_t nspec, uint32_t bytes);
void spec_destroy(struct spec_set *s);
uint64_t spec_new(struct spec_set *s);		/* an id, or 0 when none is free */
/* Append a record to speculation id; false when inactive or full. Probe context. */
bool spec_append(struct spec_set *s, uint64_t id, const void *rec, uint32_t size);
/*
 * Commit: each record of speculation id into this CPU's principal buffer
 * (sizes from record_size(epid), room from reserve(arg, bytes), which
 * counts the drop of a record that does not fit). Discard: drop them. Both free the speculation.
 * Probe context.
 */
void spec_commit(struct spec_set *s, uint64_t id,
		 void *(*reserve)(void *arg, uint32_t bytes),
		 uint32_t (*record_size)(void *arg, uint32_t epid), void *arg);
void spec_discard(struct spec_set *s, uint64_t id);

enum trace_state {
	TRACE_LOADED,		/* probes not enabled yet */
	TRACE_WARMUP,		/* enabled; only BEGIN's ECBs run */
	TRACE_ACTIVE,
	TRACE_DRAINING,		/* exit() ran or the host stops it: only END's ECBs run */
	TRACE_STOPPED,		/* END has fired; nothing runs */
};
#define TRACE_ANY_STATE ((enum trace_state)-1)	/* ERROR's clauses run in any */

/* Per-CPU state of a firing: built up and thrown away within it. */
struct trace_cpu {
	uint8_t *staging;		/* the record being built (DOF_MAX_RECORD) */
	uint8_t *scratch;		/* TRACE_SCRATCH bytes */
	uint32_t scratch_used;
	uint8_t *locals;		/* clause-local variables of this probe firing */
	uint8_t *key;			/* a dynamic variable's key being built */
	uint8_t *agg_key;		/* an aggregation's key tuple (DOF_MAX_KEYBYTES): its
					   own, since its key and value programs may load
					   dynamic variables, which build theirs in key */
	uint64_t random;		/* rand()'s state */
	uint64_t chill_mark;		/* chill(): when this second of chilling began */
	uint64_t chilled;		/* and the ns chilled since */
	uint64_t fill_bytes;		/* bufpolicy=fill: bytes recorded since the start */
	struct trace_ring *ring;	/* bufpolicy=ring: this CPU's ring */
};

struct trace_counters {
	uint64_t dynvar_drops, spec_drops, spec_unavail, agg_drops, errors;
};

struct trace_session {
	uint32_t id;
	enum trace_state state;		/* atomic: read in probe context */
	int32_t exit_status;		/* set with the state's move to DRAINING by exit() */
	bool exited;			/* atomic */
	struct trace_object obj;
	uint32_t necbs;
	struct trace_ecb *ecbs;		/* epid - 1 */
	uint32_t nenablings;
	struct trace_enabling *enablings;
	struct trace_ecb *begin, *end, *error;	/* ECBs on dtrace:::BEGIN / END / ERROR */
	struct tbuf_set *bufs;		/* the stream's, set when it opens */
	struct aggbuf_set *aggs;
	struct dynvar_space *dynvars;
	struct spec_set *specs;
	uint8_t *globals;		/* obj.globals_bytes */
	struct trace_cpu cpu[MAX_CPUS];
	struct trace_counters counters;	/* atomic */
	uint64_t wall_base_ns;		/* set once: walltimestamp - timestamp */
	bool own_bufs;			/* bufs made by trace_session_start, freed with it */
	bool enabled;			/* its consumer: probes enabled, not yet disabled */
	uint32_t end_reserve;		/* bytes END's clauses record: bufpolicy=fill keeps them */
	uint64_t filled_cpus;		/* atomic: bufpolicy=fill, bit n: CPU n filled */
	char notice[TRACE_NOTICE_MAX];	/* set once at creation: a line for the user, or "" */
};

/* session_state.c: a session's memory (session.c's step 2). */
/* The smallest aggregation entry of o (DOF_AGGSIZE_MIN without aggregations). */
uint32_t trace_agg_min_entry(const struct trace_object *o);
/*
 * trace_session_allocate - the per-CPU state, aggregation buffers of
 *   aggsize bytes indexed for min_entry, dynamic variables, speculations
 *   and globals of s's loaded object.
 * Return value: 0, or -1 when memory ran out (trace_session_free frees
 *   what was made).
 * Caller's context: thread context; may sleep.
 */
int trace_session_allocate(struct trace_session *s, uint32_t aggsize, uint32_t min_entry);
/* Free s, its object, ECBs and memory; not its principal buffers. */
void trace_session_free(struct trace_session *s);

/* bufpolicy.c: the principal buffers' policy (enum dof_bufpolicy). */
struct trace_ring;
/* Room for a record of bytes bytes by s's policy, or NULL (a drop, counted). Probe context. */
void *trace_reserve(struct trace_session *s, uint32_t bytes);
/* At the start (s->bufs and the ECBs set): END's reserve; rings. -1: no memory. Thread. */
int trace_bufpolicy_start(struct trace_session *s);
void trace_bufpolicy_free(struct trace_session *s);
/*
 * trace_bufpolicy_send_rings - after END: each CPU's ring, oldest record
 *   first, as calls of send with at most chunk_max bytes of whole records;
 *   then the rings are empty. Thread context, nothing firing.
 */
void trace_bufpolicy_send_rings(struct trace_session *s,
				void (*send)(void *arg, unsigned cpu, uint32_t count,
					     uint8_t *records, uint32_t bytes),
				void *arg, uint32_t chunk_max);

/* ecb.c */
/*
 * trace_fire - run a session's ECBs for one probe hit: for each in
 *   order, the predicate, then the actions into a record staged per CPU,
 *   which then goes to the principal or a speculative buffer.
 * Arguments: ecbs, the chain; args, the dtrace provider's arguments
 *   (NULL: from hit's registers); runs_in, the state the session must
 *   be in for each ECB to run (TRACE_ACTIVE for probes, WARMUP for
 *   BEGIN, DRAINING for END, TRACE_ANY_STATE for ERROR).
 * Caller's context: probe context (interrupts masked, probe_nesting
 *   raised).
 */
struct trace_firing;
void trace_fire(struct trace_session *s, struct trace_ecb *ecbs, const struct probe_hit *hit,
		const uint64_t *args, enum trace_state runs_in);
/*
 * trace_lean_clause - whether clause c is lean: its record, if any, is
 *   built in place (trace_clause.in_place), and its actions only record
 *   integers, walk stacks, aggregate or evaluate (no speculation,
 *   commit, exit(), strings, structs or destructive action; so no
 *   padding either). A lean chain's firing leaves those out.
 * Caller's context: any, once trace_bufpolicy_start has run.
 */
bool trace_lean_clause(const struct trace_clause *c);
/*
 * trace_probe_handler_for - the PROBE_HANDLER of enabling en (its ECBs
 *   share its probe, so its site): a return probe's builds its two
 *   arguments, the others' fire with the hit's registers, leanly when
 *   every clause is lean, from a plan when en has one (en->plan is made
 *   here: trace_plan_make).
 * Caller's context: thread, at the session's start (after
 *   trace_bufpolicy_start, before the probes are enabled); may sleep.
 */
probe_handler_fn trace_probe_handler_for(struct trace_enabling *en);
/* The lean firing's handler: the planned firing's fallback. Probe context. */
void trace_lean_probe_handler(const struct probe_hit *hit, void *arg);
/*
 * trace_fold_by_key - fold aggregating action a (index ai, from 1) of
 *   firing x by its key built whole, with value and incr in hand (tag
 *   nonzero) or computed after the key (tag 0), remembering tag.
 * Return value: false when the firing is abandoned (a fault, reported).
 * Caller's context: probe context, in firing x.
 */
bool trace_fold_by_key(struct trace_firing *x, const struct trace_action *a, uint32_t ai,
		       uint64_t tag, uint64_t value, uint64_t incr);

/*
 * trace_plan_make - the plan of enabling en's firing, when its one
 *   clause (entry or inside site) has no predicate and no clause-local
 *   variables, and each of its actions records, or aggregates keyed by
 *   nothing or by the probe's name, arg0..arg5 or the timestamp (a
 *   program with a lone built-in: native code only); else NULL (also
 *   when memory is short). The caller frees it (kfree).
 * trace_planned_probe_handler, trace_planned_record_handler - the
 *   PROBE_HANDLER that fires from en->plan (arg is en); the second for
 *   a plan that writes a record and does not aggregate. Probe context.
 * Caller's context (trace_plan_make): thread, at the start, after
 *   trace_bufpolicy_start; may sleep.
 */
struct trace_plan *trace_plan_make(const struct trace_enabling *en);
void trace_planned_probe_handler(const struct probe_hit *hit, void *arg);
void trace_planned_record_handler(const struct probe_hit *hit, void *arg);
/*
 * trace_key_probe_name - for aggregating action a of aggregation g, set
 *   once its programs have their native code (dof_load): the built-in
 *   V + 1 when its key is the firing probe's name alone (probefunc,
 *   probename, probemod or probeprov, compiled to the built-in's value),
 *   else 0. Caller's context: any.
 */
uint16_t trace_key_probe_name(const struct trace_action *a, const struct trace_agg *g);
/* Fire one of the session's dtrace-provider chains from thread context. */
void trace_fire_session_probe(struct trace_session *s, struct trace_ecb *ecbs,
			      const uint64_t args[6], enum trace_state runs_in);
uint32_t trace_record_size(void *session, uint32_t epid);

/*
 * A datum's 8 bytes into a record or key: inline stores, where the
 * kernel's memcpy (no builtins) would be a call that takes longer than
 * the datum.
 */
static inline void trace_store_word(uint8_t *to, uint64_t v)
{
	__builtin_memcpy(to, &v, 8);
}

/*
 * A tag naming the key of aggregating action a (of aggregation g) at a
 * firing of probe p without its bytes, for aggbuf_fold_known, or 0:
 * - no key (@ = count()): one entry, tag 1;
 * - the firing probe's name alone (a->key_probe_name): the probe's id
 *   and the built-in name the same key bytes at every firing (the
 *   interning of probe names that DTrace's strsize-wide keys lack).
 * Neither key's program can fault, so when it runs (before or after the
 * value's) is not seen. The lean firing asks at each firing, a plan
 * once (its enabling's probe is the firing's).
 */
static inline uint64_t trace_key_tag(const struct probe *p, const struct trace_action *a,
				     const struct trace_agg *g)
{
	if (!g->nkeys)
		return 1;
	if (a->key_probe_name)
		return (uint64_t)p->id << 16 | a->key_probe_name;
	return 0;
}

/* env.c: the DIF environment of one firing. */
struct trace_firing {
	struct trace_session *session;
	struct trace_cpu *cpu;
	const struct probe_hit *hit;
	struct trace_ecb *ecb;
	const uint64_t *args;		/* dtrace-provider probes: their arguments; else NULL */
	uint64_t strtok[2];		/* strtok()'s place in this firing (dif_env_ops) */
	uint64_t now_ns;		/* the clock, read once a firing (0: not yet) */
};

/*
 * The firing's time: timestamp, vtimestamp and walltimestamp, and the
 * records' time, are one reading of the clock for every clause of one
 * probe firing, as in DTrace (a - b of two timestamp reads is 0).
 */
static inline uint64_t trace_firing_now(struct trace_firing *x)
{
	if (!x->now_ns)
		x->now_ns = clock_ns();
	return x->now_ns;
}
extern const struct dif_env_ops trace_env_ops;

/*
 * trace_env_variable - firing x's built-in variable id (DIF_VAR_*), for
 *   any but the arguments: trace_builtin's out-of-line part.
 * Caller's context: probe context, in firing x.
 */
uint64_t trace_env_variable(struct trace_firing *x, unsigned id);

/*
 * Firing x's built-in variable id: the environment's builtin op. The
 * arguments and a timestamp already read (by the record's header), the
 * commonest, are read inline; the rest in trace_env_variable, out of
 * line, so that these take no frame.
 */
static __always_inline uint64_t trace_builtin(struct trace_firing *x, unsigned id)
{
	if (id >= DIF_VAR_ARG0 && id <= DIF_VAR_ARG9) {
		unsigned n = id - DIF_VAR_ARG0;
		if (x->args)
			return n < 6 ? x->args[n] : 0;
		return trap_frame_arg(x->hit->regs, n);
	}
	if (id == DIF_VAR_TIMESTAMP && x->now_ns)
		return x->now_ns;
	return trace_env_variable(x, id);
}

/*
 * dif_run of p in firing x, but for a compiled program that is one
 * built-in's value (dif_prog.lone_builtin), whose value is asked of the
 * environment here without entering its code: a key of probefunc or
 * arg0, a quantize of arg0, trace(timestamp). Same results, no faults.
 */
static inline int trace_run(const struct dif_prog *p, struct trace_firing *x, uint64_t *result,
			    struct dif_fault *fault)
{
	if (p->lone_builtin) {
		*result = trace_builtin(x, p->lone_builtin - 1u);
		return 0;
	}
	return dif_run(p, &trace_env_ops, x, result, fault);
}
/*
 * Copy the string at addr (at most max bytes, NUL included) in firing x:
 * its length, or -EFAULT. Probe context.
 */
long trace_copy_string(const struct trace_firing *x, char *dst, uint64_t addr, size_t max);
#define TRACE_KEY_MAX (8 + DIF_MAX_TUPLE * (2 + DIF_STRSIZE_MAX))


#endif
