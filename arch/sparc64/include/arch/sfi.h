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

/* The text size a sandbox would need: bytes (never used: creation refuses). */
uint64_t arch_sfi_text_size(uint64_t bytes);
/* Never reached (creation refuses first); fills nothing. */
void arch_sfi_text_init(uint8_t *text, uint64_t text_addr, uint64_t size, uint64_t exit_gate);
/* Refused: -ENOTSUP with the one-line reason in err. */
int arch_sfi_create(struct arch_sfi *s, uint64_t text, uint64_t text_size, uint64_t data,
		    uint64_t data_size, char *err, size_t errlen);
void arch_sfi_destroy(struct arch_sfi *s);
/* 0: no windows. */
unsigned arch_sfi_windows_in_use(void);
/* false: no sandbox owns any stack. */
bool arch_sfi_owns_stack(const struct arch_sfi *s, uint64_t a, uint64_t len);
struct arch_txn_jmp;
/* Never reached; panics if it were. */
uint64_t arch_sfi_call(struct arch_txn_jmp *jmp, uint64_t fn, const uint64_t args[6],
		       uint64_t window, uint64_t exit_stub);
extern char arch_sfi_exit[];
struct trap_frame;
/* Refused: -ENOTSUP, the reason in err (no SPARC verifier yet). */
int sfi_verify(const uint8_t *code, const struct sfi_layout *layout, uint8_t *marks,
	       char err[SFI_ERR_MAX]);

/* false: no sandbox. */
bool arch_sfi_entry_overflow(const struct arch_sfi *s, const struct trap_frame *f);

#endif
