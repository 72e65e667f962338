// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell: `monitor` prints the sampler's state (sampling on or off,
 * intervals, the burst schedule, the calendar, samples written and
 * dropped, the profile configuration, red flags) and every statistics
 * source the modules publish (scion/monitor.h) with its interval and
 * its value now; `monitor threads` reads the per-thread sources of
 * every thread and `monitor processes` the per-process ones of every
 * process (the same statistics summed over each process's threads,
 * those that exited included); the other forms change the sampler as the host's
 * MONITOR op does. For people: the host reads the monitor's samples
 * and state as records, never this text.
 */
#include "monitor_internal.h"
#include <scion/calendar.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/cpu.h>
#include <scion/mm.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/format.h>

#define THREAD_ROWS_MAX 256
#define PROCESS_ROWS_MAX 128

static const char *kind_name(const struct monitor_source *s)
{
	return s->kind == MONITOR_COUNTER ? "counter" : "gauge";
}

static void print_source(const struct monitor_source *s)
{
	char values[160] = "";
	size_t at = 0;
	uint64_t v;

	if (s->scope == MONITOR_SCOPE_THREAD || s->scope == MONITOR_SCOPE_PROCESS) {
		bool thread = s->scope == MONITOR_SCOPE_THREAD;
		printk("  %-22s %-7s %-8s %6u per %s (monitor %s)\n", s->name, kind_name(s),
		       s->unit, monitor_interval_of((unsigned)monitor_source_index(s)),
		       thread ? "thread" : "process", thread ? "threads" : "processes");
		return;
	}
	unsigned n = s->scope == MONITOR_SCOPE_CPU ? cpu_count() : 1;
	for (unsigned i = 0; i < n && at < sizeof(values); i++) {
		if (monitor_read(s, i, &v))
			break;
		at += (size_t)snprintf(values + at, sizeof(values) - at, "%s%llu", i ? " " : "",
				       (unsigned long long)v);
	}
	printk("  %-22s %-7s %-8s %6u %s%s\n", s->name, kind_name(s), s->unit,
	       monitor_interval_of((unsigned)monitor_source_index(s)),
	       s->scope == MONITOR_SCOPE_CPU ? "per CPU: " : "", values);
}

/* The sources of one scope, in name order (at most MONITOR_THREAD_SOURCES_MAX). */
static unsigned sources_of(enum monitor_scope scope, const struct monitor_source **out)
{
	unsigned n = 0;
	for (const struct monitor_source *s = monitor_source_next(NULL); s;
	     s = monitor_source_next(s))
		if (s->scope == scope && n < MONITOR_THREAD_SOURCES_MAX)
			out[n++] = s;
	return n;
}

static void print_header(const char *id, const char *first, const char *second,
			 const struct monitor_source *const *sources, unsigned n)
{
	printk("  %6s %-23s%s", id, first, second);
	for (unsigned i = 0; i < n; i++)
		printk(" %20s", sources[i]->name);
	printk("\n");
}

static void print_values(const uint64_t *value, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		printk(" %20llu", (unsigned long long)value[i]);
	printk("\n");
}

/*
 * `monitor threads` (scope THREAD: tid, name, thread.*) or `monitor
 * processes` (scope PROCESS: pid, name, live threads (0: it exited and
 * is not reaped yet), process.*): one line per thread or process.
 */
static int list_table(enum monitor_scope scope)
{
	bool threads = scope == MONITOR_SCOPE_THREAD;
	const struct monitor_source *sources[MONITOR_THREAD_SOURCES_MAX];
	unsigned n = sources_of(scope, sources);
	int max = threads ? THREAD_ROWS_MAX : PROCESS_ROWS_MAX;
	void *rows = kmalloc((size_t)max * (threads ? sizeof(struct monitor_thread_row)
						    : sizeof(struct monitor_process_row)));
	if (!rows) {
		printk("monitor: no memory for the %s table\n", threads ? "thread" : "process");
		return -ENOMEM;
	}
	struct monitor_thread_row *t = rows;
	struct monitor_process_row *p = rows;
	int got = threads ? monitor_read_threads(sources, n, t, (unsigned)max)
			  : monitor_read_processes(sources, n, p, (unsigned)max);
	print_header(threads ? "tid" : "pid", "name", threads ? "" : " threads", sources, n);
	for (int r = 0; r < got && r < max; r++) {
		if (threads)
			printk("  %6llu %-23s", (unsigned long long)t[r].tid, t[r].name);
		else
			printk("  %6d %-23s %7u", p[r].pid, p[r].name, p[r].threads);
		print_values(threads ? t[r].value : p[r].value, n);
	}
	if (got > max)
		printk("  (%d more %s not shown)\n", got - max, threads ? "threads" : "processes");
	if (!threads)
		printk("%d process%s\n", got < 0 ? 0 : got, got == 1 ? "" : "es");
	kfree(rows);
	return 0;
}

