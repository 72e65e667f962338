// SPDX-License-Identifier: BSD-2-Clause
/*
 * Graft transactions: begin, commit, abort, the undo log, and the two
 * ways an abort is forced from outside the graft (a fault in its code,
 * the timer finding it past its budget).
 *
 * Everything is per CPU (txn_cpus[], reached through struct cpu's txn,
 * touched only by its CPU with interrupts masked; the structures and
 * txn_run's body are in txn_internal.h, inline in the dispatcher): a
 * stack of open transactions, one undo log and one list of held API
 * locks, both used as stacks. A transaction owns the
 * records and locks above its bases. Nesting follows the stack: a graft
 * whose API call reaches another grafted point opens an inner
 * transaction; its commit leaves its records and locks to the enclosing
 * one (they are undone or released with it), its abort undoes only its
 * own. A transaction opened by an interrupt handler over a running graft
 * is independent (different interrupt depth): its commit discards its
 * records instead of handing them on.
 *
 * While a transaction is open the CPU counts one more lock held, so the
 * thread is neither preempted nor migrated; grafts run with interrupts
 * enabled, and when the caller had masked them, with only the timer let
 * through (arch_irq_timer_only_enter) so that the watchdog still runs
 * and nothing else interrupts the caller's critical section.
 *
 * Lock order: the API locks are taken only by grafts, spinning with
 * their budget running; the point lock (graft_remove) is a leaf.
 */
#include <stdarg.h>
#include <scion/txn.h>
#include <scion/errno.h>
#include <scion/graft.h>
#include <scion/cpu.h>
#include <scion/thread.h>
#include <scion/printk.h>
#include <scion/channel.h>
#include <scion/format.h>
#include <scion/string.h>
#include <scion/textpoke.h>
#include <scion/probe.h>
#include <scion/symtab.h>
#include <arch/cpu.h>
#include <arch/txn.h>
#include <arch/mmu.h>
#include "graft_internal.h"
#include "txn_internal.h"

static struct txn_cpu txn_cpus[MAX_CPUS];

struct api_lock {
	int owner_cpu;			/* -1 free; set by compare-and-swap */
	struct graft *holder;		/* owner's: the graft that took it */
	uint64_t acquisitions;		/* owner's */
};

static struct api_lock api_locks[GRAFT_LOCKS] = {
	[0 ... GRAFT_LOCKS - 1] = { .owner_cpu = -1 },
};

void txn_cpu_init(struct cpu *c)
{
	c->txn = &txn_cpus[c->index];
}

static struct txn_cpu *my_txns(void)
{
	return this_cpu()->txn;
}

/* The innermost open transaction of this CPU's tc, or NULL. */
static struct txn *innermost(struct txn_cpu *tc)
{
	unsigned depth = this_cpu()->txn_depth;
	return depth ? &tc->stack[depth - 1] : NULL;
}

/* Release the API locks above base, newest first. */
__noinline void txn_release_locks(struct txn_cpu *tc, unsigned base)
{
	while (tc->top.nlocks > base) {
		struct api_lock *l = &api_locks[tc->locks[--tc->top.nlocks]];
		l->holder = NULL;
		__atomic_store_n(&l->owner_cpu, -1, __ATOMIC_RELEASE);
	}
}

/* Run the undo records above base, newest first. */
static void undo_to(struct txn_cpu *tc, unsigned base)
{
	while (tc->top.nundo > base) {
		struct undo_record *r = &tc->undo[--tc->top.nundo];
		r->undo(r->a, r->b);
	}
}

/*
 * Finish an aborted transaction, in the caller's context with
 * interrupts masked:
 *   1. undo its records in reverse order (its committed inner
 *      transactions' records included);
 *   2. release the API locks it (and its inner ones) took;
 *   3. remove the graft from its point, so the next call gets the
 *      default (or another graft) without waiting for anyone;
 *   4. log one line: graft, point, reason (with the address).
 * Out of line: the commit path keeps a small frame.
 */
