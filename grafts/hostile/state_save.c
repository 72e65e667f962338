// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile: fxsave through a guarded address. The guard bounds the
 * effective address; fxsave writes 512 bytes from it, and xsave more:
 * processor state saves are refused whatever their address.
 */
#include "hostile.h"

HOSTILE_GRAFT("state-save",
	".bundle_lock\n"
	"leal (%rdi), %r14d\n"
	"fxsave64 (%r15,%r14)\n"
	".bundle_unlock\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
