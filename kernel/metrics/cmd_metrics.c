// SPDX-License-Identifier: BSD-2-Clause
/*
 * The KernInst profiler in the shell: `count`, `latency` and
 * `concurrency` on a function, optionally for one thread
 * (`... tid N`) or process (`... pid N`), `stats` to read them, `metric remove <id|all>`.
 */
#include <scion/metrics.h>
#include <scion/proc.h>
#include <scion/probe.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <arch/timer.h>

static int add(enum metric_kind kind, int argc, char **argv)
{
	uint64_t tid = 0, pid = 0;

	if (argc == 4 && !strcmp(argv[2], "tid")) {
		if (parse_u64(argv[3], &tid, false) || !tid) {
			printk("%s: '%s' is not a thread id\n", argv[0], argv[3]);
			return -EINVAL;
		}
	} else if (argc == 4 && !strcmp(argv[2], "pid")) {
		/* A process is its one thread: the metric follows that thread. */
		if (parse_u64(argv[3], &pid, false) || !pid || pid > INT32_MAX ||
		    !(tid = proc_thread_id((int)pid))) {
			printk("%s: no process %s (`ps` lists them)\n", argv[0], argv[3]);
			return -ESRCH;
		}
	} else if (argc != 2) {
		printk("%s: usage: %s <function> [tid <n> | pid <n>]\n", argv[0], argv[0]);
		return -EINVAL;
	}
	int id = metric_add(kind, argv[1], tid);
	if (id < 0)
		return id;
	printk("%s: metric %d on %s%s; 'stats' reads it\n", argv[0], id, argv[1],
	       pid ? " (one process)" : tid ? " (one thread)" : "");
	return 0;
}

static int cmd_count(int argc, char **argv)
{
	return add(METRIC_COUNT, argc, argv);
}
SHELL_COMMAND(count, "<function> [tid <n> | pid <n>]", "count the calls made to a function", cmd_count);

static int cmd_latency(int argc, char **argv)
{
	return add(METRIC_LATENCY, argc, argv);
}
SHELL_COMMAND(latency, "<function> [tid <n> | pid <n>]", "measure cycles per call of a function",
	      cmd_latency);

static int cmd_concurrency(int argc, char **argv)
{
	return add(METRIC_CONCURRENCY, argc, argv);
}
SHELL_COMMAND(concurrency, "<function> [tid <n> | pid <n>]",
	      "measure the average number of threads inside a function", cmd_concurrency);

/* x / y with three decimals, as "12.345". */
static const char *ratio(uint64_t x, uint64_t y, char *buf, size_t size)
{
	if (!y) {
		snprintf(buf, size, "-");
		return buf;
	}
	uint64_t whole = x / y, rest = x % y;
	while (y > UINT64_MAX / 1000) {	/* keep rest * 1000 in range */
		y >>= 1;
		rest >>= 1;
	}
	snprintf(buf, size, "%llu.%03llu", (unsigned long long)whole,
		 (unsigned long long)(rest * 1000 / y));
	return buf;
}

static void print_metric(const struct metric_value *v, void *arg)
{
	char a[32], b[32], who[32];
	uint64_t hz = arch_cycles_per_second();

	(void)arg;
	if (v->tid)
		snprintf(who, sizeof(who), " tid %llu", (unsigned long long)v->tid);
	else
		who[0] = '\0';
	switch (v->kind) {
	case METRIC_COUNT:
		printk("  %-3u count        %s%s: %llu calls\n", v->id, v->function, who,
		       (unsigned long long)v->calls);
		break;
	case METRIC_LATENCY:
		printk("  %-3u latency      %s%s: %llu calls, %s cycles per call (%s us)\n", v->id,
		       v->function, who, (unsigned long long)v->calls, ratio(v->area, v->calls, a, sizeof(a)),
		       ratio(v->area, v->calls * (hz / 1000000 ? hz / 1000000 : 1), b, sizeof(b)));
		break;
	case METRIC_CONCURRENCY:
		printk("  %-3u concurrency  %s%s: %s threads inside on average over %llu cycles, "
		       "%lld now\n", v->id, v->function, who, ratio(v->area, v->elapsed, a, sizeof(a)),
		       (unsigned long long)v->elapsed, (long long)v->inside);
		break;
	}
}

static int cmd_stats(int argc, char **argv)
{
	struct probe_stats s;

	if (argc != 1) {
		printk("%s: takes no arguments\n", argv[0]);
		return -EINVAL;
	}
	printk("metrics:\n");
	metric_foreach(print_metric, NULL);
	probe_get_stats(&s);
	printk("probes: %u known, %u sites patched (%u jump, %u %s); %llu installs, "
	       "%llu removals, %llu sync rounds, %llu jumps refused\n", s.probes, s.sites,
	       s.jump_sites, s.breakpoint_sites, probe_mechanism_name(PROBE_MECH_BREAKPOINT),
	       (unsigned long long)s.installs,
	       (unsigned long long)s.removals, (unsigned long long)s.sync_rounds,
	       (unsigned long long)s.refused_jumps);
	return 0;
}
SHELL_COMMAND(stats, "", "print the metrics (count, latency, concurrency) and probe totals",
	      cmd_stats);

static int cmd_metric(int argc, char **argv)
{
	uint64_t id;

	if (argc != 3 || strcmp(argv[1], "remove")) {
		printk("metric: usage: metric remove <id|all>\n");
		return -EINVAL;
	}
	if (!strcmp(argv[2], "all")) {
		metric_clear();
		return 0;
	}
	if (parse_u64(argv[2], &id, false) || id > 0xffffffffu || metric_remove((unsigned)id)) {
		printk("metric: no metric '%s'; 'stats' lists them\n", argv[2]);
		return -ENOENT;
	}
	return 0;
}
SHELL_COMMAND(metric, "remove <id|all>", "remove a metric and its probes", cmd_metric);
