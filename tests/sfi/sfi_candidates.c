// SPDX-License-Identifier: BSD-2-Clause
/*
 * The candidates of the SFI proof (sfi_candidates.h): instruction
 * encodings built byte by byte, driven by the opcode table through the
 * decoder. For every legacy map (one-byte, 0f, 0f38, 0f3a) and opcode
 * byte: prefix strings (none; 66, f2, f3, f0, each segment override,
 * 67; pairs and the 66 66 2e gas puts in nops; a REX before a legacy
 * prefix, which cancels it; two REX, of which the last counts), each
 * followed by no REX or a REX 40-4f (in the full run: every REX after
 * none and 66, eight after the others); every ModRM byte (full) or a
 * sample of them that names %rsp, %r14 and %r15 in every field (quick);
 * for memory forms a SIB that covers every base and index (with and
 * without REX.X/B), every scale, no index (100) and no base (mod 0, base
 * 101); displacements at the extremes, and rip-relative ones aimed at
 * the edges of the graft's data; immediates at the extremes; for direct
 * branches the targets the verifier must tell apart (the next
 * instruction, the text start, a ud2 of the fill, the exit gate, the
 * API entry; and inside an instruction, just past the text).
 *
 * The decoder is used only to know where a candidate's fields are and
 * where it ends, and to skip at once what sfi_verify refuses at once
 * (not decodable, not legacy, not admitted by its opcode-table form):
 * that pre-filter only saves calls that sfi_verify would refuse. A
 * ModRM byte whose form is refused is not expanded into its SIB,
 * displacement and immediate variants: the decoder selects a form from
 * the prefixes, the opcode and the ModRM byte alone.
 */
#include <stdio.h>
#include <string.h>
#include "sfi_candidates.h"
#include "window_layout.h"

#define T WINDOW_TARGET

struct prefix_string {
	uint8_t n;
	uint8_t b[3];
	bool rex_follows;	/* only with a REX after it (it is itself a REX) */
};

static const struct prefix_string legacy_parts[] = {
	{ 0, { 0 }, false },
	{ 1, { 0x66 }, false }, { 1, { 0xf2 }, false }, { 1, { 0xf3 }, false },
	{ 1, { 0xf0 }, false }, { 1, { 0x26 }, false }, { 1, { 0x2e }, false },
	{ 1, { 0x36 }, false }, { 1, { 0x3e }, false }, { 1, { 0x64 }, false },
	{ 1, { 0x65 }, false }, { 1, { 0x67 }, false },
	{ 2, { 0x66, 0x66 }, false }, { 2, { 0xf0, 0x66 }, false }, { 2, { 0x66, 0xf0 }, false },
	{ 2, { 0x66, 0xf2 }, false }, { 2, { 0x66, 0xf3 }, false }, { 2, { 0xf3, 0xf2 }, false },
	{ 2, { 0xf2, 0xf3 }, false }, { 3, { 0x66, 0x66, 0x2e }, false },
	/* A REX before a legacy prefix counts for nothing. */
	{ 2, { 0x48, 0x66 }, false }, { 2, { 0x4b, 0xf0 }, false }, { 2, { 0x4f, 0xf3 }, false },
	{ 2, { 0x43, 0x2e }, false },
	/* Two REX: only the last counts. */
	{ 1, { 0x48 }, true }, { 1, { 0x43 }, true },
};
#define NLEGACY (sizeof(legacy_parts) / sizeof(legacy_parts[0]))

/* REX bytes after the legacy part; 0: none. */
static const uint8_t rex_full[] = {
	0, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f,
};

/*
 * The quick sample: with no legacy prefix or 66 (what compilers emit),
 * REX bytes that name %r8-%r15 as base (B), index (X), both (the
 * guarded store's (%r15,%r14)) and in reg (R), at both operand sizes,
 * and ModRM forms that name %rax, %rsp/%r12, %rsi/%r14 and %rdi/%r15
 * as registers, a base, a SIB and rip; every reg value, so every member
 * of a group. Each SIB form gets the guarded store's SIB, the stack's,
 * and one more in turn, which together name every base, every index
 * (and none), every scale, and no base. With any other legacy prefix
 * string, fewer: the register form of %rdi/%r15 and the guarded
 * store's SIB.
 */
