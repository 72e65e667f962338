// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: a masked-looking indirect jump whose base is kernel text, not the graft's. */
#include "hostile.h"

HOSTILE_GRAFT("jump-kernel-masked",
	"movq %rdi, %r14\n"
	".bundle_lock\n"
	"andq $__sfi_text_mask, %r14\n"
	"orq $0xffffffff80100000, %r14\n"
	"jmp *%r14\n"
	".bundle_unlock\n");
