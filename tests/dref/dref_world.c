// SPDX-License-Identifier: BSD-2-Clause
/*
 * The world both runs of a program see: a fixed set of probes (dtrace's
 * own, fbt entries and returns, sdt, profile), random threads and CPUs,
 * and a random sequence of firings with arguments worth testing and a
 * clock that only moves forward; which clauses each probe enables,
 * numbered as session.c numbers enabled probes.
 *
 * Invariant: the same rng state gives the same scenario; a firing's
 * clock reading is the same for every clause it runs (the kernel's
 * clock_ns is frozen per firing by dref_kernel.c, and DTrace gives one
 * timestamp per firing).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "dref.h"

const struct dref_probe dref_probes[DREF_NPROBES] = {
	{ 1, "dtrace", "", "", "BEGIN", DREF_SITE_SESSION },
	{ 2, "dtrace", "", "", "END", DREF_SITE_SESSION },
	{ 3, "dtrace", "", "", "ERROR", DREF_SITE_SESSION },
	{ 4, "fbt", "kernel", "bcache_read", "entry", DREF_SITE_ENTRY },
	{ 5, "fbt", "kernel", "bcache_read", "return", DREF_SITE_RETURN },
	{ 6, "fbt", "kernel", "vfs_lookup", "entry", DREF_SITE_ENTRY },
	{ 7, "fbt", "kernel", "vfs_lookup", "return", DREF_SITE_RETURN },
	{ 8, "sdt", "kernel", "mutex_lock", "acquire", DREF_SITE_INSIDE },
	{ 9, "sdt", "kernel", "mutex_unlock", "release", DREF_SITE_INSIDE },
	{ 10, "profile", "", "", "tick-100", DREF_SITE_INSIDE },
};

static const struct dref_thread thread_pool[] = {
	{ 7, "kworker/0", 1000, 500, -1, 3, 9 },
	{ 8, "bcache-io", 250000, 20, 1, 77, 1 },
	{ 1001, "sched-test", 0, 0, 0, 0, 0 },
	{ 0x100000005ull, "a-very-long-thread-nam", 123456789, 1000, 2, 1ull << 40, 5 },
	{ 42, "/usr/sbin/daemon.d", 5, 3, -1, 8, 8 },
	{ 9, "a,b,,c", 77, 70, 3, 2, 2 },
};

void dref_scenario_random(struct dref_rng *r, struct dref_scenario *sc, unsigned max)
{
	memset(sc, 0, sizeof(*sc));
	sc->ncpus = 1 + dref_below(r, DREF_CPUS);
	sc->nthreads = 1 + dref_below(r, DREF_THREADS);
	unsigned pool = sizeof(thread_pool) / sizeof(thread_pool[0]);
	unsigned first = dref_below(r, pool);
	for (unsigned i = 0; i < sc->nthreads; i++)
		sc->threads[i] = thread_pool[(first + i) % pool];
	sc->wall_base = 1700000000000000000ull + dref_below(r, 1000000);

	uint64_t now = 1000000000ull + dref_below(r, 1000000);
	sc->begin = (struct dref_firing){ .probe = DREF_PROBE_BEGIN, .now = now };
	if (max > DREF_MAX_FIRINGS)
		max = DREF_MAX_FIRINGS;
	sc->nfirings = max <= 20 ? max : 20 + dref_below(r, max - 20 + 1);
	unsigned since_drain = 0;
	for (unsigned i = 0; i < sc->nfirings; i++) {
		struct dref_firing *f = &sc->firings[i];
		f->probe = DREF_FIRST_FIRED + dref_below(r, DREF_NPROBES - DREF_FIRST_FIRED);
		f->cpu = dref_below(r, sc->ncpus);
		f->thread = dref_below(r, sc->nthreads);
		for (int a = 0; a < 6; a++)
			f->regs[a] = dref_interesting(r);
		if (dref_probes[f->probe].site == DREF_SITE_RETURN)
			f->regs[0] = 1 + dref_below(r, 300);	/* the ret's offset */
		now += dref_chance(r, 10) ? dref_rng_u64(r) % 10000000000ull :
					    1 + dref_below(r, 100000);
		f->now = now;
		/* At most 8 firings between drains: aggregation buffers never fill. */
		f->drain_after = ++since_drain == 8 || dref_chance(r, 15);
		if (f->drain_after)
			since_drain = 0;
	}
	sc->end = (struct dref_firing){ .probe = DREF_PROBE_END, .cpu = dref_below(r, sc->ncpus),
					.thread = dref_below(r, sc->nthreads), .now = now + 1000 };
}

void dref_firing_args(const struct dref_firing *f, uint64_t args[6])
{
	memset(args, 0, 6 * sizeof(uint64_t));
	switch (dref_probes[f->probe].site) {
	case DREF_SITE_SESSION:
		break;
	case DREF_SITE_RETURN:
		args[0] = f->regs[0];
		args[1] = f->regs[1];
		break;
	default:
		memcpy(args, f->regs, 6 * sizeof(uint64_t));
		break;
	}
}

static void print_firing(struct dref_buf *b, const char *label, const struct dref_scenario *sc,
			 const struct dref_firing *f)
{
	const struct dref_probe *p = &dref_probes[f->probe];
	uint64_t args[6];
	dref_firing_args(f, args);
	dref_printf(b, "  %-5s %s:%s:%s:%s cpu %u tid %" PRIu64 " now %" PRIu64 " args", label,
		    p->provider, p->module, p->function, p->name, f->cpu,
		    sc->threads[f->thread].tid, f->now);
	for (int a = 0; a < 6; a++)
		dref_printf(b, " %#" PRIx64, args[a]);
	dref_printf(b, "%s\n", f->drain_after ? " (drain)" : "");
}

void dref_scenario_print(struct dref_buf *b, const struct dref_scenario *sc)
{
	dref_printf(b, "%u CPUs; threads:", sc->ncpus);
	for (unsigned i = 0; i < sc->nthreads; i++)
		dref_printf(b, " %" PRIu64 " \"%s\"", sc->threads[i].tid, sc->threads[i].name);
	dref_printf(b, "\nfirings:\n");
	print_firing(b, "BEGIN", sc, &sc->begin);
	for (unsigned i = 0; i < sc->nfirings; i++) {
		char label[16];
		snprintf(label, sizeof(label), "#%u", i);
		print_firing(b, label, sc, &sc->firings[i]);
	}
	print_firing(b, "END", sc, &sc->end);
}

static bool part_matches(const char *want, const char *have)
{
	return !want[0] || !strcmp(want, have);
}

static bool desc_matches(const struct dt_probedesc *d, const struct dref_probe *p)
{
	return part_matches(d->provider, p->provider) && part_matches(d->module, p->module) &&
	       part_matches(d->function, p->function) && part_matches(d->name, p->name);
}

void dref_match(const struct dt_program *p, struct dref_ecbs *out)
{
	out->n = 0;
	for (const struct dt_clause *c = p->clauses; c; c = c->next) {
		unsigned first = out->n;
		/* As session.c: each description's probes in id order, once per clause. */
		for (const struct dt_probedesc *d = c->probes; d; d = d->next) {
			for (unsigned i = 0; i < DREF_NPROBES; i++) {
				if (!desc_matches(d, &dref_probes[i]))
					continue;
				bool seen = false;
				for (unsigned k = first; k < out->n; k++)
					seen |= out->ecb[k].probe == i;
				if (!seen && out->n < DREF_MAX_ECBS) {
					out->ecb[out->n].clause = c->index;
					out->ecb[out->n].probe = i;
					out->n++;
				}
			}
		}
	}
}
