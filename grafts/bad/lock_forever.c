// SPDX-License-Identifier: BSD-2-Clause
/*
 * Misbehaving: takes graft lock 0, changes the cache's state and never
 * lets go (spins): the time budget aborts it and the abort releases the
 * lock.
 */
#include "scribble.h"

static int lock_forever(void)
{
	graft_lock(0);
	scribble_on_cache();
	while (graft_cycles() != 0)	/* the cycle counter never reads 0 again */
		;
	return 0;
}
GRAFT_METHOD(bcache_evict, "lock-forever", 1, lock_forever);
