// SPDX-License-Identifier: BSD-2-Clause
/*
 * The graft ELF loader's symbols and relocations (see elf_load.c for the
 * whole load). A graft links only against the exported graft API:
 * every undefined symbol must be resolved by ops->resolve, and an
 * undefined weak symbol is refused rather than left at 0. Which
 * relocation types are applied, and how, is the machine's psABI
 * (arch_elf_reloc_* in arch/elf.h): this file walks the records, checks
 * their links, symbols and offsets, and finds each symbol's value.
 *
 * elf_relocate runs twice over the same records: once before any memory
 * is allocated, checking links, symbol indexes, types and offsets, and
 * once to apply them, when the only new failure is a result that does
 * not fit its field at the addresses the regions got.
 */
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/string.h>
#include <arch/elf.h>
#include "elf_load_internal.h"

#define RELOC_MESSAGE_MAX	96	/* "relocation N in <section label>" */

static void read_symbol(const struct elf_loader *ld, size_t index, struct elf64_symbol *out)
{
	struct elf64_section symtab;

	elf_section(ld, ld->symtab, &symtab);
	memcpy(out, ld->file + symtab.offset + index * sizeof(*out), sizeof(*out));
}

/* The symbol's name; only once elf_check_symbols has checked it. */
static const char *symbol_name(const struct elf_loader *ld, const struct elf64_symbol *sym)
{
	struct elf64_section strings;

	elf_section(ld, ld->strtab, &strings);
	return (const char *)ld->file + strings.offset + sym->name;
}

/*
 * For messages: "symbol 'name'", "section symbol .text", or "symbol 5"
 * for one without a name. Only once the symbol's name is checked.
 */
static const char *symbol_label(const struct elf_loader *ld, size_t index,
				const struct elf64_symbol *sym, char buf[ELF_LABEL_MAX])
{
	char quoted[ELF_QUOTE_MAX];
	const char *name = index ? symbol_name(ld, sym) : "";

	if (*name)
		snprintf(buf, ELF_LABEL_MAX, "symbol '%s'", elf_quote(name, ELF_QUOTE_MAX, quoted));
	else if (index && ELF64_SYMBOL_TYPE(sym->info) == STT_SECTION && sym->shndx != SHN_UNDEF &&
		 sym->shndx < ld->shnum)
		snprintf(buf, ELF_LABEL_MAX, "section symbol %s",
			 elf_quote(elf_section_name(ld, sym->shndx), ELF_QUOTE_MAX, quoted));
	else
		snprintf(buf, ELF_LABEL_MAX, "symbol %zu", index);
	return buf;
}

static int check_undefined(struct elf_loader *ld, size_t index, const struct elf64_symbol *sym,
			   const char *name)
{
	char quoted[ELF_QUOTE_MAX];
	unsigned binding = ELF64_SYMBOL_BINDING(sym->info);

	if (!*name)
		return elf_fail(ld, -ENOEXEC, "symbol %zu is undefined and has no name", index);
	elf_quote(name, ELF_QUOTE_MAX, quoted);
	if (binding == STB_WEAK)
		return elf_fail(ld, -ENOENT,
				"undefined weak symbol '%s' is refused: grafts link only against exported symbols",
				quoted);
	if (binding == STB_LOCAL)
		return elf_fail(ld, -ENOEXEC, "symbol '%s' is local and undefined", quoted);
	if (!ld->ops->resolve(ld->ctx, name))
		return elf_fail(ld, -ENOENT, "undefined symbol '%s' is not exported to grafts", quoted);
	ld->out->nundefined++;
	return 0;
}

