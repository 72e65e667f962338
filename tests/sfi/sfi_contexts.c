// SPDX-License-Identifier: BSD-2-Clause
/*
 * The contexts of sfi_contexts.h, encoded by hand (the proof must not
 * depend on an assembler): a 32-bit write of %r14d in each form the
 * verifier names (lea, mov from a register in both encodings, mov from
 * memory), the stack guard's and/or, and the indirect branch's
 * and/or with this text region's mask and base. Variants differ in
 * their operands, so the value a guarded store adds to %r15 comes from
 * different registers, displacements and memory.
 */
#include <string.h>
#include "sfi_contexts.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static const struct sfi_context none = { "none", 0, { 0 } };
static const struct sfi_context leas[] = {
	{ "lea (%rsi),%r14d", 3, { 0x44, 0x8d, 0x36 } },
	{ "lea -0x80000000(%rax),%r14d", 7, { 0x44, 0x8d, 0xb0, 0x00, 0x00, 0x00, 0x80 } },
	{ "lea 0x7fffffff(%rdi,%rsi,8),%r14d", 8, { 0x44, 0x8d, 0xb4, 0xf7, 0xff, 0xff, 0xff, 0x7f } },
};
static const struct sfi_context mov_regs[] = {
	{ "mov %eax,%r14d (89)", 3, { 0x41, 0x89, 0xc6 } },
	{ "mov %esi,%r14d (8b)", 3, { 0x44, 0x8b, 0xf6 } },
};
static const struct sfi_context stack_guard = {
	"and $0x7fff,%r14; or %r15,%r14", 10,
	{ 0x49, 0x81, 0xe6, 0xff, 0x7f, 0x00, 0x00, 0x4d, 0x09, 0xfe },
};

struct sfi_context sfi_context(unsigned kind, unsigned variant, uint64_t text_size)
{
	struct sfi_context c;

	switch (kind) {
	case CONTEXT_LEA:
		return leas[variant % N(leas)];
	case CONTEXT_MOV_REG:
		return mov_regs[variant % N(mov_regs)];
	case CONTEXT_MOV_MEM:
		if (variant % 2 == 0)
			return (struct sfi_context){ "mov (%rsi),%r14d", 3, { 0x44, 0x8b, 0x36 } };
		/* mov DATA+slot(%rip), %r14d at offset 0: rip-relative to its end (7 bytes). */
		c = (struct sfi_context){ "mov DATA+16(%rip),%r14d", 7, { 0x44, 0x8b, 0x35 } };
		put32(c.bytes + 3, (uint32_t)(WINDOW_DATA + CONTEXT_DATA_SLOT - (WINDOW_TEXT + 7)));
		return c;
	case CONTEXT_STACK_GUARD:
		return stack_guard;
	case CONTEXT_TEXT_MASK:
		c = (struct sfi_context){ "and $mask,%r14; or $TEXT,%r14", 14,
					  { 0x49, 0x81, 0xe6, 0, 0, 0, 0, 0x49, 0x81, 0xce } };
		put32(c.bytes + 3, sfi_text_mask((uint32_t)text_size));
		put32(c.bytes + 10, (uint32_t)WINDOW_TEXT);
		return c;
	default:
		return none;
	}
}
