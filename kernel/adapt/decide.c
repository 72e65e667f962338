// SPDX-License-Identifier: BSD-2-Clause
/*
 * Steps 3 to 5 of the adaptation loop on a recording: every candidate
 * eviction policy (the live one, the default LRU, each loaded graft at
 * bcache.evict) and the optimum (`optimal-evict`: Belady's MIN with the
 * recorded read-ahead; `optimal`: MIN with the oracle read-ahead)
 * simulated in-situ (kernel/insitu/bcache_evaluate.h); the best
 * candidate installed globally only if its simulated hits beat the live
 * policy's by margin_permille of the requests and none of its
 * transactions aborted; and the watch's verdict that keeps it or puts
 * the replaced policy back and blacklists it for blacklist_ms.
 * Everything here runs with adapt.lock held (adapt_internal.h).
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/clock.h>
#include <scion/sdt.h>
#include <scion/bcache.h>
#include <scion/errno.h>
#include "adapt_internal.h"
#include "../insitu/bcache_evaluate.h"

#define EVICT_POINT "bcache.evict"

struct candidates {
	unsigned n;
	char name[ADAPT_CANDIDATES_MAX][GRAFT_NAME_MAX];
};

static void add_candidate(struct candidates *c, const char *name)
{
	for (unsigned k = 0; k < c->n; k++)
		if (!strcmp(c->name[k], name))
			return;
	if (c->n < ADAPT_CANDIDATES_MAX)
		strlcpy(c->name[c->n++], name, GRAFT_NAME_MAX);
}

static void add_evict_graft(struct graft *g, void *arg)
{
	if (!strcmp(g->point->name, EVICT_POINT))
		add_candidate(arg, g->name);
}

/* The live eviction policy's name: the graft installed for every thread, or the default. */
static void live_policy(char *buf, size_t n)
{
	if (!graft_point_installed_name(EVICT_POINT, buf, n))
		strlcpy(buf, sim_default_names[SIM_EVICT], n);
}

bool adapt_blacklisted(const char *name, uint64_t now_ns)
{
	for (unsigned k = 0; k < ADAPT_BLACKLIST_MAX; k++)
		if (adapt.blacklist[k].until_ns > now_ns && !strcmp(adapt.blacklist[k].name, name))
			return true;
	return false;
}

static void blacklist(const char *name, uint64_t until_ns)
{
	unsigned oldest = 0;
	for (unsigned k = 1; k < ADAPT_BLACKLIST_MAX; k++)
		if (adapt.blacklist[k].until_ns < adapt.blacklist[oldest].until_ns)
			oldest = k;
	strlcpy(adapt.blacklist[oldest].name, name, GRAFT_NAME_MAX);
	adapt.blacklist[oldest].until_ns = until_ns;
}

/* Make policy to the live eviction policy for every thread, in place of from; 0 or -errno. */
static int switch_policy(const char *from, const char *to, char *why, size_t whylen)
{
	const char *lru = sim_default_names[SIM_EVICT];
	struct graft *old = strcmp(from, lru) ? graft_find(from) : NULL;
	struct graft *new = strcmp(to, lru) ? graft_find(to) : NULL;

	if (strcmp(to, lru) && !new) {
		snprintf(why, whylen, "graft '%s' is no longer loaded", to);
		return -ENOENT;
	}
	if (old)
		graft_remove(old);
	int err = new ? graft_install(new, 0, why, whylen) : 0;
	if (err && old)
		graft_install(old, 0, why, 0);
	return err;
}

static uint32_t permille_of(uint64_t part, uint64_t whole)
{
	return whole ? (uint32_t)(part * 1000 / whole) : 0;
}

/* The figures of one simulated row, logged. */
static void log_row(uint64_t n, const char *role, const struct sim_outcome *o)
{
	uint32_t pm = permille_of(o->sum.hits, o->sum.requests);
	adapt_log(n, "%s %s: %llu hits %llu misses of %llu (%u.%u%%), %llu aborts, log rec%u",
		  role, o->policy, (unsigned long long)o->sum.hits,
		  (unsigned long long)o->sum.misses, (unsigned long long)o->sum.requests,
		  pm / 10, pm % 10, (unsigned long long)o->aborts, o->log_id);
	SDT_PROBE5_P(adapt, candidate, o->policy, o->sum.hits, o->sum.misses, o->aborts,
		     o->sum.requests);
	adapt_decision_row(n, role, o);
}

