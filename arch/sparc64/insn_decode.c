// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SPARC V9 instruction decoder (see arch/insn.h), driven by the tables
 * generated from arch/sparc64/opcodes.map.
 *
 * Every instruction is one 32-bit word. Decoding picks the word's bucket
 * (op, and op2 or op3), takes the bucket's first matching form (they are
 * sorted most specific first, so aliases such as nop and ret win over
 * their general forms), then reads the fields the form's operands name:
 * registers into the read and written sets, the immediate, the
 * PC-relative displacement, the ASI. Nothing here knows an opcode number;
 * field positions come from the generated header. Freestanding: no libc
 * beyond stdint/stddef/stdbool, no host byte order.
 */
#include <arch/insn.h>
#include "sparc64_forms.h"

#define OP_BRANCHES 0	/* op: the branch/sethi group, keyed by op2 */
#define OP_CALL     1
#define OP_ARITH    2	/* keyed by op3 */
#define PC_REL_SHIFT 2	/* displacements count words */
#define BLOCK_BYTES 64	/* a block load or store: eight doubles */
#define QUAD_BYTES  16	/* a quad load: two extended words */

static int64_t sign_extend(uint64_t v, unsigned bits)
{
	uint64_t sign = 1ull << (bits - 1);
	v &= (sign << 1) - 1;
	return (int64_t)((v ^ sign) - sign);
}

static const struct sparc_form *find_form(uint32_t w)
{
	unsigned op = SPARC_FIELD(w, OP), b;

	if (op == OP_BRANCHES)
		b = SPARC_FIELD(w, OP2);
	else if (op == OP_CALL)
		b = SPARC_BUCKET_OP1;
	else
		b = (op == OP_ARITH ? SPARC_BUCKET_OP2 : SPARC_BUCKET_OP3) + SPARC_FIELD(w, OP3);
	const struct sparc_bucket *bk = &sparc_buckets[b];
	for (unsigned k = 0; k < bk->count; k++) {
		const struct sparc_form *f = &sparc_forms[bk->first + k];
		if ((w & f->mask) == f->value)
			return f;
	}
	return NULL;
}

static int64_t displacement(uint32_t w, uint8_t kind, uint8_t *bits)
{
	switch (kind) {
	case SPARC_DISP_30:
		*bits = 30;
		return sign_extend(SPARC_FIELD(w, DISP30), 30);
	case SPARC_DISP_22:
		*bits = 22;
		return sign_extend(SPARC_FIELD(w, DISP22), 22);
	case SPARC_DISP_19:
		*bits = 19;
		return sign_extend(SPARC_FIELD(w, DISP19), 19);
	case SPARC_DISP_16:
		*bits = 16;
		return sign_extend(((uint64_t)SPARC_FIELD(w, D16HI) << 14) | SPARC_FIELD(w, D16LO), 16);
	default:
		*bits = 0;
		return 0;
	}
}

static int32_t immediate(uint32_t w, uint8_t kind)
{
	switch (kind) {
	case SPARC_IMM_SIMM13:
		return (int32_t)sign_extend(SPARC_FIELD(w, SIMM13), 13);
	case SPARC_IMM_SIMM11:
		return (int32_t)sign_extend(SPARC_FIELD(w, SIMM11), 11);
	case SPARC_IMM_SIMM10:
		return (int32_t)sign_extend(SPARC_FIELD(w, SIMM10), 10);
	case SPARC_IMM_SHCNT:
		return (int32_t)SPARC_FIELD(w, SHCNT);
	case SPARC_IMM_SWTRAP:
		return (int32_t)SPARC_FIELD(w, SWTRAP);
	default:
		return 0;
	}
}

static void clear(struct insn *in, uint32_t word, uint64_t addr)
{
	struct insn zero = { 0 };
	*in = zero;
	in->addr = addr;
	in->word = word;
	in->length = INSN_MAX_LENGTH;
	in->asi = INSN_ASI_NONE;
}

