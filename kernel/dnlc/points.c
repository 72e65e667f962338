// SPDX-License-Identifier: BSD-2-Clause
/*
 * The DNLC's graft points (contracts in grafts/include/graft/dnlc.h):
 * its replacement policy (dnlc.evict, default LRU), its admission
 * policy (dnlc.enter, default: cache everything) and its lookup event
 * (dnlc.lookup, default: nothing), with the check every replacement
 * policy's answer passes. All run with the DNLC lock held.
 */
#include <scion/graft.h>
#include <scion/format.h>
#include "dnlc_internal.h"

int dnlc_default_evict(uint32_t fs, uint64_t dir, uint64_t ino)
{
	(void)fs;
	(void)dir;
	(void)ino;
	return dnlc.table.lru_head;
}

int dnlc_default_enter(uint32_t fs, uint64_t dir, const char *name, size_t len, uint64_t ino)
{
	(void)fs;
	(void)dir;
	(void)name;
	(void)len;
	(void)ino;
	return 1;
}

static void no_lookup_handler(uint32_t fs, uint64_t dir, uint64_t name_hash, size_t len,
			      int entry, int outcome)
{
	(void)fs;
	(void)dir;
	(void)name_hash;
	(void)len;
	(void)entry;
	(void)outcome;
}

struct dnlc_policy dnlc_policy = {
	.evict = dnlc_default_evict,
	.enter = dnlc_default_enter,
	.lookup = no_lookup_handler,
};

/* A replacement policy's answer must name an entry in use (DNLC lock held). */
static const char *check_victim(uint64_t result, const uint64_t args[6])
{
	const struct dnlc_table *t = &dnlc.table;
	int i = (int)(uint32_t)result;

	(void)args;
	if (i < 0 || (unsigned)i >= t->capacity)
		return "not an entry index";
	if (!t->entry[i].used)
		return "a free entry";
	return NULL;
}

void dnlc_policy_name(const char *point, const char *dflt, char *buf, size_t n)
{
	char name[GRAFT_NAME_MAX];

	if (graft_point_installed_name(point, name, sizeof(name)))
		snprintf(buf, n, "%s (graft)", name);
	else if (graft_point_grafted(point))
		snprintf(buf, n, "%s (default; a thread-scoped graft)", dflt);
	else
		snprintf(buf, n, "%s (default)", dflt);
}

GRAFT_POINT_METHOD(dnlc_evict, dnlc_policy.evict, dnlc_default_evict, 10000, check_victim,
		   "every entry is in use and (fs, dir, ino) is being entered: return the index "
		   "of an entry in use to evict (DNLC lock held, interrupts masked, may not "
		   "sleep); default: LRU");
GRAFT_POINT_METHOD(dnlc_enter, dnlc_policy.enter, dnlc_default_enter, 10000, NULL,
		   "(fs, dir, name, len) -> ino (0: negative) is about to be cached: return "
		   "nonzero to cache it, 0 to leave it out (DNLC lock held, interrupts masked, "
		   "may not sleep); default: cache everything");
GRAFT_POINT_EVENT(dnlc_lookup, dnlc_policy.lookup, no_lookup_handler, 1000,
		  "a lookup of (fs, dir, name_hash, len) was answered: the entry found (-1: none) and "
		  "the outcome (1 hit, 2 negative hit, 3 miss, 4 too long) (DNLC lock held, "
		  "interrupts masked, may not sleep; look only)");
