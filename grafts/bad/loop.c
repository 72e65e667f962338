// SPDX-License-Identifier: BSD-2-Clause
/* Misbehaving: changes a test cell, then never returns (time budget abort). */
#include <graft/test.h>

static long loop_forever(long a, long b)
{
	test_cell_set(2, (uint64_t)(a + b));
	while (graft_cycles() != 0)	/* the cycle counter never reads 0 again */
		;
	return a + b;
}
GRAFT_METHOD(test_method, "loop", 1, loop_forever);
