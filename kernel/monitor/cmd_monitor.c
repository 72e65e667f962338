// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell: `monitor` lists every statistics source the modules publish
 * (scion/monitor.h) with its value now: one line per global source, one
 * value per CPU for a per-CPU source; `monitor threads` reads the
 * per-thread sources of every thread. For people: the host reads the
 * monitor's samples as records, never this text.
 */
#include <scion/monitor.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/cpu.h>
#include <scion/mm.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/format.h>
#include "monitor_internal.h"

#define THREAD_ROWS_MAX 256

static const char *kind_name(const struct monitor_source *s)
{
	return s->kind == MONITOR_COUNTER ? "counter" : "gauge";
}

static void print_source(const struct monitor_source *s)
{
	char values[160] = "";
	size_t at = 0;
	uint64_t v;

	if (s->scope == MONITOR_SCOPE_THREAD) {
		printk("  %-22s %-7s %-8s per thread (monitor threads)\n", s->name, kind_name(s),
		       s->unit);
		return;
	}
	unsigned n = s->scope == MONITOR_SCOPE_CPU ? cpu_count() : 1;
	for (unsigned i = 0; i < n && at < sizeof(values); i++) {
		if (monitor_read(s, i, &v))
			break;
		at += (size_t)snprintf(values + at, sizeof(values) - at, "%s%llu", i ? " " : "",
				       (unsigned long long)v);
	}
	printk("  %-22s %-7s %-8s %s%s\n", s->name, kind_name(s), s->unit,
	       s->scope == MONITOR_SCOPE_CPU ? "per CPU: " : "", values);
}

static int list_threads(void)
{
	const struct monitor_source *sources[MONITOR_THREAD_SOURCES_MAX];
	unsigned n = 0;

	for (const struct monitor_source *s = monitor_source_next(NULL); s;
	     s = monitor_source_next(s))
		if (s->scope == MONITOR_SCOPE_THREAD && n < MONITOR_THREAD_SOURCES_MAX)
			sources[n++] = s;
	struct monitor_thread_row *rows = kmalloc(THREAD_ROWS_MAX * sizeof(*rows));
	if (!rows) {
		printk("monitor: no memory for the thread table\n");
		return -ENOMEM;
	}
	int threads = monitor_read_threads(sources, n, rows, THREAD_ROWS_MAX);
	printk("  %6s %-23s", "tid", "name");
	for (unsigned i = 0; i < n; i++)
		printk(" %20s", sources[i]->name);
	printk("\n");
	for (int r = 0; r < threads && r < THREAD_ROWS_MAX; r++) {
		printk("  %6llu %-23s", (unsigned long long)rows[r].tid, rows[r].name);
		for (unsigned i = 0; i < n; i++)
			printk(" %20llu", (unsigned long long)rows[r].value[i]);
		printk("\n");
	}
	if (threads > THREAD_ROWS_MAX)
		printk("  (%d more threads not shown)\n", threads - THREAD_ROWS_MAX);
	kfree(rows);
	return 0;
}

static int cmd_monitor(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "threads"))
		return list_threads();
	if (argc >= 2 && !strcmp(argv[1], "config"))
		return monitor_cmd_config(argc, argv);
	if (argc != 1 && !(argc == 2 && !strcmp(argv[1], "sources"))) {
		printk("monitor: usage: monitor [sources | threads]\n");
		return -EINVAL;
	}
	printk("  %-22s %-7s %-8s %s\n", "source", "kind", "unit", "value");
	unsigned n = 0;
	for (const struct monitor_source *s = monitor_source_next(NULL); s;
	     s = monitor_source_next(s), n++)
		print_source(s);
	printk("%u sources\n", n);
	return 0;
}
SHELL_COMMAND(monitor, "[sources | threads]",
	      "the statistics sources every module publishes, with their values now", cmd_monitor);
