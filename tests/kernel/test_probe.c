// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the probe mechanisms, on both machines: exact counts
 * through every kind of consumer at pf_sum (probe_fixture.S on x86,
 * arch/sparc64/ktest_fixtures.S), static (sdt) sites, and the KernInst
 * metrics. What depends on the machine's instructions (the protocol's
 * intermediate states, relocations, refusals) is in test_probe_x86.c
 * and test_probe_sparc64.c. Every test leaves the text as it was
 * booted, and checks it. (Run under single-threaded TCG: they patch
 * code; see PLATFORMS.md.)
 */
#include <scion/ktest.h>
#include <scion/probe.h>
#include <scion/sdt.h>
#include <scion/metrics.h>
#include <scion/thread.h>
#include <scion/cpu.h>
#include <scion/symtab.h>
#include <scion/errno.h>
#include <scion/sched.h>
#include <arch/cpu.h>
#include <arch/probe.h>
#include <arch/stack.h>
#include "probe_test.h"

#define CALLS_PER_THREAD 2000

struct caller {
	unsigned calls;
	uint64_t wrong;		/* results that differ from pf_sum_expected */
};

static void call_pf_sum(void *arg)
{
	struct caller *c = arg;
	for (unsigned i = 0; i < c->calls; i++)
		if (pf_sum(i, 7) != pf_sum_expected(i, 7))
			c->wrong++;
}

/* Call pf_sum CALLS_PER_THREAD times on each of n threads; returns the calls made. */
static uint64_t call_from_threads(struct ktest_ctx *t, unsigned n, uint64_t *wrong)
{
	struct caller callers[MAX_CPUS + 1];
	struct thread *threads[MAX_CPUS + 1] = { 0 };
	uint64_t total = 0;

	*wrong = 0;
	for (unsigned i = 0; i < n; i++) {
		callers[i] = (struct caller){ .calls = CALLS_PER_THREAD };
		threads[i] = thread_create("pf-caller", call_pf_sum, &callers[i], (int)(i % cpu_count()));
		KT_EXPECT(t, threads[i], "no memory for a thread");
	}
	for (unsigned i = 0; i < n; i++) {
		if (!threads[i])
			continue;
		thread_join(threads[i]);
		total += callers[i].calls;
		*wrong += callers[i].wrong;
	}
	return total;
}

