// SPDX-License-Identifier: BSD-2-Clause
/*
 * The x86-64 instruction decoder (see arch/insn.h), driven by the tables
 * generated from arch/x86/opcodes.map.
 *
 * Decoding goes prefixes -> opcode (with escapes, VEX/EVEX/XOP) -> the
 * opcode's form in the tables (chosen by ModRM and the mandatory prefix)
 * -> ModRM/SIB/displacement -> immediates -> effects. Every byte is read
 * through take(), which never reads past `avail` or past the 15-byte
 * architectural limit; running out is INSN_TRUNCATED, exceeding the
 * limit or an encoding the tables do not list is INSN_INVALID.
 *
 * VEX, EVEX and XOP instructions are decoded by their structure (their
 * length does not depend on which opcode they carry) and their effects
 * are over-approximated; the legacy maps are validated opcode by opcode.
 */
#include <arch/insn.h>
#include "x86_opcodes.h"

/* Bytes of the encoding grammar (opcodes themselves live in opcodes.map). */
#define ESCAPE_0F        0x0f
#define ESCAPE_0F38      0x38
#define ESCAPE_0F3A      0x3a
#define ESCAPE_3DNOW     0x0f
#define LEAD_VEX3        0xc4
#define LEAD_VEX2        0xc5
#define LEAD_EVEX        0x62
#define LEAD_XOP         0x8f	/* XOP when the next byte's map field is >= 8, else pop Ev */
#define OPCODE_NOP       0x90
#define VEX_MAP1_NO_MODRM 0x77	/* vzeroupper/vzeroall */
#define PREFIX_LOCK      0xf0
#define PREFIX_REPNE     0xf2
#define PREFIX_REP       0xf3
#define PREFIX_OPSIZE    0x66
#define PREFIX_ADSIZE    0x67
#define PREFIX_ES        0x26
#define PREFIX_CS        0x2e
#define PREFIX_SS        0x36
#define PREFIX_DS        0x3e
#define PREFIX_FS        0x64
#define PREFIX_GS        0x65
#define REX_PREFIX_MASK  0xf0	/* 0x40-0x4f */
#define REX_PREFIX       0x40

#define REX_B 0x1
#define REX_X 0x2
#define REX_R 0x4
#define REX_W 0x8

struct cursor {
	const uint8_t *code;
	size_t avail;
	size_t pos;
	enum insn_status error;	/* why the last take failed */
};

static bool take(struct cursor *c, uint8_t *byte)
{
	if (c->pos >= INSN_MAX_LENGTH) {
		c->error = INSN_INVALID;
		return false;
	}
	if (c->pos >= c->avail) {
		c->error = INSN_TRUNCATED;
		return false;
	}
	*byte = c->code[c->pos++];
	return true;
}

static bool take_le(struct cursor *c, unsigned n, uint64_t *value)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		uint8_t b;
		if (!take(c, &b))
			return false;
		v |= (uint64_t)b << (8 * i);
	}
	*value = v;
	return true;
}

static int64_t sign_extend(uint64_t v, unsigned bytes)
{
	unsigned shift = 64 - 8 * bytes;
	return bytes >= 8 ? (int64_t)v : (int64_t)(v << shift) >> shift;
}

/* Flags a condition code (low nibble of jcc/setcc/cmovcc) reads. */
static uint32_t condition_flags(unsigned cc)
{
	static const uint32_t flags[8] = {
		INSN_FLAG_OF, INSN_FLAG_CF, INSN_FLAG_ZF, INSN_FLAG_CF | INSN_FLAG_ZF,
		INSN_FLAG_SF, INSN_FLAG_PF, INSN_FLAG_SF | INSN_FLAG_OF,
		INSN_FLAG_ZF | INSN_FLAG_SF | INSN_FLAG_OF,
	};
	return flags[(cc >> 1) & 7];
}

enum mandatory { M_NP, M_66, M_F3, M_F2 };

