// SPDX-License-Identifier: BSD-2-Clause
/*
 * The x86-64 psABI's relocations, for the graft loader (the contract is
 * arch/elf.h; the loader's generic half is kernel/graft/elf_reloc.c).
 * Only the types an object compiled with -mcmodel=kernel -fno-pic uses
 * are applied: absolute 64-bit and sign- or zero-extended 32-bit
 * addresses, and PC-relative 32- and 64-bit displacements (PLT32 is a
 * direct call: grafts have no PLT, the kernel's exports are in reach).
 * Everything else (GOT, PLT, TLS, copies) is refused by its name.
 *
 * Plain C with no kernel dependencies: the host unit tests and the
 * loader's fuzz target build it.
 */
#include <scion/errno.h>
#include <scion/string.h>
#include <arch/elf.h>

static const char *const reloc_type_names[] = {
	[0] = "R_X86_64_NONE", [1] = "R_X86_64_64", [2] = "R_X86_64_PC32",
	[3] = "R_X86_64_GOT32", [4] = "R_X86_64_PLT32", [5] = "R_X86_64_COPY",
	[6] = "R_X86_64_GLOB_DAT", [7] = "R_X86_64_JUMP_SLOT", [8] = "R_X86_64_RELATIVE",
	[9] = "R_X86_64_GOTPCREL", [10] = "R_X86_64_32", [11] = "R_X86_64_32S",
	[12] = "R_X86_64_16", [13] = "R_X86_64_PC16", [14] = "R_X86_64_8",
	[15] = "R_X86_64_PC8", [16] = "R_X86_64_DTPMOD64", [17] = "R_X86_64_DTPOFF64",
	[18] = "R_X86_64_TPOFF64", [19] = "R_X86_64_TLSGD", [20] = "R_X86_64_TLSLD",
	[21] = "R_X86_64_DTPOFF32", [22] = "R_X86_64_GOTTPOFF", [23] = "R_X86_64_TPOFF32",
	[24] = "R_X86_64_PC64", [25] = "R_X86_64_GOTOFF64", [26] = "R_X86_64_GOTPC32",
	[27] = "R_X86_64_GOT64", [28] = "R_X86_64_GOTPCREL64", [29] = "R_X86_64_GOTPC64",
	[30] = "R_X86_64_GOTPLT64", [31] = "R_X86_64_PLTOFF64", [32] = "R_X86_64_SIZE32",
	[33] = "R_X86_64_SIZE64", [34] = "R_X86_64_GOTPC32_TLSDESC", [35] = "R_X86_64_TLSDESC_CALL",
	[36] = "R_X86_64_TLSDESC", [37] = "R_X86_64_IRELATIVE", [38] = "R_X86_64_RELATIVE64",
	[41] = "R_X86_64_GOTPCRELX", [42] = "R_X86_64_REX_GOTPCRELX",
};

const char *arch_elf_reloc_name(uint32_t type)
{
	if (type < sizeof(reloc_type_names) / sizeof(reloc_type_names[0]) && reloc_type_names[type])
		return reloc_type_names[type];
	return "unknown";
}

bool arch_elf_reloc_supported(uint32_t type, unsigned *width)
{
	switch (type) {
	case R_X86_64_NONE:
		*width = 0;
		return true;
	case R_X86_64_64:
	case R_X86_64_PC64:
		*width = sizeof(uint64_t);
		return true;
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
	case R_X86_64_32:
	case R_X86_64_32S:
		*width = sizeof(uint32_t);
		return true;
	default:
		return false;
	}
}

static bool fits_signed32(uint64_t v)
{
	int64_t s = (int64_t)v;
	return s >= INT32_MIN && s <= INT32_MAX;
}

int arch_elf_reloc_apply(uint32_t type, uint8_t *field, uint64_t place, uint64_t symbol,
			 int64_t addend, uint64_t *value, const char **why)
{
	bool pc_relative = type == R_X86_64_PC32 || type == R_X86_64_PLT32 || type == R_X86_64_PC64;
	bool wide = type == R_X86_64_64 || type == R_X86_64_PC64;

	*value = symbol + (uint64_t)addend - (pc_relative ? place : 0);
	bool fits = wide || (type == R_X86_64_32 ? *value <= UINT32_MAX : fits_signed32(*value));
	if (!fits) {
		*why = "does not fit in 32 bits: the graft must lie within 2 GiB of what it refers to";
		return -ERANGE;
	}
	if (wide) {
		memcpy(field, value, sizeof(*value));
	} else {
		uint32_t low = (uint32_t)*value;
		memcpy(field, &low, sizeof(low));
	}
	return 0;
}
