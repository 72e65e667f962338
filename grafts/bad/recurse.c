// SPDX-License-Identifier: BSD-2-Clause
/*
 * Misbehaving: changes the cache's state, then recurses without end
 * until it runs off the kernel stack into the guard page below it. The
 * page fault cannot be delivered on that stack, so the CPU raises a
 * double fault (on its own stack), which aborts the graft.
 */
#include "scribble.h"

#define FRAME_BYTES 256

static int recurse(unsigned depth)
{
	volatile unsigned char frame[FRAME_BYTES];

	frame[depth % FRAME_BYTES] = (unsigned char)depth;
	if (bcache_buffers() == 0)	/* never, but the compiler cannot know */
		return 0;
	return recurse(depth + 1) + frame[(depth * 7) % FRAME_BYTES];
}

static int recurse_forever(void)
{
	scribble_on_cache();
	return recurse(0);
}
GRAFT_METHOD(bcache_evict, "recurse", 1, recurse_forever);
