// SPDX-License-Identifier: BSD-2-Clause
/*
 * The profile provider: probes that fire on a timer, created when a
 * description names them (DTrace's naming):
 *   profile:::profile-N[unit]  on every CPU, N per second (or every N
 *                              units): arg0 the interrupted kernel pc
 *   profile:::tick-N[unit]     on one CPU (CPU 0) at that rate
 * Units: ns nsec us usec ms msec s sec m min h hour d day hz; no unit
 * is hz. They ride the clock interrupt (profile_tick, on every timer
 * interrupt of every CPU). A probe faster than the tick (HZ) makes the
 * clock interrupt that CPU more often while it is enabled: profile_tick
 * asks for ceil(tick / period) interrupts a tick for the fastest live
 * probe on the CPU (clock_want_profile_factor; 50 for profile-5000, an
 * interrupt exactly every period), and drops back to one a tick once
 * none is live; the tick itself stays HZ. The machine's timer bounds the
 * rate (arch_timer_max_hz: 10 kHz on x86, 1 kHz on sparc64); a
 * faster probe is refused with one line naming that bound, never
 * silently slowed down.
 *
 * A probe fires on the first interrupt within half an interrupt interval
 * of its due time, and the next due time is one period after the last
 * (not after now), so jitter does not accumulate: over an interval the
 * count is the period's, give or take one firing (a CPU behind by more
 * than a period restarts from now, losing those firings).
 *
 * Invariant: profiles[] only grows (under the probe registry's mutex,
 * which provide_named runs under); the tick reads nprofiles with
 * acquire ordering and then only entries below it. next[] of a CPU is
 * touched by that CPU's interrupt alone.
 * Lock order: none taken in the interrupt; provide_named runs under the
 * registry's mutex.
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
#include <arch/timer.h>

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
	uint64_t most = arch_timer_max_hz();
	if (period < NS_PER_S / most) {
		static char refusal[128];	/* registry mutex */
		snprintf(refusal, sizeof(refusal), "faster than %llu Hz: profile and tick probes "
			 "fire at most %llu times a second on this machine (its timer's bound)",
			 (unsigned long long)most, (unsigned long long)most);
		*why = refusal;
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

void profile_tick(uint64_t interval_ns)
{
	unsigned n = __atomic_load_n(&nprofiles, __ATOMIC_ACQUIRE);
	if (!n)
		return;
	unsigned cpu = this_cpu_index();
	uint64_t now = 0, fastest = 0;
	for (unsigned i = 0; i < n; i++) {
		struct profile_probe *pp = &profiles[i];
		if (!__atomic_load_n(&pp->probe->soft->live, __ATOMIC_RELAXED)) {
			pp->next[cpu] = 0;
			continue;
		}
		if (pp->tick && cpu != 0)
			continue;
		if (!fastest || pp->period_ns < fastest)
			fastest = pp->period_ns;
		if (!now)
			now = clock_ns();
		if (!pp->next[cpu]) {
			/* Just enabled: the first firing is one period away, as in DTrace. */
			pp->next[cpu] = now + pp->period_ns;
			continue;
		}
		/* Interrupts jitter: one due within half an interval fires now, not an interval late. */
		if (now + interval_ns / 2 < pp->next[cpu])
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
	/* The rate this CPU's live probes need: an interrupt every period of the fastest. */
	uint64_t tick_ns = NS_PER_S / HZ;
	clock_want_profile_factor(fastest && fastest < tick_ns ?
				  (unsigned)((tick_ns + fastest - 1) / fastest) : 1);
}