static int check_symbol(struct elf_loader *ld, size_t index, const struct elf64_section *strings)
{
	struct elf64_symbol sym;
	struct elf64_section sh;
	char what[ELF_LABEL_MAX], section[ELF_LABEL_MAX];

	read_symbol(ld, index, &sym);
	if (sym.name >= strings->size)
		return elf_fail(ld, -ENOEXEC,
				"symbol %zu: name offset 0x%x lies outside the string table (size 0x%llx)",
				index, sym.name, (unsigned long long)strings->size);
	size_t room = (size_t)(strings->size - sym.name);
	const char *name = (const char *)ld->file + strings->offset + sym.name;
	if (strnlen(name, room) == room)
		return elf_fail(ld, -ENOEXEC, "symbol %zu: name is not NUL-terminated", index);
	symbol_label(ld, index, &sym, what);

	unsigned binding = ELF64_SYMBOL_BINDING(sym.info), type = ELF64_SYMBOL_TYPE(sym.info);
	if (binding != STB_LOCAL && binding != STB_GLOBAL && binding != STB_WEAK)
		return elf_fail(ld, -ENOEXEC, "%s has unsupported binding %u", what, binding);
	if (type == STT_TLS)
		return elf_fail(ld, -ENOEXEC, "%s is thread-local; grafts have no thread-local storage", what);
	if (type == STT_GNU_IFUNC)
		return elf_fail(ld, -ENOEXEC, "%s is an indirect function (STT_GNU_IFUNC); not supported", what);
	if (sym.shndx == SHN_COMMON || type == STT_COMMON)
		return elf_fail(ld, -ENOEXEC, "%s is a common symbol: build the graft with -fno-common", what);
	if (sym.shndx == SHN_UNDEF)
		return check_undefined(ld, index, &sym, name);
	if (sym.shndx == SHN_ABS)
		return 0;
	if (sym.shndx >= SHN_LORESERVE)
		return elf_fail(ld, -ENOEXEC, "%s: special section index 0x%x is not supported", what, sym.shndx);
	if (sym.shndx >= ld->shnum)
		return elf_fail(ld, -ENOEXEC, "%s: section index %u is not a section (the file has %u)", what,
				sym.shndx, ld->shnum);
	if (ld->section_region[sym.shndx] == ELF_NOT_LOADED)
		return 0;	/* refused only if a loaded section refers to it */
	elf_section(ld, sym.shndx, &sh);
	if (sym.value > sh.size)
		return elf_fail(ld, -ENOEXEC, "%s: value 0x%llx lies beyond the end of %s (size 0x%llx)", what,
				(unsigned long long)sym.value, elf_section_label(ld, sym.shndx, section),
				(unsigned long long)sh.size);
	return 0;
}

int elf_check_symbols(struct elf_loader *ld)
{
	struct elf64_section strings;
	int rc = 0;

	elf_section(ld, ld->strtab, &strings);
	for (size_t i = 1; i < ld->nsyms && !rc; i++)
		rc = check_symbol(ld, i, &strings);
	return rc;
}

/*
 * The run-time value of symbol index for a relocation ("S" in the
 * psABI); with apply false only checks that it will have one.
 */
static int symbol_value(struct elf_loader *ld, const char *where, size_t index, bool apply,
			uint64_t *value)
{
	struct elf64_symbol sym;
	char label[ELF_LABEL_MAX], section[ELF_LABEL_MAX];

	*value = 0;
	if (index == 0)
		return 0;
	read_symbol(ld, index, &sym);
	if (sym.shndx == SHN_UNDEF) {
		if (apply)
			*value = ld->ops->resolve(ld->ctx, symbol_name(ld, &sym));
		if (apply && !*value)
			return elf_fail(ld, -ENOENT, "%s: undefined %s is no longer exported", where,
					symbol_label(ld, index, &sym, label));
		return 0;
	}
	if (sym.shndx == SHN_ABS) {
		*value = sym.value;
		return 0;
	}
	/* elf_check_symbols left only loaded or unloaded real sections. */
	unsigned r = ld->section_region[sym.shndx];
	if (r == ELF_NOT_LOADED)
		return elf_fail(ld, -ENOEXEC, "%s refers to %s in %s, which is not loaded", where,
				symbol_label(ld, index, &sym, label),
				elf_section_label(ld, sym.shndx, section));
	if (!ld->region_used[r])
		return elf_fail(ld, -ENOEXEC, "%s refers to %s in %s, which is empty", where,
				symbol_label(ld, index, &sym, label),
				elf_section_label(ld, sym.shndx, section));
	if (apply)
		*value = (uintptr_t)ld->region_base[r] + ld->section_offset[sym.shndx] + sym.value;
	return 0;
}

