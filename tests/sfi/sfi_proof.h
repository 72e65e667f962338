/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the SFI proof's parts share (sfi_proof.c, sfi_selftest.c): the
 * text region they lay code out in and the verifier's view of it.
 */
#ifndef SFI_PROOF_H
#define SFI_PROOF_H

#include <stdbool.h>
#include <stdint.h>
#include <arch/sfi.h>
#include "window_child.h"

#define PROOF_TEXT_SIZE SFI_TEXT_MIN
#define PROOF_LAYOUT_BYTES 64	/* what a layout may change: the first two bundles */

/* The layout sfi_verify is given: the window child's addresses. */
extern const struct sfi_layout proof_layout;

/* A fresh text region: ud2 fill and the exit stub (arch_sfi_text_init). */
void proof_text_template(uint8_t text[PROOF_TEXT_SIZE]);

/*
 * proof_lay_out - code (n bytes: a context and a candidate) at offset
 *   0 of text, then `jmp GATE` right after it, or at the next bundle
 *   behind a nop when it does not fit, and a nop up to the even offset
 *   where the fill's ud2 pairs go on; the rest of text is left as it is
 *   (a template).
 */
void proof_lay_out(uint8_t text[PROOF_TEXT_SIZE], const uint8_t *code, unsigned n);

/*
 * sfi_selftest - run the known-bad forms without verifying them and
 *   check that the window child reports each as an escape (and a few
 *   confined controls as confined). Prints one line per case.
 * Return value: how many cases failed; *passed counts the others.
 */
unsigned sfi_selftest(struct window_child *c, uint64_t seed, unsigned *passed);

#endif
