// SPDX-License-Identifier: BSD-2-Clause
/*
 * Firing enabling control blocks. For one probe hit, a session's ECBs
 * on that probe run in clause order; each one:
 *   1. runs its predicate, if any: zero skips the ECB;
 *   2. runs its actions in order, building its record (struct
 *      dof_rechdr, then each datum at its offset) in this CPU's staging
 *      area, and folding aggregations, storing variables, committing or
 *      discarding speculations as they come;
 *   3. copies the record into its speculation, or reserves it in this
 *      CPU's principal buffer by the session's policy (bufpolicy.c: a
 *      record that does not fit is a drop the buffer counts);
 *   4. after exit(), moves the session to DRAINING.
 * A run-time fault in step 1 or 2 abandons that ECB for this firing: an
 * error record (struct dof_error) goes to the principal buffer and the
 * session's dtrace:::ERROR clauses fire; an exhausted dynamic variable
 * space is counted as a drop instead. Side effects already made (a
 * variable stored, an aggregation folded) stay, as in DTrace.
 *
 * An enabling's handler is chosen at the start (trace_probe_handler_for):
 * the general firing; the lean one, the same steps compiled without
 * what lean clauses cannot do (trace_lean_clause: speculation, exit(),
 * staging); or plan.c's planned firing, which does them from constants.
 *
 * Probe context throughout (see trace_internal.h).
 */
#include <scion/thread.h>
#include <scion/clock.h>
#include <scion/string.h>
#include <scion/probe_arch.h>
#include <arch/stack.h>
#include <arch/cpu.h>
#include <scion/errno.h>
#include <scion/printk.h>
#include <scion/proc.h>
#include <scion/pause.h>
#include <scion/mm.h>
#include "trace_internal.h"

static void count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* dtrace:::ERROR's arg4 is the fault in DTrace's numbering (DTRACEFLT_*), which D scripts test. */
static const uint8_t dtrace_fault_code[DIF_FAULT_KINDS] = {
	[DIF_FAULT_NONE] = 0,		/* DTRACEFLT_UNKNOWN */
	[DIF_FAULT_BADADDR] = 1,	/* DTRACEFLT_BADADDR */
	[DIF_FAULT_ALIGN] = 2,		/* DTRACEFLT_BADALIGN */
	[DIF_FAULT_ILLOP] = 3,		/* DTRACEFLT_ILLOP */
	[DIF_FAULT_BADARG] = 3,		/* DTrace reports bad arguments as illegal operations */
	[DIF_FAULT_DIVZERO] = 4,	/* DTRACEFLT_DIVZERO */
	[DIF_FAULT_NOSCRATCH] = 5,	/* DTRACEFLT_NOSCRATCH */
	[DIF_FAULT_TUPLE] = 8,		/* DTRACEFLT_TUPOFLOW */
	[DIF_FAULT_DYNVAR] = 0,		/* a drop: never reaches ERROR */
	[DIF_FAULT_BADINDEX] = 3,	/* DTrace has no code of its own for it */
};

static void fire_error_probe(struct trace_session *s, const struct trace_ecb *failed,
			     uint32_t action, const struct dif_fault *fault)
{
	struct dof_rechdr *h = trace_reserve(s, sizeof(*h) + sizeof(struct dof_error));
	if (h) {
		struct dof_error *e = (struct dof_error *)(h + 1);
		h->epid = DOF_EPID_ERROR;
		h->probe_id = failed->probe->id;
		h->timestamp = clock_ns();
		e->epid = failed->epid;
		e->action = action;
		e->pc = fault->pc;
		e->fault = fault->kind;
		e->addr = fault->addr;
	}
	/* An error in an ERROR clause does not fire ERROR again. */
	if (!s->error || failed->probe == s->error->probe)
		return;
	const uint64_t args[6] = { 0, failed->epid, action,
				   fault->pc == DIF_PC_NONE ? (uint64_t)-1 : fault->pc,
				   fault->kind < DIF_FAULT_KINDS ? dtrace_fault_code[fault->kind] : 0,
				   fault->addr };
	struct trap_frame frame = { 0 };
	trap_frame_capture(&frame);
	struct probe_hit hit = { .probe = s->error->probe,
				 .addr = trap_frame_pc(&frame), .regs = &frame };
	trace_fire(s, s->error, &hit, args, TRACE_ANY_STATE);
}

