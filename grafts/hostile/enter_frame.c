// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile: enter moves %rsp down by its immediate (and pushes), outside
 * the stack guard: 64 KiB below a 32 KiB stack.
 */
#include "hostile.h"

HOSTILE_GRAFT("enter-frame",
	"enter $0xffff, $0\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
