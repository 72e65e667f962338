// SPDX-License-Identifier: BSD-2-Clause
/*
 * The planned firing: an enabling whose one clause has no predicate and
 * whose actions only record or aggregate an argument (arg0 to arg5) or
 * the timestamp, with aggregation keys known by a tag (none, or the
 * probe's name), is run from a plan made at the start (struct
 * trace_plan) instead of from the clause. Every constant the firing
 * needs is in the plan: the record's header words, each datum's source
 * and place, each aggregation's id, description and tag; no program
 * runs and no firing state is built. These are the shapes of the
 * commonest one-liners (a bare probe, @[probefunc] = count(),
 * @ = quantize(arg0), trace(timestamp)).
 *
 * The plan's firing does what the lean firing (ecb.c) does for the same
 * clause, step for step (trace_planned_record_handler for a plan without
 * aggregations, whose common path calls nothing after the clock):
 *   1. the clock is read once, for the header and any timestamp;
 *   2. the session's state is checked, and this CPU's tracing state
 *      where the firing uses it;
 *   3. the record's room is claimed in place; when it does not fit,
 *      nothing is done yet, so the lean firing runs instead (it stages
 *      the record and counts the drop);
 *   4. the actions run in order: a datum is stored, an aggregation is
 *      folded by its tag, or, when the tag is not known in the buffer
 *      yet, by its key built the lean firing's way (which cannot fault
 *      for these keys; if it did, the record would be abandoned as
 *      there);
 *   5. the record is committed.
 * The interpreter (`-x nojit`) never gets a plan: programs without
 * native code have no lone built-in (dif_prog.lone_builtin).
 * Probe context for the firing; thread context for the planning.
 */
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/clock.h>
#include <arch/trap.h>
#include "trace_internal.h"

#define PLAN_ARGS      6	/* arg0 .. arg5: the hit's registers */
#define PLAN_TIMESTAMP 6
#define PLAN_NO_VALUE  7	/* count(): no value program */

/* Where the value of program p comes from, or -1 when no plan can give it. */
static int plan_value(const struct dif_prog *p)
{
	unsigned v = p->lone_builtin;
	if (!v)
		return -1;
	v--;
	if (v >= DIF_VAR_ARG0 && v < DIF_VAR_ARG0 + PLAN_ARGS)
		return (int)(v - DIF_VAR_ARG0);
	return v == DIF_VAR_TIMESTAMP ? PLAN_TIMESTAMP : -1;
}

/* The step of action a (index i) of e's clause in *st; false when a cannot be planned. */
static bool plan_action(const struct trace_session *s, const struct trace_ecb *e,
			const struct trace_action *a, uint32_t i, struct trace_plan_step *st)
{
	int v;

	*st = (struct trace_plan_step){ .action = (uint16_t)i };
	if (a->kind == DOF_ACT_RECORD) {
		v = plan_value(a->progs[0]);
		st->at = a->offset;
	} else if (a->kind == DOF_ACT_AGGREGATE) {
		const struct trace_agg *g = &s->obj.aggs[a->arg];
		/* The firing's tag, known now; a weighted (l)quantize has a third program. */
		st->tag = trace_key_tag(e->probe, a, g);
		if (!st->tag || a->nprogs != g->nkeyprogs + g->nvalues)
			return false;
		v = g->nvalues ? plan_value(a->progs[g->nkeyprogs]) : PLAN_NO_VALUE;
		st->aggregate = true;
		st->at = a->arg;
		st->g = g;
	} else {
		return false;
	}
	st->value = (uint8_t)v;
	return v >= 0;
}

struct trace_plan *trace_plan_make(const struct trace_enabling *en)
{
	const struct trace_ecb *e = en->ecbs;
	const struct trace_session *s = en->session;
	const struct trace_clause *c = e->clause;
	struct trace_plan p = {
		.session = en->session, .ecb = en->ecbs, .record_size = c->record_size,
		.reads_clock = c->record_size != 0,
		.header = e->epid | (uint64_t)e->probe->id << 32,
	};
	_Static_assert(offsetof(struct dof_rechdr, epid) == 0 &&
		       offsetof(struct dof_rechdr, probe_id) == 4 &&
		       offsetof(struct dof_rechdr, timestamp) == 8,
		       "a plan writes the record header as two words");

	if (e->next || e->site == TRACE_SITE_RETURN || c->predicate || s->obj.locals_bytes ||
	    c->nactions > TRACE_PLAN_STEPS || !trace_lean_clause(c))
		return NULL;
	for (uint32_t i = 0; i < c->nactions; i++) {
		struct trace_plan_step *st = &p.step[p.nsteps++];
		if (!plan_action(s, e, &c->actions[i], i, st))
			return NULL;
		p.reads_clock |= st->value == PLAN_TIMESTAMP;
		p.aggregates |= st->aggregate;
	}
	struct trace_plan *made = kmalloc(sizeof(*made));
	if (made)
		*made = p;
	return made;
}

