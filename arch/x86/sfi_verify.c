// SPDX-License-Identifier: BSD-2-Clause
/*
 * The load-time verifier of sandboxed grafts (the scheme and its threat
 * model: arch/sfi.h). It decodes the whole text region once, in order,
 * with the arch decoder, checking each instruction against the rules
 * and the one before it, and marking which offsets are instruction
 * starts, which lie inside a guarded sequence and which hold a direct
 * branch; a second pass checks each direct branch's target against
 * those marks. It trusts nothing in the
 * bytes: what it cannot decode, or decodes to anything the rules do not
 * name, it refuses, with the offset and bytes of the first offender.
 *
 * Soundness rests on three facts the checks establish: every bundle
 * start is an instruction start (instructions never cross a bundle
 * boundary), so a masked indirect branch lands on a decoded
 * instruction; a guarded sequence never starts a bundle and is never a
 * direct target, so its check cannot be skipped; and every store, every
 * write of %rsp and every branch is one of the forms that stay inside
 * the window, the text, or the listed kernel entries.
 *
 * Portable C with no kernel services: the kernel's loader, the host
 * tests and the fuzzer build this file.
 */
#include <arch/sfi.h>
#include <arch/insn.h>
#include <string.h>
#include <stdarg.h>
#include <stdio.h>
#include "x86_encodings.h"

/* ModRM fields and what the memory operand is made of. */
struct mem_operand {
	int base;		/* register number, or -1 (none, or rip) */
	int index;		/* register number, or -1 */
	unsigned scale;		/* 1, 2, 4, 8 */
	bool rip;		/* rip-relative */
	bool absolute;		/* no base, no index: disp32 sign-extended */
};

struct verifier {
	const uint8_t *code;
	const struct sfi_layout *layout;
	uint8_t *marks;
	char *err;
	struct insn prev;	/* the instruction before this one (status != OK at a bundle start) */
	struct insn prev2;	/* and the one before that */
};

static int refuse(struct verifier *v, const struct insn *in, uint64_t off, const char *fmt, ...)
{
	char why[128], bytes[3 * 8 + 4];
	va_list ap;
	size_t n = 0;
	unsigned len = in && in->length ? in->length : 1;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	bytes[0] = '\0';
	for (unsigned i = 0; i < len && i < 8 && off + i < v->layout->text_size; i++)
		n += (size_t)snprintf(bytes + n, sizeof(bytes) - n, "%s%02x", i ? " " : "",
				      v->code[off + i]);
	if (len > 8)
		snprintf(bytes + n, sizeof(bytes) - n, " ..");
	snprintf(v->err, SFI_ERR_MAX, "offset 0x%llx: %s (%s): %s", (unsigned long long)off,
		 in && in->status == INSN_OK ? insn_mnemonic(in) : "undecodable", bytes, why);
	return -1;
}

static unsigned rex_bit(const struct insn *in, unsigned bit)
{
	return (in->rex & bit) ? 8 : 0;
}

#define REX_B 0x1
#define REX_X 0x2
#define REX_R 0x4
#define REX_W 0x8

static unsigned modrm_mod(const struct insn *in) { return in->modrm >> 6; }
static unsigned modrm_reg(const struct insn *in) { return ((in->modrm >> 3) & 7) | rex_bit(in, REX_R); }
static unsigned modrm_rm(const struct insn *in) { return (in->modrm & 7) | rex_bit(in, REX_B); }

static bool has_memory_modrm(const struct insn *in)
{
	return in->has_modrm && modrm_mod(in) != 3;
}

static struct mem_operand memory_operand(const struct insn *in)
{
	struct mem_operand m = { .base = -1, .index = -1, .scale = 1 };

	if (in->rip_relative) {
		m.rip = true;
		return m;
	}
	if (!in->has_sib) {
		m.base = (int)modrm_rm(in);
		return m;
	}
	unsigned base = in->sib & 7, index = ((in->sib >> 3) & 7) | rex_bit(in, REX_X);
	m.scale = 1u << (in->sib >> 6);
	if (index != INSN_RSP)
		m.index = (int)index;
	if (!(base == 5 && modrm_mod(in) == 0))
		m.base = (int)(base | rex_bit(in, REX_B));
	m.absolute = m.base < 0 && m.index < 0;
	return m;
}

