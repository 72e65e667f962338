// SPDX-License-Identifier: BSD-2-Clause
/*
 * Pools of fixed-size objects for the probe machinery: its sites, its
 * patches' descriptors and their one-consumer states. Enabling fbt:::
 * creates thousands of each, and while it runs every kmalloc hits the
 * probes already enabled on the allocator (breakpoint sites on the
 * returns of kmalloc, the spinlock and memset: issue 28). A pool takes
 * memory from kmalloc a chunk of objects at a time and keeps what is
 * freed for the next allocation; it never gives memory back, so it
 * holds at most the most objects ever alive at once. Everything here
 * runs under probe_mutex.
 */
#include <scion/mm.h>
#include "probe_internal.h"

/* A free object's first word links it to the next. */
struct pool_free {
	struct pool_free *next;
};

void *probe_pool_alloc(struct probe_pool *pool)
{
	if (!pool->free) {
		char *chunk = kmalloc(pool->size * pool->per_chunk);
		if (!chunk)
			return NULL;
		for (unsigned i = pool->per_chunk; i-- > 0;) {
			struct pool_free *o = (struct pool_free *)(chunk + i * pool->size);
			o->next = pool->free;
			pool->free = o;
		}
	}
	struct pool_free *o = pool->free;
	pool->free = o->next;
	/* Zeroed word by word: a memset call would hit its probes too. */
	for (size_t i = 0; i < pool->size / sizeof(uint64_t); i++)
		((volatile uint64_t *)o)[i] = 0;
	return o;
}

void probe_pool_free(struct probe_pool *pool, void *obj)
{
	struct pool_free *o = obj;

	if (!o)
		return;
	o->next = pool->free;
	pool->free = o;
}
