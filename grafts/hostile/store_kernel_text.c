// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: a direct store to kernel text (an absolute address in the kernel image). */
#include "hostile.h"

HOSTILE_GRAFT("store-kernel-text",
	"movq $0, 0xffffffff80100000\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
