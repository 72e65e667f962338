// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: writes a control register (write protection off). */
#include "hostile.h"

HOSTILE_GRAFT("mov-cr0",
	"movq %cr0, %rax\n"
	"andq $-0x10001, %rax\n"
	"movq %rax, %cr0\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
