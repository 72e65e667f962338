// SPDX-License-Identifier: BSD-2-Clause
/*
 * Step 1 of the adaptation loop, detection: the block cache's demand
 * reads and hits sampled every ADAPT_TICK_MS into a ring, and the hit
 * ratio over the rule's window (`adapt rule bcache.hit_ratio < 0.60 for
 * 2s`) in permille, from the difference of the newest sample and the
 * one the window's length before it: no floating point. A window with
 * fewer than min_reads reads reaches further back, up to the ring's
 * length; one that still has fewer is not judged (an idle cache has no
 * ratio).
 * The other trigger is the monitor's red flags (kernel/monitor/
 * redflag.c): one raised for a bcache.* or sched.* source is noted here
 * and taken by the loop's next tick, with the module it suspects.
 * Everything here runs with adapt.lock held (adapt_internal.h), but the
 * red flag's note, which the measurement thread makes under
 * pending_lock (a spinlock taken alone).
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/monitor.h>
#include <scion/spinlock.h>
#include "adapt_internal.h"

/* The sources whose red flags start a decision, and the module each suspects. */
static const struct { const char *prefix; enum adapt_module module; } suspects[] = {
	{ "bcache.", ADAPT_MODULE_BCACHE }, { "sched.", ADAPT_MODULE_SCHED },
};

static struct spinlock pending_lock = SPINLOCK_INIT("adapt_redflag");
static bool pending;				/* pending_lock */
static struct monitor_redflag pending_flag;	/* pending_lock; source: a kernel string */
static enum adapt_module pending_module;	/* pending_lock */

/* Runs on the monitor's measurement thread: the flag is noted, the loop acts on it. */
static void note_redflag(const struct monitor_redflag *flag)
{
	unsigned k = 0;
	while (k < ARRAY_SIZE(suspects) &&
	       strncmp(flag->source, suspects[k].prefix, strlen(suspects[k].prefix)))
		k++;
	if (k == ARRAY_SIZE(suspects))
		return;
	irqflags_t irq = spin_lock_irqsave(&pending_lock);
	pending = true;
	pending_flag = *flag;
	pending_module = suspects[k].module;
	spin_unlock_irqrestore(&pending_lock, irq);
}

int adapt_redflag_subscribe(void)
{
	return monitor_redflag_subscribe(note_redflag);
}

bool adapt_redflag_take(char *line, size_t n, enum adapt_module *module)
{
	char value[24], low[24], high[24];
	irqflags_t irq = spin_lock_irqsave(&pending_lock);
	bool was = pending;
	struct monitor_redflag f = pending_flag;
	*module = pending_module;
	pending = false;
	spin_unlock_irqrestore(&pending_lock, irq);
	if (!was)
		return false;
	monitor_config_format_value(f.value, value, sizeof(value));
	monitor_config_format_value(f.low, low, sizeof(low));
	monitor_config_format_value(f.high, high, sizeof(high));
	snprintf(line, n, "%s %s outside [%s, %s] for %llu ms", f.source, value, low, high,
		 (unsigned long long)f.outside_ms);
	return true;
}

void adapt_window_reset(void)
{
	adapt.next = 0;
	adapt.filled = 0;
}

void adapt_window_sample(const struct adapt_sample *now)
{
	adapt.window[adapt.next] = *now;
	adapt.next = (adapt.next + 1) % ADAPT_WINDOW_MAX;
	if (adapt.filled < ADAPT_WINDOW_MAX)
		adapt.filled++;
}

/*
 * The window is the rule's length, stretched back (up to the ring's 10 s)
 * until it holds min_reads reads: a workload of few, slow requests is
 * judged on enough of them rather than on one command's worth.
 */
bool adapt_window_ratio(uint32_t *permille, uint64_t *reads)
{
	unsigned span = adapt.cfg.window_ms / ADAPT_TICK_MS;

	if (span < 1)
		span = 1;
	if (span >= ADAPT_WINDOW_MAX)
		span = ADAPT_WINDOW_MAX - 1;
	*reads = 0;
	if (adapt.filled <= span)
		return false;
	const struct adapt_sample *newest =
		&adapt.window[(adapt.next + ADAPT_WINDOW_MAX - 1) % ADAPT_WINDOW_MAX];
	const struct adapt_sample *oldest;
	for (;; span++) {
		oldest = &adapt.window[(adapt.next + ADAPT_WINDOW_MAX - 1 - span) % ADAPT_WINDOW_MAX];
		*reads = newest->reads - oldest->reads;
		if (*reads >= adapt.cfg.min_reads || span + 1 >= adapt.filled)
			break;
	}
	if (*reads < adapt.cfg.min_reads || *reads == 0)
		return false;
	*permille = (uint32_t)((newest->hits - oldest->hits) * 1000 / *reads);
	return true;
}

void adapt_format_ratio(char *buf, size_t n, uint32_t permille)
{
	snprintf(buf, n, "%u.%03u", permille / 1000, permille % 1000);
}

/* "0.6", "0.60", ".6", "1" as permille; false if it is none or above 1. */
static bool parse_ratio(const char *s, uint32_t *permille)
{
	uint32_t whole = 0, frac = 0, scale = 100;
	bool digits = false;

	for (; *s >= '0' && *s <= '9'; s++, digits = true)
		whole = whole * 10 + (uint32_t)(*s - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, digits = true, scale /= 10)
			frac += scale ? (uint32_t)(*s - '0') * scale : 0;
	if (*s || !digits || whole > 1 || (whole == 1 && frac))
		return false;
	*permille = whole * 1000 + frac;
	return true;
}

/* "2s", "500ms", "1500" (ms) as milliseconds. */
static bool parse_duration(const char *s, uint32_t *ms)
{
	char num[16];
	size_t len = strlen(s), unit = 1;
	const char *digits_end = s;

	while (*digits_end >= '0' && *digits_end <= '9')
		digits_end++;
	if (!strcmp(digits_end, "s"))
		unit = 1000;
	else if (*digits_end && strcmp(digits_end, "ms"))
		return false;
	len = (size_t)(digits_end - s);
	if (len == 0 || len >= sizeof(num))
		return false;
	memcpy(num, s, len);
	num[len] = '\0';
	uint64_t v;
	if (parse_u64(num, &v, false) || v * unit > 60000 || v * unit < ADAPT_TICK_MS)
		return false;
	*ms = (uint32_t)(v * unit);
	return true;
}

bool adapt_rule_parse(int argc, char **argv, struct adapt_config *cfg, char *why, size_t whylen)
{
	uint32_t threshold, ms;

	if (argc != 5 || strcmp(argv[0], "bcache.hit_ratio") || strcmp(argv[1], "<") ||
	    strcmp(argv[3], "for")) {
		snprintf(why, whylen, "a rule is `adapt rule bcache.hit_ratio < RATIO for DURATION`"
			 " (e.g. 0.60 for 2s)");
		return false;
	}
	if (!parse_ratio(argv[2], &threshold)) {
		snprintf(why, whylen, "'%s' is not a ratio from 0 to 1 (e.g. 0.60)", argv[2]);
		return false;
	}
	if (!parse_duration(argv[4], &ms)) {
		snprintf(why, whylen, "'%s' is not a duration from %ums to 60s (e.g. 2s, 500ms)",
			 argv[4], ADAPT_TICK_MS);
		return false;
	}
	cfg->threshold_permille = threshold;
	cfg->window_ms = ms;
	return true;
}
