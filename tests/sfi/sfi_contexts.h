/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guards the verifier recognises (arch/sfi.h), as the instructions
 * the SFI proof puts before a candidate: each candidate is verified
 * after every one of them, because the verifier looks only at the one
 * or two instructions before an instruction, in its bundle. A context
 * sits at offset 0 of the text; the candidate follows it.
 */
#ifndef SFI_CONTEXTS_H
#define SFI_CONTEXTS_H

#include <stdint.h>
#include "window_layout.h"

/* Where the `mov M(%rip), %r14d` context reads its value: the runner writes it there. */
#define CONTEXT_DATA_SLOT 16

struct sfi_context {
	const char *name;
	uint8_t length;
	uint8_t bytes[16];
};

enum { CONTEXT_NONE, CONTEXT_LEA, CONTEXT_MOV_REG, CONTEXT_MOV_MEM, CONTEXT_STACK_GUARD,
       CONTEXT_TEXT_MASK, CONTEXT_KINDS };

/*
 * sfi_context - variant `variant` (any number, taken modulo how many
 *   there are) of context kind `kind`, for a text region of text_size
 *   bytes at WINDOW_TEXT.
 */
struct sfi_context sfi_context(unsigned kind, unsigned variant, uint64_t text_size);

#endif