struct prefix_state {
	uint8_t last_rep;	/* PREFIX_REPNE or PREFIX_REP, whichever came last */
};

static bool legacy_prefix(struct insn *in, uint8_t b, struct prefix_state *ps)
{
	switch (b) {
	case PREFIX_LOCK: in->prefixes |= INSN_PFX_LOCK; break;
	case PREFIX_REPNE: in->prefixes |= INSN_PFX_REPNE; ps->last_rep = b; break;
	case PREFIX_REP: in->prefixes |= INSN_PFX_REP; ps->last_rep = b; break;
	case PREFIX_OPSIZE: in->prefixes |= INSN_PFX_OPSIZE; break;
	case PREFIX_ADSIZE: in->prefixes |= INSN_PFX_ADSIZE; break;
	case PREFIX_ES: case PREFIX_CS: case PREFIX_SS: case PREFIX_DS: case PREFIX_FS:
	case PREFIX_GS:
		in->prefixes |= INSN_PFX_SEG;
		in->segment = b;
		break;
	default:
		return false;
	}
	return true;
}

static enum mandatory mandatory_prefix(const struct insn *in, const struct prefix_state *ps)
{
	if (ps->last_rep == PREFIX_REP)
		return M_F3;
	if (ps->last_rep == PREFIX_REPNE)
		return M_F2;
	return (in->prefixes & INSN_PFX_OPSIZE) ? M_66 : M_NP;
}

/* How well an opcode form fits; -1 when it does not apply. */
static int form_score(const struct x86_opcode *op, uint8_t modrm, enum mandatory m)
{
	static const uint8_t prefix_of[] = {
		[M_NP] = X86_PFX_NP, [M_66] = X86_PFX_66, [M_F3] = X86_PFX_F3, [M_F2] = X86_PFX_F2,
	};
	int score = 0;
	unsigned mod = modrm >> 6, reg = (modrm >> 3) & 7;

	if (op->prefix != X86_PFX_ANY) {
		if (op->prefix != prefix_of[m])
			return -1;
		score += 8;
	}
	switch (op->match) {
	case X86_MATCH_ANY:
		break;
	case X86_MATCH_REG:
		if (reg != op->reg)
			return -1;
		score += 1;
		break;
	case X86_MATCH_REG_MEM:
		if (reg != op->reg || mod == 3)
			return -1;
		score += 2;
		break;
	case X86_MATCH_REG_REG:
		if (reg != op->reg || mod != 3)
			return -1;
		score += 2;
		break;
	case X86_MATCH_MODRM:
		if (modrm != op->reg)
			return -1;
		score += 3;
		break;
	case X86_MATCH_MEM:
		if (mod == 3)
			return -1;
		score += 1;
		break;
	case X86_MATCH_REGFORM:
		if (mod != 3)
			return -1;
		score += 1;
		break;
	}
	return score;
}

static const struct x86_opcode *select_form(unsigned map, uint8_t opcode, uint8_t modrm,
					    enum mandatory m)
{
	const struct x86_opcode *best = NULL;
	int best_score = -1;

	for (unsigned i = x86_opcode_index[map][opcode]; i < x86_opcode_index[map][opcode + 1]; i++) {
		int s = form_score(&x86_opcodes[i], modrm, m);
		if (s > best_score) {
			best_score = s;
			best = &x86_opcodes[i];
		}
	}
	return best;
}

/* The general register an 8-bit operand names: without REX, 4-7 are ah..bh. */
static unsigned byte_register(const struct insn *in, unsigned n)
{
	return (!in->rex && n >= 4 && n < 8) ? n - 4 : n;
}

static unsigned size_bytes(unsigned size, const struct insn *in)
{
	switch (size) {
	case X86_SZ_B: return 1;
	case X86_SZ_W: return 2;
	case X86_SZ_D: return 4;
	case X86_SZ_Q: return 8;
	case X86_SZ_Y: return (in->rex & REX_W) ? 8 : 4;
	case X86_SZ_Z: return in->operand_size == 2 ? 2 : 4;
	default: return in->operand_size;
	}
}

