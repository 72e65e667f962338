// SPDX-License-Identifier: BSD-2-Clause
/*
 * The text region of a sandboxed graft (arch/sfi.h): its size, a power
 * of two with room for the exit stub after the code, and its contents
 * before the loader copies the code in: ud2 everywhere, so that any
 * bundle the code does not fill decodes, traps, and never falls
 * through; the last bundle the exit stub. Portable: the kernel's loader
 * and the verifier's fuzzer lay a region out with the same code.
 */
#include <arch/sfi.h>
#include <scion/string.h>
#include "x86_encodings.h"

/* jmp rel32, then a nop, keep the ud2 after the stub at even offsets, as before it. */
_Static_assert(sizeof(x86_enc_jmp_rel32) + sizeof(int32_t) + sizeof(x86_enc_nop) == 6 &&
	       sizeof(x86_enc_ud2) == 2, "the exit stub: an even-length start, then ud2");

uint64_t arch_sfi_text_size(uint64_t bytes)
{
	uint64_t p = SFI_TEXT_MIN;
	while (p < bytes + SFI_BUNDLE)
		p <<= 1;
	return p;
}

void arch_sfi_text_init(uint8_t *text, uint64_t text_addr, uint64_t size, uint64_t exit_gate)
{
	for (uint64_t off = 0; off + sizeof(x86_enc_ud2) <= size; off += sizeof(x86_enc_ud2))
		memcpy(text + off, x86_enc_ud2, sizeof(x86_enc_ud2));
	uint8_t *stub = text + size - SFI_BUNDLE;
	uint64_t next = text_addr + size - SFI_BUNDLE + sizeof(x86_enc_jmp_rel32) + sizeof(int32_t);
	int32_t rel = (int32_t)((int64_t)exit_gate - (int64_t)next);
	memcpy(stub, x86_enc_jmp_rel32, sizeof(x86_enc_jmp_rel32));
	memcpy(stub + sizeof(x86_enc_jmp_rel32), &rel, sizeof(rel));
	memcpy(stub + sizeof(x86_enc_jmp_rel32) + sizeof(rel), x86_enc_nop, sizeof(x86_enc_nop));
}
