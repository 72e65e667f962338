// SPDX-License-Identifier: BSD-2-Clause
/* Misbehaving: changes the cache's state, then never returns (time budget abort). */
#include "scribble.h"

static int loop_forever(void)
{
	scribble_on_cache();
	while (graft_cycles() != 0)	/* the cycle counter never reads 0 again */
		;
	return 0;
}
GRAFT_METHOD(bcache_evict, "loop", 1, loop_forever);
