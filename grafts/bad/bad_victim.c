// SPDX-License-Identifier: BSD-2-Clause
/*
 * Misbehaving: changes the cache's state, then names a buffer that does
 * not exist: the graft point's result check refuses it.
 */
#include "scribble.h"

static int bad_victim(void)
{
	scribble_on_cache();
	return (int)bcache_buffers();
}
GRAFT_METHOD(bcache_evict, "bad-victim", 1, bad_victim);
