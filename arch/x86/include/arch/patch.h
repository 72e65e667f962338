/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Building code patches on x86-64 (arch/x86/patch_emit.c, relocate.c):
 * the code a probe's jump leads to. Plain C with no kernel dependencies,
 * so a host process can build the same patches on its own functions.
 *
 * A patch is written into a patch_buf that knows the address the code
 * will run at, so relative branches and RIP-relative operands can be
 * encoded; every emitter checks room and reach and records a failure in
 * the buffer instead of writing past it.
 */
#ifndef ARCH_PATCH_H
#define ARCH_PATCH_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <arch/insn.h>

#define PATCH_JUMP_LEN 5	/* jmp rel32: what a jump probe writes at its site */

struct patch_buf {
	uint8_t *code;		/* where the bytes are written */
	size_t cap;
	size_t len;
	uint64_t runs_at;	/* the address code[0] executes at */
	bool overflow;		/* ran out of room */
	bool out_of_reach;	/* a rel32 could not reach its target */
};

static inline void patch_buf_init(struct patch_buf *b, uint8_t *code, size_t cap, uint64_t runs_at)
{
	b->code = code;
	b->cap = cap;
	b->len = 0;
	b->runs_at = runs_at;
	b->overflow = false;
	b->out_of_reach = false;
}

static inline bool patch_buf_ok(const struct patch_buf *b)
{
	return !b->overflow && !b->out_of_reach;
}

/* The address the next byte will run at. */
static inline uint64_t patch_buf_pc(const struct patch_buf *b)
{
	return b->runs_at + b->len;
}

/* The byte that makes the CPU trap to the breakpoint handler (int3). */
uint8_t patch_breakpoint_byte(void);

/* The PATCH_JUMP_LEN bytes of a jump at `from` to `to`; false if out of reach. */
bool patch_jump_bytes(uint8_t out[PATCH_JUMP_LEN], uint64_t from, uint64_t to);

void patch_emit_jmp(struct patch_buf *b, uint64_t target);

/* call rel32 to target: the callee returns to the code after it, wherever that runs. */
void patch_emit_call(struct patch_buf *b, uint64_t target);

/*
 * patch_emit_frame_call - save every register in a struct trap_frame
 * layout (rip = pc, vector 0; the ss slot holds rsp) on the stack, call
 * fn(frame, cookie) with the stack aligned to 16 bytes and DF clear, and
 * with interrupts masked when mask_interrupts; then put back what the
 * code after needs: the interrupt flag, the status flags when live has
 * them, and of the caller-saved registers only those in live (arch/insn.h
 * masks; what is live before pc). fn is C, so it keeps the callee-saved
 * ones itself; a dead register may come back changed, which nothing can
 * see. Changes fn makes to the frame are ignored. mask_interrupts is
 * false only in host tests, which run patches in user mode.
 */
void patch_emit_frame_call(struct patch_buf *b, uint64_t pc, uint64_t fn, uint64_t cookie,
			   uint32_t live, bool mask_interrupts);

/*
 * patch_emit_handler_call - the frame call of a jump probe whose one C
 * consumer is a handler (scion/probe_arch.h's struct probe_patch_handler,
 * whose steps it runs, for the site state `state`), in the kernel: a
 * lean frame (scion/probe.h) with the hit below it, interrupts masked
 * (mask_interrupts is false only in host benchmarks, which run patches
 * in user mode), and the stack aligned to 8 bytes (the kernel's C needs
 * no more); the frame is restored as by patch_emit_frame_call. Its
 * common way runs straight through; cold is set for
 * patch_emit_handler_cold, which emits the rare ways (a nested hit, a
 * retired state) where the caller puts it: after the patch's branch
 * back, so no branch skips them.
 */
struct probe_patch_handler;
struct patch_handler_cold {
	const struct probe_patch_handler *h;
	uint64_t state;
	size_t nested, retired;		/* the common way's branches to the cold code */
	uint64_t done;			/* where the cold code goes back to: the restore */
};
void patch_emit_handler_call(struct patch_buf *b, uint64_t pc,
			     const struct probe_patch_handler *h, uint64_t state, uint32_t live,
			     bool mask_interrupts, struct patch_handler_cold *cold);
void patch_emit_handler_cold(struct patch_buf *b, const struct patch_handler_cold *cold);

/*
 * patch_emit_counter - atomically increment the 64-bit counter at
 * `counter` (which must be within reach of rip). Uses no register; the
 * flags are saved around it unless flags_free.
 */
void patch_emit_counter(struct patch_buf *b, uint64_t counter, bool flags_free);

/*
 * Per-CPU slots of an accumulator (offsets from the per-CPU base, %gs):
 * the time-weighted count of threads inside a region (KernInst's
 * concurrency metric; divided by calls it is the mean time per call).
 */
struct patch_accumulator {
	uint32_t last;		/* cycle counter at the last update */
	uint32_t inside;	/* threads inside, as seen by this CPU (may go negative) */
	uint32_t area;		/* sum of inside * cycles */
};

/* Registers patch_emit_accumulate overwrites (they must be free at the site). */
uint32_t patch_accumulate_clobbers(void);

/*
 * patch_emit_accumulate - bring the accumulator's area up to now, then
 * add delta (+1 on entry, -1 on exit) to inside. Runs with interrupts
 * masked; saves and restores the flags (and with them IF).
 */
void patch_emit_accumulate(struct patch_buf *b, const struct patch_accumulator *acc, int delta);

/*
 * A redirect: jump elsewhere when every test holds (scion/probe.h's
 * struct probe_redirect, with the kernel's layout filled in). Each slot
 * is a 64-bit word within reach of rip; 0 leaves its test out.
 */
struct patch_redirect {
	uint64_t target_slot;		/* holds where to jump */
	uint64_t value_slot;		/* holds the value arg_reg must have */
	unsigned arg_reg;		/* INSN_R* */
	bool arg_low_half;		/* compare only the register's low 32 bits */
	uint64_t tid_slot;		/* holds the id the current thread must have */
	uint32_t current_offset;	/* from the per-CPU base (%gs): the current thread */
	uint32_t tid_offset;		/* in the thread: its id */
	uint64_t taken;			/* counter: jumps made */
	bool flags_live;		/* keep the status flags for the code that follows */
};

/*
 * patch_emit_redirect - the tests of r and, when all hold, the jump to
 * *r->target_slot; otherwise execution falls through to what is emitted
 * next, with every register and (flags_live) the flags as they were.
 * Uses the stack below rsp for one word (the thread test's scratch).
 */
void patch_emit_redirect(struct patch_buf *b, const struct patch_redirect *r);

/*
 * patch_relocate - append code that does what `in` (whose bytes are
 * orig, decoded at its original address) does, when run at the buffer's
 * position: RIP-relative operands and relative branches are re-encoded,
 * a call becomes push of the original return address + jmp.
 * Return value: 0; -EINVAL with *why when the instruction cannot run
 *   elsewhere (it depends on where it is in a way that cannot be
 *   rewritten).
 */
int patch_relocate(struct patch_buf *b, const struct insn *in, const uint8_t *orig,
		   const char **why);

/*
 * patch_copy_insn - append in's bytes (orig) unchanged but for a
 * RIP-relative displacement, re-aimed at the same address from the
 * buffer's position (out_of_reach when it cannot be). No other check:
 * the caller knows the instruction does not depend on where it is.
 */
void patch_copy_insn(struct patch_buf *b, const struct insn *in, const uint8_t *orig);

/* Bytes patch_relocate may emit for one instruction, at most. */
#define PATCH_RELOCATE_MAX 24

#endif
