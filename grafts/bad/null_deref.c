// SPDX-License-Identifier: BSD-2-Clause
/* Misbehaving: changes a test cell, then reads through a NULL pointer (page fault). */
#include <graft/test.h>

static long *volatile nowhere;

static long null_deref(long a, long b)
{
	test_cell_set(2, (uint64_t)(a + b));
	return *nowhere + a;
}
GRAFT_METHOD(test_method, "null-deref", 1, null_deref);
