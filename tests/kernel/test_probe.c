// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the probe mechanisms on the fixtures of
 * probe_fixture.S: exact counts through every kind of consumer, the
 * intermediate states of the jump-probe protocol, relocated instructions,
 * refusals, and static (sdt) sites. Every test leaves the text as it
 * was booted, and checks it. (Run under single-threaded TCG: they patch
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
#include <arch/patch.h>
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
	struct caller callers[MAX_CPUS];
	struct thread *threads[MAX_CPUS];
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
	KT_EXPECT(t, info.mechanism == PROBE_MECH_BREAKPOINT, "pf_sum_late is not an int3 probe");

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

/* What the protocol test sees after each step of a commit. */
struct step_record {
	uint8_t bytes[5][PATCH_JUMP_LEN];	/* site bytes after step 1..4 */
	uint64_t count[5];			/* the consumer's count after a call there */
	bool seen[5];
	bool wrong_result;
	uint64_t *counter;
};

static void observe_step(unsigned step, void *arg)
{
	struct step_record *r = arg;
	memcpy(r->bytes[step], pf_sum_mid, PATCH_JUMP_LEN);
	r->seen[step] = true;
	r->wrong_result |= pf_sum(5, 6) != pf_sum_expected(5, 6);
	r->count[step] = *r->counter;
}

/*
 * A commit from bytes `from` to bytes `to` at the site: after step 1 an
 * int3 heads from's tail, after step 3 it heads to's tail, after step 4
 * `to` is whole; count[] is the consumer's count after a call at each.
 */
static void check_steps(struct ktest_ctx *t, const struct step_record *r, const char *what,
			const uint8_t *from, const uint8_t *to, const uint64_t count[3])
{
	uint8_t brk = patch_breakpoint_byte();
	const unsigned steps[3] = { 1, 3, 4 };

	KT_EXPECT(t, r->bytes[1][0] == brk && !memcmp(r->bytes[1] + 1, from + 1, PATCH_JUMP_LEN - 1),
		  "%s step 1: not int3 + the old tail", what);
	KT_EXPECT(t, r->bytes[3][0] == brk && !memcmp(r->bytes[3] + 1, to + 1, PATCH_JUMP_LEN - 1),
		  "%s step 3: not int3 + the new tail", what);
	KT_EXPECT(t, !memcmp(r->bytes[4], to, PATCH_JUMP_LEN), "%s step 4: not the new bytes", what);
	for (unsigned i = 0; i < 3; i++)
		KT_EXPECT(t, r->count[steps[i]] == count[i], "%s step %u: count %llu, expected %llu",
			  what, steps[i], (unsigned long long)r->count[steps[i]],
			  (unsigned long long)count[i]);
}

/*
 * The djprobe protocol's intermediate states at pf_sum_mid, installing
 * and removing: after step 1 an int3 heads the original bytes, after
 * step 3 it heads the jump's tail, after step 4 the jump is whole (and
 * the reverse on removal); a call at every state runs the consumer
 * exactly once and computes the right result.
 */
KTEST(probe_protocol_steps, 1)
{
	struct probe *mid = probe_at(pf_sum_mid);
	uint8_t orig[PATCH_JUMP_LEN], jmp[PATCH_JUMP_LEN];
	struct step_record r = { .counter = probe_counter_alloc() };
	struct probe_site_info info;

	KT_ASSERT(t, mid && r.counter, "no probe or counter");
	memcpy(orig, pf_sum_mid, sizeof(orig));
	struct probe_consumer c = count_consumer(r.counter, PROBE_MECH_JUMP);
	probe_set_step_observer(observe_step, &r);
	int err = probe_enable(mid, &c);
	probe_set_step_observer(NULL, NULL);
	KT_ASSERT(t, err == 0, "enable failed: %s", errno_name(err));
	probe_site_info((uintptr_t)pf_sum_mid, &info);
	KT_ASSERT(t, info.mechanism == PROBE_MECH_JUMP, "not a jump probe");
	KT_ASSERT(t, patch_jump_bytes(jmp, (uintptr_t)pf_sum_mid, info.patch), "patch out of reach");

	KT_EXPECT(t, r.seen[1] && r.seen[3] && r.seen[4] && !r.seen[2], "install steps seen: %d%d%d%d",
		  r.seen[1], r.seen[2], r.seen[3], r.seen[4]);
	check_steps(t, &r, "install", orig, jmp, (const uint64_t[]){ 1, 2, 3 });
	KT_EXPECT(t, pf_sum(5, 6) == pf_sum_expected(5, 6) && *r.counter == 4, "installed: count %llu",
		  (unsigned long long)*r.counter);

	memset(r.seen, 0, sizeof(r.seen));
	probe_set_step_observer(observe_step, &r);
	probe_disable(&c);
	probe_set_step_observer(NULL, NULL);
	KT_EXPECT(t, r.seen[1] && r.seen[3] && r.seen[4], "removal steps not all seen");
	/*
	 * While the breakpoint or the jump is there, the consumer runs once
	 * per call; after step 4 the original bytes run and it does not.
	 */
	check_steps(t, &r, "removal", jmp, orig, (const uint64_t[]){ 5, 6, 6 });
	KT_EXPECT(t, !r.wrong_result, "a call during the protocol computed a wrong result");
	KT_EXPECT(t, pf_sum(5, 6) == pf_sum_expected(5, 6) && *r.counter == 6,
		  "the disabled probe still counts");
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
	probe_counter_free(r.counter);
}

struct reloc_case {
	const char *name;
	uint64_t (*fn)(uint64_t);
};

/*
 * Jump probes whose detoured bytes begin with a RIP-relative load, end in
 * a short jmp or a short jcc, or are a call: the relocated copies behave
 * as the originals.
 */
KTEST(probe_relocated_regions, 1)
{
	static const struct reloc_case cases[] = {
		{ "pf_rip", pf_rip }, { "pf_short_jmp", pf_short_jmp },
		{ "pf_call", pf_call }, { "pf_jcc", pf_jcc },
	};
	static const uint64_t inputs[] = { 0, 1, 2, 41, 1000000 };
	char spec[64];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t expected[ARRAY_SIZE(inputs)], hits = 0;
		struct probe_site_info info;
		for (size_t k = 0; k < ARRAY_SIZE(inputs); k++)
			expected[k] = cases[i].fn(inputs[k]);
		snprintf(spec, sizeof(spec), "fbt:kernel:%s:entry", cases[i].name);
		struct probe *p = probe_named(spec);
		KT_ASSERT(t, p, "no probe %s", spec);
		struct probe_consumer c = handler_consumer(&hits, PROBE_MECH_JUMP);
		int err = probe_enable(p, &c);
		KT_ASSERT(t, err == 0, "%s: jump probe refused: %s", cases[i].name, errno_name(err));
		probe_site_info(p->sites[0], &info);
		KT_EXPECT(t, info.mechanism == PROBE_MECH_JUMP && info.length >= PATCH_JUMP_LEN,
			  "%s: mechanism %d, %u bytes", cases[i].name, info.mechanism, info.length);
		for (unsigned round = 0; round < 3; round++)
			for (size_t k = 0; k < ARRAY_SIZE(inputs); k++)
				KT_EXPECT(t, cases[i].fn(inputs[k]) == expected[k],
					  "%s(%llu) = %llu probed, %llu not", cases[i].name,
					  (unsigned long long)inputs[k],
					  (unsigned long long)cases[i].fn(inputs[k]),
					  (unsigned long long)expected[k]);
		probe_disable(&c);
		KT_EXPECT(t, hits == 3 * ARRAY_SIZE(inputs), "%s: %llu hits for %zu calls",
			  cases[i].name, (unsigned long long)hits, 3 * ARRAY_SIZE(inputs));
	}
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

static const struct ksym *first_init_function(void)
{
	for (uint32_t i = 0; i < kernel_symtab.count; i++)
		if (kernel_symtab.syms[i].flags & SYM_INIT)
			return &kernel_symtab.syms[i];
	return NULL;
}

/* Bad places to probe are refused with a reason; overlaps with -EEXIST; one address shares. */
KTEST(probe_refusals, 1)
{
	static uint64_t data_word;
	const struct ksym *init = first_init_function();
	const char *why = NULL;
	uint64_t hits = 0, hits2 = 0;

	KT_EXPECT(t, probe_check_address((uintptr_t)&data_word, &why) == -EINVAL && why,
		  "a data address was accepted");
	KT_EXPECT(t, probe_check_address((uintptr_t)pf_sum + 2, &why) == -EINVAL &&
		     strstr(why, "boundary"), "the middle of an instruction was accepted");
	KT_EXPECT(t, probe_check_address((uintptr_t)probe_breakpoint, &why) == -EINVAL &&
		     strstr(why, "probe machinery"), "the breakpoint handler was accepted");
	KT_EXPECT(t, init && probe_check_address(init->addr, &why) == -EINVAL &&
		     strstr(why, "boot-only"), "boot-only code was accepted");
	KT_EXPECT(t, probe_check_address((uintptr_t)pf_sum_mid, &why) == 0, "pf_sum_mid refused");
	KT_EXPECT(t, !probe_named("pf_sum+0x2"), "a probe was created mid-instruction");

	/* A jump at the entry detours [0, 7): a jump at +4 would overlap it. */
	struct probe *entry = probe_named("fbt:kernel:pf_sum:entry");
	struct probe *at4 = probe_named("pf_sum+0x4");
	KT_ASSERT(t, entry && at4, "fixture probes missing");
	struct probe_consumer c1 = handler_consumer(&hits, PROBE_MECH_JUMP);
	struct probe_consumer c2 = handler_consumer(&hits2, PROBE_MECH_AUTO);
	KT_ASSERT(t, probe_enable(entry, &c1) == 0, "entry jump refused");
	int err = probe_enable(at4, &c2);
	KT_EXPECT(t, err != 0 && !c2.probe, "a probe inside a jump's bytes was accepted");

	/* The same address: a second consumer shares the site and its patch. */
	struct probe_site_info before, after;
	probe_site_info((uintptr_t)pf_sum, &before);
	KT_ASSERT(t, probe_enable(entry, &c2) == 0, "a second consumer at one address refused");
	probe_site_info((uintptr_t)pf_sum, &after);
	KT_EXPECT(t, after.consumers == 2 && after.mechanism == PROBE_MECH_JUMP,
		  "second consumer: %u consumers, mechanism %d", after.consumers, after.mechanism);
	KT_EXPECT(t, pf_sum(1, 1) == pf_sum_expected(1, 1) && hits == 1 && hits2 == 1,
		  "shared site: hits %llu and %llu", (unsigned long long)hits,
		  (unsigned long long)hits2);
	KT_EXPECT(t, probe_enable(entry, &c2) == -EBUSY, "enabling an enabled consumer again");
	probe_disable(&c2);
	probe_disable(&c1);

	/* An int3 site refuses a consumer that insists on a jump. */
	struct probe *late = probe_at(pf_sum_late);
	struct probe_consumer c3 = handler_consumer(&hits, PROBE_MECH_BREAKPOINT);
	struct probe_consumer c4 = handler_consumer(&hits2, PROBE_MECH_JUMP);
	KT_ASSERT(t, late && probe_enable(late, &c3) == 0, "int3 probe refused");
	KT_EXPECT(t, probe_enable(late, &c4) != 0 && !c4.probe, "a jump was stacked on an int3 site");
	probe_disable(&c3);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/* A static site: what sdt probes see of its arguments. */
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