static const uint8_t rex_quick_a[] = { 0, 0x41, 0x43, 0x46, 0x4b, 0x4c };
static const uint8_t rex_quick_b[] = { 0, 0x4b };
static const uint8_t mod_rm_quick_a[] = { 0xc0, 0xc4, 0xc6, 0xc7, 0x00, 0x04, 0x05, 0x44, 0x84, 0x87 };
static const uint8_t mod_rm_quick_b[] = { 0xc7, 0x04 };
static const uint8_t sib_quick_a[] = { 0x37, 0x24 };
static const uint8_t sib_quick_more[] = {
	0xc8, 0x25, 0x51, 0x9a, 0xeb, 0x65, 0x35, 0x7e, 0xa0, 0x44, 0xfd,
};
static const uint8_t sib_quick_b[] = { 0x37 };
/* In the full run, every REX after none and 66; these after the other legacy strings. */
static const uint8_t rex_full_few[] = { 0, 0x41, 0x43, 0x44, 0x48, 0x4b, 0x4c, 0x4f };

static const int64_t disp8_values[] = { 0, 1, 0x7f, -0x80 };
static const int64_t disp32_values[] = {
	0, 8, -8, 1, 0x7fffffff, -0x80000000ll, 0x7ffffff8,
	WINDOW_DATA, WINDOW_DATA + WINDOW_DATA_SIZE - 8, WINDOW_DATA + WINDOW_DATA_SIZE - 1,
	WINDOW_DATA - 1,
};
/* rip-relative: the graft's data and its edges, the text; and two raw extremes. */
static const uint64_t rip_targets[] = {
	WINDOW_DATA, WINDOW_DATA + WINDOW_DATA_SIZE - 8, WINDOW_DATA + WINDOW_DATA_SIZE - 1,
	WINDOW_DATA + WINDOW_DATA_SIZE - 16, WINDOW_DATA - 1, WINDOW_DATA + WINDOW_DATA_SIZE,
	WINDOW_TEXT + 0x100,
};
static const int32_t rip_raw[] = { 0x7fffffff, -0x7fffffff - 1 };

static const uint64_t imm1_values[] = { 0, 1, 0x7f, 0x80, 0xff, 0x3f, 0x20 };
static const uint64_t imm2_values[] = { 0, 0x7fff, 0x8000, 0xffff };
static const uint64_t imm4_values[] = { 0, 0x7fffffff, 0x80000000, 0xffffffff, SFI_STACK_MASK, WINDOW_TEXT };
static const uint64_t imm8_values[] = { 0, ~0ull, T, WINDOW_BASE, 1ull << 63 };

