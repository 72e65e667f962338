// SPDX-License-Identifier: BSD-2-Clause
/*
 * Steps 3 to 5 of the adaptation loop on a recording: every candidate
 * block cache policy pair (candidates.c: the live pair, the defaults
 * and each loaded bcache.evict and bcache.readahead graft, combined)
 * and the optimum (`optimal-evict`: Belady's MIN with the recorded
 * read-ahead; `optimal`: MIN with the oracle read-ahead) simulated
 * in-situ (kernel/insitu/bcache_evaluate.h); the best candidate
 * installed only if its simulated hits beat the live pair's by
 * margin_permille of the requests and none of its transactions aborted,
 * for the one process that made scope_permille of the requests when
 * there is one, else for every thread; and the watch's verdict that
 * keeps it or puts the replaced pair back and blacklists it for
 * blacklist_ms. A decision that keeps the live pair settles the loop
 * (loop.c waits for a worse ratio before it flags again).
 * Everything here runs with adapt.lock held (adapt_internal.h).
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/clock.h>
#include <scion/sdt.h>
#include <scion/bcache.h>
#include <scion/proc.h>
#include <scion/errno.h>
#include "adapt_internal.h"
#include "../insitu/bcache_evaluate.h"

#define PIDS_TRACKED 8
/* Before any log calibrated one: about what QEMU's virtio-blk and the cache measure. */
#define FALLBACK_MODEL { .hit_ns = 2000, .miss_ns = 80000 }

bool adapt_blacklisted(const char *name, uint64_t now_ns)
{
	for (unsigned k = 0; k < ADAPT_BLACKLIST_MAX; k++)
		if (adapt.blacklist[k].until_ns > now_ns && !strcmp(adapt.blacklist[k].name, name))
			return true;
	return false;
}

void adapt_blacklist(const char *name, uint64_t until_ns)
{
	unsigned oldest = 0;
	for (unsigned k = 1; k < ADAPT_BLACKLIST_MAX; k++)
		if (adapt.blacklist[k].until_ns < adapt.blacklist[oldest].until_ns)
			oldest = k;
	strlcpy(adapt.blacklist[oldest].name, name, sizeof(adapt.blacklist[oldest].name));
	adapt.blacklist[oldest].until_ns = until_ns;
}

static uint32_t permille_of(uint64_t part, uint64_t whole)
{
	return whole ? (uint32_t)(part * 1000 / whole) : 0;
}

/*
 * After a decision that keeps the live pair, or a watch that keeps an
 * install: no flag until the ratio is worse than the settled one by the
 * margin, or the recheck. The window's ratio of one workload wanders
 * (a hot set and scans in turns); decisions in a row that change
 * nothing settle at the lowest ratio they saw, so the wander does not
 * flag again and again; and each of them after the first doubles the
 * wait for the next recheck, up to ADAPT_RECHECK_SHIFT_MAX doublings.
 */
static void settle(uint32_t ratio, uint64_t now, bool after_install)
{
	if (after_install || !adapt.settled_streak)
		adapt.recheck_shift = 0;
	else if (adapt.recheck_shift < ADAPT_RECHECK_SHIFT_MAX)
		adapt.recheck_shift++;
	if (!after_install && adapt.settled_streak && ratio > adapt.settled_permille)
		ratio = adapt.settled_permille;
	adapt.settled_streak = after_install ? 0 : adapt.settled_streak + 1;
	adapt.settled = true;
	adapt.settled_permille = ratio;
	adapt.settled_ns = now;
}

bool adapt_install_refused(uint64_t n, const char *winner, uint64_t margin)
{
	if (adapt.installs_this_hour < adapt.cfg.installs_per_hour)
		return false;
	adapt.refusals++;
	adapt_log(n, "decide: none: %s would win, but the limit of %u installs an hour is reached",
		  winner, adapt.cfg.installs_per_hour);
	adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_INSTALL_LIMIT, winner, margin);
	return true;
}

