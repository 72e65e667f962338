// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: a byte write of %spl moves the stack pointer outside the stack guard. */
#include "hostile.h"

HOSTILE_GRAFT("stack-pointer-byte",
	"movb $0, %spl\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