/* Record a general register operand's use; a write of 1 or 2 bytes keeps the rest. */
static void use_register(struct insn *in, unsigned desc, unsigned n)
{
	unsigned bytes = size_bytes(X86_OP_SIZE(desc), in);
	uint32_t bit;

	if (bytes == 1)
		n = byte_register(in, n);
	bit = INSN_REG(n & 15);
	if (X86_OP_ACCESS(desc) & X86_ACC_R)
		in->regs_read |= bit;
	if (X86_OP_ACCESS(desc) & X86_ACC_W) {
		in->regs_written |= bit;
		if (bytes < 4)
			in->regs_read |= bit;
	}
}

/* ModRM's memory operand or register, SIB and displacement. */
static bool decode_modrm(struct insn *in, struct cursor *c, bool register_only)
{
	unsigned mod = in->modrm >> 6, rm = in->modrm & 7;
	uint64_t disp = 0;

	if (mod == 3 || register_only)
		return true;
	in->has_memory = true;
	in->address_size = (in->prefixes & INSN_PFX_ADSIZE) ? 4 : 8;
	if (rm == 4) {
		if (!take(c, &in->sib))
			return false;
		in->has_sib = true;
		unsigned base = in->sib & 7;
		unsigned index = ((in->sib >> 3) & 7) | ((in->rex & REX_X) ? 8 : 0);
		if (index != 4)
			in->regs_read |= INSN_REG(index);
		if (base == 5 && mod == 0)
			in->disp_size = 4;
		else
			in->regs_read |= INSN_REG(base | ((in->rex & REX_B) ? 8 : 0));
	} else if (rm == 5 && mod == 0) {
		in->rip_relative = true;
		in->disp_size = 4;
	} else {
		in->regs_read |= INSN_REG(rm | ((in->rex & REX_B) ? 8 : 0));
	}
	if (mod == 1)
		in->disp_size = 1;
	else if (mod == 2)
		in->disp_size = 4;
	if (in->disp_size) {
		in->disp_offset = (uint8_t)c->pos;
		if (!take_le(c, in->disp_size, &disp))
			return false;
		in->disp = sign_extend(disp, in->disp_size);
	}
	return true;
}

static unsigned immediate_bytes(unsigned kind, const struct insn *in)
{
	switch (kind) {
	case X86_IMM_B: case X86_IMM_JB: return 1;
	case X86_IMM_W: return 2;
	case X86_IMM_Z: case X86_IMM_JZ: return in->operand_size == 2 ? 2 : 4;
	case X86_IMM_V: return in->operand_size;
	case X86_IMM_MOFFS: return (in->prefixes & INSN_PFX_ADSIZE) ? 4 : 8;
	default: return 0;
	}
}

static bool decode_immediates(struct insn *in, struct cursor *c, unsigned kind1, unsigned kind2)
{
	uint64_t v;

	in->imm_size = (uint8_t)immediate_bytes(kind1, in);
	in->imm2_size = (uint8_t)immediate_bytes(kind2, in);
	if (in->imm_size) {
		in->imm_offset = (uint8_t)c->pos;
		if (!take_le(c, in->imm_size, &v))
			return false;
		in->imm = kind1 == X86_IMM_MOFFS || kind1 == X86_IMM_V ? (int64_t)v :
			  sign_extend(v, in->imm_size);
	}
	if (in->imm2_size && !take_le(c, in->imm2_size, &v))
		return false;
	return true;
}

/* The effects of an instruction whose semantics the tables do not model. */
static void over_approximate(struct insn *in)
{
	unsigned reg = ((in->modrm >> 3) & 7) | ((in->rex & REX_R) ? 8 : 0);

	in->semantics_known = false;
	in->regs_read |= INSN_FLAGS;
	if (in->has_modrm) {
		in->regs_read |= INSN_REG(reg);
		if ((in->modrm >> 6) == 3)
			in->regs_read |= INSN_REG((in->modrm & 7) | ((in->rex & REX_B) ? 8 : 0));
	}
	if (in->encoding != INSN_LEGACY && in->encoding != INSN_3DNOW)
		in->regs_read |= INSN_REG(in->vex_vvvv);
	if (in->has_memory)
		in->mem_read = in->mem_write = true;
}