__noinline __cold void txn_finish_abort(struct txn_cpu *tc, struct txn *t)
{
	unsigned records = tc->top.nundo - t->base.nundo;

	tc->aborted++;
	undo_to(tc, t->base.nundo);
	txn_release_locks(tc, t->base.nlocks);
	graft_remove(t->graft);
	graft_note_abort(t->graft, t->why);
	if (t->graft->quiet)
		return;
	char line[256];	/* the event keeps the first CHAN_EVENT_TEXT_MAX - 1 */
	snprintf(line, sizeof(line), "graft: '%s' aborted at %s: %s; %u change%s undone",
		 t->graft->name, t->point->name, t->why, records, records == 1 ? "" : "s");
	printk("%s, graft removed, default used\n", line);
	channel_event("%s", line);
}

/* Steps 5 and 6 of txn_run_inline for a t with a flag set: aborted (undone), or committed. */
__noinline enum txn_outcome txn_end_flagged(struct cpu *c, struct txn *t, irqflags_t flags,
					    uint64_t cycles)
{
	if (!t->aborting)
		return txn_end_committed(c, c->txn, t, flags, cycles, true);
	txn_finish_abort(c->txn, t);
	graft_note_invocation(t->graft, false, cycles);
	txn_leave(c, t, flags);
	return TXN_ABORTED;
}

/* A result check refused r: the transaction aborts with its reason. */
__noinline __cold void txn_refuse_result(struct txn *t, uint64_t r, const char *bad)
{
	snprintf(t->why, sizeof(t->why), "bad result 0x%llx: %s", (unsigned long long)r, bad);
	t->aborting = true;
}

/*
 * Whether g may run on this CPU now, when a transaction is already open
 * here or g is sandboxed: not when transactions nest too deep; not when
 * g is already running here (a graft's API call or an interrupt reaching
 * its point again: the dispatcher runs the default, never g inside g;
 * TXN_ACTIVE); a sandboxed g not without a window here.
 */
__noinline enum txn_outcome txn_may_run(const struct txn_cpu *tc, unsigned depth,
					const struct graft *g, unsigned cpu)
{
	for (unsigned i = 0; i < depth; i++)
		if (tc->stack[i].graft == g)
			return TXN_ACTIVE;
	if (depth == TXN_MAX_DEPTH || (g->sandboxed && cpu >= g->sfi.nwindows))
		return TXN_NOT_RUN;
	return TXN_COMMITTED;
}

/*
 * When t's time is up (cycles): its start plus its point's budget, no
 * later than the deadline of the transaction it hands on to. Asked by
 * the timer and by a graft lock's waiter, not at begin.
 */
static uint64_t deadline(const struct txn_cpu *tc, const struct txn *t)
{
	uint64_t d = t->start + READ_ONCE(t->point->state->budget_cycles);
	if (t->hands_on && t > tc->stack) {
		uint64_t outer = deadline(tc, t - 1);
		if (outer < d)
			d = outer;
	}
	return d;
}

/* Caller had interrupts masked: the graft runs with only the timer let through. */
__noinline void txn_enter_timer_only(struct cpu *c, struct txn *t)
{
	t->raised_timer_only = !c->txn_timer_only;
	if (c->txn_timer_only) {
		arch_irq_enable();
		return;
	}
	c->txn_timer_only = true;
	arch_irq_timer_only_enter();
}

/* The out-of-line txn_run: for callers other than the dispatcher's common case. */
enum txn_outcome txn_run(const struct graft_point *p, struct graft *g, const uint64_t args[6],
			 uint64_t *result)
{
	return txn_run_inline(p, g, args, result, false);
}
bool txn_graft_active(const struct graft *g)
{
	/*
	 * No transaction open on the CPU read: a thread outside every
	 * transaction may migrate meanwhile, but no CPU it could be on has one
	 * of its own open (an interrupt's ends before the thread runs again),
	 * and a thread inside one cannot migrate. The common case, unmasked.
	 */
	if (!READ_ONCE(this_cpu()->txn_depth))
		return false;
	irqflags_t f = arch_irq_save();
	struct txn_cpu *tc = my_txns();
	bool active = false;
	for (unsigned i = 0; i < this_cpu()->txn_depth; i++)
		if (tc->stack[i].graft == g)
			active = true;
	arch_irq_restore(f);
	return active;
}

