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
 * the arch_elf_reloc_* functions of scion/elf_reloc_arch.h. The generic half (checking the
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

#include <scion/elf_reloc_arch.h>

#endif
