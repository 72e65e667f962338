// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the scheduler publishes to the monitor (scion/monitor.h): each
 * CPU's time split into busy, idle and interrupt time, the run queue and
 * the threads by state, and each thread's CPU time, block cache reads,
 * disk waits (and, with the same decomposition, each process's).
 *
 * A CPU's time since boot is busy + idle + irq: idle is the time its
 * idle thread ran (the boot CPU's boot work and a CPU's time before it
 * came online count as idle), less the interrupts that idle time took;
 * irq is the time in interrupt handlers (cpu_irq_time_enter/exit); busy
 * is the rest. Readers take sched_lock, so a thread's on-CPU time and
 * whether it is running are read together. An interrupt still running
 * on another CPU is counted where it will be only when it ends, so idle
 * and busy could step back by that much (microseconds): each is reported
 * as the most it has been, which keeps them counters.
 */
#include <scion/monitor.h>
#include <scion/sched.h>
#include <scion/thread.h>
#include <scion/clock.h>
#include <scion/cpu.h>
#include <arch/cpu.h>

static uint64_t reported_idle[MAX_CPUS], reported_busy[MAX_CPUS];	/* atomic */

/* The larger of value and what *reported already says; the result is reported. */
static uint64_t never_less(uint64_t *reported, uint64_t value)
{
	uint64_t seen = __atomic_load_n(reported, __ATOMIC_RELAXED);
	while (value > seen &&
	       !__atomic_compare_exchange_n(reported, &seen, value, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
	return value > seen ? value : seen;
}

static uint64_t cpu_irq_ns(unsigned i)
{
	return clock_cycles_to_ns(__atomic_load_n(&cpu_by_index(i)->irq_cycles, __ATOMIC_RELAXED));
}

/* CPU i's idle time up to now (a cycle count). */
static uint64_t idle_until(unsigned i, uint64_t now)
{
	struct cpu *c = cpu_by_index(i);
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	uint64_t idle = c->idle ? thread_on_cpu_ns(c->idle, now) : 0;
	spin_unlock_irqrestore(&sched_lock, f);
	uint64_t interrupted = clock_cycles_to_ns(__atomic_load_n(&c->irq_idle_cycles,
								   __ATOMIC_RELAXED));
	return idle > interrupted ? idle - interrupted : 0;
}

static uint64_t cpu_idle_ns(unsigned i)
{
	return never_less(&reported_idle[i], idle_until(i, arch_cycles()));
}

static uint64_t cpu_busy_ns(unsigned i)
{
	uint64_t cycles = arch_cycles();
	uint64_t now = clock_ns_at(cycles), idle = idle_until(i, cycles), irq = cpu_irq_ns(i);
	return never_less(&reported_busy[i], now > idle + irq ? now - idle - irq : 0);
}

MONITOR_PER_CPU(cpu_busy, "cpu.busy", "ns", MONITOR_COUNTER, cpu_busy_ns);
MONITOR_PER_CPU(cpu_idle, "cpu.idle", "ns", MONITOR_COUNTER, cpu_idle_ns);
MONITOR_PER_CPU(cpu_irq, "cpu.irq", "ns", MONITOR_COUNTER, cpu_irq_ns);

static uint64_t runq_length(void)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	uint64_t n = sched_rq.length;
	spin_unlock_irqrestore(&sched_lock, f);
	return n;
}
MONITOR_GLOBAL(sched_runq, "sched.runq", "threads", MONITOR_GAUGE, runq_length);

struct by_state {
	uint64_t n[THREAD_DEAD + 1];
};

static void count_state(struct thread *t, void *arg)
{
	struct by_state *b = arg;
	if (!t->is_idle && t->state <= THREAD_DEAD)
		b->n[t->state]++;
}

static uint64_t threads_in(enum thread_state a, enum thread_state b)
{
	struct by_state s = { { 0 } };
	sched_foreach_thread(count_state, &s);
	return s.n[a] + (a == b ? 0 : s.n[b]);
}

/* Runnable: queued or running (idle threads not counted). */
static uint64_t threads_runnable(void)
{
	return threads_in(THREAD_RUNNABLE, THREAD_RUNNING);
}

static uint64_t threads_blocked(void)
{
	return threads_in(THREAD_SLEEPING, THREAD_SLEEPING);
}
MONITOR_GLOBAL(sched_runnable, "sched.runnable", "threads", MONITOR_GAUGE, threads_runnable);
MONITOR_GLOBAL(sched_blocked, "sched.blocked", "threads", MONITOR_GAUGE, threads_blocked);

/* Per thread (and, summed, per process); sched_lock held around these. */
static uint64_t thread_cpu_ns(const struct thread *t)
{
	return thread_on_cpu_ns(t, arch_cycles());
}

static uint64_t thread_bcache_reads(const struct thread *t)
{
	return __atomic_load_n(&t->bcache_reads, __ATOMIC_RELAXED);
}

static uint64_t thread_disk_wait_ns(const struct thread *t)
{
	return __atomic_load_n(&t->disk_wait_ns, __ATOMIC_RELAXED);
}
MONITOR_PER_THREAD(thread_cpu, "cpu", "ns", MONITOR_COUNTER, thread_cpu_ns);
MONITOR_PER_THREAD(thread_bcache_reads, "bcache_reads", "reads", MONITOR_COUNTER,
		   thread_bcache_reads);
MONITOR_PER_THREAD(thread_disk_wait, "disk_wait", "ns", MONITOR_COUNTER,
		   thread_disk_wait_ns);
