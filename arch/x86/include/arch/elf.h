/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Graft objects on x86-64: the ELF machine the graft loader
 * (kernel/graft/elf_load.c) accepts, and the x86-64 psABI relocations it
 * applies (arch/x86/elf_reloc.c). Plain C with no kernel dependencies,
 * so the host unit tests and the loader's fuzz target build it with the
 * loader.
 *
 * The contract every port provides in its arch/elf.h: ARCH_ELF_MACHINE
 * and ARCH_ELF_MACHINE_NAME (e_machine and its name in messages),
 * ARCH_ELF_DATA and ARCH_ELF_DATA_NAME (the byte order of e_ident, which
 * must be the kernel's own: the loader reads records in place),
 * ARCH_ELF_SHT_UNWIND (an allocated section type the loader loads like
 * PROGBITS, or SHT_PROGBITS's own value when the machine has none), and
 * the arch_elf_reloc_* functions below. The generic half (checking the
 * file, symbols, offsets, laying out and copying sections) never names a
 * relocation type.
 */
#ifndef ARCH_ELF_H
#define ARCH_ELF_H

#include <stdbool.h>
#include <stdint.h>

#define ELF_MACHINE_X86_64	62
#define ARCH_ELF_MACHINE	ELF_MACHINE_X86_64
#define ARCH_ELF_MACHINE_NAME	"x86-64"
#define ARCH_ELF_DATA		1	/* ELFDATA2LSB: two's complement, little-endian */
#define ARCH_ELF_DATA_NAME	"little-endian"
#define ARCH_ELF_SHT_UNWIND	0x70000001u	/* SHT_X86_64_UNWIND: .eh_frame on x86-64 */

/* x86-64 relocation types the loader applies (the rest are refused by name) */
#define R_X86_64_NONE		0
#define R_X86_64_64		1
#define R_X86_64_PC32		2
#define R_X86_64_PLT32		4
#define R_X86_64_32		10
#define R_X86_64_32S		11
#define R_X86_64_PC64		24

/*
 * arch_elf_reloc_name - Overview: the psABI's name of a relocation type,
 *   for messages.
 * Arguments: type, ELF64_R_TYPE of a record (any value).
 * Return value: a static string; "unknown" for a type the psABI does not
 *   define.
 * Caller's context: any; pure.
 */
const char *arch_elf_reloc_name(uint32_t type);

/*
 * arch_elf_reloc_supported - Overview: whether the loader applies this
 *   relocation type (what the kernel's code model and -fno-pic emit;
 *   GOT, PLT, TLS and the rest are refused).
 * Arguments: type; width, set for a supported type to the bytes of the
 *   field it writes (0 for a type that writes nothing).
 * Return value: true when supported.
 * Caller's context: any; pure. The loader calls it while it checks the
 *   file, before any memory is allocated.
 */
bool arch_elf_reloc_supported(uint32_t type, unsigned *width);

/*
 * arch_elf_reloc_apply - Overview: compute one relocation's value and
 *   store it into its field.
 * Arguments: type, a supported type that writes a field; field, where it
 *   is written (width bytes, any alignment) and place, the address that
 *   field has when the graft runs; symbol, the symbol's run-time value
 *   (S); addend (A); value, set to the computed value in every case.
 * Return value: 0; -ERANGE with *why (the end of a sentence: "does not
 *   fit in ...") when the value does not fit the field, which is then
 *   left as it was.
 * Caller's context: the loader, once the graft's regions are allocated
 *   and filled.
 */
int arch_elf_reloc_apply(uint32_t type, uint8_t *field, uint64_t place, uint64_t symbol,
			 int64_t addend, uint64_t *value, const char **why);

#endif
