// SPDX-License-Identifier: BSD-2-Clause
/*
 * The graft points of user processes: vm.fault_around, how many pages
 * a first touch of anonymous memory gives (grafts/include/graft/vm.h).
 */
#include <scion/graft.h>
#include <scion/format.h>
#include "proc_internal.h"

static int default_fault_around(uint64_t addr, uint64_t area_start, uint64_t area_end)
{
	(void)addr;
	(void)area_start;
	(void)area_end;
	return 1;
}

struct vm_policy vm_policy = {
	.fault_around = default_fault_around,
};

static const char *check_pages(uint64_t result, const uint64_t args[6])
{
	(void)args;
	int n = (int)result;
	return n >= 1 && n <= VM_FAULT_AROUND_MAX ? NULL : "pages outside 1..VM_FAULT_AROUND_MAX";
}

GRAFT_POINT_METHOD(vm_fault_around, vm_policy.fault_around, default_fault_around, 10000,
		   check_pages,
		   "a process touched a page of an anonymous area for the first time: return "
		   "how many pages from it upward to give at once, 1..16 (page-fault handler, "
		   "interrupts masked, may not sleep); default: 1");
