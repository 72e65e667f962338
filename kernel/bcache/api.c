// SPDX-License-Identifier: BSD-2-Clause
/*
 * The block cache's graft API (grafts/include/graft/bcache.h), on the
 * instance whose policy is running on this CPU (cache_env_current: the
 * live cache, or a simulation instance replaying a trace). A policy runs
 * with that instance's lock held; called from anywhere else, a function
 * here aborts the calling graft (or, from code outside a transaction,
 * does nothing), because the cache could change under it. Setters log
 * an undo record; an abort undoes it while the instance is still current
 * and its lock held, so the buffer still holds the same block.
 *
 * Portable: built into the kernel and into the host simulator (sim/),
 * which supplies txn_log_undo, txn_abort_self and graft_nesting.
 */
#include <scion/graft.h>
#include <scion/txn.h>
#include "cache.h"

/* The instance the API may read or change here, or NULL (a graft that may not is aborted). */
static struct bcache_cache *api_instance(const char *fn)
{
	struct bcache_cache *c = cache_env_current();
	if (c)
		return c;
	if (graft_nesting() > 0)
		txn_abort_self("%s called outside bcache.evict and bcache.readahead", fn);
	return NULL;
}

static struct bcache_buffer *buffer_or_null(unsigned i, const char *fn)
{
	struct bcache_cache *c = api_instance(fn);
	return c && i < c->nbuffers ? &c->buffer[i] : NULL;
}

/* A buffer a setter may change, or an abort naming the mistake. */
static struct bcache_buffer *occupied_buffer(unsigned i, const char *fn)
{
	struct bcache_cache *c = api_instance(fn);
	if (!c)
		return NULL;
	if (i >= c->nbuffers || c->buffer[i].state == BUFFER_FREE) {
		if (graft_nesting() > 0)
			txn_abort_self("%s: buffer %u %s", fn, i,
				       i >= c->nbuffers ? "does not exist" : "is free");
		return NULL;
	}
	return &c->buffer[i];
}

unsigned bcache_buffers(void)
{
	struct bcache_cache *c = api_instance(__func__);
	return c ? c->nbuffers : 0;
}
GRAFT_EXPORT(bcache_buffers);

uint64_t bcache_blocks(void)
{
	struct bcache_cache *c = api_instance(__func__);
	return c ? c->blocks : 0;
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
	struct bcache_cache *c = api_instance(__func__);
	return c && cache_evictable(c, i);
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
	cache_env_current()->buffer[i].referenced = old;
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
	cache_env_current()->buffer[i].tag = old;
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
	struct bcache_cache *c = api_instance(__func__);
	return c && k < BCACHE_POLICY_WORDS ? c->policy[k] : 0;
}
GRAFT_EXPORT(bcache_policy_word);

static void undo_policy_word(uint64_t k, uint64_t old)
{
	cache_env_current()->policy[k] = old;
}

void bcache_set_policy_word(unsigned k, uint64_t v)
{
	struct bcache_cache *c = api_instance(__func__);
	if (!c)
		return;
	if (k >= BCACHE_POLICY_WORDS) {
		if (graft_nesting() > 0)
			txn_abort_self("bcache_set_policy_word: word %u does not exist (0..%u)", k,
				       BCACHE_POLICY_WORDS - 1);
		return;
	}
	txn_log_undo(undo_policy_word, k, c->policy[k]);
	c->policy[k] = v;
}
GRAFT_EXPORT(bcache_set_policy_word);

static void undo_plan(uint64_t nplan, uint64_t unused)
{
	(void)unused;
	cache_env_current()->nplan = (unsigned)nplan;
}

int bcache_prefetch(uint64_t block)
{
	struct bcache_cache *c = api_instance(__func__);
	if (!c)
		return -1;
	if (!c->planning || block >= c->blocks) {
		if (graft_nesting() > 0) {
			if (!c->planning)
				txn_abort_self("bcache_prefetch called outside bcache.readahead");
			txn_abort_self("bcache_prefetch: block %llu is beyond the disk (%llu blocks)",
				       (unsigned long long)block, (unsigned long long)c->blocks);
		}
		return -1;
	}
	if (c->nplan == BCACHE_PREFETCH_MAX)
		return -1;
	txn_log_undo(undo_plan, c->nplan, 0);
	c->plan[c->nplan++] = block;
	return 0;
}
GRAFT_EXPORT(bcache_prefetch);

int bcache_would_evict(void)
{
	struct bcache_cache *c = api_instance(__func__);
	return c ? cache_ask_evict(c) : BCACHE_NO_BUFFER;
}
GRAFT_EXPORT(bcache_would_evict);
