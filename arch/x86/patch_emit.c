// SPDX-License-Identifier: BSD-2-Clause
/*
 * Emitting the code of patches (see arch/patch.h). Opcode bytes come from
 * the [encode] section of opcodes.map (x86_encodings.h); this file only
 * composes REX and ModRM bytes, displacements and immediates around them.
 */
#include <arch/patch.h>
#include <arch/trap.h>
#include <arch/abi.h>
#include <scion/probe.h>
#include <scion/probe_arch.h>
#include "x86_encodings.h"

#define REX_W 0x8
#define REX_R 0x4
#define REX_B 0x1
#define SEL_KERNEL_CODE 0x08

/* ModRM and SIB fields. */
#define MODRM(mod, reg, rm)  ((uint8_t)((mod) << 6 | ((reg) & 7) << 3 | ((rm) & 7)))
#define MOD_INDIRECT  0
#define MOD_DISP8     1
#define MOD_DISP32    2
#define MOD_REGISTER  3
#define RM_SIB        4
#define RM_RIP        5
#define SIB_RSP       0x24	/* base rsp, no index */
#define SIB_ABSOLUTE  0x25	/* no base, no index: [disp32] */

#define FRAME_BYTES   ((uint32_t)sizeof(struct trap_frame))
#define FRAME_SLOT(field) ((uint32_t)offsetof(struct trap_frame, field))

/* The order struct trap_frame keeps general registers in, highest address first. */
static const uint8_t frame_push_order[] = {
	INSN_RAX, INSN_RBX, INSN_RCX, INSN_RDX, INSN_RSI, INSN_RDI, INSN_RBP,
	INSN_R8, INSN_R9, INSN_R10, INSN_R11, INSN_R12, INSN_R13, INSN_R14, INSN_R15,
};

