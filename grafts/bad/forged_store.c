// SPDX-License-Identifier: BSD-2-Clause
/*
 * Misbehaving: changes the cache's state, then stores through a pointer
 * it made up, into kernel address space that nothing maps (page fault).
 * Without software fault isolation a forged pointer into mapped kernel
 * data would not fault: that is the sandbox's job (a later step of the
 * graft loader).
 */
#include "scribble.h"

#define UNMAPPED_KERNEL_ADDRESS 0xffffc7ff00000000ull

static int forged_store(void)
{
	scribble_on_cache();
	*(volatile uint64_t *)(uintptr_t)UNMAPPED_KERNEL_ADDRESS = SCRIBBLE_WORD;
	return 0;
}
GRAFT_METHOD(bcache_evict, "forged-store", 1, forged_store);
