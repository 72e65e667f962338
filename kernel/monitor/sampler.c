// SPDX-License-Identifier: BSD-2-Clause
/*
 * The measurement graft and the measurement thread (VINO
 * self-monitoring). While sampling is on, an event graft on timer.tick
 * (built into the kernel, run like any graft: through the point's
 * dispatcher, in a transaction) wakes the thread "monitor" on CPU 0
 * whenever a source is due. The thread reads every due source and hands
 * the round to the "monitor" stream (monitor_stream.c: a per-thread
 * source gives a sample per thread, a per-process one per process) and each
 * interval sample to the online monitor (redflag.c). It is an ordinary
 * thread with ordinary accounting, so its cost shows in the profile
 * under its own name (thread.cpu of "monitor") and the analysis can
 * factor it out.
 *
 * Intervals are per source (default MONITOR_DEFAULT_INTERVAL_MS, on
 * the tick's 10 ms grid). A burst takes MONITOR_ROUND_BURST samples of
 * every global and per-CPU source 1 ms apart: for its length CPU 0's
 * timer interrupts ten times a tick (clock_set_fast_tick) and each
 * interrupt wakes the thread; nothing busy-waits. Bursts follow the
 * calendar (every burst_every_s seconds of it), so a day under a time
 * scale has as many as a real one.
 *
 * Invariants: next_due[] and the burst state belong to the thread;
 * interval_ms[] is written under monitor_lock and read anywhere
 * (READ_ONCE). The calendar is calendar_lock's (a leaf spinlock).
 * Lock order: monitor_lock -> wake.lock (waitq) -> sched_lock.
 */
#include "monitor_internal.h"
#include <scion/clock.h>
#include <scion/cpu.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/graft.h>
#include <scion/mm.h>
#include <scion/mutex.h>
#include <scion/printk.h>
#include <scion/profile_config.h>
#include <scion/sched.h>
#include <scion/string.h>
#include <scion/thread.h>
#include <scion/wait.h>
#include <arch/rtc.h>

#define MONITOR_CPU        0	/* the thread, the graft's wake-ups and the fast tick */
#define BURST_FACTOR       (1000 / HZ)	/* timer interrupts a tick during a burst: 1 ms */
#define THREAD_ROWS_MAX    256
#define PROCESS_ROWS_MAX   128	/* more than PROC_MAX */
#define MAX_BURST_MS       60000u
#define MAX_SCALE          (1000000u * MONITOR_SCALE_ONE)
#define NS_PER_MS          1000000ull

static struct mutex monitor_lock = MUTEX_INIT(monitor_lock, "monitor");

/* The sources in name order: set once at the first use (the table is read-only). */
static const struct monitor_source *sources[MONITOR_SOURCES_MAX];
static unsigned nsources;

static uint32_t interval_ms[MONITOR_SOURCES_MAX];	/* monitor_lock; read anywhere */
static uint32_t burst_ms = MONITOR_DEFAULT_BURST_MS;	/* monitor_lock */
static uint32_t burst_every_s = MONITOR_DEFAULT_BURST_EVERY_S;	/* monitor_lock */
static bool running;				/* monitor_lock */
static struct thread *sampler;			/* monitor_lock: created at the first start */
static struct graft *tick_graft;		/* monitor_lock: created at the first start */

/* What wakes the thread; wake.lock guards the flags. */
static struct waitq wake = WAITQ_INIT(wake, "monitor.wake");
static bool wake_pending;			/* wake.lock */
static bool reschedule;				/* wake.lock: intervals or the burst changed */
static bool burst_requested;			/* wake.lock: monitor_burst_now */
static uint64_t wake_tick;			/* the graft wakes the thread from this tick on */

/* The thread's own state. */
static uint64_t next_due_ns[MONITOR_SOURCES_MAX];
static uint64_t last_sampled_ns[MONITOR_SOURCES_MAX];
static bool in_burst;
static uint32_t burst_left;			/* 1 ms samples still to take */
static int64_t next_burst_wall_ns;		/* calendar time of the next burst */
static struct monitor_sample *round_buf;	/* room for every sample of one round */
static unsigned round_room;
static struct monitor_thread_row *thread_rows;
static struct monitor_process_row *process_rows;

static uint64_t rounds_total, bursts_total;	/* the thread writes; any reader */

/* The calendar: wall = anchor_wall + (mono - anchor_mono) * scale / MONITOR_SCALE_ONE. */
static struct spinlock calendar_lock = SPINLOCK_INIT("monitor.calendar");
static bool calendar_set;			/* calendar_lock */
static uint64_t anchor_mono_ns;			/* calendar_lock */
static int64_t anchor_wall_ns;			/* calendar_lock */
static uint32_t scale = MONITOR_SCALE_ONE;	/* calendar_lock */

