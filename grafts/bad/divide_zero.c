// SPDX-License-Identifier: BSD-2-Clause
/* Misbehaving: changes a test cell, then divides by zero (divide error). */
#include <graft/test.h>

static volatile long zero;

static long divide_zero(long a, long b)
{
	test_cell_set(2, (uint64_t)(a + b));
	return a / zero + b;
}
GRAFT_METHOD(test_method, "divide-zero", 1, divide_zero);
