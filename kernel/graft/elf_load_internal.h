/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * State shared by the graft ELF loader's files: elf_load.c (file header,
 * section table, layout, manifest) and elf_reloc.c (symbols and
 * relocations). Nothing here is used outside kernel/graft/elf_*.c.
 *
 * Invariant: once elf_check_sections has succeeded, every section's
 * name is NUL-terminated inside the section name table and every
 * section other than SHT_NULL/SHT_NOBITS lies inside the file, so the
 * helpers below may read section names and contents without checks.
 */
#ifndef KERNEL_GRAFT_ELF_LOAD_INTERNAL_H
#define KERNEL_GRAFT_ELF_LOAD_INTERNAL_H

#include <scion/compiler.h>
#include <scion/elf64.h>
#include "elf_load.h"

#define ELF_NOT_LOADED		GRAFT_REGIONS	/* section_region[] of a section not loaded */
#define ELF_QUOTE_MAX		48		/* bytes of a file-supplied name in a message */
#define ELF_LABEL_MAX		(ELF_QUOTE_MAX + 24)

struct elf_loader {
	const uint8_t *file;
	size_t size;
	const struct graft_load_ops *ops;
	void *ctx;
	char *err;
	size_t errlen;
	struct graft_image *out;

	size_t shoff;			/* the section header table, inside the file */
	unsigned shnum;
	unsigned shstrndx;
	size_t shstrtab_offset;		/* the section name table, inside the file */
	bool names_checked;		/* every section name checked */
	unsigned symtab;		/* section index of the symbol table */
	unsigned strtab;		/* its string table */
	unsigned manifest;		/* the .graft.manifest section */
	size_t nsyms;

	uint64_t region_used[GRAFT_REGIONS];		/* bytes laid out in each region */
	uint8_t *region_base[GRAFT_REGIONS];		/* from ops->alloc; NULL until then */
	uint8_t section_region[GRAFT_ELF_MAX_SECTIONS];	/* enum graft_region or ELF_NOT_LOADED */
	uint32_t section_offset[GRAFT_ELF_MAX_SECTIONS];	/* inside its region */
};

#define ASCII_PRINTABLE_FIRST	0x20
#define ASCII_PRINTABLE_LAST	0x7e

static inline bool elf_printable(char c)
{
	return (unsigned char)c >= ASCII_PRINTABLE_FIRST && (unsigned char)c <= ASCII_PRINTABLE_LAST;
}

/*
 * elf_fail - put one line in the caller's error buffer and return rc.
 * Bytes that would break the line (control characters, non-ASCII) are
 * replaced by '?'.
 */
int elf_fail(struct elf_loader *ld, int rc, const char *fmt, ...) __printf(3, 4);

/* Copy section header index (< ld->shnum) out of the file. */
void elf_section(const struct elf_loader *ld, unsigned index, struct elf64_section *out);

/* The name of section index (< ld->shnum); only once names_checked. */
const char *elf_section_name(const struct elf_loader *ld, unsigned index);

/*
 * "section N (.name)" for messages, the name shortened and made
 * printable; "section N" for an index outside the table.
 */
const char *elf_section_label(const struct elf_loader *ld, unsigned index,
			      char buf[ELF_LABEL_MAX]);

/* A file-supplied string, shortened to ELF_QUOTE_MAX and made printable. */
const char *elf_quote(const char *s, size_t max, char buf[ELF_QUOTE_MAX]);

/*
 * elf_check_symbols - every symbol's name, binding, type and section;
 * undefined symbols resolved through ops->resolve (ld->out->nundefined
 * counts them). Runs before any memory is allocated.
 * Return value: 0, -ENOEXEC, or -ENOENT for an unexported symbol.
 */
int elf_check_symbols(struct elf_loader *ld);

/*
 * elf_relocate - walk every RELA section whose target is loaded. With
 * apply false, only checks each record (links, offsets, symbol indexes,
 * types); with apply true (regions allocated and filled), also computes
 * and stores each value, refusing results that overflow their field.
 * Return value: 0, -ENOEXEC, -ENOENT, or -ERANGE.
 */
int elf_relocate(struct elf_loader *ld, bool apply);

#endif
