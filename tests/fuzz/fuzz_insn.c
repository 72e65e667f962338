// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the x86-64 decoder with arbitrary bytes. ASan catches any read past
 * the bytes given (the input is an exact-size heap copy); the checks below
 * catch broken invariants:
 *   - a length never exceeds 15 or the bytes given;
 *   - an instruction decodes the same with more bytes after it, and the same
 *     at another address (except for its targets);
 *   - cutting a valid instruction short says TRUNCATED, never OK;
 *   - fields lie inside the instruction.
 */
#include <stdlib.h>
#include <string.h>
#include <arch/insn.h>
#include "fuzz.h"

#define CHECK(cond) FUZZ_ASSERT(cond, "%s", #cond)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *exact = malloc(size ? size : 1);
	memcpy(exact, data, size);
	struct insn in, again;

	insn_decode(&in, exact, size, 0x1000);
	CHECK(in.length <= INSN_MAX_LENGTH && in.length <= size);
	if (in.status == INSN_OK) {
		CHECK(in.length > 0);
		CHECK(in.opcode_offset < in.length);
		CHECK(!in.has_modrm || in.modrm_offset < in.length);
		CHECK(!in.disp_size || in.disp_offset + in.disp_size <= in.length);
		CHECK(!in.imm_size || in.imm_offset + in.imm_size + in.imm2_size <= in.length);
		CHECK(!in.rip_relative || in.disp_size == 4);

		/* Bytes after the instruction change nothing. */
		uint8_t padded[INSN_MAX_LENGTH + 16];
		memset(padded, 0xcc, sizeof(padded));
		memcpy(padded, exact, in.length);
		insn_decode(&again, padded, sizeof(padded), 0x1000);
		CHECK(again.status == INSN_OK && again.length == in.length);
		CHECK(again.regs_read == in.regs_read && again.regs_written == in.regs_written);

		/* Elsewhere, only the targets move, by the same distance. */
		insn_decode(&again, exact, in.length, 0x7fff0000);
		CHECK(again.status == INSN_OK && again.length == in.length && again.cf == in.cf);
		if (insn_has_branch_target(&in) && in.imm_size == 4)
			CHECK(again.target - in.target == 0x7fff0000 - 0x1000);

		/* One byte short is truncated. */
		uint8_t *short_copy = malloc(in.length);
		memcpy(short_copy, exact, in.length);
		insn_decode(&again, short_copy, in.length - 1u, 0x1000);
		CHECK(again.status == INSN_TRUNCATED);
		free(short_copy);
	}
	free(exact);
	return 0;
}
