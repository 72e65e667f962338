/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The graft point of a user process's memory map (kernel/proc/vm.c),
 * shared by the kernel and grafts.
 */
#ifndef GRAFT_VM_H
#define GRAFT_VM_H

#include <graft/graft.h>

#define VM_FAULT_AROUND_MAX 16	/* pages one fault may give at most */

/*
 * vm.fault_around (method): a process touched a page of an anonymous
 * area for the first time. Return how many pages, from the touched one
 * upward inside the area [area_start, area_end), to give it at once
 * (1..VM_FAULT_AROUND_MAX): the memory map's read-ahead. The page-fault
 * handler calls it (interrupts masked, may not sleep); install it per
 * process (`graft install NAME pid N`) to change one program's policy.
 * Default: 1, the touched page only.
 */
#define GRAFT_POINT_vm_fault_around "vm.fault_around", int, \
	(uint64_t addr, uint64_t area_start, uint64_t area_end)
GRAFT_POINT_TYPEDEF(vm_fault_around);

#endif
