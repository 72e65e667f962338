// SPDX-License-Identifier: BSD-2-Clause
/*
 * Misbehaving: changes the cache's state, then recurses without end.
 * Sandboxed, it runs on its window's stack (arch/x86/include/arch/sfi.h),
 * whose stack guard wraps a frame adjustment around inside the stack:
 * it runs off one end or the other, into unmapped space. Below, the
 * page fault of a push cannot be delivered on that stack, so the CPU
 * raises a double fault (on its own stack); above, a store faults.
 * Either aborts the graft. (Its trusted build runs off the kernel
 * stack into the guard page below it: a double fault.)
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