struct graft *txn_current_graft(void)
{
	irqflags_t f = arch_irq_save();
	struct txn *t = innermost(my_txns());
	struct graft *g = t ? t->graft : NULL;
	arch_irq_restore(f);
	return g;
}

void txn_log_undo(void (*undo)(uint64_t a, uint64_t b), uint64_t a, uint64_t b)
{
	irqflags_t f = arch_irq_save();
	struct txn_cpu *tc = my_txns();

	if (!this_cpu()->txn_depth) {
		arch_irq_restore(f);
		return;
	}
	if (tc->top.nundo == TXN_UNDO_MAX) {
		arch_irq_restore(f);
		txn_abort_self("undo log full (%u records on this CPU)", TXN_UNDO_MAX);
	}
	tc->undo[tc->top.nundo++] = (struct undo_record){ undo, a, b };
	arch_irq_restore(f);
}

void txn_abort_self(const char *reason, ...)
{
	arch_irq_disable();
	struct txn_cpu *tc = my_txns();
	struct txn *t = innermost(tc);
	va_list ap;

	if (!t)
		panic("txn_abort_self outside a transaction (called from kernel code?)");
	va_start(ap, reason);
	vsnprintf(t->why, sizeof(t->why), reason, ap);
	va_end(ap);
	t->aborting = true;
	arch_txn_unwind(&t->jmp);
}

bool txn_graft_memory_ok(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;
	struct txn *t = innermost(my_txns());
	struct thread *me = thread_current();

	if (a + len < a)
		return false;
	if (t && t->graft->builtin)
		return true;	/* kernel code posing as a graft (tests, benchmarks) */
	if (t && graft_owns_memory(t->graft, a, len))
		return true;
	return me && thread_stack_contains(me, a, len);
}

/* Code of the innermost graft, or no kernel code at all (a wild jump). */
static bool pc_is_graft_code(const struct txn *t, uintptr_t pc)
{
	uint64_t origin;

	if (pc >= t->graft->code_start && pc < t->graft->code_end)
		return true;
	if (pc >= GRAFT_AREA_BASE && pc < GRAFT_AREA_BASE + GRAFT_AREA_SIZE)
		return true;
	return !kernel_text_contains(pc, 1) && !probe_patch_origin(pc, &origin);
}

/* The graft's name and offset, or the kernel function (trap entry, when its stack was full). */
static void describe_pc(const struct txn *t, uintptr_t pc, char *buf, size_t n)
{
	const struct graft *g = t->graft;

	if (pc >= g->code_start && pc < g->code_end)
		snprintf(buf, n, "%s+0x%llx", g->name, (unsigned long long)(pc - g->code_start));
	else
		ksym_format(pc, buf, n);
}

bool txn_fault(struct trap_frame *frame, const struct fault_info *info)
{
	struct txn *t = innermost(my_txns());
	uintptr_t pc = trap_frame_pc(frame);
	char where[64];

	if (!t || !(pc_is_graft_code(t, pc) ||
		    (t->graft->sandboxed && arch_sfi_entry_overflow(&t->graft->sfi, frame))))
		return false;
	describe_pc(t, pc, where, sizeof(where));
	if (info->has_address)
		snprintf(t->why, sizeof(t->why), "%s (%s) at address 0x%llx, pc %s", info->what,
			 info->detail, (unsigned long long)info->address, where);
	else
		snprintf(t->why, sizeof(t->why), "%s at pc %s", info->what, where);
	t->aborting = true;
	arch_txn_redirect(frame, &t->jmp);
	return true;
}

