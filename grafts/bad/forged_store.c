// SPDX-License-Identifier: BSD-2-Clause
/*
 * Misbehaving: stores through a pointer it made up, into kernel address
 * space that nothing maps (page fault). Without software fault isolation
 * a forged pointer into mapped kernel data would not fault: that is the
 * sandbox's job (a later step of the graft loader).
 */
#include <graft/test.h>

#define UNMAPPED_KERNEL_ADDRESS 0xffffc7ff00000000ull

static long forged_store(long a, long b)
{
	test_cell_set(2, (uint64_t)(a + b));
	*(volatile uint64_t *)(uintptr_t)UNMAPPED_KERNEL_ADDRESS = (uint64_t)a;
	return b;
}
GRAFT_METHOD(test_method, "forged-store", 1, forged_store);
