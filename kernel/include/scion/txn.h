/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Graft transactions (kernel/graft/txn.c).
 *
 * Every graft invocation runs in a transaction on the invoking CPU.
 * Kernel code that changes state on a graft's behalf (the exported API)
 * logs how to undo the change with txn_log_undo; graft API locks are
 * two-phase (held to the end). Commit forgets the log (or, nested in an
 * enclosing transaction at the same interrupt level, hands it on);
 * abort runs it backwards, releases the locks and removes the graft.
 *
 * A transaction never migrates: while it is open the CPU counts as
 * holding a lock (no preemption), and grafts may not sleep.
 */
#ifndef SCION_TXN_H
#define SCION_TXN_H

#include <scion/compiler.h>
#include <scion/fault.h>
#include <graft/graft.h>

struct graft;
struct graft_point;

#define TXN_MAX_DEPTH 8		/* open transactions per CPU */
#define TXN_UNDO_MAX  512	/* undo records per CPU */
#define TXN_LOCKS_MAX 16	/* API locks held per CPU */

enum txn_outcome {
	TXN_COMMITTED,
	TXN_ABORTED,
	TXN_NOT_RUN,		/* too deeply nested, or no sandbox window on this CPU:
				   the caller runs the default */
	TXN_ACTIVE,		/* g already runs on this CPU (its API call or an
				   interrupt reached its point again): the caller runs
				   the default */
};

/*
 * txn_run - Overview: run graft g for point p in a transaction.
 * Arguments: args, the invocation's six argument words; *result gets
 *   the graft's result (masked to the point's result width) when it
 *   commits.
 * Return value: the outcome (TXN_NOT_RUN and TXN_ACTIVE: g did not run);
 *   on TXN_ABORTED the state the graft changed
 *   through the API is restored, its locks released, g removed from p,
 *   and one line logged; the caller then runs the default.
 * Caller's context: any; interrupts as the caller likes (a graft runs
 *   with only the timer unmasked when its caller had masked them).
 */
enum txn_outcome txn_run(const struct graft_point *p, struct graft *g, const uint64_t args[6],
			 uint64_t *result);

/* Point this CPU at its transaction state (struct cpu's txn). Boot, once per CPU. */
struct cpu;
void txn_cpu_init(struct cpu *c);

/* True when a transaction of g is open on this CPU (the dispatcher then
 * runs the default instead of recursing into g). */
bool txn_graft_active(const struct graft *g);

/*
 * txn_log_undo - Overview: record how to undo a change made on behalf
 *   of the running graft: on abort, undo(a, b) runs (in reverse order of
 *   logging, with interrupts masked, in the graft point caller's context).
 * Caller's context: exported API code called by a graft. Outside a
 *   transaction nothing is logged. A full log aborts the transaction
 *   (does not return).
 */
void txn_log_undo(void (*undo)(uint64_t a, uint64_t b), uint64_t a, uint64_t b);

/*
 * txn_abort_self - abort the innermost transaction from API code it
 *   called: reason (formatted) goes to the log. Does not return.
 * Caller's context: inside a transaction, holding no spinlock.
 */
__noreturn __printf(1, 2) void txn_abort_self(const char *reason, ...);

/*
 * txn_graft_memory_ok - whether [p, p + len) lies in memory the running
 *   graft may hand to the API: its own image or the current stack.
 */
bool txn_graft_memory_ok(const void *p, size_t len);

/*
 * txn_fault - Overview: the fault path's hook: a fault in the code of
 *   the innermost transaction's graft (or at a pc outside kernel code
 *   while a transaction is open) aborts that transaction.
 * Return value: true when frame now resumes at the abort.
 * Caller's context: the trap handler, interrupts masked.
 */
bool txn_fault(struct trap_frame *frame, const struct fault_info *info);

/*
 * txn_watchdog - Overview: the timer's hook: the innermost transaction
 *   past its time budget is aborted if frame stopped it in graft code,
 *   otherwise marked so that it is aborted at the next tick in graft
 *   code (API code runs to its end).
 * Caller's context: the timer interrupt on this CPU.
 */
void txn_watchdog(struct trap_frame *frame);

/* Per-CPU figures for `graft txn` and tests. */
struct txn_cpu_stats {
	uint64_t begun, committed, aborted, not_run;
	unsigned depth, undo_records, locks_held;
};
void txn_get_stats(unsigned cpu, struct txn_cpu_stats *s);

/* The API lock table (`graft locks`). */
struct txn_lock_info {
	int owner_cpu;			/* -1 when free */
	char holder[GRAFT_NAME_MAX];	/* graft that took it */
	uint64_t acquisitions;
};
void txn_lock_info(unsigned id, struct txn_lock_info *out);

#endif
