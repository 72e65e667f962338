// SPDX-License-Identifier: BSD-2-Clause
/*
 * The block cache's graft API (grafts/include/graft/bcache.h). Every
 * function runs with the cache lock held by its caller, a graft at
 * bcache.evict or bcache.readahead; called from anywhere else it aborts
 * the calling graft (or, from kernel code outside a transaction, does
 * nothing), because the cache could change under it. Setters log an
 * undo record; the undo runs before the cache lock is released, while
 * the buffer still holds the same block.
 */
#include <scion/graft.h>
#include <scion/txn.h>
#include "bcache_internal.h"

/* Whether the cache may be read or changed here; aborts a graft that may not. */
static bool api_context_ok(const char *fn)
{
	if (bcache.disk && bcache_locked_here())
		return true;
	if (graft_nesting() > 0)
		txn_abort_self("%s called outside bcache.evict and bcache.readahead", fn);
	return false;
}

static struct bcache_buffer *buffer_or_null(unsigned i, const char *fn)
{
	return api_context_ok(fn) && i < bcache.nbuffers ? &bcache.buffer[i] : NULL;
}

/* A buffer a setter may change, or an abort naming the mistake. */
static struct bcache_buffer *occupied_buffer(unsigned i, const char *fn)
{
	if (!api_context_ok(fn))
		return NULL;
	if (i >= bcache.nbuffers || bcache.buffer[i].state == BUFFER_FREE) {
		if (graft_nesting() > 0)
			txn_abort_self("%s: buffer %u %s", fn, i,
				       i >= bcache.nbuffers ? "does not exist" : "is free");
		return NULL;
	}
	return &bcache.buffer[i];
}

unsigned bcache_buffers(void)
{
	return api_context_ok(__func__) ? bcache.nbuffers : 0;
}
GRAFT_EXPORT(bcache_buffers);

uint64_t bcache_blocks(void)
{
	return api_context_ok(__func__) ? bcache.blocks : 0;
}
GRAFT_EXPORT(bcache_blocks);

uint64_t bcache_buffer_block(unsigned i)
{
	struct bcache_buffer *b = buffer_or_null(i, __func__);
	return b ? b->block : BCACHE_NO_BLOCK;
}
GRAFT_EXPORT(bcache_buffer_block);

bool bcache_buffer_evictable(unsigned i)
{
	return api_context_ok(__func__) && bcache_evictable(i);
}
GRAFT_EXPORT(bcache_buffer_evictable);

bool bcache_buffer_referenced(unsigned i)
{
	struct bcache_buffer *b = buffer_or_null(i, __func__);
	return b && b->referenced;
}
GRAFT_EXPORT(bcache_buffer_referenced);

uint64_t bcache_buffer_accesses(unsigned i)
{
	struct bcache_buffer *b = buffer_or_null(i, __func__);
	return b ? b->accesses : 0;
}
GRAFT_EXPORT(bcache_buffer_accesses);

uint64_t bcache_buffer_inserted(unsigned i)
{
	struct bcache_buffer *b = buffer_or_null(i, __func__);
	return b ? b->inserted : 0;
}
GRAFT_EXPORT(bcache_buffer_inserted);

uint64_t bcache_buffer_last_access(unsigned i)
{
	struct bcache_buffer *b = buffer_or_null(i, __func__);
	return b ? b->last_access : 0;
}
GRAFT_EXPORT(bcache_buffer_last_access);

uint64_t bcache_buffer_tag(unsigned i)
{
	struct bcache_buffer *b = buffer_or_null(i, __func__);
	return b ? b->tag : 0;
}
GRAFT_EXPORT(bcache_buffer_tag);

static void undo_referenced(uint64_t i, uint64_t old)
{
	bcache.buffer[i].referenced = old;
}

void bcache_clear_referenced(unsigned i)
{
	struct bcache_buffer *b = occupied_buffer(i, __func__);
	if (!b)
		return;
	txn_log_undo(undo_referenced, i, b->referenced);
	b->referenced = false;
}
GRAFT_EXPORT(bcache_clear_referenced);

static void undo_tag(uint64_t i, uint64_t old)
{
	bcache.buffer[i].tag = old;
}

void bcache_set_buffer_tag(unsigned i, uint64_t tag)
{
	struct bcache_buffer *b = occupied_buffer(i, __func__);
	if (!b)
		return;
	txn_log_undo(undo_tag, i, b->tag);
	b->tag = tag;
}
GRAFT_EXPORT(bcache_set_buffer_tag);

uint64_t bcache_policy_word(unsigned k)
{
	return api_context_ok(__func__) && k < BCACHE_POLICY_WORDS ? bcache.policy[k] : 0;
}
GRAFT_EXPORT(bcache_policy_word);

static void undo_policy_word(uint64_t k, uint64_t old)
{
	bcache.policy[k] = old;
}

void bcache_set_policy_word(unsigned k, uint64_t v)
{
	if (!api_context_ok(__func__))
		return;
	if (k >= BCACHE_POLICY_WORDS) {
		if (graft_nesting() > 0)
			txn_abort_self("bcache_set_policy_word: word %u does not exist (0..%u)", k,
				       BCACHE_POLICY_WORDS - 1);
		return;
	}
	txn_log_undo(undo_policy_word, k, bcache.policy[k]);
	bcache.policy[k] = v;
}
GRAFT_EXPORT(bcache_set_policy_word);

static void undo_plan(uint64_t nplan, uint64_t unused)
{
	(void)unused;
	bcache.nplan = (unsigned)nplan;
}

int bcache_prefetch(uint64_t block)
{
	if (!api_context_ok(__func__))
		return -1;
	if (!bcache.planning || block >= bcache.blocks) {
		if (graft_nesting() > 0) {
			if (!bcache.planning)
				txn_abort_self("bcache_prefetch called outside bcache.readahead");
			txn_abort_self("bcache_prefetch: block %llu is beyond the disk (%llu blocks)",
				       (unsigned long long)block, (unsigned long long)bcache.blocks);
		}
		return -1;
	}
	if (bcache.nplan == BCACHE_PREFETCH_MAX)
		return -1;
	txn_log_undo(undo_plan, bcache.nplan, 0);
	bcache.plan[bcache.nplan++] = block;
	return 0;
}
GRAFT_EXPORT(bcache_prefetch);

int bcache_would_evict(void)
{
	return api_context_ok(__func__) ? bcache_ask_evict() : BCACHE_NO_BUFFER;
}
GRAFT_EXPORT(bcache_would_evict);