/* A fault in action (0: the predicate) of e: a drop or an error. */
static void failed(struct trace_firing *x, uint32_t action, const struct dif_fault *fault)
{
	if (fault->kind == DIF_FAULT_DYNVAR) {
		count(&x->session->counters.dynvar_drops);
		return;
	}
	count(&x->session->counters.errors);
	fire_error_probe(x->session, x->ecb, action, fault);
}

/* The PCs of the firing's stack into pcs (frames of them, 0-padded), as stack() records them. */
static void walk_stack(const struct trace_firing *x, uint64_t *pcs, unsigned frames)
{
	unsigned n = arch_stack_walk(x->hit->regs, x->ecb->site != TRACE_SITE_INSIDE, pcs, frames);
	memset(pcs + n, 0, (frames - n) * 8);
}

/*
 * The bytes of an aggregation key built from a's key programs and stack
 * walks, and in *keylen how many of them aggbuf_update must look at
 * (the rest are zero): all of them, but for a last component that is a
 * string, up to the 8-byte word holding its NUL. Only that last string's
 * tail is left unwritten; every earlier component is zero-padded whole.
 */
static __always_inline bool build_agg_key(struct trace_firing *x, const struct trace_action *a,
					  const struct trace_agg *g, uint8_t *key, uint32_t ai,
					  uint32_t *keylen)
{
	uint32_t at = 0;
	*keylen = g->keybytes;
	for (unsigned k = 0, prog = 0; k < g->nkeys; k++) {
		uint64_t v;
		struct dif_fault fault;
		uint32_t size = (g->key_size[k] + 7u) & ~7u;
		bool last = k + 1 == g->nkeys;
		if (g->key_type[k] == DOF_KEY_STACK) {
			walk_stack(x, (uint64_t *)(key + at), size / 8);	/* key is 8-aligned */
			at += size;
			continue;
		}
		if (trace_run(a->progs[prog++], x, &v, &fault)) {
			failed(x, ai, &fault);
			return false;
		}
		if (g->key_type[k] == DIF_TYPE_INT) {
			trace_store_word(key + at, v);
			if (size > 8)
				memset(key + at + 8, 0, size - 8);
			at += size;
			continue;
		}
		if (!last)
			memset(key + at, 0, size);
		long len = trace_copy_string(x, (char *)key + at, v, g->key_size[k]);
		if (len < 0) {
			struct dif_fault bad = { DIF_FAULT_BADADDR, DIF_PC_NONE, v };
			failed(x, ai, &bad);
			return false;
		}
		if (last) {
			uint32_t used = at + (uint32_t)len + 1;
			*keylen = (used + 7u) & ~7u;
			memset(key + used, 0, *keylen - used);
		}
		at += size;
	}
	return true;
}

uint16_t trace_key_probe_name(const struct trace_action *a, const struct trace_agg *g)
{
	if (g->nkeys != 1 || g->nkeyprogs != 1 || g->key_type[0] != DIF_TYPE_STRING)
		return 0;
	unsigned v = a->progs[0]->lone_builtin;
	switch (v ? v - 1u : UINT16_MAX) {
	case DIF_VAR_PROBEPROV: case DIF_VAR_PROBEMOD: case DIF_VAR_PROBEFUNC:
	case DIF_VAR_PROBENAME:
		return (uint16_t)v;
	default:
		return 0;
	}
}

/* The value of aggregating action a, and what a bucket grows by (1 unless weighted). */
static __always_inline bool agg_values(struct trace_firing *x, const struct trace_action *a,
				       const struct trace_agg *g, uint32_t ai, uint64_t *value,
				       uint64_t *incr)
{
	struct dif_fault fault;

	if (g->nvalues && trace_run(a->progs[g->nkeyprogs], x, value, &fault)) {
		failed(x, ai, &fault);
		return false;
	}
	/* A weighted (l)quantize: the loader allowed one program past the value. */
	if (a->nprogs > g->nkeyprogs + g->nvalues &&
	    trace_run(a->progs[g->nkeyprogs + g->nvalues], x, incr, &fault)) {
		failed(x, ai, &fault);
		return false;
	}
	return true;
}

