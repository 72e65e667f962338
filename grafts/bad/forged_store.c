// SPDX-License-Identifier: BSD-2-Clause
/*
 * Misbehaving: changes the cache's state, then stores through a pointer
 * it made up. Sandboxed (arch/x86/include/arch/sfi.h), the store is
 * masked into the graft's window, at the pointer's low 32 bits, where
 * nothing is mapped: a page fault aborts the transaction. Its trusted
 * build stores at the pointer itself, kernel address space that nothing
 * maps: a page fault as well. (A forged pointer into mapped kernel data
 * would fault only in the sandbox: wild_store.c.)
 */
#include "scribble.h"

#define UNMAPPED_KERNEL_ADDRESS 0xffffc7ff12345000ull	/* low 32 bits: unmapped in a window */

static int forged_store(void)
{
	scribble_on_cache();
	*(volatile uint64_t *)(uintptr_t)UNMAPPED_KERNEL_ADDRESS = SCRIBBLE_WORD;
	return 0;
}
GRAFT_METHOD(bcache_evict, "forged-store", 1, forged_store);
