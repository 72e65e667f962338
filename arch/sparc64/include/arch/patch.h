/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Building code patches on SPARC V9 (arch/sparc64/patch/): the word
 * encoders, the buffer, the inserted code (counters, accumulators, the
 * frame call) and the relocation of a displaced instruction. Plain C
 * with no kernel dependencies, so a qemu-user program builds the same
 * words (tests/sparc64_patch).
 *
 * Invariants: every word is the fixed bits of a form from the generated
 * header (SPARC_ENC_*, from opcodes.map) ORed with operand fields at the
 * generated positions (SPARC_F_*), never an inline opcode number; a
 * branch whose displacement does not fit its field is refused (the
 * buffer records the distance) instead of being truncated. Words are
 * stored big-endian whatever the host, so the buffer is bytes (len and
 * cap count bytes, as the portable probe code expects).
 * Inserted code runs in a register window of its own (save ... restore):
 * it touches no register of the probed code and leaves the condition
 * codes and %y as they were.
 */
#ifndef ARCH_PATCH_H
#define ARCH_PATCH_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <arch/insn.h>
#include "sparc64_opcodes.h"

#define PATCH_JUMP_LEN 4	/* ba,a: what a splice writes at its site */

/* The software trap a breakpoint probe writes (ta 0x70: trap type 0x170). */
#define PATCH_BREAKPOINT_TRAP 0x70

/* Ancillary state registers the inserted code reads or writes (rd/wr %asr). */
#define SPARC_ASR_Y   0
#define SPARC_ASR_CCR 2
#define SPARC_ASR_TICK 4
#define SPARC_ASR_PC  5
#define SPARC_PR_PSTATE 6	/* rdpr/wrpr %pstate */

struct patch_buf {
	uint8_t *code;		/* where the words are written (big-endian) */
	size_t cap;		/* bytes */
	size_t len;		/* bytes */
	uint64_t runs_at;	/* the address code[0] executes at */
	bool overflow;
	bool out_of_reach;
	int64_t reach_distance;	/* the displacement that did not fit, in bytes */
};

static inline void patch_buf_init(struct patch_buf *b, void *code, size_t cap, uint64_t runs_at)
{
	b->code = code;
	b->cap = cap;
	b->len = 0;
	b->runs_at = runs_at;
	b->overflow = false;
	b->out_of_reach = false;
	b->reach_distance = 0;
}

static inline bool patch_buf_ok(const struct patch_buf *b)
{
	return !b->overflow && !b->out_of_reach;
}

static inline uint64_t patch_buf_pc(const struct patch_buf *b)
{
	return b->runs_at + b->len;
}

#define SPARC_PUT(f, v) (((uint32_t)(v) & SPARC_F_##f##_MASK) << SPARC_F_##f##_SHIFT)

/* True if the byte displacement fits a signed word field of `bits`. */
static inline bool sparc_disp_fits(int64_t disp, unsigned bits)
{
	int64_t words = disp / 4;
	return (disp & 3) == 0 && words >= -((int64_t)1 << (bits - 1)) &&
		words < ((int64_t)1 << (bits - 1));
}

