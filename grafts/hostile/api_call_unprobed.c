// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile: a call of the graft API without the API stack probe before
 * it. The API function runs on the graft's stack; unprobed, the graft
 * could call it with that stack nearly full, and the kernel code would
 * fault where the fault cannot be delivered.
 */
#include "hostile.h"

HOSTILE_GRAFT("api-call-unprobed",
	"call graft_cycles\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
