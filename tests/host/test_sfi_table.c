// SPDX-License-Identifier: BSD-2-Clause
/*
 * The sandbox's opcode knowledge, checked form by form over the whole
 * legacy encoding space the decoder can see: every opcode of the four
 * legacy maps with every ModRM byte, with and without REX.W and each
 * mandatory-prefix byte. For each form the decoder admits in a
 * sandboxed graft, its write extent (opcodes.map sfi=) must agree with
 * what the decoder reads off its operands: a written memory operand is
 * an `op` or `pair` extent of the operand's size, a push or call writes
 * the stack, nothing else writes memory, and no admitted form has an
 * effect the decoder does not model. Every other decodable form must
 * carry a one-line reason for its refusal. (The executable proof,
 * tests/sfi/, checks the same forms against the CPU.)
 */
#include "host_test.h"
#include <arch/insn.h>
#include <string.h>
#include <stdio.h>

#define REX_W 0x48
#define SFI_CF_OK(cf) ((cf) == INSN_CF_NONE || (cf) == INSN_CF_JMP || (cf) == INSN_CF_JCC || \
		       (cf) == INSN_CF_CALL || (cf) == INSN_CF_JMP_INDIRECT || \
		       (cf) == INSN_CF_CALL_INDIRECT || (cf) == INSN_CF_UD)

struct tally {
	unsigned admitted, refused, failures;
	char first[200];
};

static void fail(struct tally *t, const uint8_t *b, size_t n, const char *why)
{
	if (!t->failures++) {
		int k = snprintf(t->first, sizeof(t->first), "%s:", why);
		for (size_t i = 0; i < n && k > 0 && (size_t)k < sizeof(t->first) - 4; i++)
			k += snprintf(t->first + k, sizeof(t->first) - (size_t)k, " %02x", b[i]);
	}
}

/* The extent the operands imply, checked against the table's. */
static void check_form(struct tally *t, const uint8_t *b, size_t n)
{
	struct insn in;

	if (insn_decode(&in, b, n, 0x1000) != INSN_OK || in.encoding != INSN_LEGACY)
		return;
	if (!in.sfi_allowed) {
		t->refused++;
		if (!insn_sfi_refusal(&in)[0])
			fail(t, b, in.length, "refused without a reason");
		return;
	}
	t->admitted++;
	bool memory = in.has_modrm && (in.modrm >> 6) != 3;
	bool rsp_written = in.regs_written & INSN_REG(INSN_RSP);
	if (!in.semantics_known || !SFI_CF_OK(in.cf))
		fail(t, b, in.length, "admitted with unmodelled effects or control flow");
	switch (in.sfi_write) {
	case INSN_SFI_WRITE_NONE:
		if (in.mem_write)
			fail(t, b, in.length, "writes memory, extent none");
		break;
	case INSN_SFI_WRITE_OPERAND:
		if (memory && (!in.mem_write || in.sfi_write_size == 0 || in.sfi_write_size > 8 ||
			       (in.sfi_write_size != in.operand_size && in.operand_size != 1)))
			fail(t, b, in.length, "operand extent disagrees with the operand");
		if (!memory && in.mem_write)
			fail(t, b, in.length, "register form writes memory");
		break;
	case INSN_SFI_WRITE_PAIR:
		if (!memory || in.sfi_write_size != ((in.rex & 8) ? 16 : 8))
			fail(t, b, in.length, "pair extent is not 8 or 16 bytes of memory");
		break;
	case INSN_SFI_WRITE_STACK:
		if (!rsp_written || in.mem_write)
			fail(t, b, in.length, "stack extent without a push");
		break;
	default:
		fail(t, b, in.length, "no write extent");
	}
}

HOST_TEST(sfi_table_extents_agree_with_operands)
{
	static const uint8_t prefixes[][2] = { {0}, {0x66}, {0xf3}, {0xf2}, {REX_W}, {0x66, REX_W} };
	static const uint8_t escapes[][2] = { {0}, {0x0f}, {0x0f, 0x38}, {0x0f, 0x3a} };
	struct tally tally = { 0 };

	for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++)
		for (size_t e = 0; e < 4; e++)
			for (unsigned op = 0; op < 256; op++)
				for (unsigned modrm = 0; modrm < 256; modrm++) {
					uint8_t b[INSN_MAX_LENGTH] = { 0 };
					size_t n = 0;
					for (size_t i = 0; i < 2 && prefixes[p][i]; i++)
						b[n++] = prefixes[p][i];
					for (size_t i = 0; i < 2 && escapes[e][i]; i++)
						b[n++] = escapes[e][i];
					b[n++] = (uint8_t)op;
					b[n++] = (uint8_t)modrm;
					/* SIB 0x24 ((%rsp)), zero displacement and immediates after. */
					b[n] = 0x24;
					check_form(&tally, b, sizeof(b));
				}
	CHECK(t, tally.failures == 0, "%u forms disagree; first %s", tally.failures, tally.first);
	CHECK(t, tally.admitted > 1000 && tally.refused > 10000, "only %u admitted, %u refused",
	      tally.admitted, tally.refused);
}

/* The refusal's reason reaches the verifier's line, for a form of each kind. */
HOST_TEST(sfi_table_reasons)
{
	static const struct { uint8_t bytes[8]; size_t n; const char *reason; } cases[] = {
		{ { 0x48, 0x0f, 0xab, 0x07 }, 4, "a register bit offset" },	/* bts %rax, (%rdi) */
		{ { 0x48, 0x0f, 0xab, 0xc7 }, 4, "" },				/* bts %rax, %rdi */
		{ { 0x0f, 0xba, 0x2f, 0x05 }, 4, "" },				/* btsl $5, (%rdi) */
		{ { 0x48, 0x0f, 0xa3, 0x07 }, 4, "" },				/* bt %rax, (%rdi): a read */
		{ { 0x0f, 0xae, 0x07 }, 3, "saves or loads processor state" },	/* fxsave (%rdi) */
		{ { 0xc8, 0x10, 0x00, 0x00 }, 4, "enter and leave" },
		{ { 0xf3, 0xab }, 2, "a string instruction" },			/* rep stos */
		{ { 0x9d }, 1, "popf" },
		{ { 0xfd }, 1, "std sets DF" },
		{ { 0xc3 }, 1, "ret takes its target" },
		{ { 0xcd, 0x80 }, 2, "interrupts, traps" },
		{ { 0x0f, 0x01, 0xf8 }, 3, "segment registers" },		/* swapgs */
		{ { 0xe2, 0xfe }, 2, "unused by the graft build" },		/* loop */
		{ { 0xd9, 0xe8 }, 2, "x87" },					/* fld1 */
		{ { 0xe6, 0x80 }, 2, "port I/O" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct insn in;
		insn_decode(&in, cases[i].bytes, cases[i].n, 0x1000);
		const char *why = insn_sfi_refusal(&in);
		CHECK(t, in.status == INSN_OK && (cases[i].reason[0] ? strstr(why, cases[i].reason) != NULL
			 : (in.sfi_allowed && !why[0])), "case %zu: '%s', want '%s'", i, why,
		      cases[i].reason);
	}
}