int insn_decode(struct insn *in, uint32_t w, uint64_t addr)
{
	clear(in, w, addr);
	const struct sparc_form *f = find_form(w);
	if (!f) {
		in->status = INSN_INVALID;
		for (const struct sparc_reserved *r = sparc_reserved; r->reason; r++)
			if ((w & r->mask) == r->value) {
				in->invalid_why = r->reason;
				break;
			}
		return in->status;
	}
	in->status = INSN_OK;
	in->mnemonic = f->mnemonic;
	in->cf = f->cf;
	in->operands = f->operands;
	in->rd = (uint8_t)SPARC_FIELD(w, RD);
	in->rs1 = (uint8_t)SPARC_FIELD(w, RS1);
	in->rs2 = (uint8_t)SPARC_FIELD(w, RS2);
	in->imm_form = f->imm != SPARC_IMM_NONE;
	in->imm = immediate(w, f->imm);
	if (f->operands & INSN_OPD_IMM22)
		in->imm = (int32_t)(SPARC_FIELD(w, IMM22) << 10);
	else if (f->operands & INSN_OPD_CONST22)
		in->imm = (int32_t)SPARC_FIELD(w, IMM22);
	else if (f->operands & INSN_OPD_SIMM13)
		in->imm = (int32_t)sign_extend(SPARC_FIELD(w, SIMM13), 13);
	in->cc_read = f->cc_read;
	in->cc_written = f->cc_written;
	in->window = f->window;
	in->privileged = f->flags & SPARC_PRIV;
	if (f->flags & SPARC_Y_R)
		in->state_read |= INSN_STATE_Y;
	if (f->flags & SPARC_Y_W)
		in->state_written |= INSN_STATE_Y;
	if (f->flags & SPARC_ASI_R)
		in->state_read |= INSN_STATE_ASI;
	if (f->flags & SPARC_ASI_W)
		in->state_written |= INSN_STATE_ASI;

	/* Control flow: the delay slot, the a and p bits, the target. */
	in->disp = (int64_t)((uint64_t)displacement(w, f->disp, &in->disp_bits) << PC_REL_SHIFT);
	if (in->disp_bits)
		in->target = addr + (uint64_t)in->disp;
	switch (f->cf) {
	case INSN_CF_BRANCH: case INSN_CF_BRANCH_ALWAYS: case INSN_CF_BRANCH_NEVER:
	case INSN_CF_FBRANCH: case INSN_CF_BRANCH_REG:
		in->annul = SPARC_FIELD(w, A);
		in->has_prediction = f->disp == SPARC_DISP_19 || f->disp == SPARC_DISP_16;
		in->predict_taken = in->has_prediction && SPARC_FIELD(w, P);
		/* fall through */
	case INSN_CF_CALL: case INSN_CF_CALL_INDIRECT: case INSN_CF_JMP_INDIRECT:
	case INSN_CF_RET: case INSN_CF_RETURN:
		in->delayed = true;
		break;
	default:
		break;
	}

	/* Registers. */
	uint32_t rd = 0, rd_mask = INSN_REG(in->rd);
	if (f->operands & INSN_OPD_PAIR)
		rd_mask |= INSN_REG(in->rd | 1);
	if (f->operands & INSN_OPD_RD_R)
		in->regs_read |= rd_mask;
	if (f->operands & INSN_OPD_RD_W)
		rd |= rd_mask;
	if (f->operands & INSN_OPD_RS1)
		in->regs_read |= INSN_REG(in->rs1);
	if (f->operands & INSN_OPD_RS2)
		in->regs_read |= INSN_REG(in->rs2);
	if (f->cf == INSN_CF_CALL)
		rd |= INSN_REG(INSN_O7);
	in->regs_written = rd;

	/* Memory and its address space. */
	in->mem = f->mem;
	in->mem_size = f->mem_size;
	if (f->operands & INSN_OPD_ASI) {
		if (in->imm_form || (f->operands & INSN_OPD_ADDR_RS1 && SPARC_FIELD(w, I))) {
			in->asi_reg = true;
			in->state_read |= INSN_STATE_ASI;
		} else {
			in->asi = (uint16_t)SPARC_FIELD(w, ASI);
			if (in->asi < INSN_ASI_UNRESTRICTED)
				in->privileged = true;
			if (f->flags & sparc_asi_kinds[in->asi] & SPARC_BLOCK)
				in->mem_size = BLOCK_BYTES;
			else if (f->flags & sparc_asi_kinds[in->asi] & SPARC_QUAD)
				in->mem_size = QUAD_BYTES;
		}
	} else if (in->mem == INSN_MEM_ATOMIC && (f->operands & INSN_OPD_ADDR_RS1)) {
		/* cas, casx: casa/casxa with the primary ASI written out */
		in->asi = (uint16_t)SPARC_FIELD(w, ASI);
	}

	in->regs_read &= INSN_GPRS;
	in->regs_written &= INSN_GPRS;
	return in->status;
}

int insn_decode_bytes(struct insn *in, const uint8_t *code, size_t avail, uint64_t addr)
{
	if (avail < INSN_MAX_LENGTH) {
		clear(in, 0, addr);
		in->status = INSN_TRUNCATED;
		return in->status;
	}
	uint32_t w = (uint32_t)code[0] << 24 | (uint32_t)code[1] << 16 | (uint32_t)code[2] << 8 |
		     code[3];
	return insn_decode(in, w, addr);
}

const char *insn_mnemonic(const struct insn *in)
{
	if (in->status != INSN_OK || in->mnemonic >= SPARC_MN_COUNT)
		return "(bad)";
	return sparc_mnemonics[in->mnemonic];
}

const char *insn_reg_name(unsigned n)
{
	static const char names[INSN_NREGS][3] = {
		"g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7",
		"o0", "o1", "o2", "o3", "o4", "o5", "o6", "o7",
		"l0", "l1", "l2", "l3", "l4", "l5", "l6", "l7",
		"i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7",
	};
	return n < INSN_NREGS ? names[n] : "?";
}
