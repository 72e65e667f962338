/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kernel stack walks for tracing (arch/x86/stack_walk.c), and where a
 * paused thread's return or indirect transfer goes, for single steps
 * (arch/x86/step_target.c).
 */
#ifndef ARCH_STACK_H
#define ARCH_STACK_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <arch/trap.h>

/*
 * arch_stack_walk - the return addresses of the kernel stack at f.
 * Arguments: f, the registers of a probe hit (or a captured frame);
 *   at_boundary, f is at a function's first instruction or at its ret
 *   (no frame of its own: the return address is on top of the stack),
 *   and the stack starts at the caller, as DTrace's fbt stacks do;
 *   otherwise f's own pc comes first; pcs, room for max program counters.
 * Return value: the number of pcs filled (at least 1 when max > 0).
 * Caller's context: any, including probe context; never faults.
 */
unsigned arch_stack_walk(const struct trap_frame *f, bool at_boundary, uint64_t *pcs,
			 unsigned max);

/*
 * arch_return_target - where the return instruction at f's pc goes: the
 *   return address it takes (a single step's next place, scion/pause.h).
 * Arguments: f, the registers before the return runs; to, set on success.
 * Return value: true with *to; false where the machine cannot tell (a
 *   delayed return, whose delay slot runs first).
 * Caller's context: any; never faults.
 */
bool arch_return_target(const struct trap_frame *f, uint64_t *to);

/*
 * arch_indirect_target - where the indirect call or jump at addr goes
 *   with f's registers: its register, or the word its memory operand
 *   names (a single step's next place, scion/pause.h).
 * Arguments: f, the registers before it runs; code, avail: its bytes as
 *   booted (the live text may hold a probe); to, set on success.
 * Return value: true with *to; false when the machine does not work it
 *   out (a form it does not compute, an unreadable word).
 * Caller's context: thread; never faults.
 */
bool arch_indirect_target(const struct trap_frame *f, uint64_t addr, const uint8_t *code,
			  size_t avail, uint64_t *to);

#endif
