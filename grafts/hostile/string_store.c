// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: a string store writes at %rdi, for %rcx bytes: no guard confines it. */
#include "hostile.h"

HOSTILE_GRAFT("string-store",
	"rep stosb\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