static void emit(struct patch_buf *b, const uint8_t *bytes, size_t n)
{
	if (b->len + n > b->cap) {
		b->overflow = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		b->code[b->len++] = bytes[i];
}

#define EMIT(b, name) emit((b), x86_enc_##name, sizeof(x86_enc_##name))

static void emit_u8(struct patch_buf *b, uint8_t v)
{
	emit(b, &v, 1);
}

static void emit_u32(struct patch_buf *b, uint32_t v)
{
	uint8_t le[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	emit(b, le, 4);
}

static void emit_u64(struct patch_buf *b, uint64_t v)
{
	emit_u32(b, (uint32_t)v);
	emit_u32(b, (uint32_t)(v >> 32));
}

/* rel32 to target, from the end of this 4-byte field plus `after` more bytes. */
static void emit_rel32(struct patch_buf *b, uint64_t target, unsigned after)
{
	int64_t rel = (int64_t)(target - (patch_buf_pc(b) + 4 + after));
	if (rel != (int32_t)rel)
		b->out_of_reach = true;
	emit_u32(b, (uint32_t)rel);
}

/* An opcode from the table with REX.W (and REX.B when rm >= 8) before it. */
static void emit_rex_w(struct patch_buf *b, unsigned rm)
{
	emit_u8(b, (uint8_t)(x86_enc_rex[0] | REX_W | (rm >= 8 ? REX_B : 0)));
}

uint8_t patch_breakpoint_byte(void)
{
	return x86_enc_int3[0];
}

void patch_emit_jmp(struct patch_buf *b, uint64_t target)
{
	EMIT(b, jmp_rel32);
	emit_rel32(b, target, 0);
}

void patch_emit_call(struct patch_buf *b, uint64_t target)
{
	EMIT(b, call_rel32);
	emit_rel32(b, target, 0);
}

bool patch_jump_bytes(uint8_t out[PATCH_JUMP_LEN], uint64_t from, uint64_t to)
{
	struct patch_buf b;
	patch_buf_init(&b, out, PATCH_JUMP_LEN, from);
	patch_emit_jmp(&b, to);
	return patch_buf_ok(&b) && b.len == PATCH_JUMP_LEN;
}

static void emit_push_reg(struct patch_buf *b, unsigned reg)
{
	if (reg >= 8)
		emit_u8(b, (uint8_t)(x86_enc_rex[0] | REX_B));
	emit_u8(b, (uint8_t)(x86_enc_push_r[0] + (reg & 7)));
}

/* Push any 64-bit value without a scratch register. */
static void emit_push_u64(struct patch_buf *b, uint64_t v)
{
	EMIT(b, push_imm32);
	emit_u32(b, (uint32_t)v);
	if ((int64_t)v != (int32_t)v) {
		/* movl $high, 4(%rsp) */
		emit(b, x86_enc_mov_rm_imm32, sizeof(x86_enc_mov_rm_imm32));
		emit_u8(b, MODRM(MOD_DISP8, X86_ENC_MOV_RM_IMM32_EXT, RM_SIB));
		emit_u8(b, SIB_RSP);
		emit_u8(b, 4);
		emit_u32(b, (uint32_t)(v >> 32));
	}
}

/* lea disp(%rsp), %reg: moves rsp without touching the flags. */
static void emit_lea_rsp(struct patch_buf *b, unsigned reg, int32_t disp)
{
	emit_rex_w(b, 0);
	EMIT(b, lea);
	emit_u8(b, MODRM(MOD_DISP32, reg, RM_SIB));
	emit_u8(b, SIB_RSP);
	emit_u32(b, (uint32_t)disp);
}

/* mov %src, %dst (64-bit, registers below r8). */
static void emit_mov_reg(struct patch_buf *b, unsigned dst, unsigned src)
{
	emit_rex_w(b, 0);
	EMIT(b, mov_rm_r);
	emit_u8(b, MODRM(MOD_REGISTER, src, dst));
}

static void emit_mov_imm64(struct patch_buf *b, unsigned reg, uint64_t v)
{
	emit_u8(b, x86_enc_mov_r_imm64[0]);
	emit_u8(b, (uint8_t)(x86_enc_mov_r_imm64[1] + (reg & 7)));
	emit_u64(b, v);
}

/*
 * op disp32(%base) with REX.W: an opcode from the table, then reg (any
 * of the 16, or /N) and the field; base below r8.
 */
static void emit_base_op(struct patch_buf *b, const uint8_t *op, size_t n, unsigned reg,
			 unsigned base, uint32_t disp)
{
	emit_u8(b, (uint8_t)(x86_enc_rex[0] | REX_W | (reg >= 8 ? REX_R : 0)));
	emit(b, op, n);
	emit_u8(b, MODRM(MOD_DISP32, reg, base));
	if (base == INSN_RSP)
		emit_u8(b, SIB_RSP);
	emit_u32(b, disp);
}

_Static_assert(FRAME_SLOT(r15) == 0 && FRAME_SLOT(rax) == 14 * 8,
	       "frame_push_order is struct trap_frame's order");

static uint32_t frame_reg_slot(unsigned reg)
{
	for (unsigned i = 0; i < sizeof(frame_push_order); i++)
		if (frame_push_order[i] == reg)	/* pushed i-th: 14 - i slots above r15 */
			return (uint32_t)(sizeof(frame_push_order) - 1 - i) * 8;
	return 0;
}

/* jcc rel32 on cc with the offset left to fix_forward; returns where the field is. */
static size_t emit_jcc_forward(struct patch_buf *b, uint8_t cc)
{
	emit_u8(b, x86_enc_jcc_rel32[0]);
	emit_u8(b, (uint8_t)(x86_enc_jcc_rel32[1] | cc));
	size_t field = b->len;
	emit_u32(b, 0);
	return field;
}

/* Aim the rel32 field at `field` at the current position. */
static void fix_forward(struct patch_buf *b, size_t field)
{
	if (b->overflow)
		return;
	uint32_t rel = (uint32_t)(b->len - (field + 4));
	for (unsigned i = 0; i < 4; i++)
		b->code[field + i] = (uint8_t)(rel >> (8 * i));
}

#define CC_CARRY     0x2	/* jcc's conditions: CF set, */
#define CC_EQUAL     0x4	/* ZF set, */
#define CC_NOT_EQUAL 0x5	/* ZF clear, */
#define CC_SIGN      0x8	/* SF set */

/* op %gs:slot with REX.W: the opcode bytes, then reg and an absolute disp32. */
static void emit_gs_op(struct patch_buf *b, const uint8_t *op, size_t n, unsigned reg,
		       uint32_t slot)
{
	EMIT(b, gs);
	emit_rex_w(b, 0);
	emit(b, op, n);
	emit_u8(b, MODRM(MOD_INDIRECT, reg, RM_SIB));
	emit_u8(b, SIB_ABSOLUTE);
	emit_u32(b, slot);
}

/*
 * What every frame holds above its registers, after its rsp slot: rflags,
 * then (interrupts masked after rflags is saved, so the restore can
 * unmask them) cs and rip = pc.
 */
static void emit_frame_flags_cs_pc(struct patch_buf *b, uint64_t pc, bool mask_interrupts)
{
	EMIT(b, pushfq);
	if (mask_interrupts)
		EMIT(b, cli);
	EMIT(b, push_imm8);
	emit_u8(b, SEL_KERNEL_CODE);
	emit_push_u64(b, pc);
}

/*
 * Saving a whole frame, in steps:
 * 1. The ss and rsp slots both get the probed code's rsp (push reads its
 *    operand before it moves rsp), then rflags; interrupts are masked
 *    after rflags is saved, so the restore can unmask them.
 * 2. cs, rip = pc, error and vector 0, then every general register.
 * 3. rbx keeps the frame; the stack is aligned to 16 bytes, which host C
 *    needs (the kernel's needs 8: arch.mk). DF is clear already, as C
 *    needs it: kernel code runs with it clear (trap and system-call
 *    entries clear it; tools/check_noprobe.py proves that no kernel code
 *    sets it).
 */
static void emit_frame_save(struct patch_buf *b, uint64_t pc, bool mask_interrupts)
{
	emit_push_reg(b, INSN_RSP);
	emit(b, x86_enc_push_rm, sizeof(x86_enc_push_rm));	/* push (%rsp) */
	emit_u8(b, MODRM(MOD_INDIRECT, X86_ENC_PUSH_RM_EXT, RM_SIB));
	emit_u8(b, SIB_RSP);
	emit_frame_flags_cs_pc(b, pc, mask_interrupts);
	for (unsigned i = 0; i < 2; i++) {		/* error, vector */
		EMIT(b, push_imm8);
		emit_u8(b, 0);
	}
	for (unsigned i = 0; i < sizeof(frame_push_order); i++)
		emit_push_reg(b, frame_push_order[i]);

	emit_mov_reg(b, INSN_RBX, INSN_RSP);
	emit_rex_w(b, 0);			/* and $-16, %rsp */
	emit(b, x86_enc_and_rm_imm8, sizeof(x86_enc_and_rm_imm8));
	emit_u8(b, MODRM(MOD_REGISTER, X86_ENC_AND_RM_IMM8_EXT, INSN_RSP));
	emit_u8(b, (uint8_t)-16);
}

#define RFLAGS_IF_BYTE 1	/* IF (bit 9) is bit 1 of rflags' second byte */
#define RFLAGS_IF_BIT  0x2

/* Where a frame is, for its restore: at, bytes above rsp; end, its bytes from there up. */
struct frame_place {
	uint32_t at, end;
	bool rbx_changed;
};

/*
 * Restoring after the call, in steps:
 * 1. The live caller-saved registers from the frame, and rbx when the
 *    save changed it.
 * 2. The flags: when the code after the site reads the status flags,
 *    popfq takes them all back (and with them IF). When it does not, only
 *    IF needs restoring: sti when the site had it set. popfq is a slow,
 *    microcoded instruction on every x86; a test and sti are not. DF is
 *    clear throughout (the save's step 3).
 * 3. rsp past the frame.
 */
static void emit_frame_restore(struct patch_buf *b, uint32_t live, bool mask_interrupts,
			       struct frame_place f)
{
	for (unsigned i = 0; i < sizeof(frame_push_order); i++) {
		unsigned reg = frame_push_order[i];
		if ((reg == INSN_RBX && f.rbx_changed) || (INSN_REG(reg) & ABI_CALLER_SAVED & live))
			emit_base_op(b, x86_enc_mov_r_rm, sizeof(x86_enc_mov_r_rm), reg, INSN_RSP,
				     f.at + frame_reg_slot(reg));
	}
	if (live & INSN_STATUS_FLAGS) {
		emit_lea_rsp(b, INSN_RSP, (int32_t)(f.at + FRAME_SLOT(rflags)));
		EMIT(b, popfq);
		emit_lea_rsp(b, INSN_RSP, (int32_t)(f.end - FRAME_SLOT(rflags) - 8));
		return;
	}
	if (mask_interrupts) {
		EMIT(b, test_rm8_imm8);			/* testb $IF, rflags+1(%rsp) */
		emit_u8(b, MODRM(MOD_DISP32, X86_ENC_TEST_RM8_IMM8_EXT, RM_SIB));
		emit_u8(b, SIB_RSP);
		emit_u32(b, f.at + FRAME_SLOT(rflags) + RFLAGS_IF_BYTE);
		emit_u8(b, RFLAGS_IF_BIT);
		size_t masked = emit_jcc_forward(b, CC_EQUAL);
		EMIT(b, sti);
		fix_forward(b, masked);
	}
	emit_lea_rsp(b, INSN_RSP, (int32_t)(f.at + f.end));
}

void patch_emit_frame_call(struct patch_buf *b, uint64_t pc, uint64_t fn, uint64_t cookie,
			   uint32_t live, bool mask_interrupts)
{
	emit_frame_save(b, pc, mask_interrupts);
	emit_mov_reg(b, INSN_RDI, INSN_RBX);
	emit_mov_imm64(b, INSN_RSI, cookie);
	patch_emit_call(b, fn);
	emit_mov_reg(b, INSN_RSP, INSN_RBX);
	emit_frame_restore(b, live, mask_interrupts,
			   (struct frame_place){ .at = 0, .end = FRAME_BYTES, .rbx_changed = true });
}

/* lock incq disp(%base) */
static void emit_lock_inc(struct patch_buf *b, unsigned base, uint32_t disp)
{
	EMIT(b, lock);
	emit_base_op(b, x86_enc_inc_rm, sizeof(x86_enc_inc_rm), X86_ENC_INC_RM_EXT, base, disp);
}

/* op slot(%rip) with REX.W: the opcode bytes, then reg (or /N) and the slot's rel32. */
static void emit_rip_op(struct patch_buf *b, const uint8_t *op, size_t n, unsigned reg,
			uint64_t slot)
{
	emit_rex_w(b, 0);
	emit(b, op, n);
	emit_u8(b, MODRM(MOD_INDIRECT, reg, RM_RIP));
	emit_rel32(b, slot, 0);
}

/* The registers a lean frame leaves to the C handler: frame_push_order's last four. */
#define LEAN_UNSAVED 4
/* A lean frame's hit lies in its r14 and r15 slots, and the word below the frame. */
#define HIT_BELOW 8
_Static_assert(FRAME_SLOT(r12) == 3 * 8 && FRAME_SLOT(error) == FRAME_SLOT(vector) + 8 &&
	       FRAME_SLOT(ss) + 8 == FRAME_BYTES,
	       "a lean frame skips vector and error with one lea, and ss by not pushing it");
_Static_assert(offsetof(struct probe_hit, regs) == 0 &&
	       offsetof(struct probe_hit, probe) == HIT_BELOW + FRAME_SLOT(r15) &&
	       offsetof(struct probe_hit, addr) == HIT_BELOW + FRAME_SLOT(r14),
	       "the hit is pushed below the frame: addr, probe, then the frame's address");

/*
 * Saving a lean frame (struct probe_patch_handler's), in steps:
 * 1. push %rsp: the rsp slot gets the probed code's rsp. The frame's ss
 *    slot is the probed stack's top word, which the patch leaves alone:
 *    a lean frame has no ss (scion/probe.h). rflags, then interrupts
 *    masked (unless !mask_interrupts: host benchmarks).
 * 2. cs, rip = pc; error and vector stepped over; the registers of
 *    frame_push_order but r12..r15, which a C handler keeps itself.
 * 3. The hit (struct probe_hit), in r12..r15's slots and below: r12 and
 *    r13's stepped over, addr = pc into r14's, the probe from its slot
 *    into r15's, then regs = the frame's address. rdi points at it. The
 *    stack stays where the hit left it: the kernel's C needs 8-byte
 *    alignment only (arch.mk). DF is clear (emit_frame_save's step 3).
 */
static void emit_lean_frame_save(struct patch_buf *b, uint64_t pc, uint64_t probe_slot,
				 bool mask_interrupts)
{
	emit_push_reg(b, INSN_RSP);
	emit_frame_flags_cs_pc(b, pc, mask_interrupts);
	emit_lea_rsp(b, INSN_RSP, -16);
	for (unsigned i = 0; i < sizeof(frame_push_order) - LEAN_UNSAVED; i++)
		emit_push_reg(b, frame_push_order[i]);

	emit_lea_rsp(b, INSN_RSP, -16);
	emit_push_u64(b, pc);
	emit(b, x86_enc_push_rm, sizeof(x86_enc_push_rm));	/* push probe_slot(%rip) */
	emit_u8(b, MODRM(MOD_INDIRECT, X86_ENC_PUSH_RM_EXT, RM_RIP));
	emit_rel32(b, probe_slot, 0);
	emit_push_reg(b, INSN_RSP);
	emit_mov_reg(b, INSN_RDI, INSN_RSP);
}

/*
 * The handler call's common way (struct probe_patch_handler's steps 1
 * and 2 when no consumer runs and the state is current), straight
 * through from the lean frame's save to its restore; the rare ways are
 * branches to patch_emit_handler_cold's code:
 * 1. btsq $0, %gs:cpu_run; jc nested.
 * 2. lock incq hits(%rip); js retired; fn(rdi = hit, arg);
 *    incq %gs:cpu_run (the flag cleared, the hit counted).
 *    done: the frame is restored.
 */
void patch_emit_handler_call(struct patch_buf *b, uint64_t pc,
			     const struct probe_patch_handler *h, uint64_t state, uint32_t live,
			     bool mask_interrupts, struct patch_handler_cold *cold)
{
	*cold = (struct patch_handler_cold){ .h = h, .state = state };
	emit_lean_frame_save(b, pc, h->probe_slot, mask_interrupts);
	emit_gs_op(b, x86_enc_bts_rm_imm8, sizeof(x86_enc_bts_rm_imm8), X86_ENC_BTS_RM_IMM8_EXT,
		   h->cpu_run);
	emit_u8(b, 0);
	cold->nested = emit_jcc_forward(b, CC_CARRY);
	EMIT(b, lock);
	emit_rip_op(b, x86_enc_inc_rm, sizeof(x86_enc_inc_rm), X86_ENC_INC_RM_EXT, h->hits);
	cold->retired = emit_jcc_forward(b, CC_SIGN);
	emit_mov_imm64(b, INSN_RSI, h->arg);
	patch_emit_call(b, h->fn);
	emit_gs_op(b, x86_enc_inc_rm, sizeof(x86_enc_inc_rm), X86_ENC_INC_RM_EXT, h->cpu_run);
	cold->done = patch_buf_pc(b);
	emit_frame_restore(b, live, mask_interrupts, (struct frame_place){ .at = HIT_BELOW,
									    .end = FRAME_SLOT(ss) });
}

/*
 * A lean frame made whole, for the general dispatcher: r12..r15 still
 * hold the probed code's values (nothing before has changed them), and
 * vector and error are 0 as in every frame. Its ss slot stays the
 * probed stack's word.
 */
static void emit_complete_frame(struct patch_buf *b)
{
	for (unsigned i = sizeof(frame_push_order) - LEAN_UNSAVED; i < sizeof(frame_push_order); i++) {
		unsigned reg = frame_push_order[i];	/* mov %reg, slot(%rsp) */
		emit_base_op(b, x86_enc_mov_rm_r, sizeof(x86_enc_mov_rm_r), reg, INSN_RSP,
			     HIT_BELOW + frame_reg_slot(reg));
	}
	const uint32_t zeroed[] = { FRAME_SLOT(vector), FRAME_SLOT(error) };
	for (unsigned i = 0; i < 2; i++) {		/* movq $0, slot(%rsp) */
		emit_base_op(b, x86_enc_mov_rm_imm32, sizeof(x86_enc_mov_rm_imm32),
			     X86_ENC_MOV_RM_IMM32_EXT, INSN_RSP, HIT_BELOW + zeroed[i]);
		emit_u32(b, 0);
	}
}

/*
 * The handler call's rare ways (struct probe_patch_handler's steps 1 and
 * 3), each ending in a jump back to the restore:
 * nested: mov $state, %rsi; cmpb $0, retired(%rsi); jne general;
 *    lock incq missed(%rsi); jmp done.
 * retired: andq $-2, %gs:cpu_run (the flag cleared, no hit counted);
 *    mov $state, %rsi.
 * general: the frame made whole; retired_fn(frame, rsi); jmp done.
 */
void patch_emit_handler_cold(struct patch_buf *b, const struct patch_handler_cold *cold)
{
	const struct probe_patch_handler *h = cold->h;

	fix_forward(b, cold->nested);
	emit_mov_imm64(b, INSN_RSI, cold->state);
	EMIT(b, cmp_rm8_imm8);				/* cmpb $0, retired(%rsi) */
	emit_u8(b, MODRM(MOD_DISP32, X86_ENC_CMP_RM8_IMM8_EXT, INSN_RSI));
	emit_u32(b, h->retired);
	emit_u8(b, 0);
	size_t general = emit_jcc_forward(b, CC_NOT_EQUAL);
	emit_lock_inc(b, INSN_RSI, h->missed);
	patch_emit_jmp(b, cold->done);

	fix_forward(b, cold->retired);
	emit_gs_op(b, x86_enc_and_rm_imm8, sizeof(x86_enc_and_rm_imm8), X86_ENC_AND_RM_IMM8_EXT,
		   h->cpu_run);
	emit_u8(b, (uint8_t)~1u);
	emit_mov_imm64(b, INSN_RSI, cold->state);
	fix_forward(b, general);
	emit_complete_frame(b);
	emit_lea_rsp(b, INSN_RDI, HIT_BELOW);		/* lea 8(%rsp), %rdi */
	patch_emit_call(b, h->retired_fn);
	patch_emit_jmp(b, cold->done);
}

void patch_emit_counter(struct patch_buf *b, uint64_t counter, bool flags_free)
{
	if (!flags_free)
		EMIT(b, pushfq);
	EMIT(b, lock);			/* lock incq counter(%rip) */
	emit_rex_w(b, 0);
	emit(b, x86_enc_inc_rm, sizeof(x86_enc_inc_rm));
	emit_u8(b, MODRM(MOD_INDIRECT, X86_ENC_INC_RM_EXT, RM_RIP));
	emit_rel32(b, counter, 0);
	if (!flags_free)
		EMIT(b, popfq);
}

uint32_t patch_accumulate_clobbers(void)
{
	return INSN_REG(INSN_RAX) | INSN_REG(INSN_RDX);
}

void patch_emit_accumulate(struct patch_buf *b, const struct patch_accumulator *acc, int delta)
{
	EMIT(b, pushfq);
	EMIT(b, cli);
	EMIT(b, rdtsc);					/* rax = now */
	emit_rex_w(b, 0);
	emit(b, x86_enc_shl_rm_imm8, sizeof(x86_enc_shl_rm_imm8));
	emit_u8(b, MODRM(MOD_REGISTER, X86_ENC_SHL_RM_IMM8_EXT, INSN_RDX));
	emit_u8(b, 32);
	emit_rex_w(b, 0);
	EMIT(b, or_rm_r);
	emit_u8(b, MODRM(MOD_REGISTER, INSN_RDX, INSN_RAX));
	emit_mov_reg(b, INSN_RDX, INSN_RAX);		/* rdx = now - last */
	emit_gs_op(b, x86_enc_sub_r_rm, sizeof(x86_enc_sub_r_rm), INSN_RDX, acc->last);
	emit_gs_op(b, x86_enc_mov_rm_r, sizeof(x86_enc_mov_rm_r), INSN_RAX, acc->last);
	emit_gs_op(b, x86_enc_imul_r_rm, sizeof(x86_enc_imul_r_rm), INSN_RDX, acc->inside);
	emit_gs_op(b, x86_enc_add_rm_r, sizeof(x86_enc_add_rm_r), INSN_RDX, acc->area);
	if (delta > 0)
		emit_gs_op(b, x86_enc_inc_rm, sizeof(x86_enc_inc_rm), X86_ENC_INC_RM_EXT, acc->inside);
	else
		emit_gs_op(b, x86_enc_dec_rm, sizeof(x86_enc_dec_rm), X86_ENC_DEC_RM_EXT, acc->inside);
	EMIT(b, popfq);
}



/* cmp slot(%rip), %reg (64-bit, or the low 32 bits when low_half). */
static void emit_cmp_slot(struct patch_buf *b, unsigned reg, uint64_t slot, bool low_half)
{
	if (!low_half || reg >= 8)
		emit_u8(b, (uint8_t)(x86_enc_rex[0] | (low_half ? 0 : REX_W) |
				     (reg >= 8 ? REX_R : 0)));
	EMIT(b, cmp_r_rm);
	emit_u8(b, MODRM(MOD_INDIRECT, reg, RM_RIP));
	emit_rel32(b, slot, 0);
}

/*
 * The redirect, in steps:
 * 1. pushfq when the code after the site reads the flags (each way out
 *    pops them: the taken way before its jump, the other at `out`).
 * 2. Thread test: rax is saved on the stack, loaded with the current
 *    thread and then its id, compared with the slot, and popped (pop
 *    leaves the flags); jne out.
 * 3. Argument test: cmp slot(%rip), %arg_reg; jne out.
 * 4. Taken: lock incq the counter, popfq (1), jmp *target(%rip).
 * 5. out: popfq (1); the site's own code follows.
 */
void patch_emit_redirect(struct patch_buf *b, const struct patch_redirect *r)
{
	size_t outs[2];
	unsigned nouts = 0;

	if (r->flags_live)
		EMIT(b, pushfq);
	if (r->tid_slot) {
		emit_push_reg(b, INSN_RAX);
		emit_gs_op(b, x86_enc_mov_r_rm, sizeof(x86_enc_mov_r_rm), INSN_RAX,
			   r->current_offset);
		emit_rex_w(b, 0);		/* mov tid_offset(%rax), %rax */
		EMIT(b, mov_r_rm);
		emit_u8(b, MODRM(MOD_DISP32, INSN_RAX, INSN_RAX));
		emit_u32(b, r->tid_offset);
		emit_cmp_slot(b, INSN_RAX, r->tid_slot, false);
		emit_u8(b, (uint8_t)(x86_enc_pop_r[0] + INSN_RAX));
		outs[nouts++] = emit_jcc_forward(b, CC_NOT_EQUAL);
	}
	if (r->value_slot) {
		emit_cmp_slot(b, r->arg_reg, r->value_slot, r->arg_low_half);
		outs[nouts++] = emit_jcc_forward(b, CC_NOT_EQUAL);
	}
	if (r->taken)
		patch_emit_counter(b, r->taken, true);
	if (r->flags_live)
		EMIT(b, popfq);
	EMIT(b, jmp_rm);			/* jmp *target(%rip) */
	emit_u8(b, MODRM(MOD_INDIRECT, X86_ENC_JMP_RM_EXT, RM_RIP));
	emit_rel32(b, r->target_slot, 0);
	for (unsigned i = 0; i < nouts; i++)
		fix_forward(b, outs[i]);
	if (r->flags_live && nouts)
		EMIT(b, popfq);
}
