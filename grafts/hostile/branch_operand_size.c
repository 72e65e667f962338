// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile: a masked indirect jump with an operand-size prefix. Intel ignores
 * the 66; AMD jumps to the low 16 bits of %r14, outside the graft's text,
 * whatever the mask made of it.
 */
#include "hostile.h"

HOSTILE_GRAFT("branch-operand-size",
	"popq %r14\n"
	".bundle_lock\n"
	"andq $__sfi_text_mask, %r14\n"
	"orq $__sfi_text_base, %r14\n"
	".byte 0x66, 0x41, 0xff, 0xe6\n"	/* jmpw *%r14 */
	".bundle_unlock\n");
