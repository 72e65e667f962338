/* SPDX-License-Identifier: BSD-2-Clause */
/* Kernel stack walks for tracing. */
#ifndef ARCH_STACK_H
#define ARCH_STACK_H

#include <stdbool.h>
#include <stdint.h>
#include <arch/trap.h>

/*
 * arch_stack_walk - the return addresses of the kernel stack at f.
 * Arguments: f, the registers of a probe hit (or a captured frame);
 *   at_entry, f is at a function's first instruction (its frame is not
 *   set up: the return address is on top of the stack); pcs, room for
 *   max program counters, f's own pc first.
 * Return value: the number of pcs filled (at least 1 when max > 0).
 * Caller's context: any, including probe context; never faults.
 */
unsigned arch_stack_walk(const struct trap_frame *f, bool at_entry, uint64_t *pcs, unsigned max);

#endif
