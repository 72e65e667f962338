/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kernel stack walks for tracing on sparc64: the register windows are
 * flushed, then the save areas' %i7 are followed (arch/sparc64/stack_walk.c).
 * Same contract as arch/x86/include/arch/stack.h.
 */
#ifndef ARCH_STACK_H
#define ARCH_STACK_H

#include <stdbool.h>
#include <stdint.h>
#include <arch/trap.h>

unsigned arch_stack_walk(const struct trap_frame *f, bool at_boundary, uint64_t *pcs,
			 unsigned max);

#endif
