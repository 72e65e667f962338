// SPDX-License-Identifier: BSD-2-Clause
/*
 * Misbehaving: takes graft lock 0 and never lets go (spins): the time
 * budget aborts it and the abort releases the lock.
 */
#include <graft/test.h>

static long lock_forever(long a, long b)
{
	graft_lock(0);
	test_cell_set(2, (uint64_t)(a + b));
	while (graft_cycles() != 0)	/* the cycle counter never reads 0 again */
		;
	return a + b;
}
GRAFT_METHOD(test_method, "lock-forever", 1, lock_forever);