static bool is_mnemonic(const struct insn *in, const char *name)
{
	return in->status == INSN_OK && !strcmp(insn_mnemonic(in), name);
}

/* A 32-bit register write of %r14d: lea M, %r14d, or mov r/m32, %r14d. */
static bool writes_r14_zero_extended(const struct insn *in)
{
	if (in->status != INSN_OK || in->encoding != INSN_LEGACY || in->map != INSN_MAP_ONE ||
	    in->operand_size != 4)
		return false;
	if (in->opcode == 0x8d || in->opcode == 0x8b)	/* lea, mov Gv, Ev */
		return modrm_reg(in) == INSN_R14;
	if (in->opcode == 0x89)				/* mov Ev, Gv, register form */
		return modrm_mod(in) == 3 && modrm_rm(in) == INSN_R14;
	return false;
}

/* and $imm32, %r14 (64-bit) with imm == want. */
static bool is_and_r14(const struct insn *in, uint64_t want)
{
	return in->status == INSN_OK && in->map == INSN_MAP_ONE && in->opcode == 0x81 &&
	       (in->rex & REX_W) && modrm_mod(in) == 3 && ((in->modrm >> 3) & 7) == 4 &&
	       modrm_rm(in) == INSN_R14 && (uint64_t)in->imm == want;
}

/* or $imm32, %r14 (64-bit) with the sign-extended imm == want. */
static bool is_or_imm_r14(const struct insn *in, uint64_t want)
{
	return in->status == INSN_OK && in->map == INSN_MAP_ONE && in->opcode == 0x81 &&
	       (in->rex & REX_W) && modrm_mod(in) == 3 && ((in->modrm >> 3) & 7) == 1 &&
	       modrm_rm(in) == INSN_R14 && (uint64_t)in->imm == want;
}

/* or %r15, %r14 (64-bit), in either encoding. */
static bool is_or_r15_r14(const struct insn *in)
{
	if (in->status != INSN_OK || in->map != INSN_MAP_ONE || !(in->rex & REX_W) ||
	    modrm_mod(in) != 3)
		return false;
	if (in->opcode == 0x09)
		return modrm_rm(in) == INSN_R14 && modrm_reg(in) == INSN_R15;
	if (in->opcode == 0x0b)
		return modrm_reg(in) == INSN_R14 && modrm_rm(in) == INSN_R15;
	return false;
}

/* mov %r14, %rsp (64-bit), in either encoding. */
static bool is_mov_r14_rsp(const struct insn *in)
{
	if (in->status != INSN_OK || in->map != INSN_MAP_ONE || !(in->rex & REX_W) ||
	    modrm_mod(in) != 3)
		return false;
	if (in->opcode == 0x89)
		return modrm_rm(in) == INSN_RSP && modrm_reg(in) == INSN_R14;
	if (in->opcode == 0x8b)
		return modrm_reg(in) == INSN_RSP && modrm_rm(in) == INSN_R14;
	return false;
}

/* The API stack probe: test %reg8, -SFI_API_STACK(%rsp), a read that faults without the room. */
static bool is_api_stack_probe(const struct insn *in)
{
	if (in->status != INSN_OK || in->map != INSN_MAP_ONE || in->opcode != 0x84 ||
	    !has_memory_modrm(in) || in->segment || (in->prefixes & INSN_PFX_ADSIZE))
		return false;
	struct mem_operand m = memory_operand(in);
	return m.base == INSN_RSP && m.index < 0 && in->disp == -(int64_t)SFI_API_STACK;
}

/* jmp *%r14 or call *%r14. */
static bool is_branch_r14(const struct insn *in)
{
	return (in->cf == INSN_CF_JMP_INDIRECT || in->cf == INSN_CF_CALL_INDIRECT) &&
	       modrm_mod(in) == 3 && modrm_rm(in) == INSN_R14 && in->operand_size == 8;
}

static bool inside(uint64_t addr, uint64_t size, uint64_t start, uint64_t len)
{
	return addr >= start && size <= len && addr - start <= len - size;
}

/*
 * The written memory operand of in at off, whose form writes exactly
 * in->sfi_write_size bytes at its effective address (opcodes.map): on
 * the stack, masked into the window, or a fixed address inside the
 * graft's data.
 */
