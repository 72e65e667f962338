// SPDX-License-Identifier: BSD-2-Clause
/*
 * Tests of graft points and transactions with built-in grafts (kernel
 * functions registered as grafts at test.method and test.event): dispatch,
 * commit, each way of aborting and what it undoes, nesting, recursion,
 * API locks, scopes, and the timer-only mode for callers with interrupts
 * masked. Loaded .graft files are tested by tests/integration/test_graft.py.
 */
#include <scion/ktest.h>
#include <scion/graft.h>
#include <scion/txn.h>
#include <scion/cpu.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/spinlock.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <arch/cpu.h>
#include <graft/test.h>
#include "graft_test.h"

/* g's invocations so far (commits plus aborts, as `graft stats` counts them). */
static uint64_t invocations(const struct graft *g)
{
	struct graft_counts n;
	graft_counts(g, &n);
	return n.invocations;
}

extern graft_fn_test_method *test_method_slot;
extern graft_fn_test_event *test_event_slot;
uint64_t *test_cells(void);

/* An address nothing maps: the lower half is unmapped after boot. */
volatile uintptr_t graft_test_bad_address = 0x18;
volatile long graft_test_zero;

#define KTEST_GRAFT_BUDGET_US 1000000

struct graft *ktest_graft_install(struct ktest_ctx *t, const char *name, const char *point,
				  void *fn, uint64_t tid)
{
	char err[128];
	struct graft *g = graft_create_builtin(name, point, fn);
	if (!g) {
		ktest_fail(t, __FILE__, __LINE__, "cannot create built-in graft %s", name);
		return NULL;
	}
	if (graft_install(g, tid, err, sizeof(err))) {
		ktest_fail(t, __FILE__, __LINE__, "install %s: %s", name, err);
		graft_destroy_builtin(g);
		return NULL;
	}
	/*
	 * A test that did not choose a budget gets a wide one: the budget is
	 * guest time, which under TCG passes with the host's, and a loaded
	 * host must not abort a graft the test expects to commit.
	 */
	if (READ_ONCE(g->point->state->budget_us) == g->point->default_budget_us)
		graft_point_set_budget(g->point, KTEST_GRAFT_BUDGET_US);
	return g;
}

static void reset_cells(void)
{
	memset(test_cells(), 0, TEST_CELLS * sizeof(uint64_t));
}

__used __noinline long graft_test_multiply(long a, long b)
{
	return a * b;
}

__used __noinline long graft_test_set_cells_then_return(long a, long b)
{
	test_cell_set(0, (uint64_t)a);
	test_cell_set(1, (uint64_t)b);
	return 7;
}

/* Three stores to one cell: only undoing them newest-first restores 0. */
__used __noinline long graft_test_set_then_abort(long a, long b)
{
	test_cell_set(5, 1);
	test_cell_set(5, 2);
	test_cell_set(5, 3);
	test_cell_set(6, (uint64_t)(a + b));
	graft_abort("changed my mind");
}

__used __noinline long graft_test_bad_result(long a, long b)
{
	(void)a;
	(void)b;
	test_cell_set(2, 99);
	return 0xdead;
}

__used __noinline long graft_test_null_store(long a, long b)
{
	test_cell_set(3, 42);
	*(volatile long *)graft_test_bad_address = a + b;
	return 1;
}

__used __noinline long graft_test_divide(long a, long b)
{
	test_cell_set(3, 43);
	return (a + b) / graft_test_zero;
}

__used __noinline long graft_test_spin(long a, long b)
{
	test_cell_set(4, (uint64_t)(a + b));
	for (;;)
		cpu_relax();
}

KTEST(graft_dispatch_default_and_commit, 1)
{
	const struct graft_point *p = graft_point_find("test.method");
	KT_ASSERT(t, p, "test.method is not in the graft point table");
	KT_ASSERT(t, *p->slot == p->default_fn, "slot does not hold the default with nothing grafted");
	KT_ASSERT(t, test_call_method(2, 3) == 5, "default result %ld", test_call_method(2, 3));

	struct graft *g = ktest_graft_install(t, "multiply", "test.method", graft_test_multiply, 0);
	KT_ASSERT(t, g, "no graft");
	KT_EXPECT(t, *p->slot == p->dispatcher, "slot does not hold the dispatcher once grafted");
	KT_EXPECT(t, test_call_method(6, 7) == 42, "grafted result %ld", test_call_method(6, 7));
	KT_EXPECT(t, invocations(g) == 1 && g->commits == 1 && g->aborts == 0,
		  "counts %llu/%llu/%llu", (unsigned long long)invocations(g),
		  (unsigned long long)g->commits, (unsigned long long)g->aborts);
	KT_EXPECT(t, graft_remove(g) == 0, "remove failed");
	KT_EXPECT(t, *p->slot == p->default_fn, "slot not restored after remove");
	KT_EXPECT(t, test_call_method(6, 7) == 13, "result after remove %ld", test_call_method(6, 7));
	KT_EXPECT(t, graft_remove(g) == -ENOENT, "second remove not refused");
	graft_destroy_builtin(g);
}

