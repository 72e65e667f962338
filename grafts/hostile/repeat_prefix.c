// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile: an f3 prefix on an instruction that takes none. CPUs ignore it
 * today; later ones give such pairs new meanings (f3 0f b8 became popcnt,
 * f3 0f 1e fa endbr64), which the verifier would not know.
 */
#include "hostile.h"

HOSTILE_GRAFT("repeat-prefix",
	".byte 0xf3, 0x48, 0x01, 0xc0\n"	/* rep addq %rax, %rax */
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
