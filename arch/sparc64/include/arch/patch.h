/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Building code patches on SPARC V9 (arch/sparc64/patch/): the first
 * part, the word encoders and the buffer. Plain C with no kernel
 * dependencies, so a host or qemu-user program can build the same words.
 *
 * Invariants: every word is the fixed bits of a form from the generated
 * header (SPARC_ENC_*, from opcodes.map) ORed with operand fields at the
 * generated positions (SPARC_F_*), never an inline opcode number; a
 * branch whose displacement does not fit its field is refused (the
 * buffer records the distance) instead of being truncated.
 */
#ifndef ARCH_PATCH_H
#define ARCH_PATCH_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <arch/insn.h>
#include "sparc64_opcodes.h"

#define PATCH_JUMP_LEN 4	/* ba,a: what a splice writes at its site */

struct patch_buf {
	uint32_t *code;		/* the words, in host order (stored big-endian by the caller on x86) */
	size_t cap;		/* in words */
	size_t len;
	uint64_t runs_at;	/* the address code[0] executes at */
	bool overflow;
	bool out_of_reach;
	int64_t reach_distance;	/* the displacement that did not fit, in bytes */
	char why[112];		/* a reason that names a distance */
};

static inline void patch_buf_init(struct patch_buf *b, uint32_t *code, size_t cap, uint64_t runs_at)
{
	b->code = code;
	b->cap = cap;
	b->len = 0;
	b->runs_at = runs_at;
	b->overflow = false;
	b->out_of_reach = false;
	b->reach_distance = 0;
	b->why[0] = 0;
}

static inline bool patch_buf_ok(const struct patch_buf *b)
{
	return !b->overflow && !b->out_of_reach;
}

static inline uint64_t patch_buf_pc(const struct patch_buf *b)
{
	return b->runs_at + 4 * b->len;
}

#define SPARC_PUT(f, v) (((uint32_t)(v) & SPARC_F_##f##_MASK) << SPARC_F_##f##_SHIFT)

/* True if the byte displacement fits a signed word field of `bits`. */
static inline bool sparc_disp_fits(int64_t disp, unsigned bits)
{
	int64_t words = disp / 4;
	return (disp & 3) == 0 && words >= -((int64_t)1 << (bits - 1)) &&
		words < ((int64_t)1 << (bits - 1));
}

/* Words of the forms a patch uses. */
static inline uint32_t sparc_enc_nop(void) { return SPARC_ENC_NOP; }

/* ba,a disp22 (Bicc) from `from` to `to`; false when out of its ±8 MB. */
bool patch_ba_a(uint32_t *out, uint64_t from, uint64_t to);

/* call disp30. */
uint32_t sparc_enc_call(uint64_t from, uint64_t to);

/* sethi %hi(imm), rd; or rs1, simm13, rd; save/restore %sp, simm13, %sp. */
uint32_t sparc_enc_sethi(uint32_t imm, unsigned rd);
uint32_t sparc_enc_or_imm(unsigned rs1, int32_t simm13, unsigned rd);
uint32_t sparc_enc_save_imm(unsigned rs1, int32_t simm13, unsigned rd);
uint32_t sparc_enc_restore(void);

void patch_emit_word(struct patch_buf *b, uint32_t w);
void patch_emit_ba_a(struct patch_buf *b, uint64_t target);

/*
 * patch_build_counter - the code patch for a splice at `site`, counting
 * how often the instruction there runs:
 *   1. save %sp, -192, %sp; call .+8 (the patch's own pc in %o7); nop;
 *      ldx [%o7 + literal], %l0; ldx [%l0], %l1; add %l1, 1, %l1;
 *      stx %l1, [%l0]; restore  (a fresh window: no live register touched,
 *      the condition codes untouched);
 *   2. the displaced instruction relocated (patch_relocate);
 *   3. ba,a back; the 64-bit counter address as a literal after the code.
 * fn_start, fn_words: the function's words (big-endian in memory), read to
 * find branch targets. Returns NULL on success, else a one-line reason
 * (the buffer is then not to be used).
 */
const char *patch_build_counter(struct patch_buf *b, const uint32_t *fn, uint64_t fn_start,
				size_t fn_words, uint64_t site, uint64_t counter);

/*
 * patch_relocate - the instruction at site (and its delay slot if it is a
 * CTI) rewritten to run at patch_buf_pc(b), then the branch back. NULL or
 * the reason for refusing.
 */
const char *patch_relocate(struct patch_buf *b, const uint32_t *fn, uint64_t fn_start,
			   size_t fn_words, uint64_t site);

#endif
