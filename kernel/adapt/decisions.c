// SPDX-License-Identifier: BSD-2-Clause
/*
 * The adaptation loop's decisions as structured records (issue 26's
 * event stream): a ring of the last CHAN_ADAPT_DECISIONS decisions,
 * each the flag (ratio, threshold), the trace's recording, every
 * simulated row (live, candidates, optima: spec, hits, misses,
 * requests, aborts, log recording), the outcome with its reason and
 * margin, and the watch's verdict. The loop's steps (loop.c, decide.c)
 * call these next to their adapt_log lines; the layout is
 * scion/chan_reply.h's (the host's is generated from it), read through
 * the ADAPT_DECISIONS and ADAPT_ROWS ops (scion/adapt.h). Each
 * completed step also posts one channel event (`scion events`).
 *
 * Invariants: a decision's slot is its number modulo the ring; a call
 * for a number that is not the slot's (overwritten, or never begun)
 * does nothing; rows past CHAN_ADAPT_ROWS_MAX are counted in no record
 * but noted on the kernel log once.
 * Lock: ring_lock, a spinlock taken last (after adapt.lock), held only
 * for copies; channel_event is called after it is dropped.
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/printk.h>
#include <scion/clock.h>
#include <scion/spinlock.h>
#include <scion/channel.h>
#include <scion/adapt.h>
#include "adapt_internal.h"
#include "../insitu/bcache_evaluate.h"
#include "../insitu/sched_evaluate.h"

static struct spinlock ring_lock = SPINLOCK_INIT("adapt_decisions");
static struct adapt_decision_copy ring[CHAN_ADAPT_DECISIONS];	/* ring_lock */

/* Decision n's slot, or NULL when the ring no longer (or never) held it. ring_lock held. */
static struct adapt_decision_copy *slot(uint64_t n)
{
	struct adapt_decision_copy *s = &ring[n % CHAN_ADAPT_DECISIONS];
	return n && s->d.number == n ? s : NULL;
}

static const char *const outcome_names[] = {
	[CHAN_ADAPT_PENDING] = "pending", [CHAN_ADAPT_INSTALLED] = "installed",
	[CHAN_ADAPT_WOULD_INSTALL] = "would-install", [CHAN_ADAPT_NONE] = "none",
	[CHAN_ADAPT_INSTALL_FAILED] = "install-failed",
};

void adapt_decision_begin(uint64_t n, uint32_t ratio_permille, uint32_t threshold_permille,
			  uint64_t reads, uint32_t module)
{
	irqflags_t flags = spin_lock_irqsave(&ring_lock);
	struct adapt_decision_copy *s = &ring[n % CHAN_ADAPT_DECISIONS];
	memset(s, 0, sizeof(*s));
	s->d.number = n;
	s->d.uptime_ms = clock_ns() / 1000000;
	s->d.ratio_permille = ratio_permille;
	s->d.threshold_permille = threshold_permille;
	s->d.flag_reads = reads;
	s->d.module = module;
	spin_unlock_irqrestore(&ring_lock, flags);
}

void adapt_decision_recording(uint64_t n, unsigned rec_id, uint64_t requests)
{
	irqflags_t flags = spin_lock_irqsave(&ring_lock);
	struct adapt_decision_copy *s = slot(n);
	if (s) {
		s->d.rec = rec_id;
		s->d.requests = requests;
	}
	spin_unlock_irqrestore(&ring_lock, flags);
}

void adapt_decision_model(uint64_t n, uint64_t hit_ns, uint64_t miss_ns)
{
	irqflags_t flags = spin_lock_irqsave(&ring_lock);
	struct adapt_decision_copy *s = slot(n);
	if (s) {
		s->d.model_hit_ns = hit_ns;
		s->d.model_miss_ns = miss_ns;
	}
	spin_unlock_irqrestore(&ring_lock, flags);
}