KTEST(graft_commit_keeps_changes, 1)
{
	reset_cells();
	struct graft *g = ktest_graft_install(t, "setter", "test.method", graft_test_set_cells_then_return, 0);
	KT_ASSERT(t, g, "no graft");
	long r = test_call_method(11, 12);
	KT_EXPECT(t, r == 7, "result %ld", r);
	KT_EXPECT(t, test_cell_get(0) == 11 && test_cell_get(1) == 12, "cells %llu %llu",
		  (unsigned long long)test_cell_get(0), (unsigned long long)test_cell_get(1));
	struct txn_cpu_stats s;
	txn_get_stats(this_cpu_index(), &s);
	KT_EXPECT(t, s.undo_records == 0 && s.depth == 0, "log not empty after commit: %u records",
		  s.undo_records);
	graft_destroy_builtin(g);
}

/* The abort protocol's states: undo newest first, graft removed, default result. */
KTEST(graft_abort_undoes_in_reverse, 1)
{
	reset_cells();
	const struct graft_point *p = graft_point_find("test.method");
	struct graft *g = ktest_graft_install(t, "aborter", "test.method", graft_test_set_then_abort, 0);
	KT_ASSERT(t, g, "no graft");
	long r = test_call_method(3, 4);
	KT_EXPECT(t, r == 7, "caller got %ld, not the default 7", r);
	KT_EXPECT(t, test_cell_get(5) == 0 && test_cell_get(6) == 0, "cells not undone: %llu %llu",
		  (unsigned long long)test_cell_get(5), (unsigned long long)test_cell_get(6));
	KT_EXPECT(t, !g->installed && *p->slot == p->default_fn, "aborted graft still installed");
	KT_EXPECT(t, g->aborts == 1 && g->commits == 0, "counts: %llu aborts", (unsigned long long)g->aborts);
	char why[112];
	graft_last_abort(g, why, sizeof(why));
	KT_EXPECT(t, strstr(why, "changed my mind"), "reason '%s'", why);
	graft_destroy_builtin(g);
}

KTEST(graft_bad_result_aborts, 1)
{
	reset_cells();
	struct graft *g = ktest_graft_install(t, "badresult", "test.method", graft_test_bad_result, 0);
	KT_ASSERT(t, g, "no graft");
	long r = test_call_method(1, 1);
	KT_EXPECT(t, r == 2, "caller got %ld", r);
	KT_EXPECT(t, test_cell_get(2) == 0, "cell not undone");
	char why[112];
	graft_last_abort(g, why, sizeof(why));
	KT_EXPECT(t, strstr(why, "bad result 0xdead"), "reason '%s'", why);
	graft_destroy_builtin(g);
}

static void check_fault_abort(struct ktest_ctx *t, const char *name, void *fn, const char *what,
			      bool mask_interrupts)
{
	static struct spinlock caller_lock = SPINLOCK_INIT("graft-test-caller");
	reset_cells();
	struct graft *g = ktest_graft_install(t, name, "test.method", fn, 0);
	if (!g)
		return;
	unsigned depth_before = this_cpu()->lock_depth;
	irqflags_t f = 0;
	if (mask_interrupts)
		f = spin_lock_irqsave(&caller_lock);
	long r = test_call_method(20, 22);
	if (mask_interrupts)
		spin_unlock_irqrestore(&caller_lock, f);
	char why[112];
	graft_last_abort(g, why, sizeof(why));
	KT_EXPECT(t, r == 42, "%s: caller got %ld", name, r);
	KT_EXPECT(t, test_cell_get(3) == 0 && test_cell_get(4) == 0, "%s: cells not undone", name);
	KT_EXPECT(t, g->aborts == 1 && !g->installed, "%s: not aborted and removed", name);
	KT_EXPECT(t, strstr(why, what) && strstr(why, name), "%s: reason '%s'", name, why);
	KT_EXPECT(t, this_cpu()->lock_depth == depth_before && !this_cpu()->txn_depth &&
		  !this_cpu()->txn_timer_only, "%s: CPU state not restored", name);
	graft_destroy_builtin(g);
}