static void legacy_effects(struct insn *in, const struct x86_opcode *op)
{
	unsigned mod = in->modrm >> 6;

	if (X86_OP_KIND(op->op_reg) == X86_OPK_GPR)
		use_register(in, op->op_reg, ((in->modrm >> 3) & 7) | ((in->rex & REX_R) ? 8 : 0));
	if (X86_OP_KIND(op->op_rm) == X86_OPK_GPR && (mod == 3 || (op->attrs & X86_A_REGONLY)))
		use_register(in, op->op_rm, (in->modrm & 7) | ((in->rex & REX_B) ? 8 : 0));
	if (X86_OP_KIND(op->op_opc) == X86_OPK_GPR)
		use_register(in, op->op_opc, (in->opcode & 7) | ((in->rex & REX_B) ? 8 : 0));
	if (in->has_memory && X86_OP_KIND(op->op_rm) != X86_OPK_NONE &&
	    !(op->attrs & X86_A_NOACCESS)) {
		in->mem_read = X86_OP_ACCESS(op->op_rm) & X86_ACC_R;
		in->mem_write = X86_OP_ACCESS(op->op_rm) & X86_ACC_W;
	}
	if (op->mem) {
		in->has_memory = true;
		in->mem_read |= (op->mem & X86_ACC_R) != 0;
		in->mem_write |= (op->mem & X86_ACC_W) != 0;
	}
	in->regs_read |= op->imp_read;
	in->regs_written |= op->imp_written | op->imp_written_v;
	if (in->operand_size == 2)
		in->regs_read |= op->imp_written_v;
	in->regs_read |= (uint32_t)op->flags_read << 16;
	in->regs_written |= (uint32_t)op->flags_written << 16;
	/*
	 * A shift or rotate by a count of 0 leaves the flags alone, so they
	 * may live on through it: read them, unless an immediate count is
	 * known not to be 0 once masked to the operand width.
	 */
	if (op->flags_maybe) {
		unsigned mask = in->operand_size == 8 ? 63 : 31;
		bool nonzero_imm = op->imm1 == X86_IMM_B && (in->imm & mask) != 0;
		bool zero_imm = op->imm1 == X86_IMM_B && !nonzero_imm;
		if (zero_imm)
			in->regs_written &= ~((uint32_t)op->flags_maybe << 16);
		else if (!nonzero_imm)
			in->regs_read |= (uint32_t)op->flags_maybe << 16;
	}
	if (op->attrs & X86_A_FLAGS_CC)
		in->regs_read |= condition_flags(in->opcode & 15);
	if ((op->attrs & X86_A_STRING) && (in->prefixes & (INSN_PFX_REP | INSN_PFX_REPNE))) {
		in->regs_read |= INSN_REG(INSN_RCX);
		in->regs_written |= INSN_REG(INSN_RCX);
	}
	/* xor/sub of a register with itself: the result does not depend on it. */
	if ((op->attrs & X86_A_ZERO_IDIOM) && mod == 3 && in->operand_size >= 4 &&
	    ((in->modrm >> 3) & 7) == (in->modrm & 7) &&
	    !!(in->rex & REX_R) == !!(in->rex & REX_B))
		in->regs_read &= ~INSN_REG((in->modrm & 7) | ((in->rex & REX_B) ? 8 : 0));
	if ((op->attrs & X86_A_NOP90) && !(in->rex & REX_B)) {
		in->regs_read = in->regs_written = 0;	/* nop / pause, not xchg */
	}
	if (op->attrs & X86_A_UNKNOWN)
		over_approximate(in);
}

