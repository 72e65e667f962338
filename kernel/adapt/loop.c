// SPDX-License-Identifier: BSD-2-Clause
/*
 * The adaptation loop's thread (issue 26; VINO's closed loop): every
 * ADAPT_TICK_MS it samples the block cache's totals and advances the
 * loop by one step when one is due. It is started by the first `adapt
 * on` or `adapt dry-run` and then lives; while the loop is off it only
 * sleeps. Each tick runs with adapt.lock held, so a command sees the
 * loop between steps (a decision's simulations hold it for their
 * length). Lock order: adapt_internal.h.
 */
#include <scion/bcache.h>
#include <scion/format.h>
#include <scion/string.h>
#include <scion/clock.h>
#include <scion/thread.h>
#include <scion/record.h>
#include <scion/sdt.h>
#include <scion/proc.h>
#include <scion/errno.h>
#include "adapt_internal.h"

struct adapt_state adapt = {
	.lock = MUTEX_INIT(adapt.lock, "adapt"),
	.cfg = {
		.threshold_permille = 600, .window_ms = 2000, .min_reads = 100,
		.record_reads = 1000, .record_max_ms = 10000, .margin_permille = 50,
		.watch_reads = 1000, .dwell_ms = 2000, .blacklist_ms = 60000,
		.recheck_ms = 30000, .scope_permille = 900, .sched_record_ms = 2000,
		.recordings_per_hour = 30, .installs_per_hour = 10,
	},
};

const char *adapt_mode_name(enum adapt_mode mode)
{
	static const char *const names[] = { "off", "on", "dry-run" };
	return names[mode];
}

const char *adapt_phase_name(enum adapt_phase phase)
{
	static const char *const names[] = { "detecting", "recording", "watching" };
	return names[phase];
}

static struct adapt_sample totals_now(void)
{
	struct bcache_stats s;
	bcache_get_totals(&s);
	return (struct adapt_sample){ s.reads, s.hits };
}

/* A new hour for the limits when the last one is over. */
static void limits_roll(uint64_t now)
{
	if (now - adapt.hour_start_ns >= ADAPT_HOUR_NS) {
		adapt.hour_start_ns = now;
		adapt.recordings_this_hour = 0;
		adapt.installs_this_hour = 0;
	}
}

static uint64_t recheck_ns(void)
{
	return ((uint64_t)adapt.cfg.recheck_ms * 1000000) << adapt.recheck_shift;
}

/*
 * Step 1's verdict: true with the flag's line when the loop should act.
 * A red flag on bcache always does. The rule does when the window's
 * ratio is below it, unless a decision settled the loop: then only a
 * ratio worse than the settled one by the margin, or recheck_ms, wakes
 * it, so a steady workload is not recorded again and again.
 */
static bool flagged(uint64_t now, char *line, size_t n)
{
	uint32_t ratio = 0;
	uint64_t reads = 0;
	char r[16], t[16], s[16], red[120];
	bool judged = adapt_window_ratio(&ratio, &reads);

	adapt.ratio_before_known = judged;
	adapt.flag_reads = reads;
	adapt.ratio_before_permille = ratio;
	adapt_format_ratio(r, sizeof(r), ratio);
	adapt.module = ADAPT_MODULE_BCACHE;
	if (adapt_redflag_take(red, sizeof(red), &adapt.module)) {
		if (adapt.module == ADAPT_MODULE_SCHED)
			snprintf(line, n, "red flag from the monitor: %s: the scheduler is suspect",
				 red);
		else
			snprintf(line, n, "red flag from the monitor: %s (bcache.hit_ratio %s)", red,
				 judged ? r : "not judged yet");
		return true;
	}
	if (!judged)
		return false;
	if (ratio >= adapt.cfg.threshold_permille) {
		adapt.settled = false;
		adapt.settled_streak = 0;
		return false;
	}
	adapt_format_ratio(t, sizeof(t), adapt.cfg.threshold_permille);
	snprintf(line, n, "bcache.hit_ratio %s < %s over the last %u ms (%llu reads)", r, t,
		 adapt.cfg.window_ms, (unsigned long long)reads);
	if (!adapt.settled)
		return true;
	adapt_format_ratio(s, sizeof(s), adapt.settled_permille);
	if (ratio + adapt.cfg.margin_permille < adapt.settled_permille) {
		size_t at = strlen(line);
		snprintf(line + at, n - at, "; worse than the settled %s by more than the margin",
			 s);
	} else if (now - adapt.settled_ns >= recheck_ns()) {
		size_t at = strlen(line);
		snprintf(line + at, n - at, "; settled at %s %llu ms ago: a recheck", s,
			 (unsigned long long)((now - adapt.settled_ns) / 1000000));
	} else {
		return false;
	}
	adapt.settled = false;
	return true;
}

