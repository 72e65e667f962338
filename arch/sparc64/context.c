// SPDX-License-Identifier: BSD-2-Clause
/*
 * A new thread's first frames on sparc64 (see switch.S), and what else a
 * switch hands over: nothing yet (no FPU state in the kernel, no user
 * address spaces).
 *
 * Layout below stack_top (16-byte aligned), lowest address first:
 *   frame A (176 bytes): the save area arch_context_switch reloads:
 *     %i6 = frame B's %sp, %i7 = thread_trampoline - 8 (so `ret` lands on
 *     it), everything else 0; the thread's saved_sp is A - 2047;
 *   frame B (176 bytes): the trampoline's window, filled from B's save
 *     area: all zero, so its %fp and return address end backtraces;
 *   16 bytes of slack up to stack_top.
 */
#include <arch/context.h>
#include <scion/string.h>
#include <scion/thread.h>

#include "sparc64_internal.h"

extern char thread_trampoline[];

_Static_assert(offsetof(struct thread, arch.saved_sp) == 0, "switch.S needs saved_sp first");

void arch_context_init(struct thread *t, uintptr_t stack_top)
{
	uintptr_t b = stack_top - 16 - MIN_FRAME;
	uintptr_t a = b - MIN_FRAME;
	uint64_t *save_a = (uint64_t *)a;

	memset((void *)a, 0, 2 * MIN_FRAME);
	save_a[FRAME_I6 / 8] = b - STACK_BIAS;
	save_a[FRAME_I7 / 8] = (uint64_t)(uintptr_t)thread_trampoline - 8;
	t->arch.saved_sp = a - STACK_BIAS;
}
