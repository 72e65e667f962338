// SPDX-License-Identifier: BSD-2-Clause
/* Misbehaving: changes the cache's state, then divides by zero (divide error). */
#include "scribble.h"

static volatile int zero;

static int divide_zero(void)
{
	scribble_on_cache();
	return (int)bcache_buffers() / zero;
}
GRAFT_METHOD(bcache_evict, "divide-zero", 1, divide_zero);
