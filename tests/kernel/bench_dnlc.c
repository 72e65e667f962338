// SPDX-License-Identifier: BSD-2-Clause
/*
 * Benchmarks of the directory name lookup cache at its default size
 * (DNLC_DEFAULT_ENTRIES, full): a lookup that hits, one that misses, one
 * of a name too long to cache, and an enter that evicts, with the
 * default LRU and with FIFO written as a graft against the API (its
 * transaction and a scan of every entry included): what a replacement
 * graft costs the path the Squid study found hot. Under `make bench`
 * cycles are guest instructions.
 */
#include <scion/bench.h>
#include <scion/dnlc.h>
#include <scion/graft.h>
#include <scion/format.h>
#include <scion/string.h>
#include <arch/cpu.h>

#define CALLS   200
#define ROUNDS  5
#define BENCH_FS 0xfffffff1u

/* FIFO through the graft API (as grafts/dnlc_fifo.c). */
__used __noinline int bench_dnlc_fifo_graft(uint32_t fs, uint64_t dir, uint64_t ino)
{
	unsigned n = dnlc_capacity();
	uint64_t oldest = UINT64_MAX;
	int victim = -1;

	(void)fs;
	(void)dir;
	(void)ino;
	for (unsigned i = 0; i < n; i++) {
		uint64_t when = dnlc_entry_used(i) ? dnlc_entry_inserted(i) : UINT64_MAX;
		if (when < oldest) {
			oldest = when;
			victim = (int)i;
		}
	}
	return victim;
}

static unsigned next_name;

static size_t name_of(char *buf, size_t n, unsigned k)
{
	return (size_t)snprintf(buf, n, "file%06u", k);
}

static void hits(unsigned round)
{
	char name[16];
	uint64_t ino;
	for (unsigned i = 0; i < CALLS; i++) {
		size_t len = name_of(name, sizeof(name), (round * CALLS + i) % DNLC_DEFAULT_ENTRIES);
		dnlc_lookup(BENCH_FS, 2, name, len, &ino);
	}
}

static void misses(unsigned round)
{
	char name[16];
	uint64_t ino;
	(void)round;
	for (unsigned i = 0; i < CALLS; i++) {
		size_t len = name_of(name, sizeof(name), 900000 + i);
		dnlc_lookup(BENCH_FS, 2, name, len, &ino);
	}
}

static void too_long(unsigned round)
{
	static const char name[40] = "a-name-of-forty-bytes-is-never-cached..";
	uint64_t ino;
	(void)round;
	for (unsigned i = 0; i < CALLS; i++)
		dnlc_lookup(BENCH_FS, 2, name, sizeof(name), &ino);
}

static void evicting_enters(unsigned round)
{
	char name[16];
	(void)round;
	for (unsigned i = 0; i < CALLS; i++) {
		size_t len = name_of(name, sizeof(name), next_name++);
		dnlc_enter(BENCH_FS, 2, name, len, next_name);
	}
}

/* Least cycles per call of fn over ROUNDS rounds of CALLS calls. */
static uint64_t least_per_call(void (*fn)(unsigned round))
{
	uint64_t best = UINT64_MAX;
	for (unsigned r = 0; r < ROUNDS; r++) {
		uint64_t c0 = arch_cycles();
		fn(r);
		uint64_t c = (arch_cycles() - c0) / CALLS;
		if (c < best)
			best = c;
	}
	return best;
}

BENCH(dnlc, 1)
{
	char name[16];

	if (dnlc_resize(DNLC_DEFAULT_ENTRIES))
		return;
	for (next_name = 0; next_name < DNLC_DEFAULT_ENTRIES; next_name++)
		dnlc_enter(BENCH_FS, 2, name, name_of(name, sizeof(name), next_name), next_name + 1);
	bench_report("dnlc.lookup.hit", least_per_call(hits), "cycles");
	bench_report("dnlc.lookup.miss", least_per_call(misses), "cycles");
	bench_report("dnlc.lookup.too_long", least_per_call(too_long), "cycles");
	bench_report("dnlc.enter.evict_default_lru", least_per_call(evicting_enters), "cycles");
	struct graft *g = graft_create_builtin("bench-fifo", "dnlc.evict", bench_dnlc_fifo_graft);
	char err[96];
	if (g && !graft_install(g, 0, err, sizeof(err))) {
		bench_report("dnlc.enter.evict_fifo_graft_txn", least_per_call(evicting_enters),
			     "cycles");
		graft_remove(g);
	}
	if (g)
		graft_destroy_builtin(g);
	dnlc_resize(DNLC_DEFAULT_ENTRIES);
	dnlc_reset_stats();
}