/* Row r (its figures and policy filled) appended to decision n's with its role. */
static void keep_row(uint64_t n, const char *role, struct chan_adapt_row r, const char *policy)
{
	r.role = !strcmp(role, "live") ? CHAN_ADAPT_ROLE_LIVE :
		 !strcmp(role, "optimum") ? CHAN_ADAPT_ROLE_OPTIMUM : CHAN_ADAPT_ROLE_CANDIDATE;
	r.decision = n;
	strlcpy(r.policy, policy, sizeof(r.policy));
	bool full = false;
	irqflags_t flags = spin_lock_irqsave(&ring_lock);
	struct adapt_decision_copy *s = slot(n);
	if (s && s->d.rows < CHAN_ADAPT_ROWS_MAX) {
		r.index = s->d.rows;
		s->row[s->d.rows++] = r;
	} else if (s) {
		full = true;
	}
	spin_unlock_irqrestore(&ring_lock, flags);
	if (full)
		printk("adapt: #%llu: row %s not kept: a decision keeps %u rows\n",
		       (unsigned long long)n, policy, CHAN_ADAPT_ROWS_MAX);
}

void adapt_decision_row(uint64_t n, const char *role, const struct sim_outcome *o)
{
	keep_row(n, role, (struct chan_adapt_row){ .hits = o->sum.hits, .misses = o->sum.misses,
		 .requests = o->sum.requests, .aborts = o->aborts, .log_rec = o->log_id },
		 o->policy);
}

void adapt_decision_sched_row(uint64_t n, const char *role, const struct sched_outcome *o)
{
	keep_row(n, role, (struct chan_adapt_row){ .worst_permille = o->worst_permille,
		 .mean_permille = o->mean_permille, .aborts = o->aborts, .log_rec = o->log_id },
		 o->policy);
}

void adapt_decision_end(uint64_t n, uint32_t outcome, uint32_t reason, const char *chosen,
			uint64_t margin)
{
	uint32_t rows = 0;
	irqflags_t flags = spin_lock_irqsave(&ring_lock);
	struct adapt_decision_copy *s = slot(n);
	if (s) {
		s->d.outcome = outcome;
		s->d.reason = reason;
		s->d.margin = margin;
		strlcpy(s->d.chosen, chosen ? chosen : "", sizeof(s->d.chosen));
		if (outcome == CHAN_ADAPT_INSTALLED)
			s->d.verdict = CHAN_ADAPT_WATCHING;
		rows = s->d.rows;
	}
	spin_unlock_irqrestore(&ring_lock, flags);
	if (s)
		channel_event("adapt: decision %llu %s%s%s (%u rows)", (unsigned long long)n,
			      outcome < ARRAY_SIZE(outcome_names) ? outcome_names[outcome] : "?",
			      chosen && chosen[0] ? " " : "", chosen ? chosen : "", rows);
}

void adapt_decision_watch(uint64_t n, uint32_t verdict, uint32_t before_permille,
			  uint32_t after_permille, uint64_t reads)
{
	irqflags_t flags = spin_lock_irqsave(&ring_lock);
	struct adapt_decision_copy *s = slot(n);
	if (s) {
		s->d.verdict = verdict;
		s->d.before_permille = before_permille;
		s->d.after_permille = after_permille;
		s->d.watch_reads = reads;
	}
	spin_unlock_irqrestore(&ring_lock, flags);
	if (s)
		channel_event("adapt: decision %llu %s", (unsigned long long)n,
			      verdict == CHAN_ADAPT_KEPT ? "kept" : "reverted");
}

size_t adapt_decisions_copy(struct adapt_decision_copy *out)
{
	size_t count = 0;
	irqflags_t flags = spin_lock_irqsave(&ring_lock);
	uint64_t newest = 0;
	for (unsigned k = 0; k < CHAN_ADAPT_DECISIONS; k++)
		if (ring[k].d.number > newest)
			newest = ring[k].d.number;
	uint64_t first = newest > CHAN_ADAPT_DECISIONS ? newest - CHAN_ADAPT_DECISIONS + 1 : 1;
	for (uint64_t n = first; newest && n <= newest; n++) {
		struct adapt_decision_copy *s = slot(n);
		if (s)
			out[count++] = *s;
	}
	spin_unlock_irqrestore(&ring_lock, flags);
	return count;
}
