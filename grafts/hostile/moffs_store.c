// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: mov to a 64-bit absolute address (moffs): kernel data, unguarded. */
#include "hostile.h"

HOSTILE_GRAFT("moffs-store",
	"movabsq %rax, 0xffffffff80100000\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
