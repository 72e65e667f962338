// SPDX-License-Identifier: BSD-2-Clause
/*
 * The DNLC's graft API (grafts/include/graft/dnlc.h). A dnlc graft runs
 * with the DNLC lock held on its CPU, so the table cannot change under
 * it; called from anywhere else (another graft point, or kernel code
 * without the lock), a function here aborts the calling graft or, from
 * code outside a transaction, reads nothing and changes nothing. Setters
 * log an undo record; an abort undoes it while the lock is still held,
 * so the entry still holds the same name.
 */
#include <scion/graft.h>
#include <scion/txn.h>
#include "dnlc_internal.h"

/* The table the API may read or change here, or NULL (a graft that may not is aborted). */
static struct dnlc_table *api_table(const char *fn)
{
	if (dnlc_locked_here())
		return &dnlc.table;
	if (graft_nesting() > 0)
		txn_abort_self("%s called outside dnlc.evict, dnlc.enter and dnlc.lookup", fn);
	return NULL;
}

static struct dnlc_entry *entry_or_null(unsigned i, const char *fn)
{
	struct dnlc_table *t = api_table(fn);
	return t && i < t->capacity ? &t->entry[i] : NULL;
}

/* An entry a setter may change, or an abort naming the mistake. */
static struct dnlc_entry *used_entry(unsigned i, const char *fn)
{
	struct dnlc_table *t = api_table(fn);
	if (!t)
		return NULL;
	if (i >= t->capacity || !t->entry[i].used) {
		if (graft_nesting() > 0)
			txn_abort_self("%s: entry %u %s", fn, i,
				       i >= t->capacity ? "does not exist" : "is free");
		return NULL;
	}
	return &t->entry[i];
}

unsigned dnlc_capacity(void)
{
	struct dnlc_table *t = api_table(__func__);
	return t ? t->capacity : 0;
}
GRAFT_EXPORT(dnlc_capacity);

unsigned dnlc_in_use(void)
{
	struct dnlc_table *t = api_table(__func__);
	return t ? t->in_use : 0;
}
GRAFT_EXPORT(dnlc_in_use);

bool dnlc_entry_used(unsigned i)
{
	struct dnlc_entry *e = entry_or_null(i, __func__);
	return e && e->used;
}
GRAFT_EXPORT(dnlc_entry_used);

uint32_t dnlc_entry_fs(unsigned i)
{
	struct dnlc_entry *e = entry_or_null(i, __func__);
	return e ? e->fs : 0;
}
GRAFT_EXPORT(dnlc_entry_fs);

uint64_t dnlc_entry_dir(unsigned i)
{
	struct dnlc_entry *e = entry_or_null(i, __func__);
	return e ? e->dir : 0;
}
GRAFT_EXPORT(dnlc_entry_dir);

uint64_t dnlc_entry_ino(unsigned i)
{
	struct dnlc_entry *e = entry_or_null(i, __func__);
	return e ? e->ino : 0;
}
GRAFT_EXPORT(dnlc_entry_ino);

bool dnlc_entry_referenced(unsigned i)
{
	struct dnlc_entry *e = entry_or_null(i, __func__);
	return e && e->referenced;
}
GRAFT_EXPORT(dnlc_entry_referenced);

static void undo_referenced(uint64_t i, uint64_t old)
{
	dnlc.table.entry[i].referenced = (uint8_t)old;
}

void dnlc_clear_referenced(unsigned i)
{
	struct dnlc_entry *e = used_entry(i, __func__);
	if (!e)
		return;
	txn_log_undo(undo_referenced, i, e->referenced);
	e->referenced = 0;
}
GRAFT_EXPORT(dnlc_clear_referenced);

uint64_t dnlc_entry_hits(unsigned i)
{
	struct dnlc_entry *e = entry_or_null(i, __func__);
	return e ? e->hits : 0;
}
GRAFT_EXPORT(dnlc_entry_hits);

uint64_t dnlc_entry_inserted(unsigned i)
{
	struct dnlc_entry *e = entry_or_null(i, __func__);
	return e ? e->inserted : 0;
}
GRAFT_EXPORT(dnlc_entry_inserted);

uint64_t dnlc_entry_last_access(unsigned i)
{
	struct dnlc_entry *e = entry_or_null(i, __func__);
	return e ? e->last_access : 0;
}
GRAFT_EXPORT(dnlc_entry_last_access);

uint64_t dnlc_entry_tag(unsigned i)
{
	struct dnlc_entry *e = entry_or_null(i, __func__);
	return e ? e->tag : 0;
}
GRAFT_EXPORT(dnlc_entry_tag);

static void undo_tag(uint64_t i, uint64_t old)
{
	dnlc.table.entry[i].tag = old;
}

void dnlc_set_entry_tag(unsigned i, uint64_t tag)
{
	struct dnlc_entry *e = used_entry(i, __func__);
	if (!e)
		return;
	txn_log_undo(undo_tag, i, e->tag);
	e->tag = tag;
}
GRAFT_EXPORT(dnlc_set_entry_tag);

uint64_t dnlc_policy_word(unsigned k)
{
	struct dnlc_table *t = api_table(__func__);
	return t && k < DNLC_POLICY_WORDS ? t->policy[k] : 0;
}
GRAFT_EXPORT(dnlc_policy_word);

static void undo_policy_word(uint64_t k, uint64_t old)
{
	dnlc.table.policy[k] = old;
}

void dnlc_set_policy_word(unsigned k, uint64_t v)
{
	struct dnlc_table *t = api_table(__func__);
	if (!t)
		return;
	if (k >= DNLC_POLICY_WORDS) {
		if (graft_nesting() > 0)
			txn_abort_self("dnlc_set_policy_word: word %u does not exist (0..%u)", k,
				       DNLC_POLICY_WORDS - 1);
		return;
	}
	txn_log_undo(undo_policy_word, k, t->policy[k]);
	t->policy[k] = v;
}
GRAFT_EXPORT(dnlc_set_policy_word);

int dnlc_lru_entry(void)
{
	struct dnlc_table *t = api_table(__func__);
	return t ? t->lru_head : DNLC_NONE;
}
GRAFT_EXPORT(dnlc_lru_entry);