/*
 * The key built and folded by its bytes: a key without a tag, or whose
 * tag is not known in the buffer yet (then the value is in hand already:
 * tag is nonzero). Inline for a key without a tag; out of line
 * (trace_fold_by_key) for a tag's miss, so that the tagged path stays
 * short where aggregate is inlined.
 */
static __always_inline bool fold_by_key(struct trace_firing *x, const struct trace_action *a,
					uint32_t ai, uint64_t tag, uint64_t value, uint64_t incr)
{
	struct trace_session *s = x->session;
	const struct trace_agg *g = &s->obj.aggs[a->arg];
	uint8_t *key = x->cpu->agg_key;
	uint32_t keylen;

	if (!build_agg_key(x, a, g, key, ai, &keylen))
		return false;
	if (!tag && !agg_values(x, a, g, ai, &value, &incr))
		return false;
	if (!aggbuf_update(s->aggs, a->arg, g, key, keylen, value, incr, tag))
		count(&s->counters.agg_drops);
	return true;
}

__noinline bool trace_fold_by_key(struct trace_firing *x, const struct trace_action *a,
				  uint32_t ai, uint64_t tag, uint64_t value, uint64_t incr)
{
	return fold_by_key(x, a, ai, tag, value, incr);
}

/* The key first, then the value, as DTrace; a key named by a tag needs neither built. */
static __always_inline bool aggregate(struct trace_firing *x, const struct trace_action *a,
				      uint32_t ai)
{
	struct trace_session *s = x->session;
	const struct trace_agg *g = &s->obj.aggs[a->arg];
	uint64_t value = 0, incr = 1;
	uint64_t tag = trace_key_tag(x->hit->probe, a, g);

	if (!tag)
		return fold_by_key(x, a, ai, 0, value, incr);
	if (!agg_values(x, a, g, ai, &value, &incr))
		return false;
	if (aggbuf_fold_known(s->aggs, a->arg, g, tag, value, incr))
		return true;
	return trace_fold_by_key(x, a, ai, tag, value, incr);
}

/*
 * panic() panics; breakpoint() traps (the trap handler reports it, and
 * panics in probe context); stop() stops the current process (none:
 * nothing); pause() asks that the current kernel thread pause once the
 * hit's consumers are done (scion/pause.h, which says where it cannot).
 */
static void destruct(struct trace_firing *x, uint16_t kind)
{
	const struct probe *p = x->hit->probe;
	if (kind == DOF_ACT_STOP) {
		proc_stop_defer();
		return;
	}
	if (kind == DOF_ACT_PAUSE) {
		pause_request(x->hit);
		return;
	}
	if (kind == DOF_ACT_PANIC)
		panic("dtrace: panic action at probe %s:%s:%s:%s (epid %u)", p->provider, p->module,
		      p->function, p->name, x->ecb->epid);
	printk("dtrace: breakpoint action at probe %s:%s:%s:%s (epid %u)\n", p->provider,
	       p->module, p->function, p->name, x->ecb->epid);
	arch_debug_trap();
}

static void *reserve_in(void *session, uint32_t bytes)
{
	return trace_reserve(session, bytes);
}

/*
 * chill(ns): spin for ns nanoseconds, as dtrace does with interrupts
 * masked; false (an illegal operation, nothing spun) when it would take
 * this CPU past DOF_CHILL_MAX_NS of chilling in the current second.
 */
static bool chill(struct trace_firing *x, uint64_t ns)
{
	uint64_t now = clock_ns();
	if (!now)
		return true;		/* no clock yet: nothing to spin by */
	if (now - x->cpu->chill_mark > 1000000000ull) {
		x->cpu->chill_mark = now;
		x->cpu->chilled = 0;
	}
	if (ns > DOF_CHILL_MAX_NS || x->cpu->chilled + ns > DOF_CHILL_MAX_NS)
		return false;
	x->cpu->chilled += ns;
	while (clock_ns() - now < ns)
		cpu_relax();
	return true;
}

