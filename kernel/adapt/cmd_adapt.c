// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell: `adapt` drives the adaptation loop (adapt_internal.h):
 *   adapt on | off | dry-run        dry-run decides and logs, never installs
 *   adapt [status]                  mode, phase, rule, limits, counters
 *   adapt log                       the last steps of every decision
 *   adapt rule bcache.hit_ratio < 0.60 for 2s
 *   adapt limits recordings=N installs=N        per hour
 *   adapt tune KEY=N ...            margin (permille of requests), min-reads,
 *                                   record-reads, record-ms, watch-reads,
 *                                   dwell-ms, blacklist-ms, recheck-ms,
 *                                   scope (permille of requests), keep-logs,
 *                                   sched-record-ms
 * Every bad input gets one line starting "adapt:" and changes nothing.
 * Commands take adapt.lock, so they wait while a decision simulates.
 */
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/clock.h>
#include <scion/errno.h>
#include "adapt_internal.h"

#define USAGE "adapt [status] | on | off | dry-run | log | rule bcache.hit_ratio < RATIO for " \
	"DURATION | limits recordings=N installs=N | tune KEY=N ..."

static uint64_t adapt_settled_left_ms(uint64_t now)
{
	uint64_t at = adapt.settled_ns +
		      (((uint64_t)adapt.cfg.recheck_ms * 1000000) << adapt.recheck_shift);
	return at > now ? (at - now) / 1000000 : 0;
}

static void print_status(void)
{
	char t[16];
	uint64_t now = clock_ns();

	adapt_format_ratio(t, sizeof(t), adapt.cfg.threshold_permille);
	printk("adapt: %s, %s; rule bcache.hit_ratio < %s for %u ms (at least %u reads)\n",
	       adapt_mode_name(adapt.mode), adapt_phase_name(adapt.phase), t, adapt.cfg.window_ms,
	       adapt.cfg.min_reads);
	printk("  margin %u permille of requests; record %u reads or %u ms; watch %u reads; "
	       "dwell %u ms; blacklist %u ms\n", adapt.cfg.margin_permille, adapt.cfg.record_reads,
	       adapt.cfg.record_max_ms, adapt.cfg.watch_reads, adapt.cfg.dwell_ms,
	       adapt.cfg.blacklist_ms);
	printk("  triggers: the rule and red flags on bcache.* (the block cache), on sched.* "
	       "(the scheduler: recorded for %u ms)\n", adapt.cfg.sched_record_ms);
	printk("  a settled loop rechecks after "
	       "%u ms (now %u times that); a process with %u permille of the requests gets its "
	       "own graft; rows' logs %s\n", adapt.cfg.recheck_ms, 1u << adapt.recheck_shift,
	       adapt.cfg.scope_permille, adapt.cfg.keep_logs ? "kept" : "dropped");
	printk("  limits: %u/%u recordings and %u/%u installs this hour\n",
	       adapt.recordings_this_hour, adapt.cfg.recordings_per_hour, adapt.installs_this_hour,
	       adapt.cfg.installs_per_hour);
	printk("  ticks %llu (every %u ms), window: %u samples\n", (unsigned long long)adapt.ticks,
	       ADAPT_TICK_MS, adapt.filled);
	printk("  decisions %llu, flags %llu, recordings %llu, installs %llu, reverts %llu, "
	       "refused by limits or busy %llu\n", (unsigned long long)adapt.decisions,
	       (unsigned long long)adapt.flags, (unsigned long long)adapt.recordings,
	       (unsigned long long)adapt.installs, (unsigned long long)adapt.reverts,
	       (unsigned long long)adapt.refusals);
	if (adapt.have_installed) {
		char inst[ADAPT_NAME_MAX], repl[ADAPT_NAME_MAX], scope[40] = "";
		adapt_pair_short(&adapt.installed, inst, sizeof(inst));
		adapt_pair_short(&adapt.replaced, repl, sizeof(repl));
		if (adapt.installed_pid)
			snprintf(scope, sizeof(scope), " for process %llu",
				 (unsigned long long)adapt.installed_pid);
		printk("  installed by the loop: %s in place of %s%s\n", inst, repl, scope);
	} else {
		printk("  installed by the loop: none\n");
	}
	if (adapt.have_sched_installed)
		printk("  pick-next policy installed by the loop: %s in place of %s\n",
		       adapt.sched_installed, adapt.sched_replaced);
	if (adapt.settled)
		printk("  settled at hit ratio %u.%03u: no flag until it is worse by the margin or "
		       "%llu ms pass\n", adapt.settled_permille / 1000, adapt.settled_permille % 1000,
		       (unsigned long long)adapt_settled_left_ms(now));
	for (unsigned k = 0; k < ADAPT_BLACKLIST_MAX; k++)
		if (adapt.blacklist[k].until_ns > now)
			printk("  blacklisted: %s for %llu ms more\n", adapt.blacklist[k].name,
			       (unsigned long long)((adapt.blacklist[k].until_ns - now) / 1000000));
}