static int check_store(struct verifier *v, const struct insn *in, uint64_t off)
{
	struct mem_operand m = memory_operand(in);
	const struct sfi_layout *l = v->layout;

	if (m.base == INSN_RSP && m.index < 0)
		return 0;
	if (m.base == INSN_R15 && m.index == INSN_R14 && m.scale == 1) {
		if (!writes_r14_zero_extended(&v->prev))
			return refuse(v, in, off, "store through %%r15+%%r14 not preceded, in its bundle, "
				      "by a 32-bit write of %%r14d");
		v->marks[off] |= SFI_MARK_GUARDED;
		return 0;
	}
	if (m.rip || m.absolute) {
		uint64_t target = m.rip ? in->target : (uint64_t)in->disp;
		if (!inside(target, in->sfi_write_size, l->data, l->data_size))
			return refuse(v, in, off, "store to 0x%llx, outside the graft's data",
				      (unsigned long long)target);
		return 0;
	}
	return refuse(v, in, off, "store through an unmasked register");
}

/* Writes of %rsp: push, pop, call by 8, or the stack guard's mov. */
static int check_rsp_write(struct verifier *v, const struct insn *in, uint64_t off)
{
	if (is_mov_r14_rsp(in)) {
		if (!is_or_r15_r14(&v->prev) || !is_and_r14(&v->prev2, SFI_STACK_MASK))
			return refuse(v, in, off, "mov to %%rsp not preceded, in its bundle, by "
				      "and $0x%x, %%r14; or %%r15, %%r14", SFI_STACK_MASK);
		v->marks[off] |= SFI_MARK_GUARDED;
		v->marks[off - v->prev.length] |= SFI_MARK_GUARDED;
		return 0;
	}
	bool pushpop = is_mnemonic(in, "push") || is_mnemonic(in, "pop");
	if (is_mnemonic(in, "call") || (pushpop && in->operand_size == 8)) {
		/* pop %rsp loads it; push/pop take it as their operand only through ModRM or opcode. */
		bool operand_rsp = is_mnemonic(in, "pop") &&
			((in->opcode >= 0x58 && in->opcode <= 0x5f &&
			  ((in->opcode & 7) | rex_bit(in, REX_B)) == INSN_RSP) ||
			 (in->opcode == 0x8f && modrm_mod(in) == 3 && modrm_rm(in) == INSN_RSP));
		if (!operand_rsp)
			return 0;
	}
	return refuse(v, in, off, "write to %%rsp outside the stack guard");
}

/* An indirect branch: jmp/call *%r14 masked into the text just before. */
static int check_indirect(struct verifier *v, const struct insn *in, uint64_t off)
{
	const struct sfi_layout *l = v->layout;

	if (!is_branch_r14(in))
		return refuse(v, in, off, "indirect branch not through %%r14");
	if (!is_or_imm_r14(&v->prev, l->text) ||
	    !is_and_r14(&v->prev2, sfi_text_mask((uint32_t)l->text_size)))
		return refuse(v, in, off, "indirect branch not masked into the graft's text "
			      "(and $0x%x, %%r14; or $0x%llx, %%r14)", sfi_text_mask((uint32_t)l->text_size),
			      (unsigned long long)l->text);
	v->marks[off] |= SFI_MARK_GUARDED;
	v->marks[off - v->prev.length] |= SFI_MARK_GUARDED;
	return 0;
}

/* The control transfers a sandboxed graft may hold (their targets are checked apart). */
static bool cf_admitted(uint8_t cf)
{
	switch (cf) {
	case INSN_CF_NONE: case INSN_CF_JMP: case INSN_CF_JCC: case INSN_CF_CALL:
	case INSN_CF_JMP_INDIRECT: case INSN_CF_CALL_INDIRECT: case INSN_CF_UD:
		return true;
	default:
		return false;
	}
}

/*
 * Prefixes whose effect on an admitted form is not worth modelling:
 * 66 on a branch (rel16 and a 16-bit target on AMD, ignored by Intel),
 * f2/f3 on a branch (bnd), or on a form that takes no mandatory prefix
 * (future CPUs give such pairs new meanings, as f3 0f b8 became popcnt).
 */
