// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile: a guarded store with a %gs override lands at the CPU's per-CPU
 * base plus the window offset: kernel data, whatever the guard bounds.
 */
#include "hostile.h"

HOSTILE_GRAFT("segment-store",
	".bundle_lock\n"
	"leal 8(%rdi), %r14d\n"
	"movq %rax, %gs:(%r15,%r14)\n"
	".bundle_unlock\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
