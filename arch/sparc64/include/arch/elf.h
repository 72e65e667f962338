/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Graft objects on sparc64: the ELF machine the graft loader
 * (kernel/graft/elf_load.c) accepts, and the SPARC V9 psABI relocations
 * it applies (arch/sparc64/elf_reloc.c). The contract is x86's
 * arch/elf.h's; plain C with no kernel dependencies, so host tools build
 * it (tests/reloc/ checks it against GNU ld on the host).
 *
 * Instructions are big-endian 32-bit words whatever the host is: a
 * relocation into an instruction keeps the bits outside its field, and
 * data fields are written most significant byte first.
 */
#ifndef ARCH_ELF_H
#define ARCH_ELF_H

#include <stdbool.h>
#include <stdint.h>

#define ELF_MACHINE_SPARCV9	43
#define ARCH_ELF_MACHINE	ELF_MACHINE_SPARCV9
#define ARCH_ELF_MACHINE_NAME	"SPARC V9"
#define ARCH_ELF_DATA		2	/* ELFDATA2MSB: two's complement, big-endian */
#define ARCH_ELF_DATA_NAME	"big-endian"
#define ARCH_ELF_SHT_UNWIND	1u	/* SHT_PROGBITS: .eh_frame has no type of its own here */

/* SPARC relocation types the loader applies (the rest are refused by name). */
#define R_SPARC_NONE		0
#define R_SPARC_8		1
#define R_SPARC_16		2
#define R_SPARC_32		3
#define R_SPARC_DISP8		4
#define R_SPARC_DISP16		5
#define R_SPARC_DISP32		6
#define R_SPARC_WDISP30		7
#define R_SPARC_WDISP22		8
#define R_SPARC_HI22		9
#define R_SPARC_22		10
#define R_SPARC_13		11
#define R_SPARC_LO10		12
#define R_SPARC_WPLT30		18
#define R_SPARC_UA32		23
#define R_SPARC_64		32
#define R_SPARC_OLO10		33	/* its type is the low 8 bits of ELF64_R_TYPE: */
#define R_SPARC_OLO10_TYPE_MASK	0xffu	/* a second addend (24 bits, signed) is above */
#define R_SPARC_HH22		34
#define R_SPARC_HM10		35
#define R_SPARC_LM22		36
#define R_SPARC_WDISP16		40
#define R_SPARC_WDISP19		41
#define R_SPARC_DISP64		46
#define R_SPARC_H44		50
#define R_SPARC_M44		51
#define R_SPARC_L44		52
#define R_SPARC_UA64		54
#define R_SPARC_UA16		55

/*
 * arch_elf_reloc_name - Overview: the psABI's name of a relocation type,
 *   for messages.
 * Arguments: type, ELF64_R_TYPE of a record (any value; SPARC's R_SPARC_OLO10
 *   carries a second addend above its low 8 bits, and is named by them).
 * Return value: a static string; "unknown" for a type the psABI does not
 *   define.
 * Caller's context: any; pure.
 */
const char *arch_elf_reloc_name(uint32_t type);

/*
 * arch_elf_reloc_supported - Overview: whether the loader applies this
 *   relocation type: what -fno-pic code of any of the kernel code models
 *   (medlow, medmid, medany) and its data and unwind tables use. GOT,
 *   PLT, TLS and the rest are refused.
 * Arguments: type; width, set for a supported type to the bytes of the
 *   field it writes (an instruction's is 4; 0 for a type that writes
 *   nothing).
 * Return value: true when supported.
 * Caller's context: any; pure. The loader calls it while it checks the
 *   file, before any memory is allocated.
 */
bool arch_elf_reloc_supported(uint32_t type, unsigned *width);

/*
 * arch_elf_reloc_apply - Overview: compute one relocation's value and
 *   store it into its field (an instruction's bits, or a data word).
 * Arguments: type, a supported type that writes a field; field, where it
 *   is written (width bytes, any alignment) and place, the address that
 *   field has when the graft runs; symbol, the symbol's run-time value
 *   (S); addend (A); value, set to the computed value in every case.
 * Return value: 0; -ERANGE with *why (the end of a sentence: "does not
 *   fit in ...") when the value does not fit the field or a branch's
 *   target is not word-aligned, and the field is left as it was.
 * Caller's context: the loader, once the graft's regions are allocated
 *   and filled.
 */
int arch_elf_reloc_apply(uint32_t type, uint8_t *field, uint64_t place, uint64_t symbol,
			 int64_t addend, uint64_t *value, const char **why);

#endif
