/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel text as it was booted (kernel/poke/text_image.c): a copy
 * taken at boot, checked against the hash the build wrote into the image,
 * so probes can be undone byte for byte and `text verify` can prove it.
 */
#ifndef SCION_TEXTIMAGE_H
#define SCION_TEXTIMAGE_H

#include <scion/compiler.h>

/*
 * text_image_init - copy the text and check it against the build's hash.
 * Return value: 0, -EIO when the text differs from the image that was
 *   built, -ENOMEM. Caller's context: boot, before anything patches text.
 */
int text_image_init(void);

/* The original bytes at addr in kernel text (addr must be in text). */
const uint8_t *text_image_bytes(uint64_t addr);

/* Whether a copy exists (text_image_init succeeded). */
bool text_image_ready(void);

/*
 * text_image_compare - call fn for every range where live text differs
 * from the booted image. Return value: the number of ranges.
 */
unsigned text_image_compare(void (*fn)(uint64_t start, uint64_t end, void *arg), void *arg);

/* The FNV-1a 64 hash of len bytes. */
uint64_t fnv1a64(const void *data, size_t len);

#endif