/* KEY=N with N in [lo, hi] into *field; false with a line printed. */
static bool set_key(const char *arg, const char *key, uint32_t *field, uint64_t lo, uint64_t hi,
		    bool *matched)
{
	size_t len = strlen(key);
	uint64_t v;

	if (strncmp(arg, key, len) || arg[len] != '=')
		return true;
	*matched = true;
	if (parse_u64(arg + len + 1, &v, false) || v < lo || v > hi) {
		printk("adapt: '%s': %s is a number from %llu to %llu\n", arg, key,
		       (unsigned long long)lo, (unsigned long long)hi);
		return false;
	}
	*field = (uint32_t)v;
	return true;
}

/* Every KEY=N of argv checked into a copy of cfg, then applied: all or nothing. */
static int set_keys(int argc, char **argv, const char *const *keys, uint32_t **fields,
		    const uint64_t (*bounds)[2], unsigned nkeys, struct adapt_config *copy)
{
	for (int a = 0; a < argc; a++) {
		bool matched = false;
		for (unsigned k = 0; k < nkeys; k++)
			if (!set_key(argv[a], keys[k], fields[k], bounds[k][0], bounds[k][1], &matched))
				return -EINVAL;
		if (!matched) {
			printk("adapt: '%s': not one of", argv[a]);
			for (unsigned k = 0; k < nkeys; k++)
				printk(" %s=N", keys[k]);
			printk("\n");
			return -EINVAL;
		}
	}
	adapt.cfg = *copy;
	return 0;
}

static int cmd_limits(int argc, char **argv)
{
	struct adapt_config c = adapt.cfg;
	static const char *const keys[] = { "recordings", "installs" };
	uint32_t *fields[] = { &c.recordings_per_hour, &c.installs_per_hour };
	static const uint64_t bounds[][2] = { { 0, 3600 }, { 0, 3600 } };
	if (argc < 1) {
		printk("adapt: limits recordings=N installs=N (per hour)\n");
		return -EINVAL;
	}
	return set_keys(argc, argv, keys, fields, bounds, 2, &c);
}

static int cmd_tune(int argc, char **argv)
{
	struct adapt_config c = adapt.cfg;
	static const char *const keys[] = { "margin", "min-reads", "record-reads", "record-ms",
					    "watch-reads", "dwell-ms", "blacklist-ms", "recheck-ms",
					    "scope", "keep-logs", "sched-record-ms" };
	uint32_t *fields[] = { &c.margin_permille, &c.min_reads, &c.record_reads,
			       &c.record_max_ms, &c.watch_reads, &c.dwell_ms, &c.blacklist_ms,
			       &c.recheck_ms, &c.scope_permille, &c.keep_logs,
			       &c.sched_record_ms };
	static const uint64_t bounds[][2] = { { 0, 1000 }, { 1, 1000000 }, { 10, 400000 },
					      { 100, 600000 }, { 10, 1000000 }, { 0, 3600000 },
					      { 0, 86400000 }, { 0, 86400000 }, { 1, 1001 },
					      { 0, 1 }, { 100, 600000 } };
	_Static_assert(ARRAY_SIZE(keys) == ARRAY_SIZE(bounds), "a key without bounds");
	if (argc < 1) {
		printk("adapt: tune KEY=N ...: margin min-reads record-reads record-ms watch-reads "
		       "dwell-ms blacklist-ms recheck-ms scope keep-logs sched-record-ms\n");
		return -EINVAL;
	}
	return set_keys(argc, argv, keys, fields, bounds, ARRAY_SIZE(keys), &c);
}

static int adapt_command(int argc, char **argv)
{
	char why[160];
	static const char *const modes[] = { "off", "on", "dry-run" };

	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "status"))) {
		print_status();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "log")) {
		adapt_log_print();
		return 0;
	}
	for (unsigned m = 0; m < ARRAY_SIZE(modes); m++) {
		if (strcmp(argv[1], modes[m]))
			continue;
		if (argc != 2) {
			printk("adapt: '%s' takes nothing after it\n", modes[m]);
			return -EINVAL;
		}
		if (adapt_set_mode((enum adapt_mode)m)) {
			printk("adapt: no memory for the loop's thread\n");
			return -ENOMEM;
		}
		printk("adapt: %s\n", modes[m]);
		return 0;
	}
	if (!strcmp(argv[1], "rule")) {
		struct adapt_config c = adapt.cfg;
		if (!adapt_rule_parse(argc - 2, argv + 2, &c, why, sizeof(why))) {
			printk("adapt: %s\n", why);
			return -EINVAL;
		}
		adapt.cfg = c;
		adapt_window_reset();
		adapt_format_ratio(why, sizeof(why), c.threshold_permille);
		printk("adapt: rule bcache.hit_ratio < %s for %u ms\n", why, c.window_ms);
		return 0;
	}
	if (!strcmp(argv[1], "limits"))
		return cmd_limits(argc - 2, argv + 2);
	if (!strcmp(argv[1], "tune"))
		return cmd_tune(argc - 2, argv + 2);
	printk("adapt: '%s' is not a command: " USAGE "\n", argv[1]);
	return -EINVAL;
}

static int cmd_adapt(int argc, char **argv)
{
	mutex_lock(&adapt.lock);
	int err = adapt_command(argc, argv);
	mutex_unlock(&adapt.lock);
	return err;
}
SHELL_COMMAND(adapt, "[status] | on | off | dry-run | log | rule ... | limits ... | tune ...",
	      "the closed loop: flag a low hit ratio, record, simulate, install the best policy",
	      cmd_adapt);
