// SPDX-License-Identifier: BSD-2-Clause
/*
 * The benchmark runner behind the shell command `bench`. Figures are
 * printed as `bench FIGURE VALUE UNIT` lines; `make bench` runs this
 * under QEMU -icount shift=0,sleep=off, where the cycle counter counts
 * guest instructions, and collects the lines (tools/bench.py).
 */
#include <scion/bench.h>
#include <scion/ktest.h>
#include <scion/shell.h>
#include <scion/glob.h>
#include <scion/cpu.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <arch/timer.h>

void bench_report(const char *figure, uint64_t value, const char *unit)
{
	printk("bench %s %llu %s\n", figure, (unsigned long long)value, unit);
}

static int cmd_bench(int argc, char **argv)
{
	if (argc > 2) {
		printk("bench: usage: bench [pattern[,pattern,!pattern...]]\n");
		return -EINVAL;
	}
	const char *selector = argc == 2 ? argv[1] : "*";
	int ran = 0;
	if (!LINKER_TABLE_COUNT(benches)) {
		printk("bench: %s\n", KTEST_NONE_HERE);
		return -ENOENT;
	}
	printk("bench config cpus=%u cycles_per_second=%llu\n", cpu_count(),
	       (unsigned long long)arch_cycles_per_second());
	LINKER_TABLE_FOREACH(struct bench, benches, b) {
		if (!glob_list_match(selector, b->name))
			continue;
		if (b->min_cpus > cpu_count()) {
			printk("bench %s skipped: needs %u CPUs\n", b->name, b->min_cpus);
			continue;
		}
		b->fn();
		ran++;
	}
	printk("benchmarks finished: %d\n", ran);
	return ran ? 0 : -ENOENT;
}
SHELL_COMMAND(bench, "[patterns]", "run benchmarks and print their figures", cmd_bench);
