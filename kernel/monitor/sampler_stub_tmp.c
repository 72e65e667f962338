// SPDX-License-Identifier: BSD-2-Clause
/*
 * TEMPORARY: minimal stand-ins for the sampler functions config.c,
 * redflag.c and their tests call (monitor_internal.h's sampler.c part),
 * so the branch that brings the profile configuration links before the
 * real sampler (kernel/monitor/sampler.c, written beside it) lands. It
 * samples nothing: it keeps each source's interval and the burst
 * schedule, numbers the sources in name order, and runs the calendar
 * at real time from boot. Delete this file when sampler.c is merged.
 * Lock order: monitor_lock is a leaf here.
 */
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mutex.h>
#include <scion/string.h>
#include <scion/profile_config.h>
#include "monitor_internal.h"

#define BURST_MS_MAX 60000

static struct mutex monitor_lock = MUTEX_INIT(monitor_lock, "monitor");
static uint32_t interval_ms[MONITOR_SOURCES_MAX];
static uint32_t burst_ms = MONITOR_DEFAULT_BURST_MS, burst_every_s = MONITOR_DEFAULT_BURST_EVERY_S;

unsigned monitor_source_count(void)
{
	unsigned n = 0;
	for (const struct monitor_source *s = monitor_source_next(NULL); s && n < MONITOR_SOURCES_MAX;
	     s = monitor_source_next(s))
		n++;
	return n;
}

const struct monitor_source *monitor_source_at(unsigned index)
{
	const struct monitor_source *s = monitor_source_next(NULL);
	for (unsigned i = 0; s && i < index; i++)
		s = monitor_source_next(s);
	return index < MONITOR_SOURCES_MAX ? s : NULL;
}

int monitor_source_index(const struct monitor_source *s)
{
	for (unsigned i = 0; i < MONITOR_SOURCES_MAX; i++) {
		const struct monitor_source *at = monitor_source_at(i);
		if (!at)
			return -1;
		if (at == s)
			return (int)i;
	}
	return -1;
}

/* name is the source, its resource (the part before the dot), or "*". */
static bool names(const char *pattern, const char *name)
{
	size_t n = strlen(pattern);
	return !strcmp(pattern, "*") || !strcmp(pattern, name) ||
	       (!strncmp(pattern, name, n) && name[n] == '.');
}

int monitor_set_interval(const char *pattern, uint32_t ms, char *why, size_t whylen)
{
	if (ms < PROFILE_MIN_INTERVAL_MS || ms > PROFILE_MAX_INTERVAL_MS) {
		snprintf(why, whylen, "monitor: interval %u ms out of %u..%u", ms,
			 PROFILE_MIN_INTERVAL_MS, PROFILE_MAX_INTERVAL_MS);
		return -EINVAL;
	}
	int changed = 0;
	mutex_lock(&monitor_lock);
	for (unsigned i = 0; i < monitor_source_count(); i++)
		if (names(pattern, monitor_source_at(i)->name)) {
			interval_ms[i] = ms;
			changed++;
		}
	mutex_unlock(&monitor_lock);
	if (!changed) {
		snprintf(why, whylen, "monitor: no source is named '%s'", pattern);
		return -ENOENT;
	}
	return changed;
}

uint32_t monitor_interval_of(unsigned index)
{
	if (index >= MONITOR_SOURCES_MAX)
		return 0;
	return interval_ms[index] ? interval_ms[index] : MONITOR_DEFAULT_INTERVAL_MS;
}

int monitor_set_burst(uint32_t ms, uint32_t every_s, char *why, size_t whylen)
{
	if (ms > BURST_MS_MAX || (ms && (!every_s || (uint64_t)every_s * 1000 < ms))) {
		snprintf(why, whylen, "monitor: a burst of %u ms every %u s is refused", ms, every_s);
		return -EINVAL;
	}
	mutex_lock(&monitor_lock);
	burst_ms = ms;
	burst_every_s = every_s;
	mutex_unlock(&monitor_lock);
	return 0;
}

int64_t monitor_wall_ns(uint64_t mono_ns)
{
	return (int64_t)mono_ns;
}