/* The figures of one simulated row, logged. */
static void log_row(uint64_t n, const char *role, const struct sim_outcome *o)
{
	uint32_t pm = permille_of(o->sum.hits, o->sum.requests);
	char log[24] = "";
	if (o->log_id)
		snprintf(log, sizeof(log), ", log rec%u", o->log_id);
	adapt_log(n, "%s %s: %llu hits %llu misses of %llu (%u.%u%%), %llu aborts%s",
		  role, o->policy, (unsigned long long)o->sum.hits,
		  (unsigned long long)o->sum.misses, (unsigned long long)o->sum.requests,
		  pm / 10, pm % 10, (unsigned long long)o->aborts, log);
	SDT_PROBE5_P(adapt, candidate, o->policy, o->sum.hits, o->sum.misses, o->aborts,
		     o->sum.requests);
	adapt_decision_row(n, role, o);
}

/* Step 4's choice: the index of the best installable candidate, or -1. */
static int best_candidate(const char (*names)[ADAPT_NAME_MAX], unsigned n,
			  const struct sim_outcome *o, const int *err, uint64_t now)
{
	int best = -1;
	for (unsigned k = 1; k < n; k++) {
		if (err[k] || o[k].aborts || adapt_blacklisted(names[k], now))
			continue;
		if (best < 0 || o[k].sum.hits > o[best].sum.hits)
			best = (int)k;
	}
	return best;
}

/*
 * Step 2's attribution: the process that made the most of the trace's
 * requests (0: kernel threads) and its share in permille.
 */
static uint32_t top_process(struct recording *r, uint64_t *pid)
{
	struct { uint64_t pid, count; } seen[PIDS_TRACKED] = { { 0, 0 } };
	uint64_t total = 0;
	struct rec_cursor cur;
	const struct rec_head *h;

	rec_cursor_init(&cur, &r->stream[0]);
	while ((h = rec_cursor_next(&cur))) {
		if (h->type != REC_BCACHE_REQUEST)
			continue;
		uint64_t p = ((const struct rec_bcache_request *)h)->pid;
		unsigned k = 0;
		while (k < PIDS_TRACKED && seen[k].count && seen[k].pid != p)
			k++;
		total++;
		if (k == PIDS_TRACKED)
			continue;	/* a ninth process: counted in the total only */
		seen[k].pid = p;
		seen[k].count++;
	}
	unsigned top = 0;
	for (unsigned k = 1; k < PIDS_TRACKED; k++)
		if (seen[k].count > seen[top].count)
			top = k;
	*pid = seen[top].pid;
	return permille_of(seen[top].count, total);
}

/* Step 4's scope: the thread of the one live process that caused the flag, or 0 (global). */
static uint64_t decide_scope(uint64_t n, struct recording *r, uint64_t *pid_out)
{
	uint64_t pid;
	uint32_t share = top_process(r, &pid);

	*pid_out = 0;
	if (!pid || share < adapt.cfg.scope_permille) {
		adapt_log(n, "scope: every thread (the most requests came from %s %llu: %u permille, "
			  "under %u)", pid ? "process" : "kernel threads, pid", (unsigned long long)pid,
			  share, adapt.cfg.scope_permille);
		return 0;
	}
	uint64_t tid = pid <= INT32_MAX ? proc_thread_id((int)pid) : 0;
	if (!tid) {
		adapt_log(n, "scope: every thread: process %llu made %u permille of the requests "
			  "but has exited", (unsigned long long)pid, share);
		return 0;
	}
	*pid_out = pid;
	adapt_log(n, "scope: process %llu (thread %llu) made %u permille of the requests",
		  (unsigned long long)pid, (unsigned long long)tid, share);
	return tid;
}