KTEST(graft_fault_aborts, 1)
{
	check_fault_abort(t, "nullstore", graft_test_null_store, "page fault", false);
	check_fault_abort(t, "divide", graft_test_divide, "divide error", false);
	check_fault_abort(t, "nullstore", graft_test_null_store, "page fault", true);
}

KTEST(graft_budget_aborts_spinning_graft, 1)
{
	const struct graft_point *p = graft_point_find("test.method");
	KT_ASSERT(t, graft_point_set_budget(p, 30000) == 0, "cannot set budget");
	/* Interrupts enabled by the caller, then masked (timer-only mode). */
	check_fault_abort(t, "spin", graft_test_spin, "time budget of 30000 us exceeded", false);
	check_fault_abort(t, "spin", graft_test_spin, "time budget of 30000 us exceeded", true);
	graft_point_set_budget(p, p->default_budget_us);
}

/* Nesting: an event handler (outer) calls test.method, grafted (inner). */
static long inner_mode;		/* 0 commit, 1 abort */
static long outer_saw;

__used __noinline long graft_test_inner(long a, long b)
{
	test_cell_set(10, 1);
	test_cell_set(11, (uint64_t)graft_nesting());
	if (inner_mode == 1)
		graft_abort("inner gives up");
	return a * b;
}

__used __noinline void graft_test_outer(uint64_t v)
{
	test_cell_set(20, v);
	outer_saw = test_call_method(5, 6);
	test_cell_set(21, (uint64_t)outer_saw);
	if (v == 2)
		graft_abort("outer gives up");
}

static void run_nested(struct ktest_ctx *t, long mode, uint64_t v, uint64_t expect10,
		       uint64_t expect20, long expect_saw)
{
	reset_cells();
	inner_mode = mode;
	outer_saw = -1;
	struct graft *inner = ktest_graft_install(t, "inner", "test.method", graft_test_inner, 0);
	struct graft *outer = ktest_graft_install(t, "outer", "test.event", graft_test_outer, 0);
	if (inner && outer) {
		test_event_slot(v);
		KT_EXPECT(t, outer_saw == expect_saw, "mode %ld/%llu: outer saw %ld", mode,
			  (unsigned long long)v, outer_saw);
		KT_EXPECT(t, test_cell_get(10) == expect10 && test_cell_get(20) == expect20,
			  "mode %ld/%llu: cells 10=%llu 20=%llu", mode, (unsigned long long)v,
			  (unsigned long long)test_cell_get(10), (unsigned long long)test_cell_get(20));
		if (expect10)
			KT_EXPECT(t, test_cell_get(11) == 2, "inner ran at nesting %llu",
				  (unsigned long long)test_cell_get(11));
	}
	graft_destroy_builtin(inner);
	graft_destroy_builtin(outer);
}

KTEST(graft_nested_transactions, 1)
{
	/* Both commit: both changes stay. */
	run_nested(t, 0, 1, 1, 1, 30);
	/* The inner aborts: its change goes, the outer sees the default (11) and commits. */
	run_nested(t, 1, 1, 0, 1, 11);
	/* The inner commits, the outer aborts: the inner's change, handed on, goes too. */
	run_nested(t, 0, 2, 0, 0, 30);
	struct txn_cpu_stats s;
	txn_get_stats(this_cpu_index(), &s);
	KT_EXPECT(t, s.undo_records == 0 && s.locks_held == 0 && s.depth == 0,
		  "per-CPU state left: %u records, %u locks, depth %u", s.undo_records, s.locks_held, s.depth);
}

__used __noinline long graft_test_recursive(long a, long b)
{
	/* Reaches test.method again: this graft is running, so the default answers. */
	return test_call_method(a, b) * 10;
}

KTEST(graft_recursion_gets_default, 1)
{
	struct graft *g = ktest_graft_install(t, "recursive", "test.method", graft_test_recursive, 0);
	KT_ASSERT(t, g, "no graft");
	long r = test_call_method(2, 3);
	KT_EXPECT(t, r == 50, "result %ld (expected (2+3)*10)", r);
	KT_EXPECT(t, invocations(g) == 1, "graft ran %llu times", (unsigned long long)invocations(g));
	graft_destroy_builtin(g);
}

static int lock_owner_seen = -2;

