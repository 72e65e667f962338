// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: jumps past the lea that confines a store, to the store itself. */
#include "hostile.h"

HOSTILE_GRAFT("jump-past-mask",
	"jmp 1f\n"
	".bundle_lock\n"
	"leal 8(%rdi), %r14d\n"
	"1: movq %rax, (%r15,%r14)\n"
	".bundle_unlock\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