void adapt_evaluate_and_decide(unsigned rec_id)
{
	enum { ROWS_MAX = ADAPT_CANDIDATES_MAX + 2 };
	static struct sim_outcome outcome[ROWS_MAX];			/* adapt.lock */
	static int err[ROWS_MAX];					/* adapt.lock */
	static struct sim_policy_names pair[ADAPT_CANDIDATES_MAX];	/* adapt.lock */
	static char name[ROWS_MAX][ADAPT_NAME_MAX];			/* adapt.lock */
	static const char *const optimum[2] = { "optimal-evict", "optimal" };
	char why[300];
	uint64_t n = adapt.decisions, now = clock_ns();
	unsigned readaheads;

	/* 3. Evaluate: the live pair first, then every pair of loaded policies. */
	struct sim_policy_names live;
	adapt_pair_live(&live);
	unsigned c = adapt_pairs(&live, pair, ADAPT_CANDIDATES_MAX, &readaheads);
	struct recording *r = rec_store_get(rec_id, false);
	struct sim_summary measured;
	static struct sim_model model = FALLBACK_MODEL;	/* adapt.lock: the last calibrated */
	if (!r || sim_bcache_live(r, &measured, &model, true, why, sizeof(why))) {
		adapt_log(n, "evaluate: rec%u cannot be simulated: %s", rec_id,
			  r ? why : "it is gone");
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_NOT_SIMULATED, NULL, 0);
		if (r)
			rec_store_put(r);
		return;
	}
	/*
	 * The latency model only prices the rows (hits and misses do not
	 * depend on it); a log of misses alone, just what a bad policy
	 * makes, cannot calibrate it, so the last model serves.
	 */
	struct sim_model calibrated;
	if (sim_bcache_live(r, &measured, &calibrated, false, why, sizeof(why)))
		adapt_log(n, "evaluate: %s: the model stays hit %llu ns, miss %llu ns", why,
			  (unsigned long long)model.hit_ns, (unsigned long long)model.miss_ns);
	else
		model = calibrated;
	adapt_decision_model(n, model.hit_ns, model.miss_ns);
	/* The candidates in parallel, then the optimum's two rows, which share the future. */
	static char spec[ROWS_MAX][REC_POLICY_MAX];	/* adapt.lock */
	static char row_why[ROWS_MAX][ADAPT_WHY_MAX];	/* adapt.lock */
	unsigned rows = c + 2;
	for (unsigned k = 0; k < rows; k++) {
		if (k < c) {
			sim_policy_format(&pair[k], spec[k], sizeof(spec[k]));
			adapt_pair_short(&pair[k], name[k], ADAPT_NAME_MAX);
		} else {
			strlcpy(spec[k], optimum[k - c], sizeof(spec[k]));
			strlcpy(name[k], optimum[k - c], ADAPT_NAME_MAX);
		}
	}
	uint64_t t0 = clock_ns();
	unsigned workers = adapt_simulate_rows(r, &model, (const char (*)[REC_POLICY_MAX])spec, c,
					       outcome, err, row_why);
	uint64_t t1 = clock_ns();
	struct sim_future future = { 0 };
	for (unsigned k = c; k < rows; k++)
		err[k] = sim_bcache_simulate(r, spec[k], &model, &future, &outcome[k], row_why[k],
					     ADAPT_WHY_MAX);
	/*
	 * The rows' logs are dropped unless asked for (keep-logs=1): a decision
	 * would otherwise leave a recording per row in the store, and the
	 * trace replays them all again (`sim run`, `scion adapt explain`).
	 */
	for (unsigned k = 0; k < rows && !adapt.cfg.keep_logs; k++)
		if (outcome[k].log_id && !rec_store_delete(outcome[k].log_id))
			outcome[k].log_id = 0;
	for (unsigned k = 0; k < rows; k++) {
		if (err[k])
			adapt_log(n, "evaluate: %s: %s", spec[k], row_why[k]);
		else
			log_row(n, k == 0 ? "live" : k < c ? "candidate" : "optimum", &outcome[k]);
	}
	uint64_t cpu_ns = 0, t2 = clock_ns();
	for (unsigned k = 0; k < rows; k++)
		cpu_ns += outcome[k].cpu_ns;
	adapt_log(n, "evaluate: %u candidates on %u worker%s in %llu us, the optimum in %llu us; "
		  "%llu us of CPU in all", c, workers, workers == 1 ? "" : "s",
		  (unsigned long long)((t1 - t0) / 1000), (unsigned long long)((t2 - t1) / 1000),
		  (unsigned long long)(cpu_ns / 1000));
	SDT_PROBE5_P(adapt, evaluate, rows, workers, t1 - t0, t2 - t1, cpu_ns);
	sim_oracle_free(&future.oracle);
	uint64_t requests = r->stream[0].records, pid;
	uint64_t tid = decide_scope(n, r, &pid);
	rec_store_put(r);
	/* The bound: with one read-ahead policy to choose, only eviction can change. */
	unsigned bound = readaheads > 1 ? c + 1 : c;
	if (err[0] || err[bound]) {
		adapt_log(n, "decide: none: the live policy or the optimum could not be simulated");
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_NOT_SIMULATED, NULL, 0);
		return;
	}

	/* 4. Decide. */
	const struct sim_outcome *lv = &outcome[0], *opt = &outcome[bound];
	uint64_t margin = requests * adapt.cfg.margin_permille / 1000;
	uint64_t gap = opt->sum.hits > lv->sum.hits ? opt->sum.hits - lv->sum.hits : 0;
	adapt_log(n, "optimum: %s %llu hits, %s %llu hits; the live policy is %llu hits "
		  "(%u permille of requests) from %s", outcome[c].policy,
		  (unsigned long long)outcome[c].sum.hits, outcome[c + 1].policy,
		  (unsigned long long)outcome[c + 1].sum.hits, (unsigned long long)gap,
		  permille_of(gap, requests), name[bound]);
	for (unsigned k = 1; k < c; k++)
		if (!err[k] && outcome[k].aborts)
			adapt_log(n, "decide: %s is never installed: %llu aborts in simulation",
				  name[k], (unsigned long long)outcome[k].aborts);
	int best = best_candidate(name, c, outcome, err, now);
	SDT_PROBE5_P(adapt, decide, best >= 0 ? name[best] : "", lv->sum.hits,
		     best >= 0 ? outcome[best].sum.hits : 0, opt->sum.hits, margin);
	if (gap < margin) {
		adapt_log(n, "decide: none: the live policy is within the margin of the optimum: "
			  "the module cannot improve alone (%llu hits from it, margin %llu)",
			  (unsigned long long)gap, (unsigned long long)margin);
		settle(adapt.ratio_before_permille, now, false);
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_WITHIN_OPTIMUM, NULL, margin);
		return;
	}
	if (best < 0 || outcome[best].sum.hits < lv->sum.hits + margin) {
		adapt_log(n, "decide: none: no candidate beats the live %s by the margin of %llu "
			  "hits (best %s: %+lld)", name[0], (unsigned long long)margin,
			  best >= 0 ? name[best] : "none",
			  best >= 0 ? (long long)(outcome[best].sum.hits - lv->sum.hits) : 0LL);
		settle(adapt.ratio_before_permille, now, false);
		adapt_decision_end(n, CHAN_ADAPT_NONE, CHAN_ADAPT_REASON_NO_CANDIDATE,
				   best >= 0 ? name[best] : NULL, margin);
		return;
	}
	if (adapt.mode == ADAPT_DRY_RUN) {
		adapt_log(n, "decide: dry-run: would install %s (%+lld hits over the live %s)",
			  name[best], (long long)(outcome[best].sum.hits - lv->sum.hits), name[0]);
		adapt_decision_end(n, CHAN_ADAPT_WOULD_INSTALL, CHAN_ADAPT_REASON_BEATS_MARGIN,
				   name[best], margin);
		return;
	}
	if (adapt_install_refused(n, name[best], margin))
		return;

	/*
	 * 5. Install (graft_install's transactions), the live ratio before
	 * noted, then watch. A scoped install adds the process's grafts and
	 * leaves every other thread's policy as it was.
	 */
	char before[16], scope[48] = "";
	adapt_format_ratio(before, sizeof(before), adapt.ratio_before_permille);
	if (tid)
		snprintf(scope, sizeof(scope), " for process %llu", (unsigned long long)pid);
	if (adapt_pair_switch(&live, &pair[best], tid, why, sizeof(why))) {
		adapt_log(n, "install: %s%s failed: %s; %s stays", name[best], scope, why, name[0]);
		adapt_decision_end(n, CHAN_ADAPT_INSTALL_FAILED, CHAN_ADAPT_REASON_INSTALL_ERROR,
				   name[best], margin);
		return;
	}
	adapt.installs++;
	adapt.installs_this_hour++;
	adapt.have_installed = true;
	adapt.installed = pair[best];
	adapt.replaced = live;
	adapt.installed_tid = tid;
	adapt.installed_pid = pid;
	adapt.settled = false;
	adapt.recheck_shift = 0;
	struct bcache_stats s;
	bcache_get_totals(&s);
	adapt.phase_start = (struct adapt_sample){ s.reads, s.hits };
	adapt.phase = ADAPT_WATCHING;
	adapt_log(n, "install: %s in place of %s%s (%+lld simulated hits); live hit ratio before "
		  "%s; watching %u reads", name[best], name[0], scope,
		  (long long)(outcome[best].sum.hits - lv->sum.hits), before, adapt.cfg.watch_reads);
	SDT_PROBE3_P(adapt, install, name[best], adapt.ratio_before_permille, pid);
	adapt_decision_end(n, CHAN_ADAPT_INSTALLED, CHAN_ADAPT_REASON_BEATS_MARGIN, name[best],
			   margin);
}