/*
 * Run e's actions into rec. Return value: false when the firing was
 * abandoned. lean (a constant where it is inlined): the clause is lean
 * (trace_lean_clause), so only its action kinds are looked for.
 */
static __always_inline bool run_actions(struct trace_firing *x, uint8_t *rec, uint64_t *spec_id,
					bool *exiting, int64_t *exit_status, bool lean)
{
	const struct trace_clause *c = x->ecb->clause;
	struct trace_session *s = x->session;

	for (uint32_t i = 0; i < c->nactions; i++) {
		const struct trace_action *a = &c->actions[i];
		uint32_t ai = i + 1;
		uint64_t v = 0;
		struct dif_fault fault;

		if (a->kind == DOF_ACT_AGGREGATE) {
			if (!aggregate(x, a, ai))
				return false;
			continue;
		}
		if (a->kind == DOF_ACT_STACK) {
			walk_stack(x, (uint64_t *)(rec + a->offset), a->arg);
			continue;
		}
		if (!lean && (a->kind == DOF_ACT_PANIC || a->kind == DOF_ACT_BREAKPOINT ||
			      a->kind == DOF_ACT_STOP || a->kind == DOF_ACT_PAUSE)) {
			destruct(x, a->kind);
			continue;
		}
		if (trace_run(a->progs[0], x, &v, &fault)) {
			failed(x, ai, &fault);
			return false;
		}
		if (lean) {
			if (a->kind == DOF_ACT_RECORD)
				trace_store_word(rec + a->offset, v);
			continue;
		}
		switch (a->kind) {
		case DOF_ACT_RECORD:
			if (a->progs[0]->rtype == DIF_TYPE_INT) {
				trace_store_word(rec + a->offset, v);
			} else if (a->progs[0]->rtype == DIF_TYPE_BYREF) {
				/* A struct or array traced whole: its bytes, read as any load. */
				if (trace_env_ops.read(x, v, rec + a->offset, a->size)) {
					struct dif_fault bad = { DIF_FAULT_BADADDR, DIF_PC_NONE, v };
					failed(x, ai, &bad);
					return false;
				}
			} else {
				memset(rec + a->offset, 0, a->size);
				if (trace_copy_string(x, (char *)rec + a->offset, v, a->size) < 0) {
					/* As DTrace: copying the result is past the DIF, no offset. */
					struct dif_fault bad = { DIF_FAULT_BADADDR, DIF_PC_NONE, v };
					failed(x, ai, &bad);
					return false;
				}
			}
			break;
		case DOF_ACT_EXIT:
			trace_store_word(rec + a->offset, v);
			*exiting = true;
			*exit_status = (int64_t)v;
			break;
		case DOF_ACT_SPECULATE:
			if (!v) {
				count(&s->counters.spec_drops);
				return false;
			}
			*spec_id = v;
			break;
		case DOF_ACT_COMMIT:
			spec_commit(s->specs, v, reserve_in, trace_record_size, s);
			break;
		case DOF_ACT_DISCARD:
			spec_discard(s->specs, v);
			break;
		case DOF_ACT_CHILL:
			if (!chill(x, v)) {
				struct dif_fault bad = { DIF_FAULT_ILLOP, DIF_PC_NONE, v };
				failed(x, ai, &bad);
				return false;
			}
			break;
		case DOF_ACT_RAISE:
			if (proc_signal_defer((int)v) == -EINVAL) {
				struct dif_fault bad = { DIF_FAULT_BADARG, DIF_PC_NONE, v };
				failed(x, ai, &bad);
				return false;
			}
			break;

		default:	/* EXPR: for its effects */
			break;
		}
	}
	return true;
}

/*
 * Where e's record is built: in place in this CPU's principal buffer,
 * claimed but not yet taken (tbuf_claim), when nothing can write that
 * buffer before the record is done (no speculation, no commit() among
 * the actions, the switch policy) and it has room; else in the staging
 * area, copied out when done. *in_place says which: this CPU's part of
 * the buffer set to commit the record in, or NULL. The clause's in_place
 * (trace_bufpolicy_start) holds the conditions that do not change while
 * the session runs. A fault abandons an in-place record by not taking
 * its room: the ERROR record, if any, goes there instead.
 */
