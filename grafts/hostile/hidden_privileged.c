// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile: a write of %cr0 hidden in an instruction's immediate
 * (0f 22 c0 is mov %rax, %cr0), reached by a jump into the middle of
 * that instruction. Decoded from its start, the code holds nothing
 * forbidden.
 */
#include "hostile.h"

HOSTILE_GRAFT("hidden-privileged",
	"jmp 1f+1\n"
	"1: movl $0x90c0220f, %eax\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
