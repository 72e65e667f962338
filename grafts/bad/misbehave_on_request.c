// SPDX-License-Identifier: BSD-2-Clause
/*
 * Misbehaving on request, at test.method, for tests on a machine whose
 * block cache has no disk to work on (sparc64: its bcache.* grafts can
 * load but never run). test.method(how, address) first changes test
 * cells 2 and 3 (undo-logged), then
 *   how 1: spins until its time budget aborts it;
 *   how 2: loads from address (a fault, given an address nothing maps);
 *   any other how: returns how + 1000, and the changes stay.
 * Either abort must put the cells back as they were.
 */
#include <graft/test.h>

#define SPIN_UNTIL_ABORTED 1
#define LOAD_FROM_ADDRESS 2
#define WELL_BEHAVED_OFFSET 1000

static long misbehave_on_request(long how, long address)
{
	test_cell_set(2, (uint64_t)how);
	test_cell_set(3, (uint64_t)address);
	if (how == SPIN_UNTIL_ABORTED)
		while (graft_cycles() != 0)	/* the cycle counter never reads 0 again */
			;
	if (how == LOAD_FROM_ADDRESS)
		return *(volatile long *)(uintptr_t)address;
	return how + WELL_BEHAVED_OFFSET;
}
GRAFT_METHOD(test_method, "misbehave", 1, misbehave_on_request);
