// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile: a guard that writes only %r14w leaves %r14's upper bits as they
 * were: only a 32-bit write zero-extends.
 */
#include "hostile.h"

HOSTILE_GRAFT("guard-16bit",
	".bundle_lock\n"
	"leaw (%rdi), %r14w\n"
	"movq %rax, (%r15,%r14)\n"
	".bundle_unlock\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
