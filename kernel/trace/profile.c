// SPDX-License-Identifier: BSD-2-Clause
/*
 * The profile provider: probes that fire on a timer, created when a
 * description names them (DTrace's naming):
 *   profile:::profile-N[unit]  on every CPU, N per second (or every N
 *                              units): arg0 the interrupted kernel pc
 *   profile:::tick-N[unit]     on one CPU (CPU 0) at that rate
 * Units: ns nsec us usec ms msec s sec m min h hour d day hz; no unit
 * is hz. They ride the clock interrupt, so a period shorter than one
 * tick (1/HZ) is refused rather than silently slowed down.
 *
 * Invariant: profiles[] only grows (under the probe registry's mutex,
 * which provide_named runs under); the tick reads nprofiles with
 * acquire ordering and then only entries below it. next[] of a CPU is
 * touched by that CPU's interrupt alone.
 */
#include <scion/probe.h>
#include <scion/trace.h>
#include <scion/clock.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/cpu.h>
#include <arch/cpu.h>
#include <arch/trap.h>

#define PROFILE_MAX 32
#define NS_PER_S 1000000000ull

struct profile_probe {
	struct probe *probe;		/* set once */
	uint64_t period_ns;		/* set once */
	bool tick;			/* set once: one CPU only */
	uint64_t next[MAX_CPUS];	/* own CPU's interrupt: when it fires next */
};

static struct profile_probe profiles[PROFILE_MAX];
static unsigned nprofiles;	/* registry mutex to grow; read by the tick */

static const struct {
	const char *name;
	uint64_t ns;			/* 0: hz */
} units[] = {
	{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 }, { "ms", 1000000 },
	{ "msec", 1000000 }, { "s", NS_PER_S }, { "sec", NS_PER_S }, { "m", 60 * NS_PER_S },
	{ "min", 60 * NS_PER_S }, { "h", 3600 * NS_PER_S }, { "hour", 3600 * NS_PER_S },
	{ "d", 86400 * NS_PER_S }, { "day", 86400 * NS_PER_S }, { "hz", 0 }, { "", 0 },
};

/* "97", "10ms", "1s" -> nanoseconds between firings; 0 if malformed. */
static uint64_t parse_period(const char *text)
{
	uint64_t n = 0;
	const char *p = text;
	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9') {
		if (n > UINT64_MAX / 10 / NS_PER_S)
			return 0;
		n = n * 10 + (uint64_t)(*p++ - '0');
	}
	if (!n)
		return 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(p, units[i].name))
			return units[i].ns ? n * units[i].ns : NS_PER_S / n;
	return 0;
}

static int profile_provide_named(const char *module, const char *function, const char *name,
				 const char **why)
{
	bool tick = !strncmp(name, "tick-", 5);
	if (*module || *function || (!tick && strncmp(name, "profile-", 8)))
		return 0;
	if (probe_find("profile", "", "", name))
		return 0;
	uint64_t period = parse_period(name + (tick ? 5 : 8));
	if (!period) {
		*why = "give profile-N or tick-N with an optional unit (ns us ms s m h d hz)";
		return -EINVAL;
	}
	if (period < NS_PER_S / HZ) {
		*why = "faster than the clock tick: profile and tick probes fire at most HZ "
		       "(100) times a second";
		return -EINVAL;
	}
	if (nprofiles == PROFILE_MAX) {
		*why = "too many different profile probes";
		return -ENOSPC;
	}
	struct probe *p = probe_create_soft("profile", "", "", name, false);
	if (!p) {
		*why = "out of memory";
		return -ENOMEM;
	}
	struct profile_probe *pp = &profiles[nprofiles];
	pp->probe = p;
	pp->period_ns = period;
	pp->tick = tick;
	__atomic_store_n(&nprofiles, nprofiles + 1, __ATOMIC_RELEASE);
	return 0;
}
PROBE_PROVIDER(profile_provider, "profile", NULL, profile_provide_named);

void profile_tick(void)
{
	unsigned n = __atomic_load_n(&nprofiles, __ATOMIC_ACQUIRE);
	if (!n)
		return;
	unsigned cpu = this_cpu_index();
	uint64_t now = 0;
	for (unsigned i = 0; i < n; i++) {
		struct profile_probe *pp = &profiles[i];
		if (!__atomic_load_n(&pp->probe->soft->live, __ATOMIC_RELAXED)) {
			pp->next[cpu] = 0;
			continue;
		}
		if (pp->tick && cpu != 0)
			continue;
		if (!now)
			now = clock_ns();
		if (!pp->next[cpu]) {
			/* Just enabled: the first firing is one period away, as in DTrace. */
			pp->next[cpu] = now + pp->period_ns;
			continue;
		}
		/* Ticks jitter: one due within half a tick fires now, not a whole tick late. */
		if (now + NS_PER_S / HZ / 2 < pp->next[cpu])
			continue;
		/* Behind by more than a period (a long masked stretch): restart from now. */
		pp->next[cpu] = (now < pp->next[cpu] || now - pp->next[cpu] < pp->period_ns ?
				 pp->next[cpu] : now) + pp->period_ns;
		struct trap_frame *irq = arch_interrupted_frame();
		struct trap_frame frame = { 0 };
		if (irq)
			frame = *irq;
		else
			trap_frame_capture(&frame);
		trap_frame_set_arg(&frame, 0, trap_frame_pc(&frame));
		trap_frame_set_arg(&frame, 1, 0);
		probe_fire_consumers(pp->probe, &frame);
	}
}