/*
 * The decision's recording stays for `sim run` and `scion adapt explain`
 * while the decision is among the last ADAPT_TRACES_KEPT; then it is
 * deleted, so a loop that runs for days does not fill the store.
 */
static void keep_trace(unsigned id)
{
	unsigned old = adapt.traces[adapt.traces_next];
	if (old && rec_store_delete(old) == -EBUSY)
		adapt_log(adapt.decisions, "record: rec%u is in use; it stays in the store", old);
	adapt.traces[adapt.traces_next] = id;
	adapt.traces_next = (adapt.traces_next + 1) % ADAPT_TRACES_KEPT;
}

static const char *module_name(enum adapt_module m)
{
	return m == ADAPT_MODULE_SCHED ? "sched" : "bcache";
}

/* Steps 1 and 2: a flag, then a kernel-started recording of the suspect module. */
static void detect_step(uint64_t now, const struct adapt_sample *totals)
{
	char line[200], why[160];

	if (now < adapt.quiet_until_ns || !flagged(now, line, sizeof(line)))
		return;
	uint64_t n = ++adapt.decisions;
	adapt.flags++;
	adapt_log(n, "flag: %s", line);
	SDT_PROBE2_P(adapt, flag, adapt.ratio_before_permille, adapt.cfg.threshold_permille);
	adapt_decision_begin(n, adapt.ratio_before_permille, adapt.cfg.threshold_permille,
			     adapt.flag_reads, adapt.module == ADAPT_MODULE_SCHED ?
			     CHAN_ADAPT_MODULE_SCHED : CHAN_ADAPT_MODULE_BCACHE);
	/* After any decision the loop waits dwell_ms before the next. */
	adapt.quiet_until_ns = now + (uint64_t)adapt.cfg.dwell_ms * 1000000;
	limits_roll(now);
	if (adapt.recordings_this_hour >= adapt.cfg.recordings_per_hour) {
		adapt.refusals++;
		adapt_log(n, "no recording: the limit of %u recordings an hour is reached",
			  adapt.cfg.recordings_per_hour);
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_RECORD_LIMIT, NULL, 0);
		return;
	}
	int err = record_kernel_start(module_name(adapt.module), why, sizeof(why));
	if (err) {
		adapt.refusals++;
		adapt_log(n, "no recording: %s", why);
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_NO_RECORDING, NULL, 0);
		return;
	}
	adapt.recordings_this_hour++;
	adapt.recordings++;
	adapt.phase = ADAPT_RECORDING;
	adapt.phase_start = *totals;
	adapt.phase_start_ns = now;
	if (adapt.module == ADAPT_MODULE_SCHED)
		adapt_log(n, "record: rec%u started: sched's trace and log for %u ms",
			  record_kernel_active(), adapt.cfg.sched_record_ms);
	else
		adapt_log(n, "record: rec%u started: bcache's trace and log for %u reads or %u ms",
			  record_kernel_active(), adapt.cfg.record_reads, adapt.cfg.record_max_ms);
	SDT_PROBE1_P(adapt, record, record_kernel_active());
}

/* A red flag raised while a decision ran belongs to the excursion it handled. */
static void forget_redflags(void)
{
	char stale[120];
	enum adapt_module ignored;
	adapt_redflag_take(stale, sizeof(stale), &ignored);
}