/* The big-endian word at p (text, patches, a function's image). */
static inline uint32_t sparc_word_at(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static inline void sparc_word_put(void *p, uint32_t w)
{
	uint8_t *b = p;
	b[0] = (uint8_t)(w >> 24);
	b[1] = (uint8_t)(w >> 16);
	b[2] = (uint8_t)(w >> 8);
	b[3] = (uint8_t)w;
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
/* ldx/stx rd, [rs1 + simm13]. */
uint32_t sparc_enc_ldx(unsigned rs1, int32_t simm13, unsigned rd);
uint32_t sparc_enc_stx(unsigned rd, unsigned rs1, int32_t simm13);

/* The breakpoint word (ta PATCH_BREAKPOINT_TRAP), and whether w is one. */
uint32_t patch_breakpoint_word(void);
bool patch_is_breakpoint_word(uint32_t w);

/* rd %pc, rd: reads where it runs, so it cannot run elsewhere as it is. */
bool sparc_reads_pc(uint32_t w);

void patch_emit_word(struct patch_buf *b, uint32_t w);
void patch_emit_ba_a(struct patch_buf *b, uint64_t target);
/* sethi %hi(v), rd; or rd, %lo(v), rd: v must lie below 4 GB, else out_of_reach. */
void patch_emit_set32(struct patch_buf *b, uint64_t v, unsigned rd);

/*
 * patch_emit_jump - PATCH_JUMP_WORDS words that go to target (below 4
 * GB) from wherever the buffer runs: ba,a and padding when target is
 * within its +-8 MB, else save; sethi %hi(target), %l0; jmpl %l0 +
 * %lo(target), %g0; restore (in the delay slot: the window is back
 * before target runs). The same length either way, so a patch sized in
 * one place is as long in another.
 */
#define PATCH_JUMP_WORDS 4
void patch_emit_jump(struct patch_buf *b, uint64_t target);

/*
 * patch_springboard - the PATCH_SPRINGBOARD_LEN bytes of a springboard
 * slot at `slot` (32-byte aligned, below 4 GB): save; sethi; ldx the
 * patch's address from the slot's last doubleword; jmpl there; restore
 * in its delay slot; a pad word; the address, `patch`. A site that gets a
 * new patch rewrites the doubleword alone (one aligned store), never the
 * code another CPU may be running.
 */
#define PATCH_SPRINGBOARD_LEN    32
#define PATCH_SPRINGBOARD_TARGET 24	/* the patch address's offset in a slot */
void patch_springboard(uint8_t out[PATCH_SPRINGBOARD_LEN], uint64_t slot, uint64_t patch);

/* save %sp, -frame, %sp and restore: the window inserted code runs in. */
void patch_emit_save(struct patch_buf *b, unsigned frame);
void patch_emit_restore(struct patch_buf *b);

/*
 * patch_emit_counter - add 1 to the 64-bit counter at `counter` (below 4
 * GB) with casx, retried until no other update came between: exact under
 * interrupts and on every CPU. Uses %l0-%l3 of a window the caller
 * opened; the condition codes are not touched (brnz on a register).
 */
void patch_emit_counter(struct patch_buf *b, uint64_t counter);

/*
 * Per-CPU slots of an accumulator (offsets from the executing CPU's
 * struct cpu, whose address the word at `cpu_pointer` holds): the
 * time-weighted count of threads inside a region (KernInst's
 * concurrency metric).
 */
struct patch_accumulator {
	uint32_t last;		/* cycle counter at the last update */
	uint32_t inside;	/* threads inside, as seen by this CPU (may go negative) */
	uint32_t area;		/* sum of inside * cycles */
};

/* Registers patch_emit_accumulate overwrites: none (it runs in its own window). */
uint32_t patch_accumulate_clobbers(void);

/*
 * patch_emit_accumulate - with interrupts masked, bring the accumulator's
 * area up to %tick, then add delta to inside. cpu_pointer: the address
 * (below 4 GB) of the word that points at this CPU's struct cpu. Uses
 * %l0-%l6 of a window the caller opened; restores PSTATE.
 */
void patch_emit_accumulate(struct patch_buf *b, const struct patch_accumulator *acc, int delta,
			   uint64_t cpu_pointer);

/*
 * patch_emit_frame_call - in a window of its own with room for a struct
 * trap_frame, call the shared trampoline (arch/sparc64/probe_frame.S:
 * sparc64_probe_frame_call) with %l0 = pc, %l1 = fn, %l2 = cookie: it
 * saves the globals, the probed code's outs (this window's ins), %y, the
 * condition codes and PSTATE in the frame (tpc = pc), calls fn(frame,
 * cookie) with interrupts masked and puts them back. pc and fn lie below 4 GB; cookie is any
 * 64-bit value; the trampoline within a call's reach.
 */
void patch_emit_frame_call(struct patch_buf *b, uint64_t pc, uint64_t fn, uint64_t cookie,
			   uint64_t trampoline);

/*
 * patch_relocate - the instruction at site (and its delay slot if it is
 * a CTI) rewritten to run at patch_buf_pc(b), then the branch back.
 * fn, fn_start, fn_words: the function's words (big-endian), read to
 * find branch targets. NULL, or the reason for refusing.
 */
const char *patch_relocate(struct patch_buf *b, const void *fn, uint64_t fn_start,
			   size_t fn_words, uint64_t site);

/*
 * patch_out_of_line - what a breakpoint probe's trap resumes in (TPC at
 * the copy, TNPC as the trap left it: the word after the site, or a
 * taken branch's target when the site is a delay slot). A plain
 * instruction is copied as it is; a PC-relative branch points at a
 * `ba,a target` after it, so its delay slot runs in place (where a probe
 * of its own may be); a call, a jmpl with a link and rd %pc are copied
 * as they are and done by the resume (arch_probe_resume: what they write
 * names the site). Refused: a CTI in a delay slot.
 */
const char *patch_out_of_line(struct patch_buf *b, const void *fn, uint64_t fn_start,
			      size_t fn_words, uint64_t site);

/*
 * patch_build_counter - a whole counting patch for a splice at site:
 * save; patch_emit_counter; restore; patch_relocate. The host test's
 * entry point (the kernel composes the same pieces in arch_probe_build_patch).
 */
const char *patch_build_counter(struct patch_buf *b, const void *fn, uint64_t fn_start,
				size_t fn_words, uint64_t site, uint64_t counter);

#endif
