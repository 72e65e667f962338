// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile: a bit test-and-set whose bit offset is a register. With a
 * memory operand, bts addresses the bit (offset >> 3) bytes from its
 * effective address, up to 2^60 bytes away: the masked effective
 * address says nothing about where it writes. Given a kernel address a,
 * it sets bit 0 of the byte at a.
 */
#include "hostile.h"

HOSTILE_METHOD("bit-test-store",
	"movq %rdi, %rax\n"
	"subq %r15, %rax\n"
	"shlq $3, %rax\n"
	"xorl %esi, %esi\n"
	".bundle_lock\n"
	"leal (%rsi), %r14d\n"
	"btsq %rax, (%r15,%r14)\n"
	".bundle_unlock\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
