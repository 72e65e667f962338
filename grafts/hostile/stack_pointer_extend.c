// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile: movzwl %di, %esp sets %rsp to a 16-bit value, and a stack
 * store's negative displacement then wraps it into the top 2 GiB, where
 * the kernel image is. The decoder once read the destination of a
 * byte- or word-sourced movzx as a byte register (%ah for %esp), so the
 * verifier saw no write of %rsp; the executable proof (tests/sfi/)
 * found it.
 */
#include "hostile.h"

HOSTILE_METHOD("stack-pointer-extend",
	"movzwl %di, %esp\n"
	"movq %rsi, -0x7fd50000(%rsp)\n"
	"1: jmp 1b\n");
