// SPDX-License-Identifier: BSD-2-Clause
/*
 * vm.fault_around: give a process eight pages on each first touch (or
 * what is left of the area): one fault instead of eight for a program
 * that walks its memory forward.
 */
#include <graft/vm.h>

static int eight_pages(uint64_t addr, uint64_t area_start, uint64_t area_end)
{
	(void)addr;
	(void)area_start;
	(void)area_end;
	return 8;
}
GRAFT_METHOD(vm_fault_around, "fault-around-8", 1, eight_pages);