/* One record: checked, and with apply, computed and stored. */
static int relocate_one(struct elf_loader *ld, unsigned rela_index, const struct elf64_section *rela,
			unsigned target, const struct elf64_section *target_sh, size_t j, bool apply)
{
	struct elf64_rela r;
	char where[RELOC_MESSAGE_MAX], label[ELF_LABEL_MAX];
	unsigned width;
	uint64_t symbol, value;
	const char *why;

	memcpy(&r, ld->file + rela->offset + j * sizeof(r), sizeof(r));
	uint32_t type = ELF64_RELA_TYPE(r.info), sym_index = ELF64_RELA_SYMBOL(r.info);
	snprintf(where, sizeof(where), "relocation %zu in %s", j,
		 elf_section_label(ld, rela_index, label));
	if (sym_index >= ld->nsyms)
		return elf_fail(ld, -ENOEXEC, "%s: symbol index %u is outside the symbol table (%zu symbols)",
				where, sym_index, ld->nsyms);
	if (!arch_elf_reloc_supported(type, &width))
		return elf_fail(ld, -ENOEXEC, "%s: unsupported relocation type %u (%s)", where, type,
				arch_elf_reloc_name(type));
	if (r.offset > target_sh->size || width > target_sh->size - r.offset)
		return elf_fail(ld, -ENOEXEC,
				"%s: type %u (%s) at offset 0x%llx + %u bytes "
				"lies beyond the end of the section (size 0x%llx)",
				where, type, arch_elf_reloc_name(type), (unsigned long long)r.offset, width,
				(unsigned long long)target_sh->size);
	int rc = symbol_value(ld, where, sym_index, apply, &symbol);
	if (rc || !apply || !width)
		return rc;	/* a type that writes no field (R_*_NONE) */

	unsigned region = ld->section_region[target];
	uint8_t *field = ld->region_base[region] + ld->section_offset[target] + r.offset;
	if (arch_elf_reloc_apply(type, field, (uintptr_t)field, symbol, r.addend, &value, &why)) {
		struct elf64_symbol sym;
		read_symbol(ld, sym_index, &sym);
		return elf_fail(ld, -ERANGE, "%s: %s to %s%+lld gives 0x%llx, which %s",
				where, arch_elf_reloc_name(type), symbol_label(ld, sym_index, &sym, label),
				(long long)r.addend, (unsigned long long)value, why);
	}
	ld->out->nrelocs++;
	return 0;
}

/* One RELA section: its links, then each record. */
static int relocate_section(struct elf_loader *ld, unsigned index, bool apply)
{
	struct elf64_section rela, target_sh;
	char label[ELF_LABEL_MAX], target_label[ELF_LABEL_MAX];
	int rc = 0;

	elf_section(ld, index, &rela);
	if (rela.type != SHT_RELA)
		return 0;
	elf_section_label(ld, index, label);
	if (rela.info == SHN_UNDEF || rela.info >= ld->shnum)
		return elf_fail(ld, -ENOEXEC, "%s: target section index %u is not a section (the file has %u)",
				label, rela.info, ld->shnum);
	unsigned target = rela.info;
	if (ld->section_region[target] == ELF_NOT_LOADED)
		return 0;	/* relocates debug info or notes, which are not loaded */
	if (rela.link != ld->symtab)
		return elf_fail(ld, -ENOEXEC, "%s: symbol table index %u is not the symbol table (section %u)",
				label, rela.link, ld->symtab);
	elf_section(ld, target, &target_sh);
	if (target_sh.type == SHT_NOBITS)
		return elf_fail(ld, -ENOEXEC, "%s: relocates %s, which has no contents (SHT_NOBITS)", label,
				elf_section_label(ld, target, target_label));
	if (rela.entsize != sizeof(struct elf64_rela) || rela.size % sizeof(struct elf64_rela))
		return elf_fail(ld, -ENOEXEC,
				"%s: entry size %llu and size 0x%llx do not make records of %zu bytes",
				label, (unsigned long long)rela.entsize, (unsigned long long)rela.size,
				sizeof(struct elf64_rela));
	size_t n = (size_t)(rela.size / sizeof(struct elf64_rela));
	for (size_t j = 0; j < n && !rc; j++)
		rc = relocate_one(ld, index, &rela, target, &target_sh, j, apply);
	return rc;
}

int elf_relocate(struct elf_loader *ld, bool apply)
{
	int rc = 0;

	for (unsigned i = 1; i < ld->shnum && !rc; i++)
		rc = relocate_section(ld, i, apply);
	return rc;
}
