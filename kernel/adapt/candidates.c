// SPDX-License-Identifier: BSD-2-Clause
/*
 * The policies the adaptation loop chooses among: a block cache policy
 * is a pair, an eviction policy (bcache.evict) and a read-ahead policy
 * (bcache.readahead), each the point's default or a loaded graft. The
 * candidates are every pair of the live one, the default and every
 * loaded graft of each kind, so the loop can move to "2q" for a working
 * set, "lru+stride" for a strided scan or "lru+recorded" for an order
 * that repeats. A pair's short name is the simulator's spec ("2q",
 * "clock+stride"): the eviction policy, then "+readahead" when that is
 * not the default.
 *
 * Switching a pair changes each point whose policy differs, one graft
 * transaction each; when the second fails the first is put back, so a
 * failed switch leaves the live pair as it was. A pair can be scoped to
 * one thread (a process's, issue 26's per-process grafts): then each
 * differing component is that graft installed for the thread alone.
 * Everything here runs with adapt.lock held (adapt_internal.h).
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include "adapt_internal.h"
#include "../insitu/bcache_evaluate.h"

static const char *const point_of[SIM_KINDS] = {
	[SIM_EVICT] = "bcache.evict", [SIM_READAHEAD] = "bcache.readahead",
};

void adapt_pair_short(const struct sim_policy_names *p, char *buf, size_t n)
{
	if (!strcmp(p->name[SIM_READAHEAD], sim_default_names[SIM_READAHEAD]))
		strlcpy(buf, p->name[SIM_EVICT], n);
	else
		snprintf(buf, n, "%s+%s", p->name[SIM_EVICT], p->name[SIM_READAHEAD]);
}

void adapt_pair_live(struct sim_policy_names *p)
{
	for (unsigned k = 0; k < SIM_KINDS; k++)
		if (!graft_point_installed_name(point_of[k], p->name[k], sizeof(p->name[k])))
			strlcpy(p->name[k], sim_default_names[k], sizeof(p->name[k]));
}

bool adapt_pair_equal(const struct sim_policy_names *a, const struct sim_policy_names *b)
{
	for (unsigned k = 0; k < SIM_KINDS; k++)
		if (strcmp(a->name[k], b->name[k]))
			return false;
	return true;
}

void adapt_names_add(struct adapt_names *s, const char *name)
{
	for (unsigned k = 0; k < s->n; k++)
		if (!strcmp(s->name[k], name))
			return;
	if (s->n < ADAPT_CANDIDATES_MAX)
		strlcpy(s->name[s->n++], name, GRAFT_NAME_MAX);
}

struct kind_names {
	struct adapt_names of[SIM_KINDS];
};

static void add_graft(struct graft *g, void *arg)
{
	struct kind_names *kn = arg;
	for (unsigned k = 0; k < SIM_KINDS; k++)
		if (!strcmp(g->point->name, point_of[k]))
			adapt_names_add(&kn->of[k], g->name);
}

unsigned adapt_pairs(const struct sim_policy_names *live, struct sim_policy_names *out,
		     unsigned max, unsigned *readaheads)
{
	static struct kind_names kn;	/* adapt.lock */
	unsigned n = 0;

	memset(&kn, 0, sizeof(kn));
	for (unsigned k = 0; k < SIM_KINDS; k++) {
		adapt_names_add(&kn.of[k], live->name[k]);
		adapt_names_add(&kn.of[k], sim_default_names[k]);
	}
	graft_foreach(add_graft, &kn);
	*readaheads = kn.of[SIM_READAHEAD].n;
	/* The live pair first, then every other pair: eviction-major order. */
	out[n++] = *live;
	for (unsigned e = 0; e < kn.of[SIM_EVICT].n; e++)
		for (unsigned r = 0; r < kn.of[SIM_READAHEAD].n && n < max; r++) {
			struct sim_policy_names p;
			strlcpy(p.name[SIM_EVICT], kn.of[SIM_EVICT].name[e], sizeof(p.name[0]));
			strlcpy(p.name[SIM_READAHEAD], kn.of[SIM_READAHEAD].name[r],
				sizeof(p.name[0]));
			if (!adapt_pair_equal(&p, live))
				out[n++] = p;
		}
	return n;
}

int adapt_point_switch(const char *point, const char *dflt, const char *from, const char *to,
		       char *why, size_t whylen)
{
	struct graft *old = strcmp(from, dflt) ? graft_find(from) : NULL;
	struct graft *new = strcmp(to, dflt) ? graft_find(to) : NULL;

	if (strcmp(to, dflt) && (!new || strcmp(new->point->name, point))) {
		snprintf(why, whylen, "no graft '%s' for %s is loaded", to, point);
		return -ENOENT;
	}
	if (old)
		graft_remove(old);
	int err = new ? graft_install(new, 0, why, whylen) : 0;
	if (err && old)
		graft_install(old, 0, why, 0);
	return err;
}

static int switch_point(unsigned kind, const char *from, const char *to, char *why, size_t whylen)
{
	return adapt_point_switch(point_of[kind], sim_default_names[kind], from, to, why, whylen);
}

/* The grafts of to that differ from from, installed for thread tid alone. */
static int scope_pair(const struct sim_policy_names *from, const struct sim_policy_names *to,
		      uint64_t tid, char *why, size_t whylen)
{
	struct graft *done[SIM_KINDS] = { NULL, NULL };

	for (unsigned k = 0; k < SIM_KINDS; k++) {
		if (!strcmp(from->name[k], to->name[k]))
			continue;
		struct graft *g = graft_find(to->name[k]);
		int err = -ENOENT;
		if (!strcmp(to->name[k], sim_default_names[k]))
			snprintf(why, whylen, "%s's default cannot run for one process while '%s' "
				 "runs for all", point_of[k], from->name[k]);
		else if (!g)
			snprintf(why, whylen, "graft '%s' is no longer loaded", to->name[k]);
		else
			err = graft_install(g, tid, why, whylen);
		if (err) {
			for (unsigned j = 0; j < k; j++)
				if (done[j])
					graft_remove(done[j]);
			return err;
		}
		done[k] = g;
	}
	return 0;
}

void adapt_pair_unscope(const struct sim_policy_names *p, uint64_t tid)
{
	for (unsigned k = 0; k < SIM_KINDS; k++) {
		struct graft *g = graft_find(p->name[k]);
		if (g && g->installed && g->scope_tid == tid)
			graft_remove(g);
	}
}

int adapt_pair_switch(const struct sim_policy_names *from, const struct sim_policy_names *to,
		      uint64_t tid, char *why, size_t whylen)
{
	bool changed[SIM_KINDS] = { false, false };

	if (tid)
		return scope_pair(from, to, tid, why, whylen);
	for (unsigned k = 0; k < SIM_KINDS; k++) {
		if (!strcmp(from->name[k], to->name[k]))
			continue;
		int err = switch_point(k, from->name[k], to->name[k], why, whylen);
		if (err) {
			/* Put back what this switch already changed. */
			for (unsigned j = 0; j < k; j++)
				if (changed[j])
					switch_point(j, to->name[j], from->name[j], why, 0);
			return err;
		}
		changed[k] = true;
	}
	return 0;
}
