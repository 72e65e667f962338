// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile: cmpxchg16b writes 16 bytes; at 8 bytes before the end of the
 * graft's data, half of them fall past it.
 */
#include "hostile.h"

static unsigned long hostile_data[512] __attribute__((used, aligned(4096)));

HOSTILE_GRAFT("pair-past-data",
	"cmpxchg16b hostile_data+4088(%rip)\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
