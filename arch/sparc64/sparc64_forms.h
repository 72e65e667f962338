/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SPARC V9 decoder's tables (private to arch/sparc64/insn_decode.c
 * and its host tools): one struct sparc_form per encoding of
 * arch/sparc64/opcodes.map, as gen_sparc64_opcodes.py writes them into
 * build/gen/sparc64_opcodes.c. A word belongs to a form when
 * (word & mask) == value; the forms of a bucket (op and op2 or op3) are
 * sorted most specific first, so the first match is the answer.
 */
#ifndef SPARC64_FORMS_H
#define SPARC64_FORMS_H

#include <stdint.h>
#include "sparc64_opcodes.h"

/* How an i=1 form reads its immediate. */
enum sparc_imm {
	SPARC_IMM_NONE,
	SPARC_IMM_SIMM13,
	SPARC_IMM_SIMM11,
	SPARC_IMM_SIMM10,
	SPARC_IMM_SHCNT,
	SPARC_IMM_SWTRAP,
};

/* Which PC-relative displacement a form has. */
enum sparc_disp {
	SPARC_DISP_NONE,
	SPARC_DISP_30,
	SPARC_DISP_22,
	SPARC_DISP_19,
	SPARC_DISP_16,
};

#define SPARC_Y_R    0x01
#define SPARC_Y_W    0x02
#define SPARC_PRIV   0x04
#define SPARC_BLOCK  0x08
#define SPARC_QUAD   0x10
#define SPARC_ASI_R  0x20	/* rd %asi */
#define SPARC_ASI_W  0x40	/* wr %asi */

struct sparc_form {
	uint32_t mask, value;
	uint16_t mnemonic;	/* enum sparc_mnemonic */
	uint8_t cf;		/* enum insn_cf */
	uint16_t operands;	/* INSN_OPD_* (arch/insn.h) */
	uint8_t cc_read, cc_written;	/* INSN_CC_* */
	uint8_t mem;		/* enum insn_mem */
	uint8_t mem_size;
	uint8_t window;		/* enum insn_window */
	uint8_t imm;		/* enum sparc_imm */
	uint8_t disp;		/* enum sparc_disp */
	uint8_t flags;		/* SPARC_Y_*, SPARC_PRIV, SPARC_BLOCK, SPARC_QUAD, SPARC_ASI_* */
};

struct sparc_bucket {
	uint16_t first, count;
};

/* An encoding no form admits, and why ([reserved] in opcodes.map); the list ends with reason NULL. */
struct sparc_reserved {
	uint32_t mask, value;
	const char *reason;
};

extern const struct sparc_reserved sparc_reserved[];
extern const char *const sparc_mnemonics[SPARC_MN_COUNT];
extern const struct sparc_form sparc_forms[];
extern const struct sparc_bucket sparc_buckets[SPARC_FORM_BUCKETS];
/* What an ASI makes of a form marked SPARC_BLOCK or SPARC_QUAD ([block-asi], [quad-asi]). */
extern const uint8_t sparc_asi_kinds[256];

#endif