void txn_watchdog(struct trap_frame *frame)
{
	struct txn_cpu *tc = my_txns();
	struct txn *t = innermost(tc);
	uintptr_t pc = trap_frame_pc(frame);
	char where[64];

	if (!t || t->aborting || arch_cycles() <= deadline(tc, t))
		return;
	if (!pc_is_graft_code(t, pc)) {
		t->overran = true;
		return;
	}
	describe_pc(t, pc, where, sizeof(where));
	snprintf(t->why, sizeof(t->why), "time budget of %u us exceeded, pc %s",
		 READ_ONCE(t->point->state->budget_us), where);
	t->aborting = true;
	arch_txn_redirect(frame, &t->jmp);
}

int graft_lock(unsigned id)
{
	if (id >= GRAFT_LOCKS)
		return -EINVAL;
	irqflags_t f = arch_irq_save();
	struct txn_cpu *tc = my_txns();
	struct txn *t = innermost(tc);
	int me = (int)this_cpu_index();
	struct api_lock *l = &api_locks[id];

	if (!t) {
		arch_irq_restore(f);
		return -EPERM;
	}
	if (__atomic_load_n(&l->owner_cpu, __ATOMIC_ACQUIRE) == me) {
		arch_irq_restore(f);
		return 0;
	}
	if (tc->top.nlocks == TXN_LOCKS_MAX) {
		arch_irq_restore(f);
		txn_abort_self("more than %u graft locks held", TXN_LOCKS_MAX);
	}
	arch_irq_restore(f);
	for (;;) {
		int expected = -1;
		if (__atomic_compare_exchange_n(&l->owner_cpu, &expected, me, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
		if (arch_cycles() > deadline(tc, t)) {
			struct graft *holder = READ_ONCE(l->holder);
			txn_abort_self("time budget of %u us exceeded waiting for graft lock %u (held by '%s' on cpu %d)",
				       READ_ONCE(t->point->state->budget_us), id,
				       holder ? holder->name : "?", expected);
		}
		cpu_relax();
	}
	f = arch_irq_save();
	l->holder = t->graft;
	l->acquisitions++;
	tc->locks[tc->top.nlocks++] = id;
	arch_irq_restore(f);
	return 0;
}
GRAFT_EXPORT(graft_lock);

size_t txn_copy_graft_string(char *dst, size_t n, const char *src)
{
	size_t i = 0;
	while (i + 1 < n && txn_graft_memory_ok(src + i, 1) && src[i]) {
		char ch = src[i];
		dst[i++] = ch >= ' ' && ch <= '~' ? ch : '?';
	}
	dst[i] = '\0';
	return i;
}

void graft_abort(const char *reason)
{
	char copy[64];
	txn_copy_graft_string(copy, sizeof(copy), reason);
	txn_abort_self("graft_abort(\"%s\")", copy);
}
GRAFT_EXPORT(graft_abort);

unsigned graft_nesting(void)
{
	return READ_ONCE(this_cpu()->txn_depth);
}
GRAFT_EXPORT(graft_nesting);

void txn_get_stats(unsigned cpu, struct txn_cpu_stats *s)
{
	const struct txn_cpu *tc = &txn_cpus[cpu];
	*s = (struct txn_cpu_stats){
		.begun = READ_ONCE(tc->begun), .committed = READ_ONCE(tc->committed),
		.aborted = READ_ONCE(tc->aborted), .not_run = READ_ONCE(tc->not_run),
		.depth = READ_ONCE(cpu_table[cpu].txn_depth), .undo_records = READ_ONCE(tc->top.nundo),
		.locks_held = READ_ONCE(tc->top.nlocks),
	};
}

void txn_lock_info(unsigned id, struct txn_lock_info *out)
{
	const struct api_lock *l = &api_locks[id];
	struct graft *holder = READ_ONCE(l->holder);
	out->owner_cpu = __atomic_load_n(&l->owner_cpu, __ATOMIC_ACQUIRE);
	strlcpy(out->holder, out->owner_cpu >= 0 && holder ? holder->name : "", sizeof(out->holder));
	out->acquisitions = READ_ONCE(l->acquisitions);
}
