// SPDX-License-Identifier: BSD-2-Clause
/*
 * The current simulation instance on the host (kernel/bcache/cache.h's
 * cache_env_current): one thread replays, so one variable serves where
 * the kernel keeps one per CPU. Shared by scion-sim and the replay's
 * fuzz target.
 */
#include "../kernel/bcache/cache.h"

static struct bcache_cache *current;

struct bcache_cache *cache_env_current(void)
{
	return current;
}

struct bcache_cache *cache_env_set_current(struct bcache_cache *c)
{
	struct bcache_cache *outer = current;
	current = c;
	return outer;
}