static const char *prefix_trouble(const struct insn *in)
{
	bool branch = in->cf != INSN_CF_NONE && in->cf != INSN_CF_UD;
	if (in->vendor_specific)
		return "its length or target depends on the CPU's vendor";
	if (branch && (in->prefixes & (INSN_PFX_OPSIZE | INSN_PFX_REP | INSN_PFX_REPNE)))
		return "a 66, f2 or f3 prefix on a branch";
	if ((in->prefixes & (INSN_PFX_REP | INSN_PFX_REPNE)) && !in->mandatory_prefix &&
	    !is_mnemonic(in, "pause"))
		return "an f2 or f3 prefix on an instruction that takes none";
	if (in->segment && !is_mnemonic(in, "nop"))
		return "segment override prefix";
	if (in->prefixes & INSN_PFX_ADSIZE)
		return "address-size prefix";
	return NULL;
}

/*
 * The memory in may write, by its form's extent (opcodes.map sfi=);
 * the decoder's own reading of the operands must agree.
 */
static int check_writes(struct verifier *v, const struct insn *in, uint64_t off)
{
	bool operand_written = in->mem_write && has_memory_modrm(in);

	switch (in->sfi_write) {
	case INSN_SFI_WRITE_OPERAND:
	case INSN_SFI_WRITE_PAIR:
		if (has_memory_modrm(in))
			return check_store(v, in, off);
		break;
	case INSN_SFI_WRITE_STACK:	/* below %rsp, which check_rsp_write confines */
	case INSN_SFI_WRITE_NONE:
		break;
	default:
		return refuse(v, in, off, "no write extent in the opcode table");
	}
	if (operand_written || (in->mem_write && !has_memory_modrm(in) &&
				in->sfi_write != INSN_SFI_WRITE_STACK))
		return refuse(v, in, off, "writes memory its opcode table form does not name");
	return 0;
}

/* Everything about in that does not depend on other instructions' marks. */
static int check_instruction(struct verifier *v, const struct insn *in, uint64_t off)
{
	const char *trouble;

	if (in->status != INSN_OK)
		return refuse(v, in, off, in->status == INSN_TRUNCATED ?
			      "runs past the end of the text" : "not a valid instruction");
	if ((off & (SFI_BUNDLE - 1)) + in->length > SFI_BUNDLE)
		return refuse(v, in, off, "crosses a %u-byte bundle boundary", SFI_BUNDLE);
	if (in->encoding != INSN_LEGACY)
		return refuse(v, in, off, "vector (VEX/EVEX/XOP) instructions are not allowed");
	if (!in->sfi_allowed)
		return refuse(v, in, off, "not allowed in a sandboxed graft: %s", insn_sfi_refusal(in));
	if (!cf_admitted(in->cf))
		return refuse(v, in, off, "a control transfer the sandbox does not admit");
	if ((trouble = prefix_trouble(in)))
		return refuse(v, in, off, "%s", trouble);
	if (in->regs_written & INSN_REG(INSN_R15))
		return refuse(v, in, off, "writes %%r15, the window base");
	if (in->regs_written & INSN_REG(INSN_RSP)) {
		if (check_rsp_write(v, in, off))
			return -1;
	}
	if (check_writes(v, in, off))
		return -1;
	if (in->cf == INSN_CF_JMP_INDIRECT || in->cf == INSN_CF_CALL_INDIRECT) {
		if (check_indirect(v, in, off))
			return -1;
	}
	/* A call out of the text (the API: checked last) needs the room the probe checks. */
	if (in->cf == INSN_CF_CALL && in->target - v->layout->text >= v->layout->text_size) {
		if (!is_api_stack_probe(&v->prev))
			return refuse(v, in, off, "call out of the graft not preceded, in its bundle, by "
				      "the API stack probe test %%al, -0x%x(%%rsp)", SFI_API_STACK);
		v->marks[off] |= SFI_MARK_GUARDED;
	}
	return 0;
}

