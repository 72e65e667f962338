// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile: xbegin names a fallback address that an abort (any interrupt)
 * jumps to: a control transfer the verifier would not see as one.
 */
#include "hostile.h"

HOSTILE_GRAFT("transaction-abort",
	"xbegin 1f\n"
	"1: xorl %eax, %eax\n"
	HOSTILE_RETURN);
