// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: an exchange writes %r15, the window base, with a value of the graft's. */
#include "hostile.h"

HOSTILE_GRAFT("window-base-swap",
	"xchgq %r15, %rdi\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
