// SPDX-License-Identifier: BSD-2-Clause
/*
 * The adaptation loop's scheduler example (issue 26): a monitor red flag
 * on a sched.* source (the run queue longer than its band, say) makes
 * the loop record the scheduler; every pick-next policy (the live one,
 * the default rr, each loaded sched.pick_next graft) is simulated on the
 * recording (kernel/insitu/sched_evaluate.h) and judged by its worst
 * thread's slowdown, (waited + ran) / ran, bounded for threads that
 * barely ran (sched_slowdown_permille): what an interactive thread
 * starved behind compute threads makes large. The best is installed
 * when it beats the live policy's simulated figure by the margin and
 * none of its transactions aborted; the watch then records again and
 * compares the live figures the two recordings' logs show (before and
 * after): worse by the margin, and the replaced policy is put back and
 * the candidate blacklisted.
 * Everything here runs with adapt.lock held (adapt_internal.h).
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/clock.h>
#include <scion/sdt.h>
#include <scion/record.h>
#include <scion/errno.h>
#include "adapt_internal.h"
#include "../insitu/sched_evaluate.h"

#define PICK_POINT   "sched.pick_next"
#define PICK_DEFAULT "rr"

static void add_graft(struct graft *g, void *arg)
{
	if (!strcmp(g->point->name, PICK_POINT))
		adapt_names_add(arg, g->name);
}

/* permille as "1.234x". */
static void format_slowdown(char *buf, size_t n, uint64_t permille)
{
	snprintf(buf, n, "%llu.%03llux", (unsigned long long)(permille / 1000),
		 (unsigned long long)(permille % 1000));
}

static void log_outcome(uint64_t n, const char *role, const struct sched_outcome *o)
{
	char worst[24], mean[24];
	format_slowdown(worst, sizeof(worst), o->worst_permille);
	format_slowdown(mean, sizeof(mean), o->mean_permille);
	adapt_log(n, "%s %s: worst slowdown %s (thread %llu), mean %s, %u threads, %llu ticks "
		  "waited, %llu aborts", role, o->policy, worst, (unsigned long long)o->worst_tid,
		  mean, o->threads, (unsigned long long)o->wait, (unsigned long long)o->aborts);
	SDT_PROBE5_P(adapt, sched_candidate, o->policy, o->worst_permille, o->mean_permille,
		     o->aborts, o->threads);
}

/* The live figures of recording id into *out; false (logged) when there are none. */
static bool live_figures(uint64_t n, unsigned id, struct sched_outcome *out)
{
	char why[160];
	struct recording *r = rec_store_get(id, false);
	int err = r ? sim_sched_live(r, out, why, sizeof(why)) : -ENOENT;
	if (r)
		rec_store_put(r);
	if (err)
		adapt_log(n, "evaluate: rec%u has no live figures: %s", id, r ? why : "it is gone");
	else
		log_outcome(n, "measured", out);
	return !err;
}

