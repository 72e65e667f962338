// SPDX-License-Identifier: BSD-2-Clause
/*
 * The graft points: found in the graft_points linker table, installed
 * into and removed from, and dispatched.
 *
 * A point's slot holds its default while nothing is installed and its
 * dispatcher otherwise; installed[] changes under the point's lock and
 * is read without it by dispatchers, so an invocation that read a graft
 * just before its removal runs it once more. Grafts are never freed
 * while the kernel runs, so such a read never sees freed memory.
 */
#include <scion/graft.h>
#include <scion/txn.h>
#include <scion/thread.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/printk.h>
#include <scion/probe.h>
#include <arch/timer.h>
#include <arch/cpu.h>
#include "graft_internal.h"
#include "txn_internal.h"

#define BUDGET_MAX_US 10000000u

const struct graft_point *graft_point_find(const char *name)
{
	LINKER_TABLE_FOREACH(struct graft_point, graft_points, p)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

bool graft_point_grafted(const char *name)
{
	const struct graft_point *p = graft_point_find(name);
	return p && READ_ONCE(*p->slot) != p->default_fn;
}

static uint64_t us_to_cycles(uint32_t us)
{
	return arch_cycles_per_second() / 1000000 * us;
}

int graft_point_set_budget(const struct graft_point *p, uint32_t us)
{
	if (us < 1 || us > BUDGET_MAX_US)
		return -ERANGE;
	irqflags_t f = spin_lock_irqsave(&p->state->lock);
	p->state->budget_us = us;
	WRITE_ONCE(p->state->budget_cycles, us_to_cycles(us));
	spin_unlock_irqrestore(&p->state->lock, f);
	return 0;
}

void graft_points_init(void)
{
	LINKER_TABLE_FOREACH(struct graft_point, graft_points, p) {
		if (*p->slot != p->default_fn)
			panic("graft point %s: its slot does not start at its default", p->name);
		graft_point_set_budget(p, p->default_budget_us);
	}
}

uint64_t graft_call_default(const struct graft_point *p, const uint64_t a[6])
{
	uint64_t (*fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t) = p->default_fn;
	return graft_point_mask_result(p, fn(a[0], a[1], a[2], a[3], a[4], a[5]));
}

static uint64_t current_tid(void)
{
	struct thread *t = thread_current();
	return t ? t->tid : 0;
}

/*
 * The dispatcher behind every grafted slot. A method runs the graft
 * scoped to the calling thread if there is one, else the global one, in
 * a transaction (a direct graft, a recorder, without one); the default
 * runs when none applies, when that graft is already running on this
 * CPU (a graft whose API call reaches its own point gets the default,
 * never itself: txn_run says TXN_ACTIVE), when transactions nest too
 * deep, and after an abort. An event runs each applicable handler in
 * its own transaction (its default does nothing). While a recorder is set
 * (graft_point_set_recorder) the slot holds the dispatcher even with
 * nothing installed, and each invocation is reported to the recorder.
 */
/*
 * Fire one of the point's graft-provider probes: arguments a0..a5, and
 * registers captured here so stack() shows the dispatcher's caller.
 */
static __attribute__((always_inline)) inline void fire(struct probe *probe, uint64_t a0,
							uint64_t a1, uint64_t a2, uint64_t a3,
							uint64_t a4, uint64_t a5)
{
	if (!probe || !__atomic_load_n(&probe->soft->live, __ATOMIC_RELAXED))
		return;
	struct trap_frame frame = { 0 };
	trap_frame_capture(&frame);
	const uint64_t a[6] = { a0, a1, a2, a3, a4, a5 };
	for (unsigned i = 0; i < 6; i++)
		trap_frame_set_arg(&frame, i, a[i]);
	probe_fire_consumers(probe, &frame);
}

/*
 * A direct graft's call (struct graft's direct: built-in, cannot fail):
 * counted as a committed invocation, with its time, like a transaction's.
 */
static __always_inline enum txn_outcome run_direct(const struct graft_point *p,
						    struct graft *g, const uint64_t a[6],
						    uint64_t *r)
{
	uint64_t (*fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t) =
		(void *)g->entry;
	uint64_t start = arch_cycles();

	*r = graft_point_mask_result(p, fn(a[0], a[1], a[2], a[3], a[4], a[5]));
	graft_note_invocation(g, true, arch_cycles() - start);
	return TXN_COMMITTED;
}

/* g's invocation: in a transaction unless g is direct. */
static inline enum txn_outcome transact(const struct graft_point *p, struct graft *g,
					const uint64_t args[6], uint64_t *r)
{
	return g->direct ? run_direct(p, g, args, r) : txn_run(p, g, args, r);
}

/* txn_run between the graft provider's invoke and commit / abort probes. */
static __noinline enum txn_outcome run_probed(const struct graft_point *p, struct graft *g,
					      const uint64_t args[6], uint64_t *r)
{
	struct graft_point_state *st = p->state;
	if (txn_graft_active(g))
		return TXN_ACTIVE;	/* no invoke without its commit or abort */
	fire(st->probe_invoke, args[0], args[1], args[2], args[3], args[4], args[5]);
	enum txn_outcome o = transact(p, g, args, r);
	if (o == TXN_COMMITTED)
		fire(st->probe_commit, *r, args[0], args[1], args[2], args[3], args[4]);
	else if (o == TXN_ABORTED)
		fire(st->probe_abort, args[0], args[1], args[2], args[3], args[4], args[5]);
	return o;
}

/*
 * A transaction of g, through run_probed while one of the point's graft
 * probes is enabled. TXN_ACTIVE when g already runs on this CPU.
 */
static inline enum txn_outcome run(const struct graft_point *p, struct graft *g,
				   const uint64_t args[6], uint64_t *r)
{
	if (unlikely(__atomic_load_n(&p->state->probes_live, __ATOMIC_RELAXED)))
		return run_probed(p, g, args, r);
	return transact(p, g, args, r);
}

/* The method graft for the calling thread: its own scoped one, else the global one. */
static struct graft *method_graft(const struct graft_point_state *st)
{
	struct graft *chosen = READ_ONCE(st->global);

	if (!READ_ONCE(st->scoped))
		return chosen;
	uint64_t tid = current_tid();
	for (unsigned i = 0; i < GRAFT_POINT_MAX_INSTALLED; i++) {
		struct graft *g = READ_ONCE(st->installed[i]);
		if (g && g->scope_tid && g->scope_tid == tid)
			return g;
	}
	return chosen;
}

/*
 * An event's invocation: each handler that applies, in its own
 * transaction. An event point's default does nothing (GRAFT_POINT_EVENT
 * says so): it is only what the slot holds while nothing watches, so it
 * is not called. The outcome is for a recorder (dispatch_general).
 */
static __always_inline enum graft_outcome run_event(const struct graft_point *p,
						    const uint64_t args[6])
{
	struct graft_point_state *st = p->state;
	uint64_t tid = READ_ONCE(st->scoped) ? current_tid() : 0;
	unsigned used = READ_ONCE(st->used);
	enum graft_outcome outcome = GRAFT_OUTCOME_DEFAULT;
	uint64_t r;

	for (unsigned i = 0; i < used && i < GRAFT_POINT_MAX_INSTALLED; i++) {
		struct graft *g = READ_ONCE(st->installed[i]);
		if (!g || (g->scope_tid && g->scope_tid != tid))
			continue;
		enum txn_outcome o = run(p, g, args, &r);
		if (o == TXN_ABORTED)
			outcome = GRAFT_OUTCOME_ABORTED;
		else if (o == TXN_COMMITTED && outcome == GRAFT_OUTCOME_DEFAULT)
			outcome = GRAFT_OUTCOME_COMMITTED;
	}
	return outcome;
}

static uint64_t dispatch(const struct graft_point *p, const uint64_t args[6],
			 enum graft_outcome *outcome)
{
	struct graft_point_state *st = p->state;
	uint64_t r;

	*outcome = GRAFT_OUTCOME_DEFAULT;
	if (p->kind == GRAFT_KIND_EVENT) {
		*outcome = run_event(p, args);
		return 0;
	}
	struct graft *chosen = method_graft(st);
	if (!chosen)
		return graft_call_default(p, args);
	enum txn_outcome o = run(p, chosen, args, &r);
	if (o == TXN_COMMITTED) {
		*outcome = GRAFT_OUTCOME_COMMITTED;
		return r;
	}
	if (o == TXN_ABORTED)
		*outcome = GRAFT_OUTCOME_ABORTED;
	return graft_call_default(p, args);
}

/* A recorded point's invocation, the outcome told to its recorder. */
static __noinline uint64_t dispatch_general(const struct graft_point *p, const uint64_t args[6])
{
	const struct graft_point_recorder *rec = READ_ONCE(p->state->recorder);
	enum graft_outcome outcome;

	if (!rec)
		return dispatch(p, args, &outcome);
	uint64_t cookie = rec->call(p, args);
	uint64_t r = dispatch(p, args, &outcome);
	rec->done(p, cookie, r, outcome);
	return r;
}

/*
 * Every other invocation: a recorded point's through dispatch_general; a
 * point's with a scoped, direct or probed graft, or none, through
 * dispatch.
 */
static __noinline uint64_t dispatch_other(const struct graft_point *p, const uint64_t args[6])
{
	enum graft_outcome outcome;

	if (READ_ONCE(p->state->recorder))
		return dispatch_general(p, args);
	return dispatch(p, args, &outcome);
}

/*
 * An event point's invocation (its dispatcher's, GRAFT_POINT_EVENT). Its
 * common case, one direct graft (a recording's handler) and no graft
 * probe enabled, calls it without the loop (st->lone_direct); every
 * other invocation goes through dispatch_other.
 */
uint64_t graft_dispatch_event(const struct graft_point *p, const uint64_t args[6])
{
	struct graft_point_state *st = p->state;
	struct graft *lone = READ_ONCE(st->lone_direct);
	uint64_t r;

	if (unlikely(!lone || __atomic_load_n(&st->probes_live, __ATOMIC_RELAXED)))
		return dispatch_other(p, args);
	run_direct(p, lone, args, &r);
	return 0;
}

/*
 * A method point's invocation (its dispatcher's, GRAFT_POINT_METHOD): the
 * common case, a graft for every thread with no recorder and no graft
 * probe enabled (st->common), with the transaction's body inline; every
 * other invocation through dispatch_other.
 */
uint64_t graft_dispatch(const struct graft_point *p, const uint64_t args[6])
{
	struct graft_point_state *st = p->state;
	struct graft *g = READ_ONCE(st->common);
	uint64_t r;

	if (unlikely(!g || __atomic_load_n(&st->probes_live, __ATOMIC_RELAXED)))
		return dispatch_other(p, args);
	if (likely(txn_run_inline(p, g, args, &r, true) == TXN_COMMITTED))
		return r;
	return graft_call_default(p, args);
}


bool graft_point_installed_name(const char *point, char *buf, size_t n)
{
	const struct graft_point *p = graft_point_find(point);
	bool found = false;

	if (!p)
		return false;
	irqflags_t f = spin_lock_irqsave(&p->state->lock);
	for (unsigned i = 0; i < GRAFT_POINT_MAX_INSTALLED && !found; i++) {
		const struct graft *g = p->state->installed[i];
		if (g && !g->scope_tid) {
			strlcpy(buf, g->name, n);
			found = true;
		}
	}
	spin_unlock_irqrestore(&p->state->lock, f);
	return found;
}

/* After installed[] changed: the summary dispatch reads, and the slot. Point lock held. */
static void set_slot(const struct graft_point *p)
{
	struct graft_point_state *st = p->state;
	struct graft *global = NULL;
	uint32_t scoped = 0, used = 0;

	for (unsigned i = 0; i < GRAFT_POINT_MAX_INSTALLED; i++) {
		struct graft *g = st->installed[i];
		if (g)
			used = i + 1;
		if (g && g->scope_tid)
			scoped++;
		else if (g && !global)
			global = g;
	}
	WRITE_ONCE(st->global, global);
	WRITE_ONCE(st->scoped, scoped);
	WRITE_ONCE(st->used, used);
	bool plain = p->kind == GRAFT_KIND_METHOD && !st->recorder && !scoped;
	WRITE_ONCE(st->common, plain && global && !global->direct ? global : NULL);
	bool lone = p->kind == GRAFT_KIND_EVENT && !st->recorder && !scoped && used == 1;
	WRITE_ONCE(st->lone_direct, lone && global && global->direct ? global : NULL);
	if (p->state->recorder) {
		WRITE_ONCE(*p->slot, p->dispatcher);
		return;
	}
	for (unsigned i = 0; i < GRAFT_POINT_MAX_INSTALLED; i++) {
		if (p->state->installed[i]) {
			WRITE_ONCE(*p->slot, p->dispatcher);
			return;
		}
	}
	WRITE_ONCE(*p->slot, p->default_fn);
}

int graft_point_set_recorder(const struct graft_point *p, const struct graft_point_recorder *r)
{
	int err = 0;
	irqflags_t f = spin_lock_irqsave(&p->state->lock);
	if (r && p->state->recorder && p->state->recorder != r)
		err = -EBUSY;
	else
		WRITE_ONCE(p->state->recorder, r);
	set_slot(p);
	spin_unlock_irqrestore(&p->state->lock, f);
	return err;
}

int graft_install(struct graft *g, uint64_t tid, char *err, size_t errlen)
{
	const struct graft_point *p = g->point;
	struct graft_point_state *st = p->state;
	int free_index = -1, e = 0;

	irqflags_t f = spin_lock_irqsave(&st->lock);
	if (g->installed) {
		snprintf(err, errlen, "'%s' is already installed at %s", g->name, p->name);
		e = -EBUSY;
		goto out;
	}
	for (unsigned i = 0; i < GRAFT_POINT_MAX_INSTALLED; i++) {
		struct graft *h = st->installed[i];
		if (!h) {
			if (free_index < 0)
				free_index = (int)i;
			continue;
		}
		if (p->kind == GRAFT_KIND_METHOD && h->scope_tid == tid) {
			if (tid)
				snprintf(err, errlen, "%s already runs '%s' for thread %llu; remove it first",
					 p->name, h->name, (unsigned long long)tid);
			else
				snprintf(err, errlen, "%s already runs '%s' for every thread; remove it first",
					 p->name, h->name);
			e = -EBUSY;
			goto out;
		}
	}
	if (free_index < 0) {
		snprintf(err, errlen, "%s has %u grafts installed, the most it takes", p->name,
			 GRAFT_POINT_MAX_INSTALLED);
		e = -ENOSPC;
		goto out;
	}
	g->scope_tid = tid;
	g->installed = true;
	WRITE_ONCE(st->installed[free_index], g);
	set_slot(p);
out:
	spin_unlock_irqrestore(&st->lock, f);
	return e;
}

int graft_remove(struct graft *g)
{
	const struct graft_point *p = g->point;
	struct graft_point_state *st = p->state;
	int e = -ENOENT;

	irqflags_t f = spin_lock_irqsave(&st->lock);
	for (unsigned i = 0; i < GRAFT_POINT_MAX_INSTALLED; i++) {
		if (st->installed[i] == g) {
			WRITE_ONCE(st->installed[i], NULL);
			g->installed = false;
			e = 0;
		}
	}
	set_slot(p);
	spin_unlock_irqrestore(&st->lock, f);
	return e;
}