void adapt_watch_verdict(uint32_t after, uint64_t reads)
{
	uint64_t n = adapt.decisions;
	uint32_t before = adapt.ratio_before_permille;
	char b[16], a[16], why[160], inst[ADAPT_NAME_MAX], repl[ADAPT_NAME_MAX];

	adapt_format_ratio(b, sizeof(b), before);
	adapt_format_ratio(a, sizeof(a), after);
	adapt_pair_short(&adapt.installed, inst, sizeof(inst));
	adapt_pair_short(&adapt.replaced, repl, sizeof(repl));
	SDT_PROBE2_P(adapt, watch, before, after);
	if (after + adapt.cfg.margin_permille >= before) {
		adapt_log(n, "watch: keep %s: live hit ratio %s over %llu reads (before %s)",
			  inst, a, (unsigned long long)reads, b);
		settle(after, clock_ns(), true);
		adapt_decision_watch(n, CHAN_ADAPT_KEPT, before, after, reads);
		return;
	}
	uint64_t until = clock_ns() + (uint64_t)adapt.cfg.blacklist_ms * 1000000;
	int err = 0;
	if (adapt.installed_tid)
		adapt_pair_unscope(&adapt.installed, adapt.installed_tid);
	else
		err = adapt_pair_switch(&adapt.installed, &adapt.replaced, 0, why, sizeof(why));
	adapt_blacklist(inst, until);
	adapt.reverts++;
	if (err)
		adapt_log(n, "revert: %s could not be put back: %s", repl, why);
	else
		adapt_log(n, "revert: %s removed, %s back: live hit ratio %s over %llu reads, worse "
			  "than %s by more than the margin; %s blacklisted for %u ms",
			  inst, repl, a, (unsigned long long)reads, b, inst, adapt.cfg.blacklist_ms);
	SDT_PROBE2_P(adapt, revert, inst, after);
	adapt.have_installed = false;
	adapt_decision_watch(n, err ? CHAN_ADAPT_REVERT_FAILED : CHAN_ADAPT_REVERTED, before, after,
			     reads);
}