static void collect_sources(void)
{
	if (nsources)
		return;
	for (const struct monitor_source *s = monitor_source_next(NULL);
	     s && nsources < MONITOR_SOURCES_MAX; s = monitor_source_next(s)) {
		interval_ms[nsources] = MONITOR_DEFAULT_INTERVAL_MS;
		sources[nsources++] = s;
	}
}

unsigned monitor_source_count(void)
{
	collect_sources();
	return nsources;
}

const struct monitor_source *monitor_source_at(unsigned index)
{
	collect_sources();
	return index < nsources ? sources[index] : NULL;
}

int monitor_source_index(const struct monitor_source *s)
{
	collect_sources();
	for (unsigned i = 0; i < nsources; i++)
		if (sources[i] == s)
			return (int)i;
	return -1;
}

uint32_t monitor_interval_of(unsigned index)
{
	return index < MONITOR_SOURCES_MAX ? READ_ONCE(interval_ms[index]) : 0;
}

/* ---- the calendar ---------------------------------------------------- */

static int64_t wall_at(uint64_t mono_ns)
{
	int64_t elapsed = (int64_t)(mono_ns - anchor_mono_ns);
	return anchor_wall_ns + elapsed / MONITOR_SCALE_ONE * scale +
	       elapsed % MONITOR_SCALE_ONE * scale / MONITOR_SCALE_ONE;
}

int64_t monitor_wall_ns(uint64_t mono_ns)
{
	irqflags_t f = spin_lock_irqsave(&calendar_lock);
	int64_t wall = calendar_set ? wall_at(mono_ns) : (int64_t)mono_ns;
	spin_unlock_irqrestore(&calendar_lock, f);
	return wall;
}

/* Anchor the calendar at the RTC's time if nothing set it yet. Thread (reads the RTC). */
static void calendar_from_rtc(void)
{
	uint64_t rtc = arch_rtc_seconds();
	uint64_t now = clock_ns();
	irqflags_t f = spin_lock_irqsave(&calendar_lock);
	if (!calendar_set) {
		anchor_mono_ns = now;
		anchor_wall_ns = (int64_t)(rtc * 1000000000ull);
		calendar_set = true;
	}
	spin_unlock_irqrestore(&calendar_lock, f);
}

int monitor_set_clock(uint32_t new_scale, int64_t start_s, char *why, size_t whylen)
{
	if (!new_scale || new_scale > MAX_SCALE) {
		snprintf(why, whylen, "time scale %u/%u out of range (1/%u to %u times real time)",
			 new_scale, MONITOR_SCALE_ONE, MONITOR_SCALE_ONE, MAX_SCALE / MONITOR_SCALE_ONE);
		return -EINVAL;
	}
	if (start_s < 0 || start_s > (int64_t)(INT64_MAX / 1000000000ll) / 2) {
		snprintf(why, whylen, "calendar start %lld s out of range", (long long)start_s);
		return -EINVAL;
	}
	calendar_from_rtc();
	uint64_t now = clock_ns();
	irqflags_t f = spin_lock_irqsave(&calendar_lock);
	anchor_wall_ns = start_s ? start_s * 1000000000ll : wall_at(now);
	anchor_mono_ns = now;
	scale = new_scale;
	spin_unlock_irqrestore(&calendar_lock, f);
	irqflags_t w = spin_lock_irqsave(&wake.lock);
	reschedule = true;		/* the next burst follows the new calendar */
	wake_pending = true;
	spin_unlock_irqrestore(&wake.lock, w);
	waitq_wake_all(&wake);
	return 0;
}

static uint32_t calendar_scale(void)
{
	irqflags_t f = spin_lock_irqsave(&calendar_lock);
	uint32_t s = scale;
	spin_unlock_irqrestore(&calendar_lock, f);
	return s;
}

uint32_t monitor_real_ms_of(uint32_t calendar_ms)
{
	uint64_t ms = (uint64_t)calendar_ms * MONITOR_SCALE_ONE / calendar_scale();
	if (ms < PROFILE_MIN_INTERVAL_MS)
		return PROFILE_MIN_INTERVAL_MS;
	return ms > PROFILE_MAX_INTERVAL_MS ? PROFILE_MAX_INTERVAL_MS : (uint32_t)ms;
}

/* ---- settings -------------------------------------------------------- */

/* Whether pattern names s: its name, its resource (before the dot) or "*". */
static bool names(const char *pattern, const struct monitor_source *s)
{
	if (!strcmp(pattern, "*") || !strcmp(pattern, s->name))
		return true;
	size_t n = strlen(pattern);
	return !strncmp(s->name, pattern, n) && s->name[n] == '.';
}

