// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell: `graft points [-v]`, `graft avail`, `graft install NAME [TID]`,
 * `graft remove NAME`, `graft list`, `graft budget POINT US`,
 * `graft locks`, `graft txn`. Every error is one line naming what was
 * asked and what to do.
 */
#include <scion/graft.h>
#include <scion/proc.h>
#include <scion/txn.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/channel.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/cpu.h>
#include <arch/timer.h>
#include "graft_internal.h"

static unsigned installed_count(const struct graft_point *p)
{
	unsigned n = 0;
	for (unsigned i = 0; i < GRAFT_POINT_MAX_INSTALLED; i++)
		if (READ_ONCE(p->state->installed[i]))
			n++;
	return n;
}

static int graft_points_cmd(int argc, char **argv)
{
	bool verbose = argc == 3 && !strcmp(argv[2], "-v");
	if (argc > 3 || (argc == 3 && !verbose)) {
		printk("graft: usage: graft points [-v]\n");
		return -EINVAL;
	}
	printk("%-20s %-6s %-9s %-10s %s\n", "point", "kind", "installed", "budget", "signature");
	LINKER_TABLE_FOREACH(struct graft_point, graft_points, p) {
		printk("%-20s %-6s %-9u %-7u us %s\n", p->name,
		       p->kind == GRAFT_KIND_METHOD ? "method" : "event", installed_count(p),
		       READ_ONCE(p->state->budget_us), p->signature);
		if (verbose)
			printk("    %s\n", p->contract);
	}
	return 0;
}

static int graft_avail(int argc, char **argv)
{
	(void)argv;
	if (argc != 2) {
		printk("graft: usage: graft avail\n");
		return -EINVAL;
	}
	const struct graft_boot_module *m;
	unsigned n = graft_boot_modules(&m);
	if (!n)
		printk("graft: no graft modules were booted (make run GRAFTS=\"...\")\n");
	for (unsigned i = 0; i < n; i++) {
		if (m[i].graft)
			printk("%-24s %6zu bytes  '%s' for %s, version %u%s\n", m[i].source, m[i].size,
			       m[i].graft->name, m[i].graft->point->name, m[i].graft->version,
			       READ_ONCE(m[i].graft->installed) ? ", installed" : "");
		else
			printk("%-24s %6zu bytes  refused: %s\n", m[i].source, m[i].size, m[i].error);
	}
	return 0;
}

/* One line for the console and the same as an event for the host. */
static __printf(1, 2) void announce(const char *fmt, ...)
{
	char line[256];	/* the event keeps the first CHAN_EVENT_TEXT_MAX - 1 */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printk("%s\n", line);
	channel_event("%s", line);
}

static struct graft *named_graft(const char *name)
{
	struct graft *g = graft_find(name);
	if (!g)
		printk("graft: no graft named '%s' is loaded (`graft avail` lists them)\n", name);
	return g;
}

static int graft_install_cmd(int argc, char **argv)
{
	uint64_t tid = 0, pid = 0;
	char err[128];

	if (argc == 5 && !strcmp(argv[3], "pid")) {
		if (parse_u64(argv[4], &pid, false) || !pid || pid > INT32_MAX ||
		    !(tid = proc_thread_id((int)pid))) {
			printk("graft: install: no process %s (`ps` lists them)\n", argv[4]);
			return -ESRCH;
		}
	} else if (argc < 3 || argc > 4 || (argc == 4 && (parse_u64(argv[3], &tid, false) || !tid))) {
		printk("graft: usage: graft install NAME [TID | pid PID] (TID: a thread id from "
		       "`threads`, PID: a process from `ps`)\n");
		return -EINVAL;
	}
	struct graft *g = named_graft(argv[2]);
	if (!g)
		return -ENOENT;
	int e = graft_install(g, tid, err, sizeof(err));
	if (e) {
		printk("graft: install %s: %s\n", g->name, err);
		return e;
	}
	if (pid)
		announce("graft: '%s' installed at %s for process %llu (until it exits)", g->name,
			 g->point->name, (unsigned long long)pid);
	else if (tid)
		announce("graft: '%s' installed at %s for thread %llu", g->name, g->point->name,
			 (unsigned long long)tid);
	else
		announce("graft: '%s' installed at %s", g->name, g->point->name);
	return 0;
}

static int graft_remove_cmd(int argc, char **argv)
{
	if (argc != 3) {
		printk("graft: usage: graft remove NAME\n");
		return -EINVAL;
	}
	struct graft *g = named_graft(argv[2]);
	if (!g)
		return -ENOENT;
	if (graft_remove(g)) {
		printk("graft: remove %s: it is not installed\n", g->name);
		return -ENOENT;
	}
	announce("graft: '%s' removed from %s", g->name, g->point->name);
	return 0;
}

static void list_one(struct graft *g, void *arg)
{
	char why[112], scope[24];
	struct graft_counts n;
	uint64_t hz = arch_cycles_per_second();
	uint64_t us = hz ? READ_ONCE(g->cycles) / (hz / 1000000 ? hz / 1000000 : 1) : 0;

	(*(unsigned *)arg)++;
	graft_counts(g, &n);
	if (g->installed && g->scope_tid)
		snprintf(scope, sizeof(scope), "tid %llu", (unsigned long long)g->scope_tid);
	else
		strlcpy(scope, g->installed ? "global" : "-", sizeof(scope));
	printk("%-16s %-18s %-10s %-9s %10llu %8llu %7llu %10llu %s\n", g->name, g->point->name,
	       scope, g->installed ? "installed" : "loaded", (unsigned long long)n.invocations,
	       (unsigned long long)n.commits, (unsigned long long)n.aborts,
	       (unsigned long long)us, g->builtin ? "built-in" : g->sandboxed ? "sandboxed" : "trusted");
	graft_last_abort(g, why, sizeof(why));
	if (why[0])
		printk("    last abort: %s\n", why);
}

