// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: a store through a register that was never masked into the window. */
#include "hostile.h"

HOSTILE_GRAFT("store-unmasked",
	"movq %rdi, 8(%rbx)\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