KTEST(probe_exact_counts, 1)
{
	struct probe *entry = probe_named("fbt:kernel:pf_sum:entry");
	struct probe *ret = probe_named("fbt:kernel:pf_sum:return");
	struct probe *mid = probe_at(pf_sum_mid), *late = probe_at(pf_sum_late);
	uint64_t *entry_count = probe_counter_alloc(), *mid_count = probe_counter_alloc();
	uint64_t jump_hits = 0, int3_hits = 0;
	struct probe_accumulator acc;
	struct probe_site_info info;

	KT_ASSERT(t, entry && ret && mid && late, "fixture probes missing");
	KT_ASSERT(t, entry_count && mid_count, "no counter memory");
	KT_ASSERT(t, probe_accumulator_init(&acc) == 0, "no accumulator");
	struct probe_consumer c_entry = count_consumer(entry_count, PROBE_MECH_AUTO);
	struct probe_consumer c_enter = { .action = PROBE_ENTER, .acc = &acc };
	struct probe_consumer c_exit = { .action = PROBE_EXIT, .acc = &acc };
	struct probe_consumer c_jump = handler_consumer(&jump_hits, PROBE_MECH_JUMP);
	struct probe_consumer c_mid = count_consumer(mid_count, PROBE_MECH_JUMP);
	struct probe_consumer c_int3 = handler_consumer(&int3_hits, PROBE_MECH_BREAKPOINT);
	/* The entry holds only the counter, so its patch runs no C at all. */
	struct probe *probes[] = { entry, late, late, ret, mid, mid };
	struct probe_consumer *cs[] = { &c_entry, &c_int3, &c_enter, &c_exit, &c_jump, &c_mid };

	KT_ASSERT(t, probe_enable_batch(probes, cs, 6) == 6, "enabling the fixture's probes failed");
	probe_site_info((uintptr_t)pf_sum, &info);
	uint64_t entry_c_runs = info.hits;
	KT_EXPECT(t, info.mechanism == PROBE_MECH_JUMP && info.consumers == 1,
		  "entry: mechanism %d, %u consumers", info.mechanism, info.consumers);
	probe_site_info((uintptr_t)pf_sum_mid, &info);
	KT_EXPECT(t, info.mechanism == PROBE_MECH_JUMP, "pf_sum_mid is not a jump probe");
	probe_site_info((uintptr_t)pf_sum_late, &info);
	KT_EXPECT(t, info.mechanism == PROBE_MECH_BREAKPOINT, "pf_sum_late is not a " ARCH_PROBE_BREAKPOINT_NAME " probe");

	uint64_t wrong, k = call_from_threads(t, cpu_count() + 1, &wrong);
	KT_EXPECT(t, wrong == 0, "%llu wrong results while probed", (unsigned long long)wrong);
	KT_EXPECT(t, *entry_count == k, "entry counter %llu, calls %llu",
		  (unsigned long long)*entry_count, (unsigned long long)k);
	KT_EXPECT(t, jump_hits == k, "jump probe handler %llu, calls %llu",
		  (unsigned long long)jump_hits, (unsigned long long)k);
	KT_EXPECT(t, *mid_count == k, "inline counter beside the handler %llu, calls %llu",
		  (unsigned long long)*mid_count, (unsigned long long)k);
	KT_EXPECT(t, int3_hits == k, "int3 probe handler %llu, calls %llu",
		  (unsigned long long)int3_hits, (unsigned long long)k);
	probe_site_info((uintptr_t)pf_sum, &info);
	KT_EXPECT(t, info.hits == entry_c_runs,
		  "the entry's consumers ran in C (%llu times): they should be inline code",
		  (unsigned long long)(info.hits - entry_c_runs));
	int64_t inside;
	uint64_t area, elapsed;
	probe_accumulator_read(&acc, &inside, &area, &elapsed);
	KT_EXPECT(t, inside == 0 && area > 0 && area <= elapsed * (cpu_count() + 1),
		  "accumulator: %lld inside, area %llu over %llu cycles", (long long)inside,
		  (unsigned long long)area, (unsigned long long)elapsed);

	probe_disable_batch(cs, 6);
	uint64_t before = *entry_count;
	KT_EXPECT(t, pf_sum(1, 2) == pf_sum_expected(1, 2), "wrong result after disabling");
	KT_EXPECT(t, *entry_count == before && jump_hits == k, "a disabled probe fired");
	KT_EXPECT(t, text_identical(), "text differs from the booted image after disabling");
	probe_accumulator_release(&acc);
	probe_counter_free(entry_count);
	probe_counter_free(mid_count);
}

/* What a jump site's one handler saw (probe_one_handler_hit). */
struct one_handler_seen {
	unsigned hits;
	struct probe *probe;
	uint64_t addr, pc, arg0, arg1;
	bool masked;			/* interrupts were masked in the handler */
	bool nest;			/* call the probed function from the handler, once */
	uint64_t nested_result;
	uint64_t pcs[3];		/* the stack walked from the frame: the caller
					   (from the stack pointer), then two more (from
					   the frame pointer) */
};

static void one_handler(const struct probe_hit *hit, void *arg)
{
	struct one_handler_seen *s = arg;
	s->hits++;
	s->probe = hit->probe;
	s->addr = hit->addr;
	s->pc = trap_frame_pc(hit->regs);
	s->arg0 = trap_frame_arg(hit->regs, 0);
	s->arg1 = trap_frame_arg(hit->regs, 1);
	s->masked = !arch_irqs_enabled();
	arch_stack_walk(hit->regs, true, s->pcs, 3);
	if (s->nest) {
		s->nest = false;
		s->nested_result = pf_sum(2, 3);
	}
}

/*
 * A jump site whose one C consumer is a handler for every thread: the
 * patch runs it itself (x86), or through the C dispatcher. The handler
 * gets its probe, the site and the registers there, with interrupts
 * masked; the interrupt flag comes back as it was at the site, set or
 * clear; a hit inside the handler is counted missed and runs no handler.
 * Its frame, lean or whole, holds what a stack walk reads: the pc, the
 * stack and frame pointers.
 */
