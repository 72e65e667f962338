// SPDX-License-Identifier: BSD-2-Clause
/*
 * The operations issue 27's providers sit in, measured for `make bench`
 * (tools/bench_trace.py runs each with nothing enabled and again under a
 * D program on the provider's probe; the difference is one firing):
 *   trace_spin_pair    a lock/unlock pair of a private spinlock (two
 *                      lockstat sites: spin-acquire, spin-release)
 *   trace_mutex_pair   a lock/unlock pair of a private mutex (adaptive-*)
 *   trace_switch       one context switch: two threads on CPU 0 yield to
 *                      each other (sched:::on-cpu, off-cpu, enqueue,
 *                      dequeue fire once each per switch)
 *   trace_busy         a fixed loop on CPU 0 and the interrupts CPU 0
 *                      took meanwhile: under profile-10000 the extra cycles per
 *                      extra interrupt are one fast timer interrupt with
 *                      its profile firing
 * Per operation, the least of ROUNDS rounds (a timer tick inflates one).
 * Under `make bench` (-icount shift=0) cycles are guest instructions.
 */
#include <scion/bench.h>
#include <scion/spinlock.h>
#include <scion/mutex.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/cpu.h>
#include <arch/cpu.h>

#define PAIRS 1000
#define SWITCHES 1000
#define ROUNDS 5
#define BUSY_ITERATIONS 5000000

static struct spinlock bench_spin = SPINLOCK_INIT("bench-spin");
static struct mutex bench_mutex = MUTEX_INIT(bench_mutex, "bench-mutex");
static volatile uint64_t sink;

BENCH(trace_spin_pair, 1)
{
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t c0 = arch_cycles();
		for (int i = 0; i < PAIRS; i++) {
			irqflags_t f = spin_lock_irqsave(&bench_spin);
			spin_unlock_irqrestore(&bench_spin, f);
		}
		uint64_t c = (arch_cycles() - c0) / PAIRS;
		if (c < best)
			best = c;
	}
	bench_report("trace.spin.pair", best, "cycles");
}

BENCH(trace_mutex_pair, 1)
{
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t c0 = arch_cycles();
		for (int i = 0; i < PAIRS; i++) {
			mutex_lock(&bench_mutex);
			mutex_unlock(&bench_mutex);
		}
		uint64_t c = (arch_cycles() - c0) / PAIRS;
		if (c < best)
			best = c;
	}
	bench_report("trace.mutex.pair", best, "cycles");
}

static void yielder(void *arg)
{
	for (uintptr_t i = 0; i < (uintptr_t)arg; i++)
		thread_yield();
}

BENCH(trace_switch, 1)
{
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t c0 = arch_cycles();
		struct thread *a = thread_create("bench-yield", yielder, (void *)SWITCHES, 0);
		struct thread *b = thread_create("bench-yield", yielder, (void *)SWITCHES, 0);
		if (!a || !b)
			return;
		thread_join(a);
		thread_join(b);
		/* 2 * SWITCHES yields, each a switch to the other thread, plus start and end. */
		uint64_t c = (arch_cycles() - c0) / (2 * SWITCHES);
		if (c < best)
			best = c;
	}
	bench_report("trace.sched.switch", best, "cycles");
}

struct busy_run {
	uint64_t cycles, interrupts;
};

/* The loop on CPU 0 (its thread is pinned there, so its interrupt count is the one to read). */
static void busy_loop(void *arg)
{
	struct busy_run *run = arg;
	struct cpu *c = cpu_by_index(0);
	uint64_t i0 = READ_ONCE(c->interrupts), c0 = arch_cycles(), acc = 0;
	for (uint64_t i = 0; i < BUSY_ITERATIONS; i++)
		acc += i ^ (acc >> 3);
	run->cycles = arch_cycles() - c0;
	run->interrupts = READ_ONCE(c->interrupts) - i0;
	sink = acc;
}

BENCH(trace_busy, 1)
{
	struct busy_run best = { UINT64_MAX, 0 };
	for (int r = 0; r < 3; r++) {
		struct busy_run run;
		struct thread *th = thread_create("bench-busy", busy_loop, &run, 0);
		if (!th)
			return;
		thread_join(th);
		if (run.cycles < best.cycles)
			best = run;
	}
	bench_report("trace.busy.loop", best.cycles, "cycles");
	bench_report("trace.busy.interrupts", best.interrupts, "interrupts");
}
