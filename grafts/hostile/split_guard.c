// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile: the guard ends one bundle and the store starts the next, so a
 * masked jump to the bundle start would skip the guard.
 */
#include "hostile.h"

HOSTILE_GRAFT("split-guard",
	".bundle_align_mode 0\n"
	".p2align 5\n"
	".fill 29, 1, 0x90\n"
	"leal (%rdi), %r14d\n"
	"movq %rax, (%r15,%r14)\n"
	".bundle_align_mode 5\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
