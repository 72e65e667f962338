/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What every misbehaving bcache.evict graft does before it misbehaves:
 * change the cache's state through the API in every way the API allows
 * (policy word 0, and the tag and referenced bit of every occupied
 * buffer), so that a test can check that the abort undid all of it.
 * Changes logged: 1 + 2 x occupied buffers.
 */
#ifndef BAD_SCRIBBLE_H
#define BAD_SCRIBBLE_H

#include <graft/bcache.h>

#define SCRIBBLE_WORD 0x5c1f
#define SCRIBBLE_TAG  0xbad

static inline void scribble_on_cache(void)
{
	bcache_set_policy_word(0, SCRIBBLE_WORD);
	for (unsigned i = 0; i < bcache_buffers(); i++) {
		if (bcache_buffer_block(i) == BCACHE_NO_BLOCK)
			continue;
		bcache_set_buffer_tag(i, SCRIBBLE_TAG);
		bcache_clear_referenced(i);
	}
}

#endif