__used __noinline long graft_test_take_lock(long a, long b)
{
	struct txn_lock_info l;
	graft_lock(3);
	graft_lock(3);		/* again: already ours */
	txn_lock_info(3, &l);
	lock_owner_seen = l.owner_cpu;
	if (a < 0)
		graft_abort("abort holding a lock");
	if (b < 0)
		for (;;)
			cpu_relax();
	return graft_lock(GRAFT_LOCKS) == -EINVAL ? 1 : 0;
}

KTEST(graft_locks_two_phase, 1)
{
	const struct graft_point *p = graft_point_find("test.method");
	struct txn_lock_info l;
	long args[3][2] = { { 1, 1 }, { -1, 1 }, { 1, -1 } };

	graft_point_set_budget(p, 30000);
	for (unsigned i = 0; i < 3; i++) {
		struct graft *g = ktest_graft_install(t, "locker", "test.method", graft_test_take_lock, 0);
		if (!g)
			break;
		lock_owner_seen = -2;
		long r = test_call_method(args[i][0], args[i][1]);
		txn_lock_info(3, &l);
		KT_EXPECT(t, lock_owner_seen == (int)this_cpu_index(), "case %u: lock not held inside (%d)",
			  i, lock_owner_seen);
		KT_EXPECT(t, l.owner_cpu == -1, "case %u: lock 3 still held by cpu %d", i, l.owner_cpu);
		KT_EXPECT(t, i ? r == args[i][0] + args[i][1] : r == 1, "case %u: result %ld", i, r);
		KT_EXPECT(t, i ? g->aborts == 1 : g->commits == 1, "case %u: wrong outcome", i);
		graft_destroy_builtin(g);
	}
	graft_point_set_budget(p, p->default_budget_us);
}

__used __noinline long graft_test_flood_log(long a, long b)
{
	for (unsigned i = 0; i < TXN_UNDO_MAX + 10; i++)
		test_cell_set(i % TEST_CELLS, i + 1);
	return a + b + 1;
}

KTEST(graft_undo_log_full_aborts, 1)
{
	reset_cells();
	struct graft *g = ktest_graft_install(t, "flood", "test.method", graft_test_flood_log, 0);
	KT_ASSERT(t, g, "no graft");
	long r = test_call_method(1, 2);
	char why[112];
	graft_last_abort(g, why, sizeof(why));
	KT_EXPECT(t, r == 3 && g->aborts == 1, "result %ld, aborts %llu", r, (unsigned long long)g->aborts);
	KT_EXPECT(t, strstr(why, "undo log full"), "reason '%s'", why);
	for (unsigned i = 0; i < TEST_CELLS; i++)
		KT_ASSERT(t, test_cell_get(i) == 0, "cell %u = %llu after abort", i,
			  (unsigned long long)test_cell_get(i));
	graft_destroy_builtin(g);
}

struct scoped_call {
	volatile bool go;
	long result;
};

static void call_from_thread(void *arg)
{
	struct scoped_call *c = arg;
	while (!c->go)
		thread_yield();
	c->result = test_call_method(4, 5);
}

KTEST(graft_scope_per_thread, 1)
{
	struct scoped_call other = { .go = false, .result = 0 };
	struct thread *th = thread_create("graft-scope", call_from_thread, &other, -1);
	KT_ASSERT(t, th, "no thread");
	uint64_t tid = th->tid;
	struct graft *g = ktest_graft_install(t, "scoped", "test.method", graft_test_multiply, tid);
	other.go = true;
	long mine = test_call_method(4, 5);
	thread_join(th);
	KT_ASSERT(t, g, "no graft");
	KT_EXPECT(t, mine == 9, "this thread got %ld (the graft is scoped to another)", mine);
	KT_EXPECT(t, other.result == 20, "the scoped thread got %ld", other.result);
	KT_EXPECT(t, invocations(g) == 1, "graft ran %llu times", (unsigned long long)invocations(g));
	char err[96];
	struct graft *g2 = graft_create_builtin("second", "test.method", graft_test_multiply);
	KT_EXPECT(t, g2 && graft_install(g2, tid, err, sizeof(err)) == -EBUSY,
		  "second graft for the same scope not refused");
	KT_EXPECT(t, g2 && graft_install(g2, 0, err, sizeof(err)) == 0, "global beside scoped: %s", err);
	KT_EXPECT(t, test_call_method(4, 5) == 20, "global graft not used for this thread");
	graft_destroy_builtin(g2);
	graft_destroy_builtin(g);
}