static void compute_targets(struct insn *in)
{
	uint64_t next = in->addr + in->length;

	if (in->rip_relative) {
		in->target = next + (uint64_t)in->disp;
		if (in->address_size == 4)
			in->target &= 0xffffffffu;
	}
	if (insn_has_branch_target(in)) {
		in->target = next + (uint64_t)in->imm;
		if (in->imm_size == 2)
			in->target &= 0xffff;	/* rel16 (AMD): the new IP is 16 bits */
	}
}

/* Bytes a form admitted in a sandboxed graft may write (its sfi= extent). */
static unsigned sfi_write_size(const struct insn *in, const struct x86_opcode *op)
{
	switch (op->sfi_write) {
	case INSN_SFI_WRITE_OPERAND:
		return size_bytes(X86_OP_SIZE(op->op_rm), in);
	case INSN_SFI_WRITE_PAIR:
		return (in->rex & REX_W) ? 16 : 8;
	case INSN_SFI_WRITE_STACK:
		return in->operand_size;
	default:
		return 0;
	}
}

static int decode_legacy(struct insn *in, struct cursor *c, const struct prefix_state *ps)
{
	const struct x86_opcode *op;
	unsigned first = x86_opcode_index[in->map][in->opcode];

	if (first == x86_opcode_index[in->map][in->opcode + 1])
		return INSN_INVALID;
	if (x86_opcodes[first].attrs & X86_A_MODRM) {
		in->has_modrm = true;
		in->modrm_offset = (uint8_t)c->pos;
		if (!take(c, &in->modrm))
			return c->error;
	}
	op = select_form(in->map, in->opcode, in->modrm, mandatory_prefix(in, ps));
	if (!op || (op->attrs & X86_A_I64))
		return INSN_INVALID;
	if (X86_OP_KIND(op->op_rm) == X86_OPK_MEM && (in->modrm >> 6) == 3)
		return INSN_INVALID;

	if (op->attrs & X86_A_F64)
		in->operand_size = 8;
	else if (op->attrs & X86_A_D64)
		in->operand_size = !(in->rex & REX_W) && (in->prefixes & INSN_PFX_OPSIZE) ? 2 : 8;
	else
		in->operand_size = (in->rex & REX_W) ? 8 : (in->prefixes & INSN_PFX_OPSIZE) ? 2 : 4;
	/* 66 on a near branch: rel16 on AMD (and in objdump), ignored by Intel. */
	if ((op->imm1 == X86_IMM_JZ) && in->operand_size == 2)
		in->vendor_specific = true;

	if (in->has_modrm && !decode_modrm(in, c, op->attrs & X86_A_REGONLY))
		return c->error;
	if (!decode_immediates(in, c, op->imm1, op->imm2))
		return c->error;
	in->mnemonic = op->mnemonic;
	in->cf = op->cf;
	in->sfi_allowed = (op->attrs & X86_A_SFI) != 0;
	in->mandatory_prefix = op->prefix == X86_PFX_66 || op->prefix == X86_PFX_F3 ||
			       op->prefix == X86_PFX_F2;
	in->sfi_write = op->sfi_write;
	in->sfi_refusal = op->sfi_refusal;
	in->semantics_known = true;
	if (op->attrs & X86_A_BYTE)
		in->operand_size = 1;
	legacy_effects(in, op);
	if (op->sfi_write != INSN_SFI_WRITE_NONE)
		in->sfi_write_size = (uint8_t)sfi_write_size(in, op);
	return INSN_OK;
}

/* VEX/EVEX map 1 opcodes with an 8-bit immediate (opcodes.map, [vex0f-imm8]). */
static bool map1_has_imm8(uint8_t opcode)
{
	return (x86_vex_map1_imm8[opcode / 8] >> (opcode % 8)) & 1;
}