/* Whether the recording under way has run its course. */
static bool recording_done(uint64_t now, const struct adapt_sample *totals)
{
	uint64_t ns = now - adapt.phase_start_ns;
	if (adapt.module == ADAPT_MODULE_SCHED)
		return ns >= (uint64_t)adapt.cfg.sched_record_ms * 1000000;
	return totals->reads - adapt.phase_start.reads >= adapt.cfg.record_reads ||
	       ns >= (uint64_t)adapt.cfg.record_max_ms * 1000000;
}

/* The end of step 2, then steps 3 to 5 (decide.c). */
static void record_step(uint64_t now, const struct adapt_sample *totals)
{
	struct recording *rec = NULL;
	char why[160];

	if (!recording_done(now, totals))
		return;
	uint64_t n = adapt.decisions;
	adapt.phase = ADAPT_DETECTING;
	int err = record_kernel_stop(&rec, why, sizeof(why));
	if (err || !rec) {
		adapt_log(n, "record: could not stop the recording: %s", why);
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_NO_RECORDING, NULL, 0);
		return;
	}
	unsigned id = rec->id;
	uint64_t reads = totals->reads - adapt.phase_start.reads;
	if (!adapt.ratio_before_known && reads) {
		/* A red flag before the window was judged: the recording's own ratio is "before". */
		adapt.ratio_before_permille =
			(uint32_t)((totals->hits - adapt.phase_start.hits) * 1000 / reads);
		adapt.ratio_before_known = true;
	}
	adapt_log(n, "record: rec%u: %llu %s, %llu %s%s%s", id,
		  (unsigned long long)rec->stream[0].records,
		  adapt.module == ADAPT_MODULE_SCHED ? "events" : "requests",
		  (unsigned long long)rec->stream[1].records,
		  adapt.module == ADAPT_MODULE_SCHED ? "picks" : "results", why[0] ? "; " : "", why);
	adapt_decision_recording(n, id, rec->stream[0].records);
	rec_store_put(rec);
	keep_trace(id);
	if (adapt.module == ADAPT_MODULE_SCHED)
		adapt_sched_evaluate_and_decide(id);
	else
		adapt_evaluate_and_decide(id);
	forget_redflags();
	adapt_window_reset();
	adapt.quiet_until_ns = clock_ns() + (uint64_t)adapt.cfg.dwell_ms * 1000000;
}

/* The scheduler's watch: its second recording over, the live figures judge the install. */
static void sched_watch_step(uint64_t now)
{
	struct recording *rec = NULL;
	char why[160];

	if (now - adapt.phase_start_ns < (uint64_t)adapt.cfg.sched_record_ms * 1000000)
		return;
	adapt.phase = ADAPT_DETECTING;
	if (record_kernel_stop(&rec, why, sizeof(why)) || !rec) {
		adapt_log(adapt.decisions, "watch: could not stop the recording: %s; %s stays",
			  why, adapt.sched_installed);
	} else {
		unsigned id = rec->id;
		rec_store_put(rec);
		keep_trace(id);
		adapt_log(adapt.decisions, "watch: rec%u recorded under %s", id,
			  adapt.sched_installed);
		adapt_sched_watch_verdict(id);
	}
	forget_redflags();
	adapt.quiet_until_ns = clock_ns() + (uint64_t)adapt.cfg.dwell_ms * 1000000;
}

/* Step 5's watch: once watch_reads reads ran under the new policy, keep it or revert. */
static void watch_step(uint64_t now, const struct adapt_sample *totals)
{
	uint64_t reads = totals->reads - adapt.phase_start.reads;

	if (adapt.module == ADAPT_MODULE_SCHED) {
		sched_watch_step(now);
		return;
	}
	if (reads < adapt.cfg.watch_reads)
		return;
	uint32_t after = (uint32_t)((totals->hits - adapt.phase_start.hits) * 1000 / reads);
	adapt.phase = ADAPT_DETECTING;
	adapt_watch_verdict(after, reads);
	forget_redflags();
	adapt_window_reset();
	adapt.quiet_until_ns = clock_ns() + (uint64_t)adapt.cfg.dwell_ms * 1000000;
}

