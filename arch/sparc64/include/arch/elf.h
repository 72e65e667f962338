/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Graft objects on sparc64: the ELF machine the graft loader
 * (kernel/graft/elf_load.c) accepts, and the SPARC V9 psABI relocations
 * it applies (arch/sparc64/elf_reloc.c), whose functions are the
 * contract's (scion/elf_reloc_arch.h). Plain C with no kernel
 * dependencies, so host tools build it (tests/reloc/ checks it against
 * GNU ld on the host).
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

#include <scion/elf_reloc_arch.h>

#endif
