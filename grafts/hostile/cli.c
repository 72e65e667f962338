// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: masks interrupts. */
#include "hostile.h"

HOSTILE_GRAFT("cli",
	"cli\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
