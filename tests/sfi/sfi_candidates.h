/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The instruction encodings the SFI proof tries (sfi_candidates.c):
 * every legacy opcode map and byte under many prefix sets, ModRM, SIB,
 * displacement and immediate values, each one instruction the arch
 * decoder admits for a sandboxed graft. A branch displacement or a
 * rip-relative displacement depends on where the candidate is placed:
 * it is carried as a target, and candidate_place writes it.
 */
#ifndef SFI_CANDIDATES_H
#define SFI_CANDIDATES_H

#include <stdbool.h>
#include <stdint.h>
#include <arch/insn.h>

/* What a placement-dependent field aims at. */
enum candidate_target {
	AIM_NONE,
	AIM_NEXT,		/* the instruction after the candidate */
	AIM_SELF,		/* the candidate itself (a loop) */
	AIM_INSIDE,		/* its second byte: refused, else an escape */
	AIM_TEXT_START,		/* offset 0 of the text: the context, or the candidate */
	AIM_FILL,		/* a ud2 of the fill */
	AIM_GATE,		/* the exit gate */
	AIM_API,		/* the API entry */
	AIM_OUTSIDE,		/* just past the text region */
	AIM_ADDRESS,		/* rip-relative: the absolute address `address` */
};

struct candidate {
	uint8_t bytes[INSN_MAX_LENGTH];
	uint8_t length;
	uint8_t fix_offset, fix_size;	/* the placement-dependent field, if fix_target */
	enum candidate_target fix_target;
	uint64_t address;		/* AIM_ADDRESS */
	char form[40];			/* the opcode form it belongs to: "0f ab bts mem" */
};

struct candidate_counts {
	uint64_t generated;		/* byte sequences built */
	uint64_t decoder_refused;	/* refused at once: invalid, not sfi, not legacy */
	uint64_t admitted;		/* passed to the caller */
};

typedef void candidate_fn(void *ctx, const struct candidate *c);

#define CANDIDATE_OPCODES_MAX 1024

/*
 * candidate_opcodes - the opcodes to enumerate, in order: map << 8 |
 *   opcode byte, for the four legacy maps, leaving out the bytes that
 *   are prefixes or escapes there. Return value: how many.
 */
unsigned candidate_opcodes(uint16_t out[CANDIDATE_OPCODES_MAX]);

/*
 * enumerate_opcode - call fn for every candidate of one opcode (from
 *   candidate_opcodes), in the quick sample (full false) or the
 *   exhaustive enumeration (full true), always in the same order.
 */
void enumerate_opcode(bool full, uint16_t opcode, candidate_fn *fn, void *ctx,
		      struct candidate_counts *counts);

/*
 * candidate_place - the candidate's bytes placed at addr in a text
 *   region at text (text_size bytes), its field aimed; out gets length
 *   bytes. Return value: false when the target is out of the field's
 *   reach (a rel8 to the exit gate).
 */
bool candidate_place(const struct candidate *c, uint8_t *out, uint64_t addr, uint64_t text,
		     uint64_t text_size);

const char *candidate_target_name(enum candidate_target t);

#endif
