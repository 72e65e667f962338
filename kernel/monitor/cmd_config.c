// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell: `monitor config [show]` (cmd_monitor.c dispatches to it), the
 * profile configuration in force for people: its machine and day, each
 * resource's interval, window and red-flag duration, a banded
 * resource's bucket for the time of day now and the flags it raised,
 * and the red flags since boot. The host reads the configuration from
 * the file it sent, never this text. Holds monitor_config_lock while it
 * prints, so what it shows is one configuration.
 */
#include <scion/calendar.h>
#include <scion/clock.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/printk.h>
#include <scion/string.h>
#include "config_internal.h"

#define MS_PER_MIN   60000u
#define MIN_PER_HOUR 60u

static const char *kind_name(uint8_t kind)
{
	return kind == PROFILE_KIND_COUNTER ? "counter" : "gauge";
}

static const char *scope_name(uint8_t scope)
{
	static const char *const names[] = { "global", "cpu", "thread" };
	return scope <= PROFILE_SCOPE_THREAD ? names[scope] : "?";
}

/* Whether resource r names a source; its index into *index. */
static bool source_of(const struct monitor_config *cfg, unsigned r, unsigned *index)
{
	for (unsigned s = 0; s < MONITOR_SOURCES_MAX; s++)
		if (cfg->resource_of[s] == (int)r) {
			*index = s;
			return true;
		}
	return false;
}

static void print_resource(const struct monitor_config *cfg, unsigned r, int64_t wall_ns)
{
	const struct profile_config_resource *res = &cfg->resource[r];
	char band[96] = "(no bands)", e[24], lo[24], hi[24], flags[24] = "";
	unsigned index = 0;
	bool known = source_of(cfg, r, &index);

	if (res->flags & PROFILE_FLAG_BANDED) {
		const struct profile_config_bucket *b = monitor_config_bucket(cfg, r, wall_ns);
		uint64_t k = (uint64_t)(b - &cfg->bucket[(size_t)r * cfg->head.bucket_count]);
		unsigned start_min = (unsigned)(k * cfg->head.bucket_ms / MS_PER_MIN);
		monitor_config_format_value(b->expected, e, sizeof(e));
		monitor_config_format_value(b->low, lo, sizeof(lo));
		monitor_config_format_value(b->high, hi, sizeof(hi));
		snprintf(band, sizeof(band), "%02u:%02u %s [%s, %s]", start_min / MIN_PER_HOUR,
			 start_min % MIN_PER_HOUR, e, lo, hi);
	}
	if (!known)
		strlcpy(flags, "(no such source)", sizeof(flags));
	else if (res->flags & PROFILE_FLAG_BANDED)
		snprintf(flags, sizeof(flags), "%u", monitor_redflag_raised_locked(index));
	printk("  %-22s %-7s %-6s %8u %9u %10u  %-40s %s\n", res->name, kind_name(res->kind),
	       scope_name(res->scope), res->interval_ms, res->window_ms, res->duration_ms, band,
	       flags);
}

static void show_locked(const struct monitor_config *cfg)
{
	char day[16], made[16];
	int64_t wall_ns = monitor_wall_ns(clock_ns());
	uint32_t flags = 0;

	calendar_format_date(cfg->head.valid_day, day, sizeof(day));
	calendar_format_date(cfg->head.generated, made, sizeof(made));
	printk("profile config: for %s (machine %s), written %s: %u resources (%u unknown), "
	       "%u buckets of %u ms, bursts of %u ms every %u s\n", day, cfg->head.machine, made,
	       cfg->head.resource_count, cfg->unknown, cfg->head.bucket_count, cfg->head.bucket_ms,
	       cfg->head.burst_ms, cfg->head.burst_every_s);
	printk("  %-22s %-7s %-6s %8s %9s %10s  %-40s %s\n", "resource", "kind", "scope",
	       "interval", "window", "duration", "bucket now: expected [low, high]", "red flags");
	printk("  %-22s %-7s %-6s %8s %9s %10s\n", "", "", "", "ms", "ms", "ms");
	for (unsigned r = 0; r < cfg->head.resource_count; r++)
		print_resource(cfg, r, wall_ns);
	for (unsigned s = 0; s < MONITOR_SOURCES_MAX; s++)
		flags += monitor_redflag_raised_locked(s);
	printk("red flags: %u under this configuration, %llu since boot\n", flags,
	       (unsigned long long)monitor_redflag_count());
}

int monitor_cmd_config(int argc, char **argv)
{
	if (argc > 3 || (argc == 3 && strcmp(argv[2], "show"))) {
		printk("monitor: usage: monitor config [show]\n");
		return -EINVAL;
	}
	mutex_lock(&monitor_config_lock);
	if (monitor_config_current)
		show_locked(monitor_config_current);
	else
		printk("no profile configuration loaded (red flags since boot: %llu)\n",
		       (unsigned long long)monitor_redflag_count());
	mutex_unlock(&monitor_config_lock);
	return 0;
}
