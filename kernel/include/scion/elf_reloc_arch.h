/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The relocation half of the graft loader's arch contract: what every
 * port's arch/<arch>/elf_reloc.c provides, written once here (each
 * port's arch/elf.h includes it after its machine constants). The
 * generic half (kernel/graft/elf_reloc.c) never names a relocation type.
 */
#ifndef SCION_ELF_RELOC_ARCH_H
#define SCION_ELF_RELOC_ARCH_H

#include <stdbool.h>
#include <stdint.h>

/*
 * arch_elf_reloc_name - Overview: the psABI's name of a relocation type,
 *   for messages.
 * Arguments: type, ELF64_R_TYPE of a record (any value: a machine may
 *   keep more than the type in it, as SPARC's R_SPARC_OLO10 does).
 * Return value: a static string; "unknown" for a type the psABI does not
 *   define.
 * Caller's context: any; pure.
 */
const char *arch_elf_reloc_name(uint32_t type);

/*
 * arch_elf_reloc_supported - Overview: whether the loader applies this
 *   relocation type: what -fno-pic code of the port's kernel code models
 *   emits (its elf_reloc.c lists them); GOT, PLT, TLS and the rest are
 *   refused.
 * Arguments: type; width, set for a supported type to the bytes of the
 *   field it writes (0 for a type that writes nothing).
 * Return value: true when supported.
 * Caller's context: any; pure. The loader calls it while it checks the
 *   file, before any memory is allocated.
 */
bool arch_elf_reloc_supported(uint32_t type, unsigned *width);

/*
 * arch_elf_reloc_apply - Overview: compute one relocation's value and
 *   store it into its field, in the machine's byte order; the bits of an
 *   instruction outside the field are kept.
 * Arguments: type, a supported type that writes a field; field, where it
 *   is written (width bytes, any alignment) and place, the address that
 *   field has when the graft runs; symbol, the symbol's run-time value
 *   (S); addend (A); value, set to the computed value in every case.
 * Return value: 0; -ERANGE with *why (the end of a sentence: "does not
 *   fit ...") when the value does not fit the field (or, where the
 *   machine needs it, is not aligned), which is then left as it was.
 * Caller's context: the loader, once the graft's regions are allocated
 *   and filled.
 */
int arch_elf_reloc_apply(uint32_t type, uint8_t *field, uint64_t place, uint64_t symbol,
			 int64_t addend, uint64_t *value, const char **why);

#endif
