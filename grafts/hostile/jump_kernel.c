// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: an indirect jump into kernel code, through an unmasked register. */
#include "hostile.h"

HOSTILE_GRAFT("jump-kernel",
	"movq $0xffffffff80100000, %rax\n"
	"jmp *%rax\n");