static int graft_list(int argc, char **argv)
{
	(void)argv;
	if (argc != 2) {
		printk("graft: usage: graft list\n");
		return -EINVAL;
	}
	unsigned n = 0;
	printk("%-16s %-18s %-10s %-9s %10s %8s %7s %10s %s\n", "graft", "point", "scope", "state",
	       "invocations", "commits", "aborts", "time(us)", "mode");
	graft_foreach(list_one, &n);
	if (!n)
		printk("(no grafts loaded)\n");
	printk("graft area: %zu pages in use; %u sandbox windows\n", graft_mem_pages_in_use(),
	       arch_sfi_windows_in_use());
	return 0;
}

static int graft_budget(int argc, char **argv)
{
	uint64_t us;
	if (argc != 4 || parse_u64(argv[3], &us, false) || us > UINT32_MAX) {
		printk("graft: usage: graft budget POINT MICROSECONDS\n");
		return -EINVAL;
	}
	const struct graft_point *p = graft_point_find(argv[2]);
	if (!p) {
		printk("graft: no graft point '%s' (`graft points` lists them)\n", argv[2]);
		return -ENOENT;
	}
	if (graft_point_set_budget(p, (uint32_t)us)) {
		printk("graft: budget %llu us for %s: give 1 to 10000000 us\n", (unsigned long long)us,
		       p->name);
		return -ERANGE;
	}
	printk("graft: %s budget %llu us\n", p->name, (unsigned long long)us);
	return 0;
}

static int graft_locks(int argc, char **argv)
{
	(void)argv;
	if (argc != 2) {
		printk("graft: usage: graft locks\n");
		return -EINVAL;
	}
	for (unsigned i = 0; i < GRAFT_LOCKS; i++) {
		struct txn_lock_info l;
		txn_lock_info(i, &l);
		if (l.owner_cpu < 0)
			printk("lock %u: free (%llu acquisitions)\n", i, (unsigned long long)l.acquisitions);
		else
			printk("lock %u: held by '%s' on cpu %d (%llu acquisitions)\n", i, l.holder,
			       l.owner_cpu, (unsigned long long)l.acquisitions);
	}
	return 0;
}

static int graft_txn(int argc, char **argv)
{
	(void)argv;
	if (argc != 2) {
		printk("graft: usage: graft txn\n");
		return -EINVAL;
	}
	printk("%-4s %10s %10s %8s %8s %6s %5s %5s\n", "cpu", "begun", "committed", "aborted",
	       "not-run", "depth", "undo", "locks");
	for (unsigned c = 0; c < cpu_count(); c++) {
		struct txn_cpu_stats s;
		txn_get_stats(c, &s);
		printk("%-4u %10llu %10llu %8llu %8llu %6u %5u %5u\n", c, (unsigned long long)s.begun,
		       (unsigned long long)s.committed, (unsigned long long)s.aborted,
		       (unsigned long long)s.not_run, s.depth, s.undo_records, s.locks_held);
	}
	return 0;
}

/* `graft stat NAME`: one graft's counters, exact, for people (programs read GRAFT_LIST). */
static int graft_stat(int argc, char **argv)
{
	if (argc != 3) {
		printk("graft: usage: graft stat NAME\n");
		return -EINVAL;
	}
	struct graft *g = named_graft(argv[2]);
	if (!g)
		return -ENOENT;
	struct graft_counts n;

	graft_counts(g, &n);
	printk("graft %s: invocations %llu commits %llu aborts %llu cycles %llu mode %s text %zu "
	       "at 0x%llx\n", g->name, (unsigned long long)n.invocations,
	       (unsigned long long)n.commits, (unsigned long long)n.aborts,
	       (unsigned long long)READ_ONCE(g->cycles),
	       g->builtin ? "built-in" : g->sandboxed ? "sandboxed" : "trusted",
	       (size_t)(g->code_end - g->code_start), (unsigned long long)g->code_start);
	return 0;
}

/* `graft verify NAME`: the sandbox's verifier again over a loaded graft, timed. */
static int graft_verify(int argc, char **argv)
{
	char err[SFI_ERR_MAX + 32];
	uint64_t cycles = 0;

	if (argc != 3) {
		printk("graft: usage: graft verify NAME\n");
		return -EINVAL;
	}
	struct graft *g = named_graft(argv[2]);
	if (!g)
		return -ENOENT;
	int rc = graft_reverify(g, &cycles, err, sizeof(err));
	if (rc) {
		printk("graft: verify %s: %s\n", g->name, err);
		return rc;
	}
	printk("graft %s: verified %zu bytes of text in %llu cycles\n", g->name,
	       (size_t)(g->code_end - g->code_start),
	       (unsigned long long)cycles);
	return 0;
}

static int cmd_graft(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} subs[] = {
		{ "points", graft_points_cmd }, { "avail", graft_avail },
		{ "install", graft_install_cmd }, { "remove", graft_remove_cmd },
		{ "list", graft_list }, { "budget", graft_budget }, { "locks", graft_locks },
		{ "txn", graft_txn }, { "stat", graft_stat }, { "verify", graft_verify },
	};

	for (size_t i = 0; argc >= 2 && i < ARRAY_SIZE(subs); i++)
		if (!strcmp(argv[1], subs[i].name))
			return subs[i].fn(argc, argv);
	printk("graft: usage: graft points|avail|install|remove|list|budget|locks|txn|stat|verify ...\n");
	return -EINVAL;
}
SHELL_COMMAND(graft, "points|avail|install|remove|list|budget|locks|txn|stat|verify ...",
	      "graft points, loaded grafts, installing and removing them", cmd_graft);
