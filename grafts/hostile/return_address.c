// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: overwrites its own return address, then returns with a plain ret. */
#include "hostile.h"

HOSTILE_GRAFT("return-address",
	"movq $0xffffffff80100000, %rax\n"
	"movq %rax, (%rsp)\n"
	"ret\n");