/* A direct branch's target: in the text at a boundary, or a permitted kernel entry. */
static int check_direct(struct verifier *v, const struct insn *in, uint64_t off)
{
	const struct sfi_layout *l = v->layout;
	uint64_t target = in->target;

	if (target - l->text < l->text_size) {
		uint8_t mark = v->marks[target - l->text];
		if (!(mark & SFI_MARK_START))
			return refuse(v, in, off, "branch to 0x%llx, inside an instruction",
				      (unsigned long long)(target - l->text));
		if (mark & SFI_MARK_GUARDED)
			return refuse(v, in, off, "branch to 0x%llx, past the check of a guarded sequence",
				      (unsigned long long)(target - l->text));
		return 0;
	}
	if (in->cf == INSN_CF_JMP && target == l->exit_gate)
		return 0;
	if (in->cf == INSN_CF_CALL && l->is_api_entry && l->is_api_entry(l->ctx, target))
		return 0;
	return refuse(v, in, off, "%s to 0x%llx, outside the graft and not %s",
		      in->cf == INSN_CF_CALL ? "call" : "jump", (unsigned long long)target,
		      in->cf == INSN_CF_CALL ? "an exported graft API function" :
		      in->cf == INSN_CF_JMP ? "the exit gate" : "allowed for a conditional jump");
}

int sfi_verify(const uint8_t *code, const struct sfi_layout *layout, uint8_t *marks,
	       char err[SFI_ERR_MAX])
{
	struct verifier v = { .code = code, .layout = layout, .marks = marks, .err = err };
	uint64_t size = layout->text_size;
	struct insn in;

	struct insn ud2_insn;	/* what the decoder makes of ud2: the same everywhere */

	err[0] = '\0';
	insn_decode(&ud2_insn, x86_enc_ud2, sizeof(x86_enc_ud2), 0);
	/* The masked branch's or $imm32 sign-extends: the base must be what it can say. */
	bool imm32_base = layout->text >= 0xffffffff80000000ull ||
			  layout->text + size <= 0x80000000ull;
	if (size < SFI_TEXT_MIN || (size & (size - 1)) || size > (1ull << 30) ||
	    (layout->text & (size - 1)) || !imm32_base) {
		snprintf(err, SFI_ERR_MAX, "text region 0x%llx+0x%llx is not a power of two aligned "
			 "to its size in the top or bottom 2 GiB", (unsigned long long)layout->text,
			 (unsigned long long)size);
		return -1;
	}
	if (layout->entry - layout->text >= size || (layout->entry & (SFI_BUNDLE - 1))) {
		snprintf(err, SFI_ERR_MAX, "entry point 0x%llx is not a bundle start in the text",
			 (unsigned long long)layout->entry);
		return -1;
	}
	memset(marks, 0, size);
	unsigned ud2s = 0;	/* of prev2 and prev, how many are ud2 already (no copy needed) */
	for (uint64_t off = 0, step; off < size; off += step) {
		if (!(off & (SFI_BUNDLE - 1))) {
			v.prev.status = v.prev2.status = INSN_INVALID;	/* sequences stay in a bundle */
			ud2s = 0;
		}
		if (size - off >= sizeof(x86_enc_ud2) &&
		    (off & (SFI_BUNDLE - 1)) + sizeof(x86_enc_ud2) <= SFI_BUNDLE &&
		    !memcmp(code + off, x86_enc_ud2, sizeof(x86_enc_ud2))) {
			/* The fill of every region, inside a bundle: no store, no branch, traps. */
			marks[off] |= SFI_MARK_START;
			if (ud2s < 2) {
				v.prev2 = v.prev;
				v.prev = ud2_insn;
				ud2s++;
			}
			step = sizeof(x86_enc_ud2);
			continue;
		}
		insn_decode(&in, code + off, size - off, layout->text + off);
		marks[off] |= SFI_MARK_START | (insn_has_branch_target(&in) ? SFI_MARK_BRANCH : 0);
		if (check_instruction(&v, &in, off))
			return -1;
		v.prev2 = v.prev;
		v.prev = in;
		ud2s = 0;
		step = in.length;
	}
	if (insn_falls_through(&v.prev) || v.prev.status != INSN_OK)
		return refuse(&v, &v.prev, size - v.prev.length, "the text falls through its end");
	for (uint64_t off = 0; off < size; off++) {
		if (!(marks[off] & SFI_MARK_BRANCH))
			continue;
		insn_decode(&in, code + off, size - off, layout->text + off);
		if (check_direct(&v, &in, off))
			return -1;
	}
	return 0;
}