/* Step 4's choice: the index of the best installable candidate, or -1. */
static int best_candidate(const struct candidates *c, const struct sim_outcome *o,
			  const int *err, unsigned live, uint64_t now)
{
	int best = -1;
	for (unsigned k = 0; k < c->n; k++) {
		if (k == live || err[k] || o[k].aborts || adapt_blacklisted(c->name[k], now))
			continue;
		if (best < 0 || o[k].sum.hits > o[best].sum.hits)
			best = (int)k;
	}
	return best;
}

void adapt_evaluate_and_decide(unsigned rec_id)
{
	static struct sim_outcome outcome[ADAPT_CANDIDATES_MAX + 2];	/* adapt.lock */
	static int err[ADAPT_CANDIDATES_MAX + 2];			/* adapt.lock */
	static const char *const optimum[2] = { "optimal-evict", "optimal" };
	struct candidates c = { 0 };
	char live[GRAFT_NAME_MAX], why[300];
	uint64_t n = adapt.decisions, now = clock_ns();

	/* 3. Evaluate: the live policy first, the default, every loaded eviction graft. */
	live_policy(live, sizeof(live));
	add_candidate(&c, live);
	add_candidate(&c, sim_default_names[SIM_EVICT]);
	graft_foreach(add_evict_graft, &c);
	struct recording *r = rec_store_get(rec_id, false);
	struct sim_summary measured;
	struct sim_model model = { 0 };
	if (!r || sim_bcache_live(r, &measured, &model, false, why, sizeof(why))) {
		adapt_log(n, "evaluate: rec%u cannot be simulated: %s", rec_id,
			  r ? why : "it is gone");
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_NOT_SIMULATED, NULL, 0);
		if (r)
			rec_store_put(r);
		return;
	}
	struct sim_future future = { 0 };
	unsigned rows = c.n + 2;
	for (unsigned k = 0; k < rows; k++) {
		const char *spec = k < c.n ? c.name[k] : optimum[k - c.n];
		err[k] = sim_bcache_simulate(r, spec, &model, &future, &outcome[k], why, sizeof(why));
		if (err[k])
			adapt_log(n, "evaluate: %s: %s", spec, why);
		else
			log_row(n, k == 0 ? "live" : k < c.n ? "candidate" : "optimum", &outcome[k]);
	}
	sim_oracle_free(&future.oracle);
	uint64_t requests = r->stream[0].records;
	rec_store_put(r);
	if (err[0] || err[c.n]) {
		adapt_log(n, "decide: none: the live policy or the optimum could not be simulated");
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_NOT_SIMULATED, NULL, 0);
		return;
	}

	/* 4. Decide. */
	const struct sim_outcome *lv = &outcome[0], *opt = &outcome[c.n];
	uint64_t margin = requests * adapt.cfg.margin_permille / 1000;
	uint64_t gap = opt->sum.hits > lv->sum.hits ? opt->sum.hits - lv->sum.hits : 0;
	adapt_log(n, "optimum: %s %llu hits, %s %llu hits; the live policy is %llu hits "
		  "(%u permille of requests) from optimal-evict", opt->policy,
		  (unsigned long long)opt->sum.hits, outcome[c.n + 1].policy,
		  (unsigned long long)outcome[c.n + 1].sum.hits, (unsigned long long)gap,
		  permille_of(gap, requests));
	for (unsigned k = 1; k < c.n; k++)
		if (!err[k] && outcome[k].aborts)
			adapt_log(n, "decide: %s is never installed: %llu aborts in simulation",
				  c.name[k], (unsigned long long)outcome[k].aborts);
	int best = best_candidate(&c, outcome, err, 0, now);
	SDT_PROBE5_P(adapt, decide, best >= 0 ? c.name[best] : "", lv->sum.hits,
		     best >= 0 ? outcome[best].sum.hits : 0, opt->sum.hits, margin);
	if (gap < margin) {
		adapt_log(n, "decide: none: the live policy is within the margin of the optimum: "
			  "the module cannot improve alone (%llu hits from it, margin %llu)",
			  (unsigned long long)gap, (unsigned long long)margin);
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_WITHIN_OPTIMUM, NULL, margin);
		return;
	}
	if (best < 0 || outcome[best].sum.hits < lv->sum.hits + margin) {
		adapt_log(n, "decide: none: no candidate beats the live %s by the margin of %llu "
			  "hits (best %s: %+lld)", live, (unsigned long long)margin,
			  best >= 0 ? c.name[best] : "none",
			  best >= 0 ? (long long)(outcome[best].sum.hits - lv->sum.hits) : 0LL);
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_NO_CANDIDATE,
				   best >= 0 ? c.name[best] : NULL, margin);
		return;
	}
	if (adapt.mode == ADAPT_DRY_RUN) {
		adapt_log(n, "decide: dry-run: would install %s (%+lld hits over the live %s)",
			  c.name[best], (long long)(outcome[best].sum.hits - lv->sum.hits), live);
		adapt_decision_end(n, CHAN_ADAPT_WOULD_INSTALL, CHAN_ADAPT_REASON_BEATS_MARGIN,
				   c.name[best], margin);
		return;
	}
	if (adapt.installs_this_hour >= adapt.cfg.installs_per_hour) {
		adapt.refusals++;
		adapt_log(n, "decide: none: %s would win, but the limit of %u installs an hour is "
			  "reached", c.name[best], adapt.cfg.installs_per_hour);
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_INSTALL_LIMIT, c.name[best],
				   margin);
		return;
	}

	/* 5. Install (graft_install's transaction), the live ratio before noted, then watch. */
	char before[16];
	adapt_format_ratio(before, sizeof(before), adapt.ratio_before_permille);
	if (switch_policy(live, c.name[best], why, sizeof(why))) {
		adapt_log(n, "install: %s failed: %s; %s stays", c.name[best], why, live);
		adapt_decision_end(n, CHAN_ADAPT_INSTALL_FAILED, CHAN_ADAPT_REASON_INSTALL_ERROR,
				   c.name[best], margin);
		return;
	}
	adapt.installs++;
	adapt.installs_this_hour++;
	strlcpy(adapt.installed, c.name[best], sizeof(adapt.installed));
	strlcpy(adapt.replaced, live, sizeof(adapt.replaced));
	struct bcache_stats s;
	bcache_get_totals(&s);
	adapt.phase_start = (struct adapt_sample){ s.reads, s.hits };
	adapt.phase = ADAPT_WATCHING;
	adapt_log(n, "install: %s in place of %s (%+lld simulated hits); live hit ratio before "
		  "%s; watching %u reads", c.name[best], live,
		  (long long)(outcome[best].sum.hits - lv->sum.hits), before, adapt.cfg.watch_reads);
	SDT_PROBE2_P(adapt, install, c.name[best], adapt.ratio_before_permille);
	adapt_decision_end(n, CHAN_ADAPT_INSTALLED, CHAN_ADAPT_REASON_BEATS_MARGIN, c.name[best],
			   margin);
}