static void print_status(void)
{
	struct monitor_ctl_status st;
	char now[32];

	monitor_get_status(&st);
	calendar_format(st.wall_ns / 1000000000ll, now, sizeof(now));
	printk("sampling %s%s; shortest interval %u ms\n", st.running ? "on" : "off",
	       st.streaming ? ", a monitor stream is open" : "", st.min_interval_ms);
	if (st.burst_ms)
		printk("bursts: %u samples 1 ms apart every %u s of the calendar; %llu so far\n",
		       st.burst_ms, st.burst_every_s, (unsigned long long)st.bursts);
	else
		printk("bursts: off\n");
	printk("calendar: %s, %u.%03u x real time\n", now, st.scale / MONITOR_SCALE_ONE,
	       st.scale % MONITOR_SCALE_ONE);
	printk("rounds %llu, samples written %llu, dropped %llu\n", (unsigned long long)st.rounds,
	       (unsigned long long)st.samples_written, (unsigned long long)st.samples_dropped);
	if (st.config_loaded) {
		char day[16];
		calendar_format_date(st.config_valid_day, day, sizeof(day));
		printk("profile configuration: for %s (monitor config show)\n", day);
	} else {
		printk("profile configuration: none loaded\n");
	}
	printk("red flags raised: %llu\n", (unsigned long long)st.redflags);
}

static int list_sources(bool with_status)
{
	if (with_status)
		print_status();
	printk("  %-22s %-7s %-8s %6s %s\n", "source", "kind", "unit", "ms", "value");
	unsigned n = 0;
	for (const struct monitor_source *s = monitor_source_next(NULL); s;
	     s = monitor_source_next(s), n++)
		print_source(s);
	printk("%u sources\n", n);
	return 0;
}

/* "720" or "0.5" (up to three decimals) in thousandths. */
static bool parse_scale(const char *text, uint32_t *out)
{
	uint64_t whole = 0, frac = 0;
	unsigned digits = 0;
	const char *p = text;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((whole = whole * 10 + (uint64_t)(*p - '0')) > UINT32_MAX)
			return false;
	if (p == text)
		return false;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9' && digits < 3; p++, digits++)
			frac = frac * 10 + (uint64_t)(*p - '0');
	if (*p)
		return false;
	while (digits++ < 3)
		frac *= 10;
	uint64_t v = whole * MONITOR_SCALE_ONE + frac;
	if (v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static int usage(void)
{
	printk("monitor: usage: monitor [sources | threads | processes | start | stop | interval SOURCE|RESOURCE|* MS"
	       " | burst MS EVERY_S | burst now | clock SCALE [YYYY-MM-DD[THH:MM]] | config show]\n");
	return -EINVAL;
}

static int done(int err, const char *why)
{
	if (err < 0)
		printk("monitor: %s\n", why);
	return err < 0 ? err : 0;
}

static int cmd_monitor(int argc, char **argv)
{
	char why[160] = "";
	uint64_t a, b;

	if (argc == 1)
		return list_sources(true);
	const char *verb = argv[1];
	if (argc == 2 && !strcmp(verb, "sources"))
		return list_sources(false);
	if (argc == 2 && !strcmp(verb, "threads"))
		return list_table(MONITOR_SCOPE_THREAD);
	if (argc == 2 && !strcmp(verb, "processes"))
		return list_table(MONITOR_SCOPE_PROCESS);
	if (argc >= 2 && !strcmp(verb, "config"))
		return monitor_cmd_config(argc, argv);
	if (argc == 2 && !strcmp(verb, "start"))
		return done(monitor_start(why, sizeof(why)), why);
	if (argc == 2 && !strcmp(verb, "stop")) {
		monitor_stop();
		return 0;
	}
	if (argc == 4 && !strcmp(verb, "interval")) {
		if (parse_u64(argv[3], &a, false) || a > UINT32_MAX)
			return done(-EINVAL, "give the interval in whole milliseconds");
		int n = monitor_set_interval(argv[2], (uint32_t)a, why, sizeof(why));
		if (n > 0)
			printk("monitor: %d source%s every %llu ms\n", n, n == 1 ? "" : "s",
			       (unsigned long long)a);
		return done(n, why);
	}
	if (argc == 3 && !strcmp(verb, "burst") && !strcmp(argv[2], "now"))
		return done(monitor_burst_now(why, sizeof(why)), why);
	if (argc == 4 && !strcmp(verb, "burst")) {
		if (parse_u64(argv[2], &a, false) || parse_u64(argv[3], &b, false) || a > UINT32_MAX ||
		    b > UINT32_MAX)
			return done(-EINVAL, "give the burst's 1 ms samples and the seconds between bursts");
		return done(monitor_set_burst((uint32_t)a, (uint32_t)b, why, sizeof(why)), why);
	}
	if ((argc == 3 || argc == 4) && !strcmp(verb, "clock")) {
		uint32_t scale;
		int64_t start = 0;
		if (!parse_scale(argv[2], &scale))
			return done(-EINVAL, "give the time scale as a number (720: a day in 2 minutes)");
		if (argc == 4 && calendar_parse(argv[3], &start))
			return done(-EINVAL, "give the calendar's start as YYYY-MM-DD[THH:MM[:SS]] (UTC)");
		return done(monitor_set_clock(scale, start, why, sizeof(why)), why);
	}
	return usage();
}
SHELL_COMMAND(monitor, "[sources | threads | processes | start | stop | interval S MS | burst MS EVERY_S | "
	      "burst now | clock SCALE [START] | config show]",
	      "self-monitoring: the sampler's state and every statistics source", cmd_monitor);
