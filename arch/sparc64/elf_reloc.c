// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SPARC V9 psABI's relocations, for the graft loader (the contract
 * is arch/elf.h; the loader's generic half is kernel/graft/elf_reloc.c).
 * Applied: what -fno-pic code of the medlow, medmid and medany code
 * models, its data and its unwind tables use (absolute and PC-relative
 * data words, the sethi/or pairs of each model, call and branch
 * displacements, and R_SPARC_OLO10, a %lo with a second addend, which
 * GCC's loads and stores of sym+offset carry). GOT, PLT, TLS, copies and
 * the rest are refused by name.
 *
 * Each applied type is one row of reloc_kinds: how the value is made
 * (S + A, or S + A - P), how far it is shifted, which bits of the field
 * take it, and what range it must fit. A field's bits outside its mask
 * are kept (an instruction's opcode and registers). Fields are
 * big-endian whatever the host: tests/reloc/ runs this file on x86 and
 * compares every field with GNU ld's.
 */
#include <scion/errno.h>
#include <scion/string.h>
#include <arch/elf.h>


enum fit {
	FIT_ANY,		/* the bits above the field are dropped (LO10, HM10, ...) */
	FIT_SIGNED,		/* the value, as signed, fits the field's bits */
	FIT_BITFIELD,		/* signed or unsigned, as binutils' bitfield check */
	FIT_UNSIGNED,		/* as unsigned (zero-extended by the code: sethi, H44) */
};

struct reloc_kind {
	uint8_t width;		/* bytes of the field */
	bool pc_relative;	/* S + A - P instead of S + A */
	uint8_t shift;		/* the value is shifted right this much first */
	uint8_t bits;		/* of the shifted value, this many go into the field */
	enum fit fit;
	uint8_t fit_bits;	/* the range checked, in bits of the unshifted value */
	bool word_aligned;	/* the value must be a multiple of 4 (branch displacements) */
};

static const struct reloc_kind reloc_kinds[] = {
	[R_SPARC_8] = { 1, false, 0, 8, FIT_BITFIELD, 8, false },
	[R_SPARC_16] = { 2, false, 0, 16, FIT_BITFIELD, 16, false },
	[R_SPARC_UA16] = { 2, false, 0, 16, FIT_BITFIELD, 16, false },
	[R_SPARC_32] = { 4, false, 0, 32, FIT_BITFIELD, 32, false },
	[R_SPARC_UA32] = { 4, false, 0, 32, FIT_BITFIELD, 32, false },
	[R_SPARC_64] = { 8, false, 0, 64, FIT_ANY, 64, false },
	[R_SPARC_UA64] = { 8, false, 0, 64, FIT_ANY, 64, false },
	[R_SPARC_DISP8] = { 1, true, 0, 8, FIT_SIGNED, 8, false },
	[R_SPARC_DISP16] = { 2, true, 0, 16, FIT_SIGNED, 16, false },
	[R_SPARC_DISP32] = { 4, true, 0, 32, FIT_SIGNED, 32, false },
	[R_SPARC_DISP64] = { 8, true, 0, 64, FIT_ANY, 64, false },
	[R_SPARC_WDISP30] = { 4, true, 2, 30, FIT_SIGNED, 32, true },
	[R_SPARC_WPLT30] = { 4, true, 2, 30, FIT_SIGNED, 32, true },
	[R_SPARC_WDISP22] = { 4, true, 2, 22, FIT_SIGNED, 24, true },
	[R_SPARC_WDISP19] = { 4, true, 2, 19, FIT_SIGNED, 21, true },
	[R_SPARC_WDISP16] = { 4, true, 2, 16, FIT_SIGNED, 18, true },
	[R_SPARC_HI22] = { 4, false, 10, 22, FIT_UNSIGNED, 32, false },
	[R_SPARC_22] = { 4, false, 0, 22, FIT_BITFIELD, 22, false },
	[R_SPARC_13] = { 4, false, 0, 13, FIT_SIGNED, 13, false },
	[R_SPARC_LO10] = { 4, false, 0, 10, FIT_ANY, 64, false },
	[R_SPARC_HH22] = { 4, false, 42, 22, FIT_ANY, 64, false },
	[R_SPARC_HM10] = { 4, false, 32, 10, FIT_ANY, 64, false },
	[R_SPARC_LM22] = { 4, false, 10, 22, FIT_ANY, 64, false },
	[R_SPARC_H44] = { 4, false, 22, 22, FIT_UNSIGNED, 44, false },
	[R_SPARC_M44] = { 4, false, 12, 10, FIT_ANY, 64, false },
	[R_SPARC_L44] = { 4, false, 0, 12, FIT_ANY, 64, false },
};
#define NKINDS (sizeof(reloc_kinds) / sizeof(reloc_kinds[0]))

static const char *const reloc_type_names[] = {
	[0] = "R_SPARC_NONE", [1] = "R_SPARC_8", [2] = "R_SPARC_16", [3] = "R_SPARC_32",
	[4] = "R_SPARC_DISP8", [5] = "R_SPARC_DISP16", [6] = "R_SPARC_DISP32",
	[7] = "R_SPARC_WDISP30", [8] = "R_SPARC_WDISP22", [9] = "R_SPARC_HI22",
	[10] = "R_SPARC_22", [11] = "R_SPARC_13", [12] = "R_SPARC_LO10",
	[13] = "R_SPARC_GOT10", [14] = "R_SPARC_GOT13", [15] = "R_SPARC_GOT22",
	[16] = "R_SPARC_PC10", [17] = "R_SPARC_PC22", [18] = "R_SPARC_WPLT30",
	[19] = "R_SPARC_COPY", [20] = "R_SPARC_GLOB_DAT", [21] = "R_SPARC_JMP_SLOT",
	[22] = "R_SPARC_RELATIVE", [23] = "R_SPARC_UA32", [24] = "R_SPARC_PLT32",
	[25] = "R_SPARC_HIPLT22", [26] = "R_SPARC_LOPLT10", [27] = "R_SPARC_PCPLT32",
	[28] = "R_SPARC_PCPLT22", [29] = "R_SPARC_PCPLT10", [30] = "R_SPARC_10",
	[31] = "R_SPARC_11", [32] = "R_SPARC_64", [33] = "R_SPARC_OLO10",
	[34] = "R_SPARC_HH22", [35] = "R_SPARC_HM10", [36] = "R_SPARC_LM22",
	[37] = "R_SPARC_PC_HH22", [38] = "R_SPARC_PC_HM10", [39] = "R_SPARC_PC_LM22",
	[40] = "R_SPARC_WDISP16", [41] = "R_SPARC_WDISP19", [43] = "R_SPARC_7",
	[44] = "R_SPARC_5", [45] = "R_SPARC_6", [46] = "R_SPARC_DISP64",
	[47] = "R_SPARC_PLT64", [48] = "R_SPARC_HIX22", [49] = "R_SPARC_LOX10",
	[50] = "R_SPARC_H44", [51] = "R_SPARC_M44", [52] = "R_SPARC_L44",
	[53] = "R_SPARC_REGISTER", [54] = "R_SPARC_UA64", [55] = "R_SPARC_UA16",
	[56] = "R_SPARC_TLS_GD_HI22", [57] = "R_SPARC_TLS_GD_LO10",
	[58] = "R_SPARC_TLS_GD_ADD", [59] = "R_SPARC_TLS_GD_CALL",
	[60] = "R_SPARC_TLS_LDM_HI22", [61] = "R_SPARC_TLS_LDM_LO10",
	[62] = "R_SPARC_TLS_LDM_ADD", [63] = "R_SPARC_TLS_LDM_CALL",
	[64] = "R_SPARC_TLS_LDO_HIX22", [65] = "R_SPARC_TLS_LDO_LOX10",
	[66] = "R_SPARC_TLS_LDO_ADD", [67] = "R_SPARC_TLS_IE_HI22",
	[68] = "R_SPARC_TLS_IE_LO10", [69] = "R_SPARC_TLS_IE_LD", [70] = "R_SPARC_TLS_IE_LDX",
	[71] = "R_SPARC_TLS_IE_ADD", [72] = "R_SPARC_TLS_LE_HIX22",
	[73] = "R_SPARC_TLS_LE_LOX10", [74] = "R_SPARC_TLS_DTPMOD32",
	[75] = "R_SPARC_TLS_DTPMOD64", [76] = "R_SPARC_TLS_DTPOFF32",
	[77] = "R_SPARC_TLS_DTPOFF64", [78] = "R_SPARC_TLS_TPOFF32",
	[79] = "R_SPARC_TLS_TPOFF64", [80] = "R_SPARC_GOTDATA_HIX22",
	[81] = "R_SPARC_GOTDATA_LOX10", [82] = "R_SPARC_GOTDATA_OP_HIX22",
	[83] = "R_SPARC_GOTDATA_OP_LOX10", [84] = "R_SPARC_GOTDATA_OP",
	[85] = "R_SPARC_H34", [86] = "R_SPARC_SIZE32", [87] = "R_SPARC_SIZE64",
	[88] = "R_SPARC_WDISP10",
};

const char *arch_elf_reloc_name(uint32_t type)
{
	if ((type & R_SPARC_OLO10_TYPE_MASK) == R_SPARC_OLO10)
		return reloc_type_names[R_SPARC_OLO10];
	if (type < sizeof(reloc_type_names) / sizeof(reloc_type_names[0]) && reloc_type_names[type])
		return reloc_type_names[type];
	return "unknown";
}

static const struct reloc_kind olo10 = { 4, false, 0, 13, FIT_SIGNED, 13, false };

static const struct reloc_kind *kind_of(uint32_t type)
{
	if ((type & R_SPARC_OLO10_TYPE_MASK) == R_SPARC_OLO10)
		return &olo10;
	if (type >= NKINDS || !reloc_kinds[type].width)
		return NULL;
	return &reloc_kinds[type];
}

bool arch_elf_reloc_supported(uint32_t type, unsigned *width)
{
	if (type == R_SPARC_NONE) {
		*width = 0;
		return true;
	}
	const struct reloc_kind *k = kind_of(type);
	if (!k)
		return false;
	*width = k->width;
	return true;
}

static bool fits(uint64_t v, enum fit fit, unsigned bits)
{
	if (bits >= 64 || fit == FIT_ANY)
		return true;
	int64_t s = (int64_t)v;
	int64_t lo = -((int64_t)1 << (bits - 1)), hi = ((int64_t)1 << (bits - 1)) - 1;
	switch (fit) {
	case FIT_SIGNED:
		return s >= lo && s <= hi;
	case FIT_UNSIGNED:
		return v >> bits == 0;
	case FIT_BITFIELD:
		return (s >= lo && s <= hi) || v >> bits == 0;
	default:
		return true;
	}
}

static uint64_t load_be(const uint8_t *p, unsigned width)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < width; i++)
		v = v << 8 | p[i];
	return v;
}

