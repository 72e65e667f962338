// SPDX-License-Identifier: BSD-2-Clause
/*
 * Benchmarks of probes: what a hit adds to a call of pf_sum
 * (probe_fixture.S; arch/sparc64/ktest_fixtures.S) for each mechanism,
 * through a springboard too on a machine that has them, and what enabling every fbt
 * probe costs, batched and one site per round of CPU synchronisation.
 * Under `make bench` (-icount shift=0) cycles are guest instructions.
 */
#include <scion/bench.h>
#include <scion/probe.h>
#include <scion/mm.h>
#include <scion/tbuf.h>
#include <arch/cpu.h>
#include "probe_test.h"

#define HIT_CALLS 1000
#define HIT_ROUNDS 5

static volatile uint64_t sink;

static void empty_handler(const struct probe_hit *hit, void *arg)
{
	(void)hit;
	(void)arg;
}

/* Cycles per call of pf_sum, the least of HIT_ROUNDS rounds (a timer tick inflates one). */
static uint64_t per_call(void)
{
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < HIT_ROUNDS; r++) {
		uint64_t acc = 0, c0 = arch_cycles();
		for (uint64_t i = 0; i < HIT_CALLS; i++)
			acc += pf_sum(i, 1);
		uint64_t c = (arch_cycles() - c0) / HIT_CALLS;
		sink = acc;
		if (c < best)
			best = c;
	}
	return best;
}

/* Cycles a probe with consumer c at pf_sum's entry adds to each call. */
static void report_hit(const char *figure, struct probe *entry, struct probe_consumer *c,
		       uint64_t none)
{
	if (probe_enable(entry, c))
		return;
	uint64_t cost = per_call();
	probe_disable(c);
	bench_report(figure, cost > none ? cost - none : 0, "cycles");
}

BENCH(probe_hit, 1)
{
	struct probe *entry = probe_named("fbt:kernel:pf_sum:entry");
	uint64_t *counter = probe_counter_alloc();
	if (!entry || !counter)
		return;
	uint64_t none = per_call();
	bench_report("probe.call.unprobed", none, "cycles");

	struct probe_consumer count = count_consumer(counter, PROBE_MECH_JUMP);
	report_hit("probe.hit.inline_counter", entry, &count, none);
	struct probe_consumer jump = { .action = PROBE_HANDLER, .handler = empty_handler,
				       .mechanism = PROBE_MECH_JUMP };
	report_hit("probe.hit.jump_empty_handler", entry, &jump, none);
	struct probe_consumer int3 = { .action = PROBE_HANDLER, .handler = empty_handler,
				       .mechanism = PROBE_MECH_BREAKPOINT };
	report_hit("probe.hit.breakpoint_empty_handler", entry, &int3, none);
	/* A machine with a far patch arena: the same splices through springboards. */
	if (PATCH_FAR_CODE_SIZE) {
		probe_set_far_patches(true);
		report_hit("probe.hit.springboard_counter", entry, &count, none);
		report_hit("probe.hit.springboard_empty_handler", entry, &jump, none);
		probe_set_far_patches(false);
	}
	struct tbuf_set *bufs = tbuf_create(TBUF_MAX_SIZE);
	if (bufs) {
		/* 1 MiB holds the 5000 records of per_call(): none is dropped. */
		struct probe_consumer record = { .action = PROBE_HANDLER, .handler = probe_record_hit,
						 .arg = bufs, .mechanism = PROBE_MECH_JUMP };
		report_hit("probe.hit.jump_record", entry, &record, none);
		uint64_t c0 = arch_cycles();
		tbuf_switch(bufs);
		bench_report("tbuf.switch", arch_cycles() - c0, "cycles");
		tbuf_destroy(bufs);
	}
	probe_counter_free(counter);
}

struct probe_set {
	struct probe **p;
	struct probe_consumer *c;
	struct probe_consumer **cs;
	unsigned n, cap;
};

static bool add_probe(struct probe *p, void *arg)
{
	struct probe_set *s = arg;
	if (s->n < s->cap)
		s->p[s->n++] = p;
	return true;
}

/* Enable and disable the probes of spec batched, then one probe at a time. */
static void fbt_enabling(const char *spec, const char *name, bool one_by_one)
{
	struct probe_set s = { .cap = 8192 };
	uint64_t *counter = probe_counter_alloc();
	const char *why;
	char figure[64];

	s.p = kmalloc(s.cap * sizeof(*s.p));
	s.c = kzalloc(s.cap * sizeof(*s.c));
	s.cs = kmalloc(s.cap * sizeof(*s.cs));
	if (!s.p || !s.c || !s.cs || !counter || probe_lookup(spec, add_probe, &s, &why) <= 0)
		goto out;
	for (unsigned i = 0; i < s.n; i++) {
		s.c[i] = count_consumer(counter, PROBE_MECH_AUTO);
		s.cs[i] = &s.c[i];
	}
	struct probe_stats before, after;
	probe_get_stats(&before);
	uint64_t c0 = arch_cycles();
	probe_enable_batch(s.p, s.cs, s.n);
	uint64_t c1 = arch_cycles();
	probe_get_stats(&after);
	probe_disable_batch(s.cs, s.n);
	uint64_t c2 = arch_cycles();
	uint64_t sites = after.sites - before.sites;
	if (!sites)
		goto out;
	snprintf(figure, sizeof(figure), "probe.%s.sites", name);
	bench_report(figure, sites, "sites");
	snprintf(figure, sizeof(figure), "probe.%s.enable_batched_per_site", name);
	bench_report(figure, (c1 - c0) / sites, "cycles");
	snprintf(figure, sizeof(figure), "probe.%s.sync_rounds_batched", name);
	bench_report(figure, after.sync_rounds - before.sync_rounds, "rounds");
	snprintf(figure, sizeof(figure), "probe.%s.disable_batched_per_site", name);
	bench_report(figure, (c2 - c1) / sites, "cycles");
	if (!one_by_one)
		goto out;
	probe_get_stats(&before);
	c0 = arch_cycles();
	for (unsigned i = 0; i < s.n; i++)
		probe_enable(s.p[i], s.cs[i]);
	c1 = arch_cycles();
	probe_get_stats(&after);
	for (unsigned i = 0; i < s.n; i++)
		probe_disable(s.cs[i]);
	snprintf(figure, sizeof(figure), "probe.%s.enable_one_by_one_per_site", name);
	bench_report(figure, (c1 - c0) / sites, "cycles");
	snprintf(figure, sizeof(figure), "probe.%s.sync_rounds_one_by_one", name);
	bench_report(figure, after.sync_rounds - before.sync_rounds, "rounds");
out:
	kfree(s.p);
	kfree(s.c);
	kfree(s.cs);
	probe_counter_free(counter);
}

BENCH(probe_fbt_enable, 1)
{
	fbt_enabling("fbt:::entry", "fbt_entry", true);
	fbt_enabling("fbt:::", "fbt_all", false);
}

/*
 * The call `make bench` traces: tools/bench.py runs this while a D program
 * is enabled on fbt:kernel:pf_sum:entry (and once with nothing enabled);
 * the difference is what a firing of that program costs.
 */
BENCH(trace_pf_sum, 1)
{
	bench_report("trace.pf_sum.call", per_call(), "cycles");
}
