/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Software fault isolation for grafts on sparc64: none yet. The x86
 * sandbox (bundles, masked stores, a verifier over x86 instructions)
 * has no SPARC counterpart (issue 25): the graft loader refuses a
 * sandboxed load before linking it, with arch/features.h's reason for
 * FEATURE_SANDBOX, and arch_sfi_create and sfi_verify refuse with the
 * same line should anything reach them. No sandboxed graft ever runs:
 * the other hooks are never reached with a live sandbox. Same contract as
 * arch/x86/include/arch/sfi.h for what the graft loader calls.
 */
#ifndef ARCH_SFI_H
#define ARCH_SFI_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define SFI_ERR_MAX 224
#define SFI_API_STACK 0x4000
#define SFI_TEXT_BASE_SYMBOL "__sfi_text_base"
#define SFI_TEXT_MASK_SYMBOL "__sfi_text_mask"

/* What a verifier would check a graft's text against (x86's layout; unused here). */
struct sfi_layout {
	uint64_t text, text_size;
	uint64_t data, data_size;
	uint64_t entry;
	uint64_t exit_gate;
	bool (*is_api_entry)(void *ctx, uint64_t addr);
	void *ctx;
};

/* A sandbox's state, as x86 keeps it; never filled here (nwindows stays 0). */
struct arch_sfi {
	uint64_t *window;
	unsigned nwindows;
	uint64_t exit_stub;
	uint64_t data;
	uint64_t data_size;
};

/* The text mask a sandbox would use (unused: creation refuses). */
static inline uint32_t sfi_text_mask(uint32_t p)
{
	return p - 1;
}

/*
 * The contract (scion/sfi_arch.h), as this port answers it: arch_sfi_create
 * and sfi_verify refuse with -ENOTSUP and the one-line reason; nothing
 * else is reached with a live sandbox (arch_sfi_call panics if it were);
 * no windows, no stacks owned, no entry overflows.
 */
#include <scion/sfi_arch.h>

#endif