/* VEX, EVEX and XOP: prefix bytes already in in->vex; in->map set. */
static int decode_vector(struct insn *in, struct cursor *c)
{
	if (!take(c, &in->opcode))
		return c->error;
	in->opcode_offset = (uint8_t)(c->pos - 1);
	bool modrm = !(in->encoding != INSN_EVEX && in->map == INSN_MAP_0F &&
		       in->opcode == VEX_MAP1_NO_MODRM);
	if (modrm) {
		in->has_modrm = true;
		in->modrm_offset = (uint8_t)c->pos;
		if (!take(c, &in->modrm) || !decode_modrm(in, c, false))
			return c->error;
	}
	unsigned imm = 0;
	if (in->map == INSN_MAP_0F3A || in->map == INSN_MAP_XOP8 ||
	    (in->map == INSN_MAP_0F && map1_has_imm8(in->opcode)))
		imm = 1;
	else if (in->map == INSN_MAP_XOPA)
		imm = 4;
	if (imm) {
		uint64_t v;
		in->imm_size = (uint8_t)imm;
		in->imm_offset = (uint8_t)c->pos;
		if (!take_le(c, imm, &v))
			return c->error;
		in->imm = (int64_t)v;
	}
	in->operand_size = (in->rex & REX_W) ? 8 : 4;
	in->mnemonic = UINT16_MAX;
	over_approximate(in);
	return INSN_OK;
}

/* c5 xx, c4 xx xx, 62 xx xx xx, 8f xx xx: fill rex, vvvv and map. */
static int vector_prefix(struct insn *in, struct cursor *c, uint8_t lead)
{
	unsigned n = lead == LEAD_VEX2 ? 1 : lead == LEAD_EVEX ? 3 : 2;

	/*
	 * A VEX/EVEX/XOP instruction with 66, f2, f3, lock or REX before it
	 * raises #UD; decode it on to report its length all the same.
	 */
	if (in->rex || (in->prefixes & (INSN_PFX_OPSIZE | INSN_PFX_REP | INSN_PFX_REPNE |
					INSN_PFX_LOCK)))
		in->invalid_why = "prefix before VEX/EVEX/XOP (#UD)";
	for (unsigned i = 0; i < n; i++)
		if (!take(c, &in->vex[i]))
			return c->error;
	uint8_t rxb = (uint8_t)(~in->vex[0] >> 5) & 7;
	if (lead == LEAD_VEX2) {
		in->encoding = INSN_VEX2;
		in->map = INSN_MAP_0F;
		in->rex = (uint8_t)((~in->vex[0] & 0x80) ? REX_R : 0);
		in->vex_vvvv = (~in->vex[0] >> 3) & 15;
		return INSN_OK;
	}
	in->rex = (uint8_t)(((rxb & 4) ? REX_R : 0) | ((rxb & 2) ? REX_X : 0) |
			    ((rxb & 1) ? REX_B : 0) | ((in->vex[1] & 0x80) ? REX_W : 0));
	in->vex_vvvv = (~in->vex[1] >> 3) & 15;
	if (lead == LEAD_VEX3) {
		in->encoding = INSN_VEX3;
		in->map = in->vex[0] & 0x1f;
		if (in->map < INSN_MAP_0F || in->map > INSN_MAP_0F3A)
			return INSN_INVALID;
	} else if (lead == LEAD_EVEX) {
		in->encoding = INSN_EVEX;
		in->map = in->vex[0] & 7;
		if (!(in->vex[1] & 0x04) || in->map == 0 || in->map == 4 || in->map == 7)
			return INSN_INVALID;
	} else {
		in->encoding = INSN_XOP;
		in->map = in->vex[0] & 0x1f;
		if (in->map < INSN_MAP_XOP8 || in->map > INSN_MAP_XOPA)
			return INSN_INVALID;
	}
	return INSN_OK;
}