/*
 * The loop, one tick:
 *   1. detect: sample the totals; a window below the rule is a flag;
 *   2. record: the block cache's trace and log for a bounded window;
 *   3. evaluate: every candidate and the optimum simulated on it;
 *   4. decide: the best only if it wins by the margin with no aborts;
 *   5. install it, watch the live ratio, revert and blacklist if worse;
 *   6. each step logged (log.c) and an sdt probe under provider adapt.
 * Steps 3 to 5's install run in adapt_evaluate_and_decide (decide.c).
 */
static void adapt_tick(void)
{
	uint64_t now = clock_ns();
	struct adapt_sample totals = totals_now();

	adapt.ticks++;
	adapt_window_sample(&totals);
	if (adapt.have_installed && adapt.installed_pid && adapt.installed_pid <= INT32_MAX &&
	    proc_thread_id((int)adapt.installed_pid) != adapt.installed_tid) {
		/* The process exited: graft_remove_scoped took its grafts; nothing to revert. */
		adapt_log(adapt.decisions, "scope: process %llu exited; the grafts installed for "
			  "it went with it", (unsigned long long)adapt.installed_pid);
		adapt.have_installed = false;
		if (adapt.phase == ADAPT_WATCHING)
			adapt.phase = ADAPT_DETECTING;
	}
	switch (adapt.phase) {
	case ADAPT_DETECTING:
		detect_step(now, &totals);
		break;
	case ADAPT_RECORDING:
		record_step(now, &totals);
		break;
	case ADAPT_WATCHING:
		watch_step(now, &totals);
		break;
	}
}

static void adapt_thread(void *arg)
{
	(void)arg;
	for (;;) {
		thread_sleep_ms(ADAPT_TICK_MS);
		mutex_lock(&adapt.lock);
		if (adapt.mode != ADAPT_OFF)
			adapt_tick();
		mutex_unlock(&adapt.lock);
	}
}

/* adapt.lock held. Turning the loop off ends a recording in progress (kept in the store). */
int adapt_set_mode(enum adapt_mode mode)
{
	if (mode != ADAPT_OFF && !adapt.thread_started) {
		if (thread_spawn("adapt", adapt_thread, NULL, -1))
			return -ENOMEM;
		adapt.thread_started = true;
		/* Without a free subscriber slot the rule alone triggers; nothing else is lost. */
		if (adapt_redflag_subscribe())
			adapt_log(adapt.decisions, "red flags: no subscriber slot left; the rule "
				  "alone triggers the loop");
	}
	/*
	 * A recording under way ends with the loop: a decision's, which then
	 * decides nothing, or the scheduler watch's, whose install stays
	 * unjudged (the decision's outcome, installed, stands).
	 */
	bool sched_watch = adapt.phase == ADAPT_WATCHING && adapt.module == ADAPT_MODULE_SCHED;
	if (mode == ADAPT_OFF && (adapt.phase == ADAPT_RECORDING || sched_watch)) {
		struct recording *rec = NULL;
		char why[160];
		if (!record_kernel_stop(&rec, why, sizeof(why)) && rec) {
			adapt_log(adapt.decisions, "record: rec%u ended early: the loop was turned off%s",
				  rec->id, sched_watch ? "; the install stays unwatched" : "");
			if (!sched_watch)
				adapt_decision_end(adapt.decisions, CHAN_ADAPT_NONE,
						   CHAN_ADAPT_REASON_NO_RECORDING, NULL, 0);
			rec_store_put(rec);
		}
	}
	if (mode == ADAPT_OFF)
		adapt.phase = ADAPT_DETECTING;
	forget_redflags();	/* one raised while the loop was off */
	adapt.mode = mode;
	adapt_window_reset();
	adapt.quiet_until_ns = 0;
	adapt.settled = false;
	adapt.settled_streak = 0;
	SDT_PROBE1_P(adapt, mode, (uint64_t)mode);
	return 0;
}