void adapt_watch_verdict(uint32_t after, uint64_t reads)
{
	uint64_t n = adapt.decisions;
	uint32_t before = adapt.ratio_before_permille;
	char b[16], a[16], why[160];

	adapt_format_ratio(b, sizeof(b), before);
	adapt_format_ratio(a, sizeof(a), after);
	SDT_PROBE2_P(adapt, watch, before, after);
	if (after + adapt.cfg.margin_permille >= before) {
		adapt_log(n, "watch: keep %s: live hit ratio %s over %llu reads (before %s)",
			  adapt.installed, a, (unsigned long long)reads, b);
		adapt_decision_watch(n, CHAN_ADAPT_KEPT, before, after, reads);
		return;
	}
	uint64_t until = clock_ns() + (uint64_t)adapt.cfg.blacklist_ms * 1000000;
	int err = switch_policy(adapt.installed, adapt.replaced, why, sizeof(why));
	blacklist(adapt.installed, until);
	adapt.reverts++;
	if (err)
		adapt_log(n, "revert: %s could not be put back: %s", adapt.replaced, why);
	else
		adapt_log(n, "revert: %s removed, %s back: live hit ratio %s over %llu reads, worse "
			  "than %s by more than the margin; %s blacklisted for %u ms",
			  adapt.installed, adapt.replaced, a, (unsigned long long)reads, b,
			  adapt.installed, adapt.cfg.blacklist_ms);
	SDT_PROBE2_P(adapt, revert, adapt.installed, after);
	adapt_decision_watch(n, err ? CHAN_ADAPT_REVERT_FAILED : CHAN_ADAPT_REVERTED, before, after,
			     reads);
	adapt.installed[0] = '\0';
}
