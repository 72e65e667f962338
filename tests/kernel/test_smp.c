// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of multiprocessing: every CPU came up, spinlocks
 * exclude across CPUs, and cross-calls run exactly once on each target,
 * including when CPUs cross-call each other at the same time.
 */
#include <scion/ktest.h>
#include <scion/cpu.h>
#include <scion/xcall.h>
#include <scion/thread.h>
#include <scion/spinlock.h>
#include <scion/atomic.h>
#include <scion/errno.h>
#include <scion/clock.h>
#include <arch/smp.h>

KTEST(smp_all_cpus_online, 1)
{
	KT_EXPECT(t, cpu_count() == arch_cpus_present(), "%u CPUs online of %u present",
		  cpu_count(), arch_cpus_present());
	for (unsigned i = 0; i < cpu_count(); i++) {
		struct cpu *c = cpu_by_index(i);
		KT_EXPECT(t, c->online && c->index == i && c->self == c && c->idle,
			  "cpu %u descriptor incomplete", i);
		for (unsigned k = 0; k < i; k++)
			KT_EXPECT(t, arch_cpu_hw_id(&cpu_by_index(k)->arch) != arch_cpu_hw_id(&c->arch),
				  "cpus %u and %u share hardware id %u", k, i, arch_cpu_hw_id(&c->arch));
	}
}

#define LOCK_ROUNDS 10000
static struct spinlock counter_lock = SPINLOCK_INIT("test-counter");
static uint64_t locked_counter;

static void lock_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < LOCK_ROUNDS; i++) {
		irqflags_t f = spin_lock_irqsave(&counter_lock);
		uint64_t v = locked_counter;
		cpu_relax();
		locked_counter = v + 1;
		spin_unlock_irqrestore(&counter_lock, f);
	}
}

KTEST(smp_spinlock_excludes, 1)
{
	struct thread *th[MAX_CPUS];
	unsigned n = cpu_count();

	locked_counter = 0;
	for (unsigned i = 0; i < n; i++) {
		th[i] = thread_create("lock-worker", lock_worker, NULL, (int)i);
		KT_ASSERT(t, th[i], "cannot create thread");
	}
	for (unsigned i = 0; i < n; i++)
		thread_join(th[i]);
	KT_EXPECT(t, locked_counter == (uint64_t)n * LOCK_ROUNDS, "counter %llu, expected %llu",
		  (unsigned long long)locked_counter, (unsigned long long)n * LOCK_ROUNDS);
	KT_EXPECT(t, counter_lock.holder_cpu == -1, "lock still marked held");
}

#define XCALL_ROUNDS 10000
static uint64_t xcall_hits[MAX_CPUS];

static void count_hit(void *arg)
{
	(void)arg;
	xcall_hits[this_cpu_index()]++;
}

KTEST(xcall_all_exactly_once, 1)
{
	unsigned n = cpu_count();

	for (unsigned i = 0; i < MAX_CPUS; i++)
		xcall_hits[i] = 0;
	for (uint64_t round = 1; round <= XCALL_ROUNDS; round++) {
		xcall_all(count_hit, NULL);
		for (unsigned i = 0; i < n; i++)
			KT_ASSERT(t, READ_ONCE(xcall_hits[i]) == round,
				  "after call %llu, cpu %u ran the function %llu times",
				  (unsigned long long)round, i,
				  (unsigned long long)READ_ONCE(xcall_hits[i]));
	}
	for (unsigned i = n; i < MAX_CPUS; i++)
		KT_EXPECT(t, xcall_hits[i] == 0, "offline cpu %u ran cross-calls", i);
}

static void record_cpu(void *arg)
{
	*(int *)arg = (int)this_cpu_index();
}

KTEST(xcall_one_targets, 1)
{
	for (unsigned i = 0; i < cpu_count(); i++) {
		int ran_on = -1;
		KT_ASSERT(t, xcall_one(i, record_cpu, &ran_on) == 0, "xcall_one(%u) failed", i);
		KT_EXPECT(t, ran_on == (int)i, "call for cpu %u ran on cpu %d", i, ran_on);
	}
	int dummy;
	KT_EXPECT(t, xcall_one(cpu_count(), record_cpu, &dummy) == -EINVAL,
		  "a call to an offline CPU was accepted");
}

#define CROSS_ROUNDS 2000

struct cross_worker {
	unsigned target;
	unsigned done;
};

static unsigned cross_hits[MAX_CPUS];

static void cross_hit(void *arg)
{
	(void)arg;
	atomic_add(&cross_hits[this_cpu_index()], 1);
}

static void cross_caller(void *arg)
{
	struct cross_worker *w = arg;
	for (int i = 0; i < CROSS_ROUNDS; i++) {
		xcall_one(w->target, cross_hit, NULL);
		if (i % 16 == 0)
			xcall_all(cross_hit, NULL);
		w->done++;
	}
}

KTEST(xcall_cpus_calling_each_other, 2)
{
	unsigned n = cpu_count();
	struct cross_worker w[MAX_CPUS];
	struct thread *th[MAX_CPUS] = { 0 };

	for (unsigned i = 0; i < MAX_CPUS; i++)
		cross_hits[i] = 0;
	for (unsigned i = 0; i < n; i++) {
		w[i] = (struct cross_worker){ .target = (i + 1) % n };
		th[i] = thread_create("cross-caller", cross_caller, &w[i], (int)i);
		KT_ASSERT(t, th[i], "cannot create thread");
	}
	for (unsigned i = 0; i < n; i++) {
		int err = thread_join_timeout(th[i], 60 * HZ, NULL);
		KT_ASSERT(t, err == 0, "cross-caller on cpu %u stuck after %u calls (deadlock?)", i,
			  w[i].done);
	}
	unsigned all_calls = n * ((CROSS_ROUNDS + 15) / 16);
	for (unsigned i = 0; i < n; i++)
		KT_EXPECT(t, cross_hits[i] == CROSS_ROUNDS + all_calls, "cpu %u ran %u calls, expected %u",
			  i, cross_hits[i], CROSS_ROUNDS + all_calls);
}
