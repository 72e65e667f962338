/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The transaction's state and txn_run's body (kernel/graft/txn.c), inline
 * here so that the dispatcher's common case (kernel/graft/point.c) runs
 * it without a call of its own. Everything is per CPU and touched by
 * its CPU with interrupts masked (txn.c says how transactions nest).
 */
#ifndef KERNEL_GRAFT_TXN_INTERNAL_H
#define KERNEL_GRAFT_TXN_INTERNAL_H

#include <scion/txn.h>
#include <scion/graft.h>
#include <scion/cpu.h>
#include <arch/cpu.h>
#include <arch/txn.h>
#include <arch/sfi.h>
#include "graft_internal.h"

/* How far the undo log and the lock list reach: one word, copied whole at begin. */
struct txn_marks {
	unsigned nundo, nlocks;
};

struct undo_record {
	void (*undo)(uint64_t a, uint64_t b);
	uint64_t a, b;
};

struct txn {
	struct arch_txn_jmp jmp;	/* where an abort resumes */
	const struct graft_point *point;
	struct graft *graft;
	uint64_t start;			/* cycles; the deadline is deadline()'s */
	struct txn_marks base;		/* first record and lock this one owns */
	unsigned irq_depth;		/* cpu->irq_depth when it began */
	bool raised_timer_only;		/* this one entered timer-only mode; set (either way)
					   only when its caller had interrupts masked */
	union {				/* cleared with one store at begin */
		struct {
			bool hands_on;		/* commit leaves records and locks to the
						   enclosing one */
			volatile bool aborting;	/* set by whoever forces the abort */
			volatile bool overran;	/* budget gone while in kernel code */
		};
		uint32_t flags;
	};
	char why[96];			/* the abort's reason; written before aborting is set */
} __attribute__((aligned(256)));	/* begin finds stack[depth] with one shift */

struct txn_cpu {
	struct txn stack[TXN_MAX_DEPTH];	/* the first cpu->txn_depth are open */
	struct txn_marks top;		/* records in undo[], locks in locks[] */
	struct undo_record undo[TXN_UNDO_MAX];
	unsigned locks[TXN_LOCKS_MAX];
	uint64_t begun, committed, aborted, not_run;
};


/* txn_run's paths off the common one (txn.c). */
enum txn_outcome txn_may_run(const struct txn_cpu *tc, unsigned depth, const struct graft *g,
			     unsigned cpu);
void txn_enter_timer_only(struct cpu *c, struct txn *t);
void txn_refuse_result(struct txn *t, uint64_t r, const char *bad);
void txn_finish_abort(struct txn_cpu *tc, struct txn *t);
void txn_release_locks(struct txn_cpu *tc, unsigned base);

/*
 * Step 6's end, either outcome: out of timer-only mode (only a caller
 * with interrupts masked can have raised it), t popped, interrupts as
 * they were.
 */
static __attribute__((always_inline)) inline void txn_leave(struct cpu *c, struct txn *t,
							     irqflags_t flags)
{
	if (!arch_irq_flags_enabled(flags) && unlikely(t->raised_timer_only)) {
		arch_irq_timer_only_exit();
		c->txn_timer_only = false;
	}
	c->txn_depth--;		/* to depth: the inner ones have ended */
	c->lock_depth--;
	arch_irq_restore(flags);
}

/*
 * Steps 5 and 6 for a committing t: its records and locks dropped, or
 * left to the enclosing transaction (hands_on); counted; popped.
 * flagged: t's flags may be set (when not, it hands nothing on).
 */
static __attribute__((always_inline)) inline enum txn_outcome
txn_end_committed(struct cpu *c, struct txn_cpu *tc, struct txn *t, irqflags_t flags,
		  uint64_t cycles, bool flagged)
{
	tc->committed++;
	if (!(flagged && t->hands_on)) {
		tc->top.nundo = t->base.nundo;
		if (unlikely(tc->top.nlocks != t->base.nlocks))
			txn_release_locks(tc, t->base.nlocks);
	}
	graft_note_invocation(t->graft, true, cycles);
	txn_leave(c, t, flags);
	return TXN_COMMITTED;
}