static int decode_body(struct insn *in, struct cursor *c)
{
	struct prefix_state ps = { 0 };
	uint8_t b;

	/* Legacy prefixes and REX; a REX counts only right before the opcode. */
	for (;;) {
		if (c->pos >= INSN_MAX_LENGTH)
			return INSN_INVALID;
		if (c->pos >= c->avail)
			return INSN_TRUNCATED;
		b = c->code[c->pos];
		if (legacy_prefix(in, b, &ps)) {
			in->nprefixes++;
			in->rex = 0;
		} else if ((b & REX_PREFIX_MASK) == REX_PREFIX) {
			in->rex = b;
		} else {
			break;
		}
		c->pos++;
	}
	in->opcode_offset = (uint8_t)c->pos;
	if (!take(c, &in->opcode))
		return c->error;

	if (in->opcode == LEAD_VEX3 || in->opcode == LEAD_VEX2 || in->opcode == LEAD_EVEX ||
	    (in->opcode == LEAD_XOP && c->pos < c->avail &&
	     (c->code[c->pos] & 0x1f) >= INSN_MAP_XOP8)) {
		int err = vector_prefix(in, c, in->opcode);
		if (!err)
			err = decode_vector(in, c);
		return !err && in->invalid_why ? INSN_INVALID : err;
	}
	if (in->opcode != ESCAPE_0F) {
		in->map = INSN_MAP_ONE;
		return decode_legacy(in, c, &ps);
	}
	if (!take(c, &b))
		return c->error;
	if (b == ESCAPE_0F38 || b == ESCAPE_0F3A) {
		in->map = b == ESCAPE_0F38 ? INSN_MAP_0F38 : INSN_MAP_0F3A;
		in->opcode_offset = (uint8_t)c->pos;
		if (!take(c, &in->opcode))
			return c->error;
	} else if (b == ESCAPE_3DNOW) {
		/* 3DNow!: 0f 0f ModRM [SIB] [disp] suffix-opcode. */
		in->encoding = INSN_3DNOW;
		in->map = INSN_MAP_0F;
		in->has_modrm = true;
		in->modrm_offset = (uint8_t)c->pos;
		if (!take(c, &in->modrm) || !decode_modrm(in, c, false) || !take(c, &in->opcode))
			return c->error;
		in->mnemonic = UINT16_MAX;
		in->operand_size = 4;
		over_approximate(in);
		return INSN_OK;
	} else {
		in->map = INSN_MAP_0F;
		in->opcode_offset = (uint8_t)(c->pos - 1);
		in->opcode = b;
	}
	return decode_legacy(in, c, &ps);
}

int insn_decode(struct insn *in, const uint8_t *code, size_t avail, uint64_t addr)
{
	struct cursor c = { code, avail, 0, INSN_OK };
	struct insn zero = { 0 };

	*in = zero;
	in->addr = addr;
	in->address_size = 8;
	in->status = (uint8_t)decode_body(in, &c);
	in->length = (uint8_t)c.pos;
	if (in->status == INSN_OK || in->invalid_why)
		compute_targets(in);
	return in->status;
}

const char *insn_mnemonic(const struct insn *in)
{
	static const char *const vector_names[] = {
		[INSN_VEX2] = "vex", [INSN_VEX3] = "vex", [INSN_EVEX] = "evex", [INSN_XOP] = "xop",
		[INSN_3DNOW] = "3dnow",
	};
	if (in->status != INSN_OK)
		return "(invalid)";
	if (in->encoding != INSN_LEGACY)
		return vector_names[in->encoding];
	if (in->opcode == OPCODE_NOP && in->map == INSN_MAP_ONE && !(in->rex & REX_B))
		return (in->prefixes & INSN_PFX_REP) ? "pause" : "nop";
	return in->mnemonic < x86_mnemonic_count ? x86_mnemonics[in->mnemonic] : "?";
}

const char *insn_sfi_refusal(const struct insn *in)
{
	if (in->status != INSN_OK || in->encoding != INSN_LEGACY || in->sfi_allowed)
		return "";
	return x86_sfi_refusals[in->sfi_refusal];
}

const char *insn_reg_name(unsigned n)
{
	static const char *const names[INSN_NREGS] = {
		"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
		"CF", "PF", "AF", "ZF", "SF", "OF", "DF",
	};
	return n < INSN_NREGS ? names[n] : "?";
}
