// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: a jump into the middle of an instruction (its immediate). */
#include "hostile.h"

HOSTILE_GRAFT("jump-mid-instruction",
	"jmp 1f+1\n"
	"1: movl $0x12345678, %eax\n"
	HOSTILE_RETURN);