static void kick(bool changed)
{
	irqflags_t f = spin_lock_irqsave(&wake.lock);
	reschedule |= changed;
	wake_pending = true;
	spin_unlock_irqrestore(&wake.lock, f);
	waitq_wake_all(&wake);
}

int monitor_set_interval(const char *pattern, uint32_t ms, char *why, size_t whylen)
{
	if (ms < PROFILE_MIN_INTERVAL_MS || ms > PROFILE_MAX_INTERVAL_MS) {
		snprintf(why, whylen, "interval %u ms out of range (%u to %u ms)", ms,
			 PROFILE_MIN_INTERVAL_MS, PROFILE_MAX_INTERVAL_MS);
		return -EINVAL;
	}
	collect_sources();
	int changed = 0;
	mutex_lock(&monitor_lock);
	for (unsigned i = 0; i < nsources; i++)
		if (names(pattern, sources[i])) {
			WRITE_ONCE(interval_ms[i], ms);
			changed++;
		}
	mutex_unlock(&monitor_lock);
	if (!changed) {
		snprintf(why, whylen, "no source or resource is called '%s' (`monitor` lists them)",
			 pattern);
		return -ENOENT;
	}
	kick(true);
	return changed;
}

int monitor_set_burst(uint32_t ms, uint32_t every_s, char *why, size_t whylen)
{
	if (ms > MAX_BURST_MS || (ms && (!every_s || (uint64_t)every_s * 1000 <= ms))) {
		snprintf(why, whylen, "a burst of %u ms every %u s: give at most %u ms, less than the "
			 "time between bursts (0 ms: no bursts)", ms, every_s, MAX_BURST_MS);
		return -EINVAL;
	}
	mutex_lock(&monitor_lock);
	burst_ms = ms;
	burst_every_s = every_s;
	mutex_unlock(&monitor_lock);
	kick(true);
	return 0;
}

/* ---- the graft and the fast tick ------------------------------------- */

/*
 * The measurement graft (timer.tick, interrupt context, in a
 * transaction). Only CPU 0's ticks count: the thread lives there.
 */
static void monitor_tick(unsigned cpu, uint64_t tick)
{
	if (cpu != MONITOR_CPU || tick < READ_ONCE(wake_tick))
		return;
	irqflags_t f = spin_lock_irqsave(&wake.lock);
	wake_pending = true;
	spin_unlock_irqrestore(&wake.lock, f);
	waitq_wake_all(&wake);
}

/* Every 1 ms interrupt of a burst (clock_set_fast_tick). */
static void burst_interrupt(void)
{
	spin_lock_noirq(&wake.lock);
	wake_pending = true;
	spin_unlock_noirq(&wake.lock);
	waitq_wake_all(&wake);
}

/* ---- one round -------------------------------------------------------- */

static bool due(unsigned i, uint64_t now)
{
	return next_due_ns[i] <= now;
}

static uint64_t next_multiple_after(uint64_t from, uint64_t step, uint64_t now)
{
	if (from > now)
		return from;
	return from + ((now - from) / step + 1) * step;
}

/* The due per-thread (or per-process) sources of a round: which and where. */
struct due_list {
	const struct monitor_source *sources[MONITOR_THREAD_SOURCES_MAX];
	unsigned index[MONITOR_THREAD_SOURCES_MAX];
	unsigned n;
};

static void due_add(struct due_list *d, unsigned i, const struct monitor_source *s)
{
	if (d->n < MONITOR_THREAD_SOURCES_MAX) {
		d->index[d->n] = i;
		d->sources[d->n++] = s;
	}
}

/* Append one row's samples (scope_id: the tid or the pid) to round_buf. */
static unsigned add_row(unsigned n, const struct due_list *d, uint32_t scope_id,
			const uint64_t *value)
{
	for (unsigned k = 0; k < d->n && n < round_room; k++)
		round_buf[n++] = (struct monitor_sample){ .source = (uint16_t)d->index[k],
							  .scope_id = scope_id, .value = value[k] };
	return n;
}

/*
 * Read the sources (every global and per-CPU one in a burst round,
 * else those due) into round_buf; return the sample count and feed the
 * online monitor with the interval samples. Threads are read before
 * processes, so a process's counters are never behind its threads'.
 */