void adapt_sched_evaluate_and_decide(unsigned rec_id)
{
	static struct sched_outcome o[ADAPT_CANDIDATES_MAX];	/* adapt.lock */
	static int err[ADAPT_CANDIDATES_MAX];			/* adapt.lock */
	struct adapt_names c = { 0 };
	struct sched_outcome measured;
	char live[GRAFT_NAME_MAX], why[200];
	uint64_t n = adapt.decisions, now = clock_ns();

	/* 3. Evaluate: the live figures, then every policy simulated on the recording. */
	if (!live_figures(n, rec_id, &measured)) {
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_NOT_SIMULATED, NULL, 0);
		return;
	}
	if (!graft_point_installed_name(PICK_POINT, live, sizeof(live)))
		strlcpy(live, PICK_DEFAULT, sizeof(live));
	adapt_names_add(&c, live);
	adapt_names_add(&c, PICK_DEFAULT);
	graft_foreach(add_graft, &c);
	struct recording *r = rec_store_get(rec_id, false);
	for (unsigned k = 0; k < c.n; k++) {
		err[k] = r ? sim_sched_simulate(r, c.name[k], &o[k], why, sizeof(why)) : -ENOENT;
		if (err[k]) {
			adapt_log(n, "evaluate: %s: %s", c.name[k], r ? why : "the recording is gone");
			continue;
		}
		/* The simulated log is dropped unless asked for, as the block cache's rows'. */
		if (!adapt.cfg.keep_logs && o[k].log_id && !rec_store_delete(o[k].log_id))
			o[k].log_id = 0;
		log_outcome(n, k ? "candidate" : "live", &o[k]);
		adapt_decision_sched_row(n, k ? "candidate" : "live", &o[k]);
	}
	if (r)
		rec_store_put(r);
	if (err[0]) {
		adapt_log(n, "decide: none: the live policy could not be simulated");
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_NOT_SIMULATED, NULL, 0);
		return;
	}

	/* 4. Decide: the lowest worst slowdown, if it beats the live one by the margin. */
	int best = -1;
	for (unsigned k = 1; k < c.n; k++) {
		if (err[k] || o[k].aborts || adapt_blacklisted(c.name[k], now)) {
			if (!err[k] && o[k].aborts)
				adapt_log(n, "decide: %s is never installed: %llu aborts in simulation",
					  c.name[k], (unsigned long long)o[k].aborts);
			continue;
		}
		if (best < 0 || o[k].worst_permille < o[best].worst_permille)
			best = (int)k;
	}
	uint64_t margin = o[0].worst_permille * adapt.cfg.margin_permille / 1000;
	SDT_PROBE5_P(adapt, decide, best >= 0 ? c.name[best] : "", o[0].worst_permille,
		     best >= 0 ? o[best].worst_permille : 0, 0, margin);
	if (best < 0 || o[best].worst_permille + margin > o[0].worst_permille) {
		adapt_log(n, "decide: none: no pick-next policy lowers the worst slowdown by the "
			  "margin (live %s %llu permille; best %s %llu; margin %llu)", live,
			  (unsigned long long)o[0].worst_permille, best >= 0 ? c.name[best] : "none",
			  best >= 0 ? (unsigned long long)o[best].worst_permille : 0ULL,
			  (unsigned long long)margin);
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_NO_CANDIDATE,
				   best >= 0 ? c.name[best] : NULL, margin);
		return;
	}
	if (adapt.mode == ADAPT_DRY_RUN) {
		adapt_log(n, "decide: dry-run: would install %s (worst slowdown %llu permille, "
			  "live %s %llu)", c.name[best], (unsigned long long)o[best].worst_permille,
			  live, (unsigned long long)o[0].worst_permille);
		adapt_decision_end(n, CHAN_ADAPT_WOULD_INSTALL, CHAN_ADAPT_REASON_BEATS_MARGIN,
				   c.name[best], margin);
		return;
	}
	if (adapt_install_refused(n, c.name[best], margin))
		return;

	/* 5. Install, then watch: a second recording, whose log shows the live figures after. */
	if (adapt_point_switch(PICK_POINT, PICK_DEFAULT, live, c.name[best], why, sizeof(why))) {
		adapt_log(n, "install: %s failed: %s; %s stays", c.name[best], why, live);
		adapt_decision_end(n, CHAN_ADAPT_INSTALL_FAILED, CHAN_ADAPT_REASON_INSTALL_ERROR,
				   c.name[best], margin);
		return;
	}
	adapt.installs++;
	adapt.installs_this_hour++;
	strlcpy(adapt.sched_installed, c.name[best], sizeof(adapt.sched_installed));
	strlcpy(adapt.sched_replaced, live, sizeof(adapt.sched_replaced));
	adapt.have_sched_installed = true;
	adapt.sched_before_permille = measured.worst_permille;
	adapt_log(n, "install: %s in place of %s (simulated worst slowdown %llu permille against "
		  "%llu); live worst slowdown before %llu permille; watching %u ms", c.name[best],
		  live, (unsigned long long)o[best].worst_permille,
		  (unsigned long long)o[0].worst_permille,
		  (unsigned long long)measured.worst_permille, adapt.cfg.sched_record_ms);
	SDT_PROBE3_P(adapt, install, c.name[best], measured.worst_permille, 0);
	adapt_decision_end(n, CHAN_ADAPT_INSTALLED, CHAN_ADAPT_REASON_BEATS_MARGIN, c.name[best],
			   margin);
	if (record_kernel_start("sched", why, sizeof(why))) {
		adapt_log(n, "watch: no recording (%s); %s stays unwatched", why, c.name[best]);
		return;
	}
	adapt.recordings++;
	adapt.recordings_this_hour++;
	adapt.phase = ADAPT_WATCHING;
	adapt.phase_start_ns = clock_ns();
}

void adapt_sched_watch_verdict(unsigned rec_id)
{
	struct sched_outcome after;
	uint64_t n = adapt.decisions, before = adapt.sched_before_permille;
	char why[160];

	if (!live_figures(n, rec_id, &after)) {
		adapt_log(n, "watch: keep %s: no live figures to judge it by", adapt.sched_installed);
		return;
	}
	uint64_t margin = before * adapt.cfg.margin_permille / 1000;
	SDT_PROBE2_P(adapt, watch, before, after.worst_permille);
	if (after.worst_permille <= before + margin) {
		adapt_log(n, "watch: keep %s: live worst slowdown %llu permille (before %llu)",
			  adapt.sched_installed, (unsigned long long)after.worst_permille,
			  (unsigned long long)before);
		adapt_decision_watch(n, CHAN_ADAPT_KEPT, (uint32_t)before,
				     (uint32_t)after.worst_permille, 0);
		return;
	}
	int err = adapt_point_switch(PICK_POINT, PICK_DEFAULT, adapt.sched_installed,
				     adapt.sched_replaced, why, sizeof(why));
	adapt_blacklist(adapt.sched_installed,
			clock_ns() + (uint64_t)adapt.cfg.blacklist_ms * 1000000);
	adapt.reverts++;
	adapt.have_sched_installed = false;
	if (err)
		adapt_log(n, "revert: %s could not be put back: %s", adapt.sched_replaced, why);
	else
		adapt_log(n, "revert: %s removed, %s back: live worst slowdown %llu permille, worse "
			  "than %llu by more than the margin; %s blacklisted for %u ms",
			  adapt.sched_installed, adapt.sched_replaced,
			  (unsigned long long)after.worst_permille, (unsigned long long)before,
			  adapt.sched_installed, adapt.cfg.blacklist_ms);
	SDT_PROBE2_P(adapt, revert, adapt.sched_installed, after.worst_permille);
	adapt_decision_watch(n, err ? CHAN_ADAPT_REVERT_FAILED : CHAN_ADAPT_REVERTED,
			     (uint32_t)before, (uint32_t)after.worst_permille, 0);
}
