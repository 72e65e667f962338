// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell: `daily`, a workload that follows the monitor's calendar
 * (monitor_wall_ns), so that a day of profile under a time scale looks
 * like a working day: threads "web-0" .. "web-N-1" demand CPU by an
 * office-hours curve of the time of day (quiet at night, busy from 9 to
 * 17 with a dip at lunch), each a fixed share of it, varied a few
 * percent from day to day; an optional misbehaving thread "rogue"
 * spins during a window of the day. It is what `make nightly` profiles:
 * the analysis must find the rogue's window and name the rogue.
 *
 *   daily start [threads=N] [rogue=HH:MM-HH:MM]   daily rogue HH:MM-HH:MM|off
 *   daily stop                                    daily
 *
 * Each thread repeats: compute for duty * STEP_TICKS ticks, sleep
 * STEP_TICKS ticks; the duty is read from the calendar at each step
 * (steps of several ticks keep the cost of waking up, which emulation
 * inflates, small beside the demand). Nothing busy-waits for time: the
 * sleeping is the scheduler's.
 *
 * `daily` counts the rogue's steps, each begun only after the calendar
 * said its window was open: what it did, beside its thread.cpu, which
 * also holds what it waited for while it ran (the tests' emulator can
 * stop a CPU spinning on a lock for a whole time slice of the other).
 *
 * Invariants: the thread table changes only under daily_lock (start,
 * stop); the rogue window is read without it (READ_ONCE) by the rogue;
 * rogue_steps is written by the rogue only and read anywhere.
 */
#include "monitor_internal.h"
#include <scion/calendar.h>
#include <scion/clock.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mutex.h>
#include <scion/printk.h>
#include <scion/sched.h>
#include <scion/shell.h>
#include <scion/string.h>
#include <scion/thread.h>

#define DAILY_MAX_THREADS  8
#define DAILY_DEFAULT      3
#define PER_MILLE          1000
#define MS_PER_MINUTE      60000u
#define STEP_TICKS         5	/* compute, then sleep this many ticks */
#define STEP_NS            (STEP_TICKS * 1000000000ull / HZ)

/* Office hours: the demand at each hour of the day (per mille), linear in between. */
static const uint16_t level_at_hour[25] = {
	80, 60, 50, 50, 50, 60, 100, 250, 500, 700, 750, 720, 500, 650, 720, 700,
	650, 450, 300, 220, 180, 150, 120, 100, 80,
};
/* Each web thread's share of the demand (per mille). */
static const uint16_t share[DAILY_MAX_THREADS] = { 700, 450, 300, 250, 200, 150, 120, 100 };

static struct mutex daily_lock = MUTEX_INIT(daily_lock, "daily");
static struct thread *threads[DAILY_MAX_THREADS + 1];	/* daily_lock; the last: the rogue */
static unsigned nthreads;				/* daily_lock */
static bool stopping;					/* daily_lock to write; read anywhere */
static int32_t rogue_from = -1, rogue_to = -1;		/* minutes of the day; -1: no rogue */
static uint64_t rogue_steps;				/* steps the rogue began in its window */

static int64_t now_wall_ns(void)
{
	return monitor_wall_ns(clock_ns());
}

/* Minutes since midnight of calendar time wall. */
static unsigned minute_of_day(int64_t wall)
{
	return calendar_ms_of_day(wall) / MS_PER_MINUTE;
}

/* The office-hours demand at minute (per mille). */
static unsigned demand(unsigned minute)
{
	unsigned h = minute / 60, into = minute % 60;
	int a = level_at_hour[h], b = level_at_hour[h + 1];
	return (unsigned)(a + (b - a) * (int)into / 60);
}

/* Thread k's level on day d: 950..1050 per mille, the same all day. */
static unsigned day_variation(uint64_t d, unsigned k)
{
	uint64_t x = (d * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)(k + 1) * 0xbf58476d1ce4e5b9ull);
	x ^= x >> 31;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 29;
	return 950 + (unsigned)(x % 101);
}

/*
 * Burn ns of CPU time: the workload's demand, so the spinning is the
 * point. Not arch_udelay: with its pause loop, under -icount, web-1
 * got no CPU for a whole second of the daily test (why is not known).
 */
static void compute_for(uint64_t ns)
{
	uint64_t end = clock_ns() + ns;
	while (clock_ns() < end)
		__asm__ volatile("" ::: "memory");
}

static void web_main(void *arg)
{
	unsigned k = (unsigned)(uintptr_t)arg;
	while (!READ_ONCE(stopping)) {
		int64_t wall = now_wall_ns();
		uint64_t duty = (uint64_t)demand(minute_of_day(wall)) * share[k] / PER_MILLE *
				day_variation((uint64_t)calendar_day_of(wall), k) / PER_MILLE;
		compute_for(STEP_NS * duty / PER_MILLE);
		thread_sleep_ticks(STEP_TICKS);
	}
}

static bool in_rogue_window(unsigned minute)
{
	int32_t from = READ_ONCE(rogue_from), to = READ_ONCE(rogue_to);
	if (from < 0)
		return false;
	return from <= to ? (int32_t)minute >= from && (int32_t)minute < to
			  : (int32_t)minute >= from || (int32_t)minute < to;
}