static unsigned read_round(uint64_t now, bool burst, int64_t wall)
{
	struct due_list threads = { .n = 0 }, processes = { .n = 0 };
	unsigned n = 0, cpus = cpu_count();

	for (unsigned i = 0; i < nsources; i++) {
		const struct monitor_source *s = sources[i];
		bool per_task = s->scope == MONITOR_SCOPE_THREAD || s->scope == MONITOR_SCOPE_PROCESS;
		if (burst ? per_task : !due(i, now))
			continue;
		if (!burst) {
			next_due_ns[i] = next_multiple_after(next_due_ns[i],
							     monitor_interval_of(i) * NS_PER_MS, now);
			last_sampled_ns[i] = now;
		}
		if (per_task) {
			due_add(s->scope == MONITOR_SCOPE_THREAD ? &threads : &processes, i, s);
			continue;
		}
		uint64_t sum = 0;
		for (unsigned c = 0; c < (s->scope == MONITOR_SCOPE_CPU ? cpus : 1); c++) {
			uint64_t v = 0;
			if (monitor_read(s, c, &v) || n >= round_room)
				continue;
			round_buf[n++] = (struct monitor_sample){ .source = (uint16_t)i,
								  .scope_id = c, .value = v };
			sum += v;
		}
		if (!burst)
			monitor_redflag_observe(i, now, wall, sum);
	}
	if (threads.n) {
		int rows = monitor_read_threads(threads.sources, threads.n, thread_rows,
						THREAD_ROWS_MAX);
		for (int r = 0; r < rows && r < THREAD_ROWS_MAX; r++) {
			monitor_stream_thread(thread_rows[r].tid, thread_rows[r].name);
			n = add_row(n, &threads, (uint32_t)thread_rows[r].tid, thread_rows[r].value);
		}
	}
	if (processes.n) {
		int rows = monitor_read_processes(processes.sources, processes.n, process_rows,
						  PROCESS_ROWS_MAX);
		for (int r = 0; r < rows && r < PROCESS_ROWS_MAX; r++) {
			monitor_stream_process(process_rows[r].pid, process_rows[r].name);
			n = add_row(n, &processes, (uint32_t)process_rows[r].pid,
				    process_rows[r].value);
		}
	}
	return n;
}

/* The tick from which the graft should wake the thread again. */
static uint64_t earliest_due_tick(uint64_t now)
{
	uint64_t earliest = UINT64_MAX;
	for (unsigned i = 0; i < nsources; i++)
		if (next_due_ns[i] < earliest)
			earliest = next_due_ns[i];
	if (earliest <= now)
		return 0;
	uint64_t wait_ns = earliest - now;
	return clock_ticks() + (wait_ns * HZ + 999999999ull) / 1000000000ull;
}

static int64_t burst_period_ns(void)
{
	return (int64_t)READ_ONCE(burst_every_s) * 1000000000ll;
}

/* The calendar time of the first burst after wall: on the burst grid. */
static int64_t next_burst_after(int64_t wall)
{
	int64_t period = burst_period_ns();
	if (period <= 0)
		return INT64_MAX;
	return (wall / period + 1) * period;
}

static void burst_begin(void)
{
	in_burst = true;
	burst_left = READ_ONCE(burst_ms);
	bursts_total++;
	clock_set_fast_tick(BURST_FACTOR, burst_interrupt);
}

static void burst_end(void)
{
	in_burst = false;
	clock_set_fast_tick(1, NULL);
}

/* Apply changed settings: intervals from the last sample, the burst grid. */
static void apply_settings(uint64_t now, int64_t wall)
{
	for (unsigned i = 0; i < nsources; i++) {
		uint64_t next = last_sampled_ns[i] + monitor_interval_of(i) * NS_PER_MS;
		next_due_ns[i] = next < now ? now : next;
	}
	next_burst_wall_ns = next_burst_after(wall);
	if (in_burst && !READ_ONCE(burst_ms))
		burst_end();
}

static void sample_once(bool settings_changed, bool burst_now)
{
	uint64_t now = clock_ns();
	int64_t wall = monitor_wall_ns(now);

	if (settings_changed)
		apply_settings(now, wall);
	if (!in_burst && READ_ONCE(burst_ms) && (burst_now || wall >= next_burst_wall_ns)) {
		next_burst_wall_ns = next_burst_after(wall);
		burst_begin();
	}
	if (in_burst) {
		unsigned n = read_round(now, true, wall);
		monitor_stream_round(MONITOR_ROUND_BURST, now, wall, round_buf, n);
		if (!--burst_left)
			burst_end();
	}
	unsigned n = read_round(now, false, wall);
	if (n) {
		monitor_stream_round(0, now, wall, round_buf, n);
		rounds_total++;
	}
	WRITE_ONCE(wake_tick, in_burst ? UINT64_MAX : earliest_due_tick(clock_ns()));
}

