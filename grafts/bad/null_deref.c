// SPDX-License-Identifier: BSD-2-Clause
/* Misbehaving: changes the cache's state, then reads through a NULL pointer (page fault). */
#include "scribble.h"

static int *volatile nowhere;

static int null_deref(void)
{
	scribble_on_cache();
	return *nowhere;
}
GRAFT_METHOD(bcache_evict, "null-deref", 1, null_deref);
