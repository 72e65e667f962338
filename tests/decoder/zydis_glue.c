// SPDX-License-Identifier: BSD-2-Clause
/* Zydis 4 as check-decoder's second opinion on instruction lengths. */
#include <Zydis/Zydis.h>
#include "second_opinion.h"

static ZydisDecoder decoder;
static int initialized;

int second_opinion_length(const uint8_t *code, size_t avail)
{
	ZydisDecodedInstruction insn;
	ZydisDecoderContext ctx;

	if (!initialized) {
		ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
		initialized = 1;
	}
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&decoder, &ctx, code, avail, &insn)))
		return -1;
	return insn.length;
}

const char *second_opinion_name(void)
{
	return "Zydis 4";
}