/* The measurement thread: bound to MONITOR_CPU, lives until the kernel stops. */
static void sampler_main(void *arg)
{
	(void)arg;
	for (;;) {
		irqflags_t f = spin_lock_irqsave(&wake.lock);
		while (!wake_pending)
			waitq_sleep(&wake, 0);
		wake_pending = false;
		bool changed = reschedule, burst_now = burst_requested;
		reschedule = burst_requested = false;
		spin_unlock_irqrestore(&wake.lock, f);
		mutex_lock(&monitor_lock);
		bool on = running;
		mutex_unlock(&monitor_lock);
		if (on)
			sample_once(changed, burst_now);
		else if (in_burst)
			burst_end();
	}
}

/* ---- start and stop -------------------------------------------------- */

static int create_sampler(char *why, size_t whylen)
{
	unsigned room = nsources * cpu_count() +
			MONITOR_THREAD_SOURCES_MAX * (THREAD_ROWS_MAX + PROCESS_ROWS_MAX);
	round_buf = kmalloc(room * sizeof(*round_buf));
	thread_rows = kmalloc(THREAD_ROWS_MAX * sizeof(*thread_rows));
	process_rows = kmalloc(PROCESS_ROWS_MAX * sizeof(*process_rows));
	tick_graft = graft_create_builtin("monitor.tick", "timer.tick", (void *)monitor_tick);
	sampler = round_buf && thread_rows && process_rows && tick_graft ?
		  thread_create("monitor", sampler_main, NULL, MONITOR_CPU) : NULL;
	if (!sampler) {
		kfree(round_buf);
		kfree(thread_rows);
		kfree(process_rows);
		kfree(tick_graft);
		round_buf = NULL;
		thread_rows = NULL;
		process_rows = NULL;
		tick_graft = NULL;
		snprintf(why, whylen, "no memory for the measurement thread");
		return -ENOMEM;
	}
	round_room = room;
	thread_detach(sampler);
	return 0;
}

int monitor_start(char *why, size_t whylen)
{
	int err = 0;
	collect_sources();
	calendar_from_rtc();
	mutex_lock(&monitor_lock);
	if (running)
		goto out;
	if (!sampler && (err = create_sampler(why, whylen)))
		goto out;
	if ((err = graft_install(tick_graft, 0, why, whylen)))
		goto out;
	uint64_t now = clock_ns();
	for (unsigned i = 0; i < nsources; i++) {
		next_due_ns[i] = now;
		last_sampled_ns[i] = now;
	}
	running = true;
out:
	mutex_unlock(&monitor_lock);
	if (!err)
		kick(true);
	return err;
}

int monitor_burst_now(char *why, size_t whylen)
{
	mutex_lock(&monitor_lock);
	bool on = running, bursts = burst_ms != 0;
	mutex_unlock(&monitor_lock);
	if (!on || !bursts) {
		snprintf(why, whylen, "%s", !on ? "sampling is off (monitor start)"
						: "bursts are off (monitor burst MS EVERY_S)");
		return -EINVAL;
	}
	irqflags_t f = spin_lock_irqsave(&wake.lock);
	burst_requested = true;
	wake_pending = true;
	spin_unlock_irqrestore(&wake.lock, f);
	waitq_wake_all(&wake);
	return 0;
}

void monitor_stop(void)
{
	mutex_lock(&monitor_lock);
	if (running) {
		graft_remove(tick_graft);
		running = false;
	}
	mutex_unlock(&monitor_lock);
	kick(false);	/* the thread ends a burst in progress */
}

void monitor_get_status(struct monitor_ctl_status *st)
{
	collect_sources();
	memset(st, 0, sizeof(*st));
	uint32_t min = UINT32_MAX;
	for (unsigned i = 0; i < nsources; i++)
		if (monitor_interval_of(i) < min)
			min = monitor_interval_of(i);
	mutex_lock(&monitor_lock);
	st->running = running;
	st->burst_ms = burst_ms;
	st->burst_every_s = burst_every_s;
	mutex_unlock(&monitor_lock);
	st->streaming = monitor_stream_open();
	st->sources = nsources;
	st->min_interval_ms = nsources ? min : 0;
	st->scale = calendar_scale();
	st->config_loaded = monitor_config_in_force(&st->config_valid_day);
	st->rounds = READ_ONCE(rounds_total);
	st->bursts = READ_ONCE(bursts_total);
	monitor_stream_totals(&st->samples_written, &st->samples_dropped);
	st->redflags = monitor_redflag_count();
	st->mono_ns = clock_ns();
	st->wall_ns = monitor_wall_ns(st->mono_ns);
}
