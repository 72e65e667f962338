// SPDX-License-Identifier: BSD-2-Clause
/*
 * The benchmark runner behind the shell command `bench` and the
 * channel's "bench" stream (bench_stream.c). Figures are printed as
 * `bench FIGURE VALUE UNIT` lines for people and handed to the run's
 * client, which sends them to the host as records: `make bench` runs
 * this under QEMU -icount shift=0,sleep=off, where the cycle counter
 * counts guest instructions, and collects the records (tools/bench.py).
 *
 * One run at a time (bench_claim). bench_report, called from inside a
 * benchmark, finds the run's client in `client`, which only the running
 * run sets (a benchmark reports from its own thread, between
 * measurements).
 */
#include <scion/bench.h>
#include <scion/ktest.h>
#include <scion/shell.h>
#include <scion/glob.h>
#include <scion/cpu.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <scion/spinlock.h>
#include <arch/timer.h>

static struct spinlock run_lock = SPINLOCK_INIT("bench-run");
static bool claimed;				/* run_lock: a run is claimed or running */
static struct bench_client *client;		/* the running run's, or NULL (set by it) */

static void tell(enum chan_bench_kind kind, const char *name, uint64_t value, const char *unit)
{
	if (client)
		client->report(client, kind, name, value, unit);
}

void bench_report(const char *figure, uint64_t value, const char *unit)
{
	printk("bench %s %llu %s\n", figure, (unsigned long long)value, unit);
	tell(CHAN_BENCH_FIGURE, figure, value, unit);
}

unsigned bench_count(const char *selector)
{
	unsigned n = 0;
	LINKER_TABLE_FOREACH(struct bench, benches, b)
		n += glob_list_match(selector, b->name);
	return n;
}

int bench_claim(void)
{
	irqflags_t f = spin_lock_irqsave(&run_lock);
	bool busy = claimed;
	claimed = true;
	spin_unlock_irqrestore(&run_lock, f);
	return busy ? -EBUSY : 0;
}

void bench_unclaim(void)
{
	irqflags_t f = spin_lock_irqsave(&run_lock);
	claimed = false;
	client = NULL;
	spin_unlock_irqrestore(&run_lock, f);
}

int bench_run(const char *selector, struct bench_client *c)
{
	if (!LINKER_TABLE_COUNT(benches)) {
		printk("bench: %s\n", KTEST_NONE_HERE);
		bench_unclaim();
		return -ENOENT;
	}
	client = c;
	int ran = 0;
	printk("bench config cpus=%u cycles_per_second=%llu\n", cpu_count(),
	       (unsigned long long)arch_cycles_per_second());
	tell(CHAN_BENCH_CONFIG, "cpus", cpu_count(), "");
	tell(CHAN_BENCH_CONFIG, "cycles_per_second", arch_cycles_per_second(), "");
	LINKER_TABLE_FOREACH(struct bench, benches, b) {
		if (!glob_list_match(selector, b->name))
			continue;
		if (c && c->stopped && c->stopped(c))
			break;
		if (b->min_cpus > cpu_count()) {
			printk("bench %s skipped: needs %u CPUs\n", b->name, b->min_cpus);
			tell(CHAN_BENCH_SKIPPED, b->name, b->min_cpus, "CPUs");
			continue;
		}
		b->fn();
		ran++;
	}
	printk("benchmarks finished: %d\n", ran);
	bench_unclaim();
	return ran ? ran : -ENOENT;
}

static int cmd_bench(int argc, char **argv)
{
	if (argc > 2) {
		printk("bench: usage: bench [pattern[,pattern,!pattern...]]\n");
		return -EINVAL;
	}
	if (LINKER_TABLE_COUNT(benches) && bench_claim()) {
		printk("bench: another run is in progress (a bench stream's); one at a time\n");
		return -EBUSY;
	}
	int ran = bench_run(argc == 2 ? argv[1] : "*", NULL);
	return ran < 0 ? ran : 0;
}
SHELL_COMMAND(bench, "[patterns]", "run benchmarks and print their figures", cmd_bench);