/*
 * Steps 5 and 6 for a t with any of its flags set: aborted, or committed
 * handing on or past its budget (txn.c). Out of line, so that the
 * common path tests the flags once and keeps no outcome of its own
 * across the graft's call.
 */
enum txn_outcome txn_end_flagged(struct cpu *c, struct txn *t, irqflags_t flags,
				 uint64_t cycles);

/*
 * A transaction, in these steps (interrupts masked but while the graft runs):
 *   1. refuse when txn_may_run does (only asked when one is open here already
 *      or g is sandboxed);
 *   2. push it: the CPU counts one more lock held (no preemption, no
 *      migration until step 6); its bases are the log's and the lock
 *      list's tops; its start the clock (deadline() adds the budget
 *      when the timer asks);
 *   3. call the graft, interrupts enabled (or timer-only), with the
 *      state an abort resumes from in t->jmp;
 *   4. check the result (a refused one aborts);
 *   5. abort (txn_finish_abort) or commit: drop its records and release its
 *      locks, or leave both to the enclosing transaction (hands_on);
 *   6. count the invocation, pop it.
 * outermost: the dispatcher's copy, which opens only the CPU's first
 * transaction (its stack's base, nothing to hand on to) and leaves a
 * nested one to txn_run.
 */
static __attribute__((always_inline)) inline enum txn_outcome
txn_run_inline(const struct graft_point *p, struct graft *g, const uint64_t args[6],
	       uint64_t *result, bool outermost)
{
	irqflags_t flags = arch_irq_save();
	struct cpu *c = this_cpu();
	struct txn_cpu *tc = c->txn;
	unsigned depth = c->txn_depth;
	bool sandboxed = g->sandboxed;

	if (outermost && unlikely(depth)) {
		uint64_t r;	/* not result: the caller's stays in a register */
		arch_irq_restore(flags);
		enum txn_outcome o = txn_run(p, g, args, &r);
		*result = r;
		return o;
	}
	if (unlikely(depth || sandboxed)) {
		enum txn_outcome why = txn_may_run(tc, depth, g, c->index);
		if (why != TXN_COMMITTED) {
			if (why == TXN_NOT_RUN)
				tc->not_run++;
			arch_irq_restore(flags);
			return why;
		}
	}
	c->lock_depth++;
	struct txn *t = &tc->stack[depth];
	t->point = p;
	t->graft = g;
	t->irq_depth = c->irq_depth;
	t->flags = 0;
	t->base = tc->top;
	t->start = arch_cycles();
	if (unlikely(depth))
		t->hands_on = tc->stack[depth - 1].irq_depth == t->irq_depth;
	tc->begun++;
	c->txn_depth = depth + 1;

	if (unlikely(!arch_irq_flags_enabled(flags)))
		txn_enter_timer_only(c, t);
	else
		arch_irq_enable();
	uint64_t r = unlikely(sandboxed) ?
		arch_sfi_call(&t->jmp, g->entry, args, g->sfi.window[c->index], g->sfi.exit_stub) :
		arch_txn_call(&t->jmp, g->entry, args);
	arch_irq_disable();
	/*
	 * t stays in a register (not recomputed from depth); p, g and start come
	 * back from it. The outermost one's is tc itself, in a register already.
	 */
	if (!outermost)
		__asm__("" : "+r"(t));
	p = t->point;

	r = graft_point_mask_result(p, r);
	if (p->check_result && !t->aborting) {
		const char *bad = p->check_result(r, args);
		if (unlikely(bad != NULL))
			txn_refuse_result(t, r, bad);
	}
	uint64_t cycles = arch_cycles() - t->start;
	*result = r;
	if (unlikely(t->flags))
		return txn_end_flagged(c, t, flags, cycles);
	return txn_end_committed(c, tc, t, flags, cycles, false);
}

#endif