static __always_inline uint8_t *record_area(struct trace_firing *x, const struct trace_clause *c,
			   struct tbuf_cpu **in_place)
{
	if (c->in_place) {
		uint8_t *at = tbuf_claim(x->session->bufs, c->record_size, in_place);
		if (at)
			return at;
	}
	*in_place = NULL;
	return x->cpu->staging;
}

/*
 * Run one ECB (the file's steps 1 to 4). lean (a constant where it is
 * inlined): the clause is lean (trace_lean_clause), so there is no
 * speculation or exit() to look for, and no padding (its data are
 * 8-byte integers and stacks); its record, if any, is claimed in place.
 */
static __always_inline void run_ecb_as(struct trace_firing *x, bool lean)
{
	const struct trace_clause *c = x->ecb->clause;
	struct trace_session *s = x->session;
	uint64_t ok = 1, spec_id = 0;
	int64_t exit_status = 0;
	bool exiting = false;
	struct tbuf_cpu *in_place = NULL;
	struct dif_fault fault;
	uint8_t *rec = x->cpu->staging;

	x->cpu->scratch_used = 0;
	if (c->predicate) {
		if (dif_run(c->predicate, &trace_env_ops, x, &ok, &fault)) {
			failed(x, 0, &fault);
			return;
		}
		if (!ok)
			return;
	}
	if (c->record_size) {
		rec = record_area(x, c, &in_place);
		struct dof_rechdr *h = (struct dof_rechdr *)rec;
		/* Every datum fills its 8-aligned slot but for padded ones (dof.c). */
		if (!lean && c->padded)
			memset(rec, 0, c->record_size);
		h->epid = x->ecb->epid;
		h->probe_id = x->hit->probe->id;
		h->timestamp = trace_firing_now(x);
	}
	/* A clause without actions (a bare record) has nothing to run or fail. */
	if (c->nactions && !run_actions(x, rec, &spec_id, &exiting, &exit_status, lean))
		return;
	if (in_place) {
		tbuf_commit(in_place, c->record_size);
	} else if (c->record_size) {
		if (spec_id) {
			if (!spec_append(s->specs, spec_id, rec, c->record_size))
				count(&s->counters.spec_drops);
		} else {
			void *dst = trace_reserve(s, c->record_size);
			if (dst)
				memcpy(dst, rec, c->record_size);
		}
	}
	if (exiting && !__atomic_exchange_n(&s->exited, true, __ATOMIC_ACQ_REL)) {
		s->exit_status = (int32_t)exit_status;
		enum trace_state active = TRACE_ACTIVE, warm = TRACE_WARMUP;
		if (!__atomic_compare_exchange_n(&s->state, &active, TRACE_DRAINING, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			__atomic_compare_exchange_n(&s->state, &warm, TRACE_DRAINING, false,
						    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	}
}

static __noinline void run_ecb(struct trace_firing *x)
{
	run_ecb_as(x, false);
}

/*
 * trace_fire's work, inlined where runs_in, args and lean are constants
 * (a probe's handler). lean: every ECB of the chain is lean, so none
 * can run exit() and the state is looked at once, not before each.
 */
static __always_inline void fire(struct trace_session *s, struct trace_ecb *ecbs,
				 const struct probe_hit *hit, const uint64_t *args,
				 enum trace_state runs_in, bool lean)
{
	if (lean && __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != runs_in)
		return;
	unsigned cpu = this_cpu_index();
	if (cpu >= MAX_CPUS || !s->cpu[cpu].staging)
		return;
	struct trace_firing x = { s, &s->cpu[cpu], hit, NULL, args, { 0, 0 }, 0 };
	if (runs_in == TRACE_ACTIVE && s->obj.locals_bytes)
		memset(x.cpu->locals, 0, s->obj.locals_bytes);
	for (struct trace_ecb *e = ecbs; e; e = e->next) {
		x.ecb = e;
		if (lean) {
			run_ecb_as(&x, true);
			continue;
		}
		/* exit() in an earlier clause stops the later ones, as in DTrace. */
		if (runs_in != TRACE_ANY_STATE &&
		    __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != runs_in)
			return;
		run_ecb(&x);
	}
}

void trace_fire(struct trace_session *s, struct trace_ecb *ecbs, const struct probe_hit *hit,
		const uint64_t *args, enum trace_state runs_in)
{
	fire(s, ecbs, hit, args, runs_in, false);
}

/* An entry or inside probe's firing: its arguments are the hit's registers. */
static void probe_handler(const struct probe_hit *hit, void *arg)
{
	struct trace_enabling *en = arg;
	fire(en->session, en->ecbs, hit, NULL, TRACE_ACTIVE, false);
}

/* The same, for an enabling whose ECBs are all lean. */
void trace_lean_probe_handler(const struct probe_hit *hit, void *arg)
{
	struct trace_enabling *en = arg;
	fire(en->session, en->ecbs, hit, NULL, TRACE_ACTIVE, true);
}

/*
 * A return probe's: arg0 the offset of the ret that fired, arg1 the
 * return value. Only the lean form inlines the firing; the other calls
 * trace_fire, so that the general firing is not copied for the rarer site.
 */
static __always_inline void fire_return(const struct probe_hit *hit, struct trace_enabling *en,
					bool lean)
{
	const uint64_t args[6] = { hit->addr - en->function,
				   arch_probe_return_value(hit->regs, hit->addr) };
	if (lean)
		fire(en->session, en->ecbs, hit, args, TRACE_ACTIVE, true);
	else
		trace_fire(en->session, en->ecbs, hit, args, TRACE_ACTIVE);
}

static void return_probe_handler(const struct probe_hit *hit, void *arg)
{
	fire_return(hit, arg, false);
}

static void lean_return_probe_handler(const struct probe_hit *hit, void *arg)
{
	fire_return(hit, arg, true);
}

bool trace_lean_clause(const struct trace_clause *c)
{
	if (c->speculative || c->writes_principal || (c->record_size && !c->in_place))
		return false;
	for (uint32_t i = 0; i < c->nactions; i++) {
		const struct trace_action *a = &c->actions[i];
		bool int_record = a->kind == DOF_ACT_RECORD && a->progs[0]->rtype == DIF_TYPE_INT;
		if (!int_record && a->kind != DOF_ACT_AGGREGATE && a->kind != DOF_ACT_STACK &&
		    a->kind != DOF_ACT_EXPR)
			return false;
	}
	return true;
}

probe_handler_fn trace_probe_handler_for(struct trace_enabling *en)
{
	bool returns = en->ecbs->site == TRACE_SITE_RETURN;
	for (const struct trace_ecb *e = en->ecbs; e; e = e->next)
		if (!trace_lean_clause(e->clause))
			return returns ? return_probe_handler : probe_handler;
	kfree(en->plan);
	en->plan = trace_plan_make(en);
	if (en->plan)
		return en->plan->aggregates || !en->plan->record_size ?
		       trace_planned_probe_handler : trace_planned_record_handler;
	return returns ? lean_return_probe_handler : trace_lean_probe_handler;
}

void trace_fire_session_probe(struct trace_session *s, struct trace_ecb *ecbs,
			      const uint64_t args[6], enum trace_state runs_in)
{
	if (!ecbs)
		return;
	struct trap_frame frame = { 0 };
	trap_frame_capture(&frame);
	irqflags_t f = arch_irq_save();
	struct cpu *c = this_cpu();
	uint64_t was_running = cpu_probe_run_begin(c);
	struct probe_hit hit = { .probe = ecbs->probe,
				 .addr = trap_frame_pc(&frame), .regs = &frame };
	if (s->cpu[this_cpu_index()].locals)
		memset(s->cpu[this_cpu_index()].locals, 0, s->obj.locals_bytes);
	trace_fire(s, ecbs, &hit, args, runs_in);
	cpu_probe_run_end(c, was_running);
	pause_hit_done(&frame, PAUSE_SITE_SOFT, 0);
	arch_irq_restore(f);
}

uint32_t trace_record_size(void *session, uint32_t epid)
{
	struct trace_session *s = session;
	if (epid == 0 || epid > s->necbs)
		return 0;
	return s->ecbs[epid - 1].clause->record_size;
}