static void store_be(uint8_t *p, unsigned width, uint64_t v)
{
	for (unsigned i = width; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t low_bits(unsigned bits)
{
	return bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
}

int arch_elf_reloc_apply(uint32_t type, uint8_t *field, uint64_t place, uint64_t symbol,
			 int64_t addend, uint64_t *value, const char **why)
{
	const struct reloc_kind *k = kind_of(type);
	*value = symbol + (uint64_t)addend - (k && k->pc_relative ? place : 0);
	if (k == &olo10) {
		/* %lo(S + A), then the second addend: r_info's 24 bits above the type. */
		int64_t second = (int64_t)(int32_t)(type & ~(uint32_t)R_SPARC_OLO10_TYPE_MASK) >> 8;
		*value = (*value & 0x3ff) + (uint64_t)second;
	}
	if (!k) {
		*why = "is not a relocation this loader applies";
		return -ERANGE;
	}
	if (k->word_aligned && (*value & 3)) {
		*why = "is not a multiple of 4: a branch must reach a word";
		return -ERANGE;
	}
	if (!fits(*value, k->fit, k->fit_bits)) {
		*why = k->pc_relative ? "does not fit the displacement: the graft is out of the "
					"branch's reach of what it refers to"
				      : "does not fit the field: the graft's code model cannot "
					"reach that address";
		return -ERANGE;
	}
	uint64_t bits = (uint64_t)((int64_t)*value >> k->shift) & low_bits(k->bits);
	uint64_t old = load_be(field, k->width);
	uint64_t new;
	if (type == R_SPARC_WDISP16) {
		/* d16hi (the top 2 of the 16) at bits 21:20, d16lo at 13:0 */
		new = (old & ~(uint64_t)0x303fff) | (bits >> 14) << 20 | (bits & 0x3fff);
	} else {
		new = (old & ~low_bits(k->bits)) | bits;
	}
	store_be(field, k->width, new);
	return 0;
}
