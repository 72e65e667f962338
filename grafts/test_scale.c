// SPDX-License-Identifier: BSD-2-Clause
/*
 * test.method: a first graft. Records its arguments in test cells 0 and
 * 1 (undone if it aborts) and returns a * b instead of a + b.
 * Try it: `graft install scale`, `graft try 6 7`.
 */
#include <graft/test.h>

static long scale(long a, long b)
{
	test_cell_set(0, (uint64_t)a);
	test_cell_set(1, (uint64_t)b);
	return a * b;
}
GRAFT_METHOD(test_method, "scale", 1, scale);