KTEST(probe_one_handler_hit, 1)
{
	struct probe *entry = probe_named("fbt:kernel:pf_sum:entry");
	struct one_handler_seen s = { 0 };
	struct probe_consumer c = { .action = PROBE_HANDLER, .handler = one_handler, .arg = &s,
				    .mechanism = PROBE_MECH_JUMP };
	struct probe_site_info before, after;

	KT_ASSERT(t, entry && probe_enable(entry, &c) == 0, "enabling pf_sum's entry failed");
	probe_site_info((uintptr_t)pf_sum, &before);
	KT_EXPECT(t, before.mechanism == PROBE_MECH_JUMP && before.consumers == 1,
		  "mechanism %d, %u consumers", before.mechanism, before.consumers);

	uint64_t r = pf_sum(4, 9);
here:;
	bool enabled_after = arch_irqs_enabled();
	KT_EXPECT(t, r == pf_sum_expected(4, 9) && s.hits == 1, "result %llu, %u hits",
		  (unsigned long long)r, s.hits);
	KT_EXPECT(t, s.probe == entry && s.addr == (uintptr_t)pf_sum && s.pc == s.addr,
		  "the hit: probe %p (not %p), addr 0x%llx, pc 0x%llx", (void *)s.probe,
		  (void *)entry, (unsigned long long)s.addr, (unsigned long long)s.pc);
	KT_EXPECT(t, s.arg0 == 4 && s.arg1 == 9, "arguments %llu %llu, not 4 9",
		  (unsigned long long)s.arg0, (unsigned long long)s.arg1);
	const struct ksym *me = symtab_lookup_addr(&kernel_symtab, (uintptr_t)&&here, NULL);
	const struct ksym *runner = symtab_lookup_addr(&kernel_symtab, s.pcs[1], NULL);
	KT_EXPECT(t, me && symtab_lookup_addr(&kernel_symtab, s.pcs[0], NULL) == me && runner &&
		  runner != me && symtab_lookup_addr(&kernel_symtab, s.pcs[2], NULL),
		  "the stack from the frame: 0x%llx, 0x%llx, 0x%llx, not this test and two callers",
		  (unsigned long long)s.pcs[0], (unsigned long long)s.pcs[1],
		  (unsigned long long)s.pcs[2]);
	KT_EXPECT(t, s.masked && enabled_after,
		  "interrupts in the handler %s, after the call %s", s.masked ? "masked" : "on",
		  enabled_after ? "on" : "masked");

	irqflags_t f = arch_irq_save();
	r = pf_sum(1, 1);
	bool masked_after = !arch_irqs_enabled();
	arch_irq_restore(f);
	KT_EXPECT(t, r == pf_sum_expected(1, 1) && s.hits == 2 && masked_after,
		  "called masked: result %llu, %u hits, interrupts %s after", (unsigned long long)r,
		  s.hits, masked_after ? "masked" : "on");

	s.nest = true;
	r = pf_sum(5, 6);
	probe_site_info((uintptr_t)pf_sum, &after);
	KT_EXPECT(t, r == pf_sum_expected(5, 6) && s.nested_result == pf_sum_expected(2, 3),
		  "results %llu and, nested, %llu", (unsigned long long)r,
		  (unsigned long long)s.nested_result);
	KT_EXPECT(t, s.hits == 3 && after.hits == before.hits + 3 &&
		  after.missed == before.missed + 1,
		  "%u handler runs; the site counted %llu hits and %llu missed, not 3 and 1", s.hits,
		  (unsigned long long)(after.hits - before.hits),
		  (unsigned long long)(after.missed - before.missed));
	probe_disable(&c);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/* A static site: what sdt probes see of its arguments. */
SDT_TYPES_DEFINE(sdt, test__fixture, uint64_t a, uint64_t b)

static __noinline uint64_t sdt_fixture(uint64_t a, uint64_t b)
{
	SDT_PROBE2(test__fixture, a, b);
	return a ^ b;
}

struct sdt_seen {
	uint64_t hits, sum0, sum1;
};

static void sdt_handler(const struct probe_hit *hit, void *arg)
{
	struct sdt_seen *s = arg;
	s->hits++;
	s->sum0 += trap_frame_arg(hit->regs, 0);
	s->sum1 += trap_frame_arg(hit->regs, 1);
}

KTEST(probe_sdt_site, 1)
{
	struct probe *p = probe_named("sdt:kernel:sdt_fixture:test-fixture");
	struct sdt_seen seen = { 0 };
	uint64_t sum0 = 0, sum1 = 0;

	KT_ASSERT(t, p && p->nsites >= 1, "no sdt probe for the fixture");
	KT_EXPECT(t, sdt_fixture(3, 5) == 6, "fixture computes wrong while disabled");
	struct probe_consumer c = { .action = PROBE_HANDLER, .handler = sdt_handler, .arg = &seen };
	KT_ASSERT(t, probe_enable(p, &c) == 0, "enabling the sdt probe failed");
	struct probe_site_info info;
	probe_site_info(p->sites[0], &info);
	KT_EXPECT(t, info.mechanism == PROBE_MECH_JUMP, "an sdt site is not a jump probe");
	for (uint64_t i = 0; i < 100; i++) {
		KT_EXPECT(t, sdt_fixture(i, 2 * i + 1) == (i ^ (2 * i + 1)), "wrong result");
		sum0 += i;
		sum1 += 2 * i + 1;
	}
	probe_disable(&c);
	KT_EXPECT(t, sdt_fixture(1, 1) == 0 && seen.hits == 100, "%llu hits for 100 calls",
		  (unsigned long long)seen.hits);
	KT_EXPECT(t, seen.sum0 == sum0 && seen.sum1 == sum1, "arguments seen wrong");
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/*
 * A gated site (scion/sdt.h): its first argument counts its evaluations,
 * so the test sees that the disabled path evaluates nothing and the
 * enabled path loses no argument.
 */
SDT_TYPES_DEFINE(sdt, test__gated, uint64_t a, uint64_t b)

static uint64_t gated_evaluations;

static __noinline uint64_t gated_arg(uint64_t v)
{
	gated_evaluations++;
	return 3 * v;
}

static __noinline uint64_t sdt_gated_fixture(uint64_t a, uint64_t b)
{
	SDT_GATED2(test__gated, gated_arg(a), b);
	return a + b;
}

KTEST(probe_sdt_gated_site, 1)
{
	struct probe *p = probe_named("sdt:kernel:sdt_gated_fixture:test-gated");
	struct sdt_seen seen = { 0 };
	uint64_t sum0 = 0, sum1 = 0, evaluated = gated_evaluations;

	KT_ASSERT(t, p && p->nsites == 1 && p->ngates == 1, "no gated sdt probe for the fixture");
	for (uint64_t i = 0; i < 10; i++)
		KT_EXPECT(t, sdt_gated_fixture(i, 1) == i + 1, "wrong result while disabled");
	KT_EXPECT(t, gated_evaluations == evaluated && *p->gates[0] == 0,
		  "disabled, the site evaluated its arguments %llu times",
		  (unsigned long long)(gated_evaluations - evaluated));
	struct probe_consumer c = { .action = PROBE_HANDLER, .handler = sdt_handler, .arg = &seen };
	KT_ASSERT(t, probe_enable(p, &c) == 0, "enabling the gated sdt probe failed");
	KT_EXPECT(t, *p->gates[0] == 1, "enabled, the gate is shut");
	for (uint64_t i = 0; i < 100; i++) {
		KT_EXPECT(t, sdt_gated_fixture(i, 7 * i) == 8 * i, "wrong result");
		sum0 += 3 * i;
		sum1 += 7 * i;
	}
	probe_disable(&c);
	KT_EXPECT(t, seen.hits == 100 && gated_evaluations - evaluated == 100,
		  "%llu hits, %llu evaluations for 100 calls", (unsigned long long)seen.hits,
		  (unsigned long long)(gated_evaluations - evaluated));
	KT_EXPECT(t, seen.sum0 == sum0 && seen.sum1 == sum1, "arguments seen wrong");
	KT_EXPECT(t, sdt_gated_fixture(1, 1) == 2 && gated_evaluations - evaluated == 100 &&
		  *p->gates[0] == 0, "disabled again, the gate stayed open");
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/*
 * A gated site in an inline function: a site, and a probe, in each of the
 * two functions it is inlined into, behind one gate. Disabling one probe
 * must leave the other firing.
 */
SDT_TYPES_DEFINE(sdt, test__gated__shared, uint64_t a, uint64_t b)

static __always_inline uint64_t gated_shared(uint64_t a)
{
	SDT_GATED2(test__gated__shared, gated_arg(a), a);
	return a + 1;
}

static __noinline uint64_t gated_shared_one(uint64_t a)
{
	return gated_shared(a);
}

static __noinline uint64_t gated_shared_two(uint64_t a)
{
	return gated_shared(a) + 1;
}

KTEST(probe_sdt_gated_shared, 1)
{
	struct probe *one = probe_named("sdt:kernel:gated_shared_one:test-gated-shared");
	struct probe *two = probe_named("sdt:kernel:gated_shared_two:test-gated-shared");
	struct sdt_seen s1 = { 0 }, s2 = { 0 };

	KT_ASSERT(t, one && two && one->ngates == 1 && two->ngates == 1,
		  "no gated probes for the inline fixture's two copies");
	KT_ASSERT(t, one->gates[0] == two->gates[0], "the copies have gates of their own");
	uint64_t evaluated = gated_evaluations;
	struct probe_consumer c1 = { .action = PROBE_HANDLER, .handler = sdt_handler, .arg = &s1 };
	struct probe_consumer c2 = { .action = PROBE_HANDLER, .handler = sdt_handler, .arg = &s2 };
	KT_ASSERT(t, probe_enable(one, &c1) == 0, "enabling the first copy's probe failed");
	if (probe_enable(two, &c2)) {
		probe_disable(&c1);
		KT_ASSERT(t, false, "enabling the second copy's probe failed");
	}
	KT_EXPECT(t, *one->gates[0] == 2, "the gate counts %u enabled probes, not 2",
		  (unsigned)*one->gates[0]);
	KT_EXPECT(t, gated_shared_one(1) == 2 && gated_shared_two(2) == 4, "wrong results");
	probe_disable(&c1);
	KT_EXPECT(t, gated_shared_two(5) == 7 && gated_shared_one(6) == 7, "wrong results");
	KT_EXPECT(t, s1.hits == 1 && s2.hits == 2,
		  "hits %llu and %llu, not 1 and 2: disabling one copy's probe shut the other's",
		  (unsigned long long)s1.hits, (unsigned long long)s2.hits);
	KT_EXPECT(t, s1.sum0 == 3 && s2.sum0 == 3 * 2 + 3 * 5 && s2.sum1 == 7,
		  "arguments seen wrong");
	probe_disable(&c2);
	KT_EXPECT(t, *one->gates[0] == 0, "disabled, the gate stayed open");
	gated_shared_one(7);
	gated_shared_two(8);
	KT_EXPECT(t, gated_evaluations - evaluated == 4,
		  "%llu evaluations of the arguments for 4 gated calls while enabled",
		  (unsigned long long)(gated_evaluations - evaluated));
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

struct metric_seen {
	unsigned id;
	struct metric_value v;
};

static void find_metric(const struct metric_value *v, void *arg)
{
	struct metric_seen *s = arg;
	if (v->id == s->id)
		s->v = *v;
}

static struct metric_value metric_read(int id)
{
	struct metric_seen s = { .id = (unsigned)id };
	metric_foreach(find_metric, &s);
	return s.v;
}

static void call_pf_sum_n(void *arg)
{
	for (unsigned i = 0; i < (uintptr_t)arg; i++)
		pf_sum(i, i);
}

/*
 * KernInst's metrics: count, latency and concurrency of pf_sum, one of
 * them restricted to a thread; a bad function is refused.
 */
KTEST(probe_metrics, 1)
{
	int count = metric_add(METRIC_COUNT, "pf_sum", 0);
	int latency = metric_add(METRIC_LATENCY, "pf_sum", 0);
	int conc = metric_add(METRIC_CONCURRENCY, "pf_sum", 0);
	struct thread *other = thread_create("pf-other", call_pf_sum_n, (void *)(uintptr_t)50, -1);
	KT_ASSERT(t, other, "no memory for a thread");
	int mine = metric_add(METRIC_COUNT, "pf_sum", thread_current()->tid);

	KT_ASSERT(t, count > 0 && latency > 0 && conc > 0 && mine > 0, "metric_add failed: %d %d %d %d",
		  count, latency, conc, mine);
	KT_EXPECT(t, metric_add(METRIC_COUNT, "no_such_function", 0) == -ENOENT,
		  "a metric on a missing function");
	call_pf_sum_n((void *)(uintptr_t)100);
	thread_join(other);

	struct metric_value c = metric_read(count), l = metric_read(latency);
	struct metric_value k = metric_read(conc), m = metric_read(mine);
	KT_EXPECT(t, c.calls == 150, "count: %llu calls, expected 150", (unsigned long long)c.calls);
	KT_EXPECT(t, m.calls == 100, "count for this thread: %llu, expected 100",
		  (unsigned long long)m.calls);
	KT_EXPECT(t, l.calls == 150 && l.area > 0 && l.inside == 0,
		  "latency: %llu calls, area %llu, %lld inside", (unsigned long long)l.calls,
		  (unsigned long long)l.area, (long long)l.inside);
	KT_EXPECT(t, k.inside == 0 && k.area > 0 && k.area < k.elapsed,
		  "concurrency: %lld inside, area %llu of %llu cycles", (long long)k.inside,
		  (unsigned long long)k.area, (unsigned long long)k.elapsed);
	KT_EXPECT(t, metric_remove((unsigned)mine) == 0 && metric_remove((unsigned)mine) == -ENOENT,
		  "removing a metric twice");
	metric_remove((unsigned)count);
	metric_remove((unsigned)latency);
	metric_remove((unsigned)conc);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/* Where metric_thread_inside's thread waits while its metric is set up. */
static volatile int fixture_inside, fixture_go;

static __noinline void metric_fixture_wait(void)
{
	fixture_inside = 1;
	while (!fixture_go)
		thread_sleep_ticks(1);
}

static void wait_twice(void *arg)
{
	(void)arg;
	metric_fixture_wait();	/* entered before the metric: its return is left out */
	metric_fixture_wait();	/* entered and left under it: counted */
}

/*
 * A one-thread concurrency metric set up while its thread is inside the
 * function: the return from that call is not counted, so the thread is
 * never inside -1 times and the area stays within the elapsed time.
 */
KTEST(probe_metric_thread_inside, 1)
{
	fixture_inside = fixture_go = 0;
	struct thread *waiter = thread_create("metric-waiter", wait_twice, NULL, -1);
	KT_ASSERT(t, waiter, "no memory for a thread");
	while (!fixture_inside)
		thread_sleep_ticks(1);
	int conc = metric_add(METRIC_CONCURRENCY, "metric_fixture_wait", waiter->tid);
	int lat = metric_add(METRIC_LATENCY, "metric_fixture_wait", waiter->tid);
	KT_ASSERT(t, conc > 0 && lat > 0, "metric_add failed: %d %d", conc, lat);
	thread_sleep_ticks(2);
	fixture_go = 1;
	thread_join(waiter);

	struct metric_value k = metric_read(conc), l = metric_read(lat);
	KT_EXPECT(t, k.inside == 0 && k.area <= k.elapsed,
		  "concurrency: %lld inside, area %llu of %llu cycles", (long long)k.inside,
		  (unsigned long long)k.area, (unsigned long long)k.elapsed);
	KT_EXPECT(t, l.calls == 1 && l.inside == 0 && (int64_t)l.area >= 0,
		  "latency: %llu calls, %lld inside, area %lld", (unsigned long long)l.calls,
		  (long long)l.inside, (long long)l.area);
	metric_remove((unsigned)conc);
	metric_remove((unsigned)lat);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}