static void rogue_main(void *arg)
{
	(void)arg;
	while (!READ_ONCE(stopping)) {
		if (in_rogue_window(minute_of_day(now_wall_ns()))) {
			WRITE_ONCE(rogue_steps, rogue_steps + 1);
			compute_for(STEP_NS);
			thread_sleep_ticks(1);	/* most of a CPU: a step, then a tick's rest */
		} else {
			thread_sleep_ticks(STEP_TICKS);
		}
	}
}

/* Two decimal digits at text. */
static int two_digits(const char *text)
{
	if (text[0] < '0' || text[0] > '9' || text[1] < '0' || text[1] > '9')
		return -1;
	return (text[0] - '0') * 10 + (text[1] - '0');
}

/* "HH:MM" at text as minutes of the day (24:00 allowed as the end of a day), or -1. */
static int32_t minutes_at(const char *text)
{
	int h = two_digits(text), m = two_digits(text + 3);
	if (h < 0 || m < 0 || text[2] != ':' || m > 59 || h > 24 || (h == 24 && m))
		return -1;
	return h * 60 + m;
}

/* "HH:MM-HH:MM" as minutes of the day; a window may wrap past midnight. */
static bool parse_window(const char *text, int32_t *from, int32_t *to)
{
	if (strlen(text) != 11 || text[5] != '-')
		return false;
	*from = minutes_at(text);
	*to = minutes_at(text + 6);
	return *from >= 0 && *to >= 0 && *from != *to;
}

static int set_rogue(const char *text)
{
	int32_t from, to;
	if (!strcmp(text, "off")) {
		WRITE_ONCE(rogue_from, -1);
		return 0;
	}
	if (!parse_window(text, &from, &to)) {
		printk("daily: give the rogue's window as HH:MM-HH:MM (or off)\n");
		return -EINVAL;
	}
	WRITE_ONCE(rogue_to, to);
	WRITE_ONCE(rogue_from, from);
	return 0;
}

static void stop_locked(void)
{
	WRITE_ONCE(stopping, true);
	for (unsigned i = 0; i < nthreads; i++)
		thread_join(threads[i]);
	nthreads = 0;
	WRITE_ONCE(stopping, false);
}

static int start(int argc, char **argv)
{
	uint64_t n = DAILY_DEFAULT;
	for (int i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "threads=", 8)) {
			if (parse_u64(argv[i] + 8, &n, false) || !n || n > DAILY_MAX_THREADS) {
				printk("daily: threads=N with N from 1 to %u\n", DAILY_MAX_THREADS);
				return -EINVAL;
			}
		} else if (!strncmp(argv[i], "rogue=", 6)) {
			if (set_rogue(argv[i] + 6))
				return -EINVAL;
		} else {
			printk("daily: unknown argument '%s'\n", argv[i]);
			return -EINVAL;
		}
	}
	mutex_lock(&daily_lock);
	if (nthreads) {
		mutex_unlock(&daily_lock);
		printk("daily: already running (daily stop first)\n");
		return -EBUSY;
	}
	char name[16];
	for (unsigned k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "web-%u", k);
		if ((threads[nthreads] = thread_create(name, web_main, (void *)(uintptr_t)k, -1)))
			nthreads++;
	}
	if ((threads[nthreads] = thread_create("rogue", rogue_main, NULL, -1)))
		nthreads++;
	bool all = nthreads == n + 1;
	if (!all)
		stop_locked();
	mutex_unlock(&daily_lock);
	if (!all) {
		printk("daily: no memory for the threads\n");
		return -ENOMEM;
	}
	printk("daily: %llu web threads and the rogue running\n", (unsigned long long)n);
	return 0;
}

static int cmd_daily(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "start"))
		return start(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "rogue"))
		return set_rogue(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "stop")) {
		mutex_lock(&daily_lock);
		stop_locked();
		mutex_unlock(&daily_lock);
		printk("daily: stopped\n");
		return 0;
	}
	if (argc != 1) {
		printk("daily: usage: daily [start [threads=N] [rogue=HH:MM-HH:MM] | rogue "
		       "HH:MM-HH:MM|off | stop]\n");
		return -EINVAL;
	}
	unsigned minute = minute_of_day(now_wall_ns());
	mutex_lock(&daily_lock);
	unsigned running = nthreads;
	mutex_unlock(&daily_lock);
	int32_t from = READ_ONCE(rogue_from), to = READ_ONCE(rogue_to);
	printk("daily: %u threads; %02u:%02u on the calendar, demand %u per mille; rogue ",
	       running, minute / 60, minute % 60, demand(minute));
	if (from < 0)
		printk("off");
	else
		printk("%02d:%02d-%02d:%02d%s", from / 60, from % 60, to / 60, to % 60,
		       in_rogue_window(minute) ? " (spinning now)" : "");
	printk(", %llu steps\n", (unsigned long long)READ_ONCE(rogue_steps));
	return 0;
}
SHELL_COMMAND(daily, "[start [threads=N] [rogue=HH:MM-HH:MM] | rogue HH:MM-HH:MM|off | stop]",
	      "a workload that follows the monitor's calendar (office hours, a rogue thread)",
	      cmd_daily);