/* Step 4's aggregation whose tag is not known yet: folded by its key, as the lean firing does. */
static __noinline bool fold_missed(const struct probe_hit *hit, const struct trace_plan *p,
				   const struct trace_plan_step *st, uint64_t value, uint64_t now)
{
	struct trace_session *s = p->session;
	struct trace_firing x = { s, &s->cpu[this_cpu_index()], hit, p->ecb, NULL, { 0, 0 }, now };
	const struct trace_action *a = &p->ecb->clause->actions[st->action];

	x.cpu->scratch_used = 0;
	return trace_fold_by_key(&x, a, st->action + 1u, st->tag, value, 1);
}

/*
 * The record's size: a multiple of TBUF_ALIGN already (dof.c), which the
 * mask tells the compiler, so that claim and commit do not round it.
 */
static inline uint32_t record_bytes(const struct trace_plan *p)
{
	return p->record_size & ~(uint32_t)(TBUF_ALIGN - 1);
}

/* The value a step takes: an argument, the firing's time or none (count()). */
static __always_inline uint64_t step_value(const struct probe_hit *hit,
					   const struct trace_plan_step *st, uint64_t now)
{
	if (st->value < PLAN_ARGS)
		return trap_frame_arg(hit->regs, st->value);
	return st->value == PLAN_TIMESTAMP ? now : 0;
}

/*
 * Steps 1 to 3 of en's plan p, for both handlers: false when nothing
 * more is to be done (the clause does not run, or the lean firing ran
 * instead); else the time in *now and the record, if any, claimed
 * (*rec, *slot). For a plan that aggregates, this CPU's tracing state
 * (which the fold of a key not known yet uses) is checked, as the lean
 * firing checks it, and the header written; a plan of records alone
 * uses no such state (a CPU without it has no buffer slot either: both
 * are made for every CPU online when the session is), and its handler
 * writes the header itself. The clock comes first: then only the
 * handler's arguments are live across its call, and a handler that
 * calls nothing else saves few registers.
 */
static __always_inline bool planned_begin(const struct probe_hit *hit, struct trace_enabling *en,
					  const struct trace_plan *p, uint64_t *now, uint8_t **rec,
					  struct tbuf_cpu **slot, bool aggregates)
{
	*now = p->reads_clock ? clock_ns() : 0;
	struct trace_session *s = p->session;
	*rec = NULL;
	*slot = NULL;
	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != TRACE_ACTIVE)
		return false;
	unsigned cpu = this_cpu_index();
	if (aggregates && (cpu >= MAX_CPUS || !s->cpu[cpu].staging))
		return false;
	if (p->record_size) {
		struct tbuf_cpu *c = tbuf_slot(s->bufs, cpu);
		if (!c || !tbuf_fits(s->bufs, c, record_bytes(p))) {
			trace_lean_probe_handler(hit, en);
			return false;
		}
		*slot = c;
		*rec = tbuf_next(c);
		if (aggregates) {
			trace_store_word(*rec, p->header);
			trace_store_word(*rec + 8, *now);
		}
	}
	return true;
}

void trace_planned_record_handler(const struct probe_hit *hit, void *arg)
{
	struct trace_enabling *en = arg;
	struct tbuf_cpu *slot;
	uint8_t *rec;
	uint64_t now;

	const struct trace_plan *p = en->plan;
	if (!planned_begin(hit, en, p, &now, &rec, &slot, false))
		return;
	/* Read before the record's stores, which the compiler cannot tell from the plan's. */
	uint32_t n = p->nsteps, size = record_bytes(p);
	trace_store_word(rec, p->header);
	trace_store_word(rec + 8, now);
	for (uint32_t i = 0; i < n; i++)
		trace_store_word(rec + p->step[i].at, step_value(hit, &p->step[i], now));
	tbuf_commit(slot, size);
}

void trace_planned_probe_handler(const struct probe_hit *hit, void *arg)
{
	struct trace_enabling *en = arg;
	struct tbuf_cpu *slot;
	uint8_t *rec;
	uint64_t now;

	const struct trace_plan *p = en->plan;
	if (!planned_begin(hit, en, p, &now, &rec, &slot, true))
		return;
	struct trace_session *s = p->session;
	for (uint32_t i = 0; i < p->nsteps; i++) {
		const struct trace_plan_step *st = &p->step[i];
		uint64_t v = step_value(hit, st, now);
		if (!st->aggregate) {
			trace_store_word(rec + st->at, v);
			continue;
		}
		if (!aggbuf_fold_known(s->aggs, st->at, st->g, st->tag, v, 1) &&
		    !fold_missed(hit, p, st, v, now))
			return;
	}
	if (slot)
		tbuf_commit(slot, record_bytes(p));
}