static const enum candidate_target branch_targets[] = {
	AIM_NEXT, AIM_SELF, AIM_INSIDE, AIM_TEXT_START, AIM_FILL, AIM_GATE, AIM_API, AIM_OUTSIDE,
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct enumeration {
	bool full;
	bool few;		/* quick, under a legacy prefix string other than none or 66 */
	candidate_fn *fn;
	void *ctx;
	struct candidate_counts *counts;
	unsigned rotation;	/* picks one value of a list where the sample takes one */
	uint8_t map;
	uint8_t opcode;
};

static const char *const map_names[] = { "", "0f ", "0f38 ", "0f3a " };
static const uint8_t escapes[][2] = { { 0 }, { 0x0f }, { 0x0f, 0x38 }, { 0x0f, 0x3a } };

const char *candidate_target_name(enum candidate_target t)
{
	static const char *const names[] = {
		[AIM_NONE] = "-", [AIM_NEXT] = "next", [AIM_SELF] = "itself", [AIM_INSIDE] = "inside",
		[AIM_TEXT_START] = "text start", [AIM_FILL] = "fill", [AIM_GATE] = "exit gate",
		[AIM_API] = "API", [AIM_OUTSIDE] = "past the text", [AIM_ADDRESS] = "address",
	};
	return t <= AIM_ADDRESS ? names[t] : "?";
}

/* Whether the decoder admits bytes[0 .. n) as one instruction the verifier may accept. */
static bool admitted(struct enumeration *e, const uint8_t *bytes, size_t n, struct insn *in)
{
	e->counts->generated++;
	insn_decode(in, bytes, n, WINDOW_TEXT);
	if (in->status != INSN_OK || in->encoding != INSN_LEGACY || !in->sfi_allowed) {
		e->counts->decoder_refused++;
		return false;
	}
	return true;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void emit(struct enumeration *e, const uint8_t *bytes, const struct insn *in,
		 enum candidate_target target, uint64_t address, unsigned fix_offset, unsigned fix_size)
{
	struct candidate c = {
		.length = in->length, .fix_target = target, .address = address,
		.fix_offset = (uint8_t)fix_offset, .fix_size = (uint8_t)fix_size,
	};
	memcpy(c.bytes, bytes, in->length);
	snprintf(c.form, sizeof(c.form), "%s%02x %s%s", map_names[e->map], e->opcode, insn_mnemonic(in),
		 !in->has_modrm ? "" : (in->modrm >> 6) == 3 ? " reg" : " mem");
	e->counts->admitted++;
	e->fn(e->ctx, &c);
}

/* The values tried for an immediate of `size` bytes; *n gets how many (0: no immediate). */
static const uint64_t *immediates(unsigned size, size_t *n)
{
	switch (size) {
	case 1: *n = N(imm1_values); return imm1_values;
	case 2: *n = N(imm2_values); return imm2_values;
	case 4: *n = N(imm4_values); return imm4_values;
	case 8: *n = N(imm8_values); return imm8_values;
	default: *n = 0; return NULL;
	}
}

/* The immediates of a decoded candidate (bytes final up to them), then emit. */
static void with_immediates(struct enumeration *e, uint8_t *bytes, const struct insn *in)
{
	if (insn_has_branch_target(in)) {
		for (size_t i = 0; i < N(branch_targets); i++)
			emit(e, bytes, in, branch_targets[i], 0, in->imm_offset, in->imm_size);
		return;
	}
	size_t n;
	const uint64_t *values = immediates(in->imm_size, &n);
	/* All of them on register and opcode-only forms in the full run; else one, in turn. */
	bool all = e->full && !in->has_memory;
	for (size_t i = 0; i < (n ? (all ? n : 1) : 1); i++) {
		struct insn final;
		if (n)
			put_le(bytes + in->imm_offset, values[all ? i : e->rotation++ % n], in->imm_size);
		if (admitted(e, bytes, in->length, &final))
			emit(e, bytes, &final, AIM_NONE, 0, 0, 0);
	}
}

/* Displacement variants of a memory form, then its immediates. */
static void with_displacement(struct enumeration *e, uint8_t *bytes, const struct insn *in)
{
	if (in->rip_relative) {
		/*
		 * Aimed (candidate_place writes the displacement) or raw
		 * extremes; the quick sample takes the data's first byte and a
		 * third of the others, in turn. Immediates: one, in turn.
		 */
		size_t nimm;
		const uint64_t *imm = immediates(in->imm_size, &nimm);
		for (size_t i = 0; i < N(rip_targets) + N(rip_raw); i++) {
			if (!e->full && i % 3 != e->rotation % 3 && i != 0)
				continue;
			struct insn final;
			uint32_t raw = i < N(rip_targets) ? 0 : (uint32_t)rip_raw[i - N(rip_targets)];
			put_le(bytes + in->disp_offset, raw, 4);
			if (nimm)
				put_le(bytes + in->imm_offset, imm[e->rotation++ % nimm], in->imm_size);
			if (insn_has_branch_target(in) || !admitted(e, bytes, in->length, &final))
				continue;
			if (i < N(rip_targets))
				emit(e, bytes, &final, AIM_ADDRESS, rip_targets[i], in->disp_offset, 4);
			else
				emit(e, bytes, &final, AIM_NONE, 0, 0, 0);
		}
		e->rotation++;
		return;
	}
	const int64_t *values = in->disp_size == 1 ? disp8_values : disp32_values;
	size_t n = in->disp_size == 0 ? 0 : in->disp_size == 1 ? N(disp8_values) : N(disp32_values);
	bool absolute = in->has_sib && (in->sib & 7) == 5 && (in->modrm >> 6) == 0;
	/* Every value where the form is rare (no SIB, or an absolute address) in the full run. */
	bool all = e->full && (!in->has_sib || absolute);
	if (!n) {
		with_immediates(e, bytes, in);
		return;
	}
	for (size_t i = 0; i < (all ? n : 1); i++) {
		put_le(bytes + in->disp_offset, (uint64_t)values[all ? i : e->rotation++ % n], in->disp_size);
		with_immediates(e, bytes, in);
	}
}

/* One ModRM byte (and its SIB bytes) after the prefixes and the opcode. */
static void with_modrm(struct enumeration *e, uint8_t *bytes, unsigned modrm_offset, uint8_t modrm)
{
	uint8_t buf[INSN_MAX_LENGTH + 8];
	struct insn in;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, bytes, modrm_offset);
	buf[modrm_offset] = modrm;
	if (!admitted(e, buf, INSN_MAX_LENGTH, &in))
		return;
	if (!in.has_sib) {
		with_displacement(e, buf, &in);
		return;
	}
	size_t nsib = e->full ? 256 : e->few ? N(sib_quick_b) : N(sib_quick_a) + 1;
	for (size_t i = 0; i < nsib; i++) {
		uint8_t sib = e->full ? (uint8_t)i : e->few ? sib_quick_b[i] :
			      i < N(sib_quick_a) ? sib_quick_a[i] :
			      sib_quick_more[e->rotation++ % N(sib_quick_more)];
		memset(buf + modrm_offset + 1, 0, sizeof(buf) - modrm_offset - 1);
		buf[modrm_offset + 1] = sib;
		if (!admitted(e, buf, INSN_MAX_LENGTH, &in))
			continue;
		with_displacement(e, buf, &in);
	}
}

/* One prefix string before the current opcode. */
static void with_prefixes(struct enumeration *e, const struct prefix_string *p, uint8_t rex)
{
	uint8_t bytes[INSN_MAX_LENGTH + 8];
	unsigned n = 0;
	struct insn in;

	memset(bytes, 0, sizeof(bytes));
	memcpy(bytes, p->b, p->n);
	n = p->n;
	if (rex)
		bytes[n++] = rex;
	for (unsigned i = 0; i < 2 && escapes[e->map][i]; i++)
		bytes[n++] = escapes[e->map][i];
	bytes[n++] = e->opcode;
	/* What follows the opcode: a ModRM byte, or immediates only. */
	insn_decode(&in, bytes, INSN_MAX_LENGTH, WINDOW_TEXT);
	if (!in.has_modrm) {
		if (admitted(e, bytes, INSN_MAX_LENGTH, &in))
			with_immediates(e, bytes, &in);
		return;
	}
	if (e->full) {
		for (unsigned m = 0; m < 256; m++)
			with_modrm(e, bytes, n, (uint8_t)m);
		return;
	}
	const uint8_t *mod_rm = e->few ? mod_rm_quick_b : mod_rm_quick_a;
	size_t nmod_rm = e->few ? N(mod_rm_quick_b) : N(mod_rm_quick_a);
	for (size_t i = 0; i < nmod_rm; i++)
		for (unsigned reg = 0; reg < 8; reg++)
			with_modrm(e, bytes, n, (uint8_t)(mod_rm[i] | reg << 3));
}

/* Bytes that are prefixes or escapes in the one-byte map, not opcodes. */
static bool not_an_opcode(unsigned map, unsigned b)
{
	if (map == 0)
		return b == 0x0f || b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e ||
		       (b >= 0x40 && b <= 0x4f) || (b >= 0x64 && b <= 0x67) || b == 0xf0 ||
		       b == 0xf2 || b == 0xf3;
	if (map == 1)
		return b == 0x0f || b == 0x38 || b == 0x3a;
	return false;
}

unsigned candidate_opcodes(uint16_t out[CANDIDATE_OPCODES_MAX])
{
	unsigned n = 0;

	for (unsigned map = 0; map < 4; map++)
		for (unsigned op = 0; op < 256; op++)
			if (!not_an_opcode(map, op))
				out[n++] = (uint16_t)(map << 8 | op);
	return n;
}

void enumerate_opcode(bool full, uint16_t opcode, candidate_fn *fn, void *ctx,
		      struct candidate_counts *counts)
{
	struct enumeration e = {
		.full = full, .fn = fn, .ctx = ctx, .counts = counts,
		.map = (uint8_t)(opcode >> 8), .opcode = (uint8_t)opcode,
	};

	for (size_t p = 0; p < NLEGACY; p++) {
		/* legacy_parts[0] and [1]: none and 66; the rest with fewer REX and ModRM. */
		e.few = !full && p > 1;
		const uint8_t *rex = full ? (p > 1 ? rex_full_few : rex_full) :
				     e.few ? rex_quick_b : rex_quick_a;
		size_t nrex = full ? (p > 1 ? N(rex_full_few) : N(rex_full)) :
			      e.few ? N(rex_quick_b) : N(rex_quick_a);
		for (size_t r = 0; r < nrex; r++)
			if (rex[r] || !legacy_parts[p].rex_follows)
				with_prefixes(&e, &legacy_parts[p], rex[r]);
	}
}

bool candidate_place(const struct candidate *c, uint8_t *out, uint64_t addr, uint64_t text,
		     uint64_t text_size)
{
	uint64_t next = addr + c->length, target = 0;

	memcpy(out, c->bytes, c->length);
	switch (c->fix_target) {
	case AIM_NONE: return true;
	case AIM_NEXT: target = next; break;
	case AIM_SELF: target = addr; break;
	case AIM_INSIDE: target = addr + 1; break;
	case AIM_TEXT_START: target = text; break;
	case AIM_FILL: target = text + 64; break;
	case AIM_GATE: target = WINDOW_GATE; break;
	case AIM_API: target = WINDOW_API; break;
	case AIM_OUTSIDE: target = text + text_size; break;
	case AIM_ADDRESS: target = c->address; break;
	}
	int64_t rel = (int64_t)(target - next);
	if (c->fix_size == 1 ? rel != (int8_t)rel : c->fix_size == 2 ? rel != (int16_t)rel :
	    rel != (int32_t)rel)
		return false;
	put_le(out + c->fix_offset, (uint64_t)rel, c->fix_size);
	return true;
}
