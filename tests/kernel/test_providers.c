// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the sched and lockstat providers (issue 27): the
 * sdt sites of kernel/sched/sched.c, kernel/core/spinlock.c and
 * kernel/sched/wait.c, enabled through the probe API with handlers that
 * count per thread or per lock. Exact counts on a known workload:
 *   probe_sched_provider      three threads that sleep and yield a known
 *                             number of times, then compute twice a slice:
 *                             per thread, on-cpu equals off-cpu, enqueue
 *                             equals dequeue, sleep and wakeup are exactly
 *                             the sleeps that blocked (a one-tick sleep
 *                             whose tick has passed before it takes the
 *                             run queue's lock returns at once), tick at
 *                             least the computed ticks with at least one
 *                             preempt; on-cpu's, sleep's, preempt's and
 *                             tick's arg0 is the thread running and every
 *                             arg1 its CPU
 *   probe_sched_yield_each_site  thread_yield between two threads pinned
 *                             to one CPU with one switch probe enabled at a
 *                             time (sched's on-cpu, off-cpu, enqueue,
 *                             dequeue, sdt's thread-switch): each fires
 *                             for the yielding thread exactly once per
 *                             switch (thread_yield's quiet path, which
 *                             leaves them out, is taken only while they
 *                             are all disabled)
 *   probe_lockstat_counts     a private spinlock and mutex taken a known
 *                             number of times: as many acquire and release
 *                             hits with arg0 their address; a contended
 *                             mutex gives one adaptive-block, its arg1 the
 *                             time blocked (the wait around mutex_lock)
 *   probe_lockstat_no_recursion  a spin-acquire handler that itself takes
 *                             a spinlock (as the D engine's dynamic
 *                             variables do): the nested hits are counted
 *                             missed and the handler never runs nested
 *   probe_lockstat_spin_contended  two CPUs hammer one lock: spin-spin
 *                             fires with a nonzero time, never more often
 *                             than the acquisitions
 *   probe_profile_bound       profile-N and tick-N at the machine's bound
 *                             (arch_timer_max_hz) are created, a hertz
 *                             faster refused with one line naming it
 * Names start with probe_ so the patching runs (single-threaded TCG) take
 * them. Every test leaves the text as booted, and checks it.
 */
#include <scion/ktest.h>
#include <scion/probe.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/spinlock.h>
#include <scion/mutex.h>
#include <scion/clock.h>
#include <scion/cpu.h>
#include <scion/atomic.h>
#include <arch/timer.h>
#include <arch/trap.h>
#include "probe_test.h"

#define MAX_PROBES 8

/* Every probe spec names, up to MAX_PROBES. */
struct probe_set {
	struct probe *p[MAX_PROBES];
	unsigned n;
};

static bool add_probe(struct probe *p, void *arg)
{
	struct probe_set *s = arg;
	if (s->n < MAX_PROBES)
		s->p[s->n++] = p;
	return true;
}

static unsigned find_probes(const char *spec, struct probe_set *s)
{
	const char *why;
	s->n = 0;
	probe_lookup(spec, add_probe, s, &why);
	return s->n;
}

/* Enable one consumer (a copy of proto) on each probe of s; returns how many. */
static unsigned enable_all(struct probe_set *s, struct probe_consumer *cs,
			   const struct probe_consumer *proto)
{
	unsigned ok = 0;
	for (unsigned i = 0; i < s->n; i++) {
		cs[i] = *proto;
		ok += probe_enable(s->p[i], &cs[i]) == 0;
	}
	return ok;
}

static void disable_all(struct probe_set *s, struct probe_consumer *cs)
{
	for (unsigned i = 0; i < s->n; i++)
		probe_disable(&cs[i]);
}

/* --- sched ------------------------------------------------------------------------- */

#define SCHED_THREADS 3
#define SCHED_SLEEPS 3
#define SCHED_SLEEP_TRIES (4 * SCHED_SLEEPS)	/* one-tick sleeps tried to block SCHED_SLEEPS times */
#define SCHED_YIELDS 5
#define SCHED_COMPUTE_TICKS 4	/* twice the slice: the tick preempts at least once */

enum { EV_ON, EV_OFF, EV_ENQ, EV_DEQ, EV_SLEEP, EV_WAKE, EV_PREEMPT, EV_TICK, EV_KINDS };
static const char *const ev_spec[EV_KINDS] = {
	"sched:::on-cpu", "sched:::off-cpu", "sched:::enqueue", "sched:::dequeue",
	"sched:::sleep", "sched:::wakeup", "sched:::preempt", "sched:::tick",
};

struct sched_seen {
	uint64_t tid[SCHED_THREADS];	/* set before the threads run */
	uint64_t count[SCHED_THREADS][EV_KINDS];
	uint64_t wrong_args;		/* on-cpu/sleep arg0 not the running thread, arg1 not its CPU */
};
static struct sched_seen sched_seen;
static struct probe_consumer sched_cs[EV_KINDS][MAX_PROBES];

static int seen_index(uint64_t tid)
{
	for (int i = 0; i < SCHED_THREADS; i++)
		if (__atomic_load_n(&sched_seen.tid[i], __ATOMIC_RELAXED) == tid)
			return i;
	return -1;
}

static void sched_handler(const struct probe_hit *hit, void *arg)
{
	unsigned kind = (unsigned)(uintptr_t)arg;
	uint64_t a0 = trap_frame_arg(hit->regs, 0), a1 = trap_frame_arg(hit->regs, 1);
	uint64_t cur = this_cpu()->current->tid;

	if ((kind == EV_ON || kind == EV_SLEEP || kind == EV_PREEMPT || kind == EV_TICK) &&
	    a0 != cur)
		atomic_add(&sched_seen.wrong_args, 1);
	if (a1 != this_cpu_index())
		atomic_add(&sched_seen.wrong_args, 1);
	/* off-cpu: the thread leaving is curthread (arg0 is the next one, as in DTrace). */
	int i = seen_index(kind == EV_OFF ? cur : a0);
	if (i >= 0)
		atomic_add(&sched_seen.count[i][kind], 1);
}

static volatile bool sched_go;

/*
 * Each worker (arg: its index in sched_seen) sleeps until the sleep probe
 * has seen it block SCHED_SLEEPS times: the count is then exact whatever
 * the ticks' timing, and a probe that does not fire leaves it short.
 */
static void sched_worker(void *arg)
{
	const uint64_t *slept = &sched_seen.count[(uintptr_t)arg][EV_SLEEP];
	while (!READ_ONCE(sched_go))
		thread_yield();
	for (int i = 0; i < SCHED_SLEEP_TRIES && __atomic_load_n(slept, __ATOMIC_RELAXED) < SCHED_SLEEPS;
	     i++)
		thread_sleep_ticks(1);
	for (int i = 0; i < SCHED_YIELDS; i++)
		thread_yield();
	struct thread *me = thread_current();
	uint64_t until = READ_ONCE(me->se.ticks_run) + SCHED_COMPUTE_TICKS;
	while (READ_ONCE(me->se.ticks_run) < until)
		cpu_relax();
}

KTEST(probe_sched_provider, 1)
{
	struct probe_set sets[EV_KINDS];
	struct thread *th[SCHED_THREADS];
	bool ok = true;

	sched_seen = (struct sched_seen){ 0 };
	sched_go = false;
	for (unsigned k = 0; k < EV_KINDS; k++) {
		KT_ASSERT(t, find_probes(ev_spec[k], &sets[k]) > 0, "no probe %s", ev_spec[k]);
		struct probe_consumer proto = { .action = PROBE_HANDLER, .handler = sched_handler,
						.arg = (void *)(uintptr_t)k };
		ok &= enable_all(&sets[k], sched_cs[k], &proto) == sets[k].n;
	}
	/* The workers wait for sched_go, so their tids are known before they count. */
	for (int i = 0; i < SCHED_THREADS; i++) {
		th[i] = thread_create("sched-probe", sched_worker, (void *)(uintptr_t)i, -1);
		KT_ASSERT(t, th[i], "no memory for a thread");
		__atomic_store_n(&sched_seen.tid[i], th[i]->tid, __ATOMIC_RELAXED);
	}
	/* Counted from here: reset what the waiting loops added. */
	irqflags_t f = arch_irq_save();
	sched_seen = (struct sched_seen){ .tid = { th[0]->tid, th[1]->tid, th[2]->tid } };
	arch_irq_restore(f);
	WRITE_ONCE(sched_go, true);
	for (int i = 0; i < SCHED_THREADS; i++)
		thread_join(th[i]);
	for (unsigned k = 0; k < EV_KINDS; k++)
		disable_all(&sets[k], sched_cs[k]);
	KT_ASSERT(t, ok, "enabling the sched probes failed");
	KT_EXPECT(t, !sched_seen.wrong_args, "%llu firings with arguments not the running "
		  "thread and its CPU", (unsigned long long)sched_seen.wrong_args);
	/*
	 * Counting starts while each worker is queued or running and ends once
	 * it is dead: on-cpu/off-cpu and enqueue/dequeue may differ by the one
	 * left open at the reset, no more, and never after the thread ended.
	 */
	for (int i = 0; i < SCHED_THREADS; i++) {
		const uint64_t *c = sched_seen.count[i];
		KT_EXPECT(t, c[EV_SLEEP] == SCHED_SLEEPS && c[EV_WAKE] == SCHED_SLEEPS,
			  "thread %llu: %llu sleeps and %llu wakeups for %d sleeps",
			  (unsigned long long)sched_seen.tid[i], (unsigned long long)c[EV_SLEEP],
			  (unsigned long long)c[EV_WAKE], SCHED_SLEEPS);
		KT_EXPECT(t, c[EV_OFF] >= c[EV_ON] && c[EV_OFF] - c[EV_ON] <= 1 &&
			  c[EV_ON] >= SCHED_SLEEPS,
			  "thread %llu: on-cpu %llu, off-cpu %llu", (unsigned long long)sched_seen.tid[i],
			  (unsigned long long)c[EV_ON], (unsigned long long)c[EV_OFF]);
		KT_EXPECT(t, c[EV_DEQ] >= c[EV_ENQ] && c[EV_DEQ] - c[EV_ENQ] <= 1 &&
			  c[EV_ENQ] >= SCHED_SLEEPS,
			  "thread %llu: enqueue %llu, dequeue %llu", (unsigned long long)sched_seen.tid[i],
			  (unsigned long long)c[EV_ENQ], (unsigned long long)c[EV_DEQ]);
		KT_EXPECT(t, c[EV_TICK] >= SCHED_COMPUTE_TICKS && c[EV_PREEMPT] >= 1 &&
			  c[EV_PREEMPT] <= c[EV_OFF],
			  "thread %llu computed %d ticks: %llu tick, %llu preempt (%llu off-cpu)",
			  (unsigned long long)sched_seen.tid[i], SCHED_COMPUTE_TICKS,
			  (unsigned long long)c[EV_TICK], (unsigned long long)c[EV_PREEMPT],
			  (unsigned long long)c[EV_OFF]);
	}
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/* One switch probe at a time: the site must not be left out of any switch. */
#define EACH_SITE_YIELDS 50

enum { SW_ON, SW_OFF, SW_ENQ, SW_DEQ, SW_SWITCH, SW_KINDS };
static const char *const sw_spec[SW_KINDS] = {
	"sched:::on-cpu", "sched:::off-cpu", "sched:::enqueue", "sched:::dequeue",
	"sdt:::thread-switch",
};
static uint64_t sw_tid, sw_hits;
static struct probe_consumer sw_cs[MAX_PROBES];
static volatile bool sw_stop;

/* Counts the firings about sw_tid: the thread its argument 0 names, off-cpu's curthread. */
static void sw_handler(const struct probe_hit *hit, void *arg)
{
	unsigned kind = (unsigned)(uintptr_t)arg;
	uint64_t who = kind == SW_OFF ? this_cpu()->current->tid : trap_frame_arg(hit->regs, 0);
	if (who == __atomic_load_n(&sw_tid, __ATOMIC_RELAXED))
		atomic_add(&sw_hits, 1);
}

static void sw_partner(void *arg)
{
	(void)arg;
	while (!READ_ONCE(sw_stop))
		thread_yield();
}

KTEST(probe_sched_yield_each_site, 1)
{
	struct thread *me = thread_current();
	int cpu = (int)this_cpu_index();
	int was = thread_set_affinity(me, cpu);

	thread_yield();		/* now on cpu */
	sw_stop = false;
	struct thread *partner = thread_create("yield-partner", sw_partner, NULL, cpu);
	KT_ASSERT(t, partner, "no memory for a thread");
	__atomic_store_n(&sw_tid, me->tid, __ATOMIC_RELAXED);
	for (unsigned k = 0; k < SW_KINDS; k++) {
		struct probe_set set;
		KT_EXPECT(t, find_probes(sw_spec[k], &set) > 0, "no probe %s", sw_spec[k]);
		struct probe_consumer proto = { .action = PROBE_HANDLER, .handler = sw_handler,
						.arg = (void *)(uintptr_t)k };
		unsigned enabled = enable_all(&set, sw_cs, &proto);
		/* Counted from here, with the switch count, both while this thread runs. */
		irqflags_t f = arch_irq_save();
		sw_hits = 0;
		uint64_t in0 = me->se.switches_in;
		arch_irq_restore(f);
		for (int i = 0; i < EACH_SITE_YIELDS; i++)
			thread_yield();
		f = arch_irq_save();
		uint64_t hits = sw_hits, switches = me->se.switches_in - in0;
		arch_irq_restore(f);
		disable_all(&set, sw_cs);
		KT_EXPECT(t, enabled == set.n, "%s: %u of %u probes enabled", sw_spec[k], enabled,
			  set.n);
		KT_EXPECT(t, switches >= EACH_SITE_YIELDS && hits == switches,
			  "%s alone: %llu firings for this thread over %llu switches (%d yields)",
			  sw_spec[k], (unsigned long long)hits, (unsigned long long)switches,
			  EACH_SITE_YIELDS);
	}
	sw_stop = true;
	thread_join(partner);
	thread_set_affinity(me, was);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/* --- lockstat ---------------------------------------------------------------------- */

enum { LS_SPIN_ACQ, LS_SPIN_REL, LS_ADA_ACQ, LS_ADA_REL, LS_ADA_BLOCK, LS_SPIN_SPIN, LS_KINDS };
static const char *const ls_spec[LS_KINDS] = {
	"lockstat:::spin-acquire", "lockstat:::spin-release", "lockstat:::adaptive-acquire",
	"lockstat:::adaptive-release", "lockstat:::adaptive-block", "lockstat:::spin-spin",
};

struct lock_seen {
	uint64_t addr;			/* the lock counted */
	uint64_t count[LS_KINDS];
	uint64_t arg1_sum[LS_KINDS];
	uint64_t arg1_zero[LS_KINDS];
};
static struct lock_seen lock_seen;
static struct probe_consumer ls_cs[LS_KINDS][MAX_PROBES];
static struct probe_set ls_sets[LS_KINDS];

static void lock_handler(const struct probe_hit *hit, void *arg)
{
	unsigned kind = (unsigned)(uintptr_t)arg;
	if (trap_frame_arg(hit->regs, 0) != READ_ONCE(lock_seen.addr))
		return;
	uint64_t a1 = trap_frame_arg(hit->regs, 1);
	atomic_add(&lock_seen.count[kind], 1);
	atomic_add(&lock_seen.arg1_sum[kind], a1);
	if (!a1)
		atomic_add(&lock_seen.arg1_zero[kind], 1);
}

static bool lockstat_enable(unsigned first, unsigned last,
			    void (*handler)(const struct probe_hit *, void *))
{
	bool ok = true;
	for (unsigned k = first; k <= last; k++) {
		struct probe_consumer proto = { .action = PROBE_HANDLER, .handler = handler,
						.arg = (void *)(uintptr_t)k };
		ok &= find_probes(ls_spec[k], &ls_sets[k]) > 0 &&
		      enable_all(&ls_sets[k], ls_cs[k], &proto) == ls_sets[k].n;
	}
	return ok;
}

static void lockstat_disable(unsigned first, unsigned last)
{
	for (unsigned k = first; k <= last; k++)
		disable_all(&ls_sets[k], ls_cs[k]);
}

#define SPIN_TIMES 1000
#define MUTEX_TIMES 500
#define HOLD_TICKS 3

static struct spinlock test_spin = SPINLOCK_INIT("lockstat-test");
static struct mutex test_mutex = MUTEX_INIT(test_mutex, "lockstat-test");
static volatile bool holder_has_it;

static void mutex_holder(void *arg)
{
	(void)arg;
	mutex_lock(&test_mutex);
	WRITE_ONCE(holder_has_it, true);
	thread_sleep_ticks(HOLD_TICKS);
	mutex_unlock(&test_mutex);
}

KTEST(probe_lockstat_counts, 1)
{
	bool ok = lockstat_enable(LS_SPIN_ACQ, LS_ADA_BLOCK, lock_handler);

	lock_seen = (struct lock_seen){ .addr = (uintptr_t)&test_spin };
	for (int i = 0; i < SPIN_TIMES; i++) {
		irqflags_t f = spin_lock_irqsave(&test_spin);
		spin_unlock_irqrestore(&test_spin, f);
	}
	struct lock_seen spin = lock_seen;

	lock_seen = (struct lock_seen){ .addr = (uintptr_t)&test_mutex };
	for (int i = 0; i < MUTEX_TIMES; i++) {
		mutex_lock(&test_mutex);
		mutex_unlock(&test_mutex);
	}
	struct lock_seen mutex = lock_seen;

	/* Contended: a thread holds the mutex for HOLD_TICKS ticks of sleep while this one waits. */
	lock_seen = (struct lock_seen){ .addr = (uintptr_t)&test_mutex };
	holder_has_it = false;
	struct thread *h = thread_create("mutex-holder", mutex_holder, NULL, -1);
	KT_ASSERT(t, h, "no memory for a thread");
	while (!READ_ONCE(holder_has_it))
		thread_yield();
	uint64_t t0 = clock_ns();
	mutex_lock(&test_mutex);
	uint64_t waited = clock_ns() - t0;
	mutex_unlock(&test_mutex);
	thread_join(h);
	struct lock_seen blocked = lock_seen;
	lockstat_disable(LS_SPIN_ACQ, LS_ADA_BLOCK);

	KT_ASSERT(t, ok, "enabling the lockstat probes failed");
	KT_EXPECT(t, spin.count[LS_SPIN_ACQ] == SPIN_TIMES && spin.count[LS_SPIN_REL] == SPIN_TIMES,
		  "spinlock taken %d times: %llu spin-acquire, %llu spin-release", SPIN_TIMES,
		  (unsigned long long)spin.count[LS_SPIN_ACQ],
		  (unsigned long long)spin.count[LS_SPIN_REL]);
	KT_EXPECT(t, mutex.count[LS_ADA_ACQ] == MUTEX_TIMES &&
		  mutex.count[LS_ADA_REL] == MUTEX_TIMES && !mutex.count[LS_ADA_BLOCK],
		  "mutex taken %d times uncontended: %llu adaptive-acquire, %llu adaptive-release, "
		  "%llu adaptive-block", MUTEX_TIMES, (unsigned long long)mutex.count[LS_ADA_ACQ],
		  (unsigned long long)mutex.count[LS_ADA_REL],
		  (unsigned long long)mutex.count[LS_ADA_BLOCK]);
	KT_EXPECT(t, blocked.count[LS_ADA_BLOCK] == 1 && blocked.count[LS_ADA_ACQ] == 2 &&
		  blocked.count[LS_ADA_REL] == 2,
		  "contended mutex: %llu adaptive-block (want 1), %llu acquire, %llu release (want 2)",
		  (unsigned long long)blocked.count[LS_ADA_BLOCK],
		  (unsigned long long)blocked.count[LS_ADA_ACQ],
		  (unsigned long long)blocked.count[LS_ADA_REL]);
	/*
	 * The time blocked is the wait measured around mutex_lock less what
	 * comes before the sleep and after the wakeup: a thread woken may be
	 * switched out again before mutex_lock returns (a slice that ran out,
	 * a loaded host), so at most the wait and at least a quarter of it,
	 * never a constant. (Nanoseconds come from a clock calibrated at
	 * boot, which a loaded host without -icount can make short: no bound
	 * in ticks.)
	 */
	uint64_t got = blocked.arg1_sum[LS_ADA_BLOCK];
	KT_EXPECT(t, got > 0 && got <= waited && got * 4 >= waited,
		  "adaptive-block arg1 %llu ns: want at most the wait measured around mutex_lock "
		  "(%llu ns) and at least a quarter of it", (unsigned long long)got,
		  (unsigned long long)waited);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/* A handler that takes a lock of its own: every nested lockstat hit must be missed. */
static struct spinlock handler_spin = SPINLOCK_INIT("lockstat-handler");
static uint64_t handler_runs, handler_depth, handler_nested;

static void locking_handler(const struct probe_hit *hit, void *arg)
{
	(void)arg;
	if (trap_frame_arg(hit->regs, 0) != (uintptr_t)&test_spin)
		return;
	if (handler_depth++)
		handler_nested++;
	irqflags_t f = spin_lock_irqsave(&handler_spin);
	handler_runs++;
	spin_unlock_irqrestore(&handler_spin, f);
	handler_depth--;
}

static uint64_t missed_of(struct probe_set *s)
{
	uint64_t m = 0;
	for (unsigned i = 0; i < s->n; i++)
		for (uint32_t j = 0; j < s->p[i]->nsites; j++) {
			struct probe_site_info info;
			probe_site_info(s->p[i]->sites[j], &info);
			m += info.missed;
		}
	return m;
}

KTEST(probe_lockstat_no_recursion, 1)
{
	handler_runs = handler_depth = handler_nested = 0;
	bool ok = lockstat_enable(LS_SPIN_ACQ, LS_SPIN_REL, locking_handler);
	uint64_t missed0 = missed_of(&ls_sets[LS_SPIN_ACQ]) + missed_of(&ls_sets[LS_SPIN_REL]);
	for (int i = 0; i < SPIN_TIMES; i++) {
		irqflags_t f = spin_lock_irqsave(&test_spin);
		spin_unlock_irqrestore(&test_spin, f);
	}
	uint64_t missed = missed_of(&ls_sets[LS_SPIN_ACQ]) + missed_of(&ls_sets[LS_SPIN_REL]) -
			  missed0;
	lockstat_disable(LS_SPIN_ACQ, LS_SPIN_REL);
	KT_ASSERT(t, ok, "enabling the lockstat probes failed");
	/* Each lock and each unlock of test_spin runs the handler once: 2 * SPIN_TIMES. */
	KT_EXPECT(t, handler_runs == 2 * SPIN_TIMES && !handler_nested,
		  "handler ran %llu times (want %d), %llu of them nested",
		  (unsigned long long)handler_runs, 2 * SPIN_TIMES,
		  (unsigned long long)handler_nested);
	/* ... and takes handler_spin once: an acquire and a release hit, both missed. */
	KT_EXPECT(t, missed >= 2 * 2 * SPIN_TIMES,
		  "%llu hits missed inside the handler (want at least %d)",
		  (unsigned long long)missed, 4 * SPIN_TIMES);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

#define CONTEND_TIMES 300
#define CONTEND_HOLD_US 20

static void spin_hammer(void *arg)
{
	(void)arg;
	for (int i = 0; i < CONTEND_TIMES; i++) {
		irqflags_t f = spin_lock_irqsave(&test_spin);
		arch_udelay(CONTEND_HOLD_US);
		spin_unlock_irqrestore(&test_spin, f);
	}
}

KTEST(probe_lockstat_spin_contended, 2)
{
	lock_seen = (struct lock_seen){ .addr = (uintptr_t)&test_spin };
	bool ok = lockstat_enable(LS_SPIN_ACQ, LS_SPIN_REL, lock_handler) &&
		  lockstat_enable(LS_SPIN_SPIN, LS_SPIN_SPIN, lock_handler);
	struct thread *a = thread_create("spin-a", spin_hammer, NULL, 0);
	struct thread *b = thread_create("spin-b", spin_hammer, NULL, 1);
	if (a)
		thread_join(a);
	if (b)
		thread_join(b);
	lockstat_disable(LS_SPIN_ACQ, LS_SPIN_REL);
	lockstat_disable(LS_SPIN_SPIN, LS_SPIN_SPIN);
	KT_ASSERT(t, ok && a && b, "enabling the probes or creating the threads failed");
	const uint64_t *c = lock_seen.count;
	KT_EXPECT(t, c[LS_SPIN_ACQ] == 2 * CONTEND_TIMES && c[LS_SPIN_REL] == 2 * CONTEND_TIMES,
		  "%llu spin-acquire, %llu spin-release for %d", (unsigned long long)c[LS_SPIN_ACQ],
		  (unsigned long long)c[LS_SPIN_REL], 2 * CONTEND_TIMES);
	KT_EXPECT(t, c[LS_SPIN_SPIN] > 0 && c[LS_SPIN_SPIN] <= c[LS_SPIN_ACQ] &&
		  !lock_seen.arg1_zero[LS_SPIN_SPIN],
		  "spin-spin %llu times (%llu with arg1 0) for %llu acquisitions by two CPUs",
		  (unsigned long long)c[LS_SPIN_SPIN],
		  (unsigned long long)lock_seen.arg1_zero[LS_SPIN_SPIN],
		  (unsigned long long)c[LS_SPIN_ACQ]);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/* --- profile's bound ---------------------------------------------------------------- */

/* Whether `profile:::NAME` is created; *why gets the refusal. */
static bool profile_accepted(const char *name, const char **why)
{
	char spec[64];
	struct probe *p = NULL;
	snprintf(spec, sizeof(spec), "profile:::%s", name);
	*why = "";
	return probe_lookup(spec, take_probe, &p, why) >= 0 && p;
}

/*
 * The machine's bound (arch_timer_max_hz: 10 kHz on x86, 1 kHz on
 * sparc64): a profile and a tick probe at it are created, one a hertz
 * faster is refused with a line naming the bound. The rate itself is
 * measured under -icount (tests/integration/test_providers.py).
 */
KTEST(probe_profile_bound, 1)
{
	uint64_t most = arch_timer_max_hz();
	char name[32], bound[32];
	const char *why;

	snprintf(bound, sizeof(bound), "faster than %llu Hz", (unsigned long long)most);
	snprintf(name, sizeof(name), "profile-%llu", (unsigned long long)most);
	KT_EXPECT(t, profile_accepted(name, &why), "%s refused: %s", name, why);
	snprintf(name, sizeof(name), "tick-%lluus", 1000000ull / most);
	KT_EXPECT(t, profile_accepted(name, &why), "%s refused: %s", name, why);
	snprintf(name, sizeof(name), "profile-%llu", (unsigned long long)most + 1);
	KT_EXPECT(t, !profile_accepted(name, &why) && strstr(why, bound) && !strchr(why, '\n'),
		  "%s: want one line with '%s', got '%s'", name, bound, why);
	snprintf(name, sizeof(name), "tick-%lluns", 1000000000ull / most - 1);
	KT_EXPECT(t, !profile_accepted(name, &why) && strstr(why, bound),
		  "%s: want '%s', got '%s'", name, bound, why);
	KT_EXPECT(t, most % HZ == 0 && most >= HZ, "arch_timer_max_hz() %llu is not a multiple "
		  "of HZ", (unsigned long long)most);
}
