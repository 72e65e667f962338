// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the graft ELF loader (kernel/graft/elf_load.c) against
 * targeted corruptions of the fixture graft: one field of the header,
 * a section, a symbol, a relocation or the manifest changed at a time.
 * Each is refused with the expected errno and a message naming the
 * problem (or, at the exact boundary of a limit, still accepted), and
 * nothing is allocated for a file the first pass can already refuse.
 */
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include "graft_elf_helpers.h"
#include <scion/errno.h>

#define ERR_MAX 256
#define HUGE_SIZE 0xffffffffffffull
#define MANIFEST ".graft.manifest"

/* Field setters; every lookup is done on the pristine fixture. */
static void set_header16(uint8_t *f, size_t field, uint16_t v)
{
	put16(f, field, v);
}

static size_t section_field(const char *section, size_t field)
{
	return section_header_offset(graft_fixture, section_index(graft_fixture, section)) + field;
}

static size_t symbol_field(const char *symbol, size_t field)
{
	return symbol_offset(graft_fixture, symbol_index(graft_fixture, symbol)) + field;
}

static size_t rela_field(const char *section, unsigned j, size_t field)
{
	return rela_offset(graft_fixture, section, j) + field;
}

static size_t manifest_field(size_t field)
{
	return section_of(graft_fixture, section_index(graft_fixture, MANIFEST)).offset + field;
}

static uint64_t rela_info(const char *section, unsigned j)
{
	return get64(graft_fixture, rela_field(section, j, offsetof(struct elf64_rela, info)));
}

#define SH(name, member) section_field(name, offsetof(struct elf64_section, member))
#define SYM(name, member) symbol_field(name, offsetof(struct elf64_symbol, member))
#define RELA(name, j, member) rela_field(name, j, offsetof(struct elf64_rela, member))
#define MF(member) manifest_field(offsetof(struct graft_manifest, member))
#define EH(member) offsetof(struct elf64_header, member)
#define SHNUM() elf_header_of(graft_fixture).shnum
#define TEXT_SIZE() section_of(graft_fixture, 1).size
#define MANIFEST_NAME() section_of(graft_fixture, section_index(graft_fixture, MANIFEST)).name
#define INDEX(section) section_index(graft_fixture, section)

#define CORRUPTION(fn) static void fn(uint8_t *f)

CORRUPTION(bad_magic) { f[1] = 'X'; }
CORRUPTION(class_32) { f[ELF_IDENT_CLASS] = 1; }
CORRUPTION(big_endian) { f[ELF_IDENT_DATA] = 2; }
CORRUPTION(executable) { set_header16(f, EH(type), 2); }
CORRUPTION(machine_i386) { set_header16(f, EH(machine), 3); }
CORRUPTION(shentsize_40) { set_header16(f, EH(shentsize), 40); }
CORRUPTION(shnum_0) { set_header16(f, EH(shnum), 0); }
CORRUPTION(shnum_300) { set_header16(f, EH(shnum), 300); }
CORRUPTION(shoff_end) { put64(f, EH(shoff), graft_fixture_size - 8); }
CORRUPTION(shoff_huge) { put64(f, EH(shoff), 0xfffffffffffffff0ull); }
CORRUPTION(shstrndx_past) { set_header16(f, EH(shstrndx), SHNUM()); }
CORRUPTION(shstrndx_text) { set_header16(f, EH(shstrndx), section_index(graft_fixture, ".text")); }
CORRUPTION(section_name_past) { put32(f, SH(".data", name), 0x10000); }
CORRUPTION(text_offset_past) { put64(f, SH(".text", offset), graft_fixture_size + 0x100); }
CORRUPTION(text_size_huge) { put64(f, SH(".text", size), HUGE_SIZE); }
CORRUPTION(comment_size_huge) { put64(f, SH(".comment", size), HUGE_SIZE); }
CORRUPTION(bss_size_huge) { put64(f, SH(".bss", size), HUGE_SIZE); }
CORRUPTION(bss_size_limit) { put64(f, SH(".bss", size), GRAFT_IMAGE_MAX); }
CORRUPTION(bss_size_total) { put64(f, SH(".bss", size), GRAFT_IMAGE_MAX - 0x1000); }
CORRUPTION(data_over_text) { put64(f, SH(".data", offset), section_of(graft_fixture, 1).offset + 8); }
CORRUPTION(text_align_3) { put64(f, SH(".text", addralign), 3); }
CORRUPTION(text_align_8k) { put64(f, SH(".text", addralign), 8192); }
CORRUPTION(text_writable) { put64(f, SH(".text", flags), SHF_ALLOC | SHF_EXECINSTR | SHF_WRITE); }
CORRUPTION(data_tls) { put64(f, SH(".data", flags), SHF_ALLOC | SHF_WRITE | SHF_TLS); }
CORRUPTION(data_init_array) { put32(f, SH(".data", type), 14); }
CORRUPTION(rela_is_rel) { put32(f, SH(".rela.text", type), SHT_REL); }
CORRUPTION(shndx_table) { put32(f, SH(".comment", type), SHT_SYMTAB_SHNDX); }
CORRUPTION(two_symtabs) { put32(f, SH(".strtab", type), SHT_SYMTAB); }
CORRUPTION(no_symtab) { put32(f, SH(".symtab", type), SHT_PROGBITS); }
CORRUPTION(symtab_link_past) { put32(f, SH(".symtab", link), 99); }
CORRUPTION(symtab_link_text) { put32(f, SH(".symtab", link), 1); }
CORRUPTION(symtab_entsize) { put64(f, SH(".symtab", entsize), 16); }
CORRUPTION(rela_info_past) { put32(f, SH(".rela.text", info), 99); }
CORRUPTION(rela_link_strtab) { put32(f, SH(".rela.text", link), section_index(graft_fixture, ".strtab")); }
CORRUPTION(rela_into_bss) { put32(f, SH(".rela.data", info), section_index(graft_fixture, ".bss")); }
CORRUPTION(rela_entsize) { put64(f, SH(".rela.text", entsize), 16); }
CORRUPTION(debug_rela_garbage)
{
	/* Relocations of a section that is not loaded are skipped unread. */
	put32(f, SH(".rela.rodata", info), section_index(graft_fixture, ".comment"));
	put64(f, RELA(".rela.rodata", 0, info), 0xffffffffffffffffull);
}
CORRUPTION(reloc_offset_last) { put64(f, RELA(".rela.text", 0, offset), TEXT_SIZE() - 4); }
CORRUPTION(reloc_offset_past) { put64(f, RELA(".rela.text", 0, offset), TEXT_SIZE() - 3); }
CORRUPTION(reloc_offset_huge) { put64(f, RELA(".rela.text", 0, offset), 0xfffffffffffffffeull); }
CORRUPTION(reloc_symbol_past) { put64(f, RELA(".rela.text", 0, info), (0xffffffull << 32) | R_X86_64_PC32); }
CORRUPTION(reloc_gotpcrel)
{
	put64(f, RELA(".rela.text", 1, info), (rela_info(".rela.text", 1) & ~0xffffffffull) | 9);
}
CORRUPTION(reloc_type_200)
{
	put64(f, RELA(".rela.text", 1, info), (rela_info(".rela.text", 1) & ~0xffffffffull) | 200);
}
CORRUPTION(symbol_shndx_past) { put16(f, SYM("fixture_total", shndx), SHNUM() + 3); }
CORRUPTION(symbol_common) { put16(f, SYM("fixture_total", shndx), SHN_COMMON); }
CORRUPTION(symbol_xindex) { put16(f, SYM("fixture_total", shndx), SHN_XINDEX); }
CORRUPTION(symbol_tls) { f[SYM("fixture_total", info)] = (STB_GLOBAL << 4) | STT_TLS; }
CORRUPTION(symbol_binding) { f[SYM("fixture_total", info)] = (11 << 4) | STT_OBJECT; }
CORRUPTION(symbol_name_past) { put32(f, SYM("fixture_total", name), 0x7ffffff0); }
CORRUPTION(symbol_name_open)
{
	struct elf64_section strings = section_of(graft_fixture, section_index(graft_fixture, ".strtab"));
	f[strings.offset + strings.size - 1] = 'x';
	put32(f, SYM("fixture_total", name), (uint32_t)strings.size - 1);
}
CORRUPTION(symbol_value_past) { put64(f, SYM("fixture_entry", value), 0x1000); }
CORRUPTION(symbol_in_comment) { put16(f, SYM("fixture_total", shndx), INDEX(".comment")); }
CORRUPTION(export_weak) { f[SYM("fixture_export_add", info)] = (STB_WEAK << 4) | STT_NOTYPE; }
CORRUPTION(export_renamed)
{
	struct elf64_section strings = section_of(graft_fixture, section_index(graft_fixture, ".strtab"));
	unsigned export = symbol_index(graft_fixture, "fixture_export_add");
	size_t name = strings.offset + symbol_of(graft_fixture, export).name;
	f[name + strlen("fixture_export_add") - 1] = 'X';
}
CORRUPTION(no_manifest) { put32(f, SH(MANIFEST, name), MANIFEST_NAME() + 1); }
CORRUPTION(two_manifests) { put32(f, SH(".rodata", name), MANIFEST_NAME()); }
CORRUPTION(manifest_small) { put64(f, SH(MANIFEST, size), sizeof(struct graft_manifest) - 8); }
CORRUPTION(manifest_not_alloc) { put64(f, SH(MANIFEST, flags), 0); }
CORRUPTION(manifest_align_4) { put64(f, SH(MANIFEST, addralign), 4); }
CORRUPTION(manifest_magic) { put32(f, MF(magic), 0xdeadbeef); }
CORRUPTION(manifest_abi) { put32(f, MF(abi), 2); }
CORRUPTION(manifest_reserved) { put32(f, MF(reserved), 1); }
CORRUPTION(name_open) { memset(f + MF(name), 'a', GRAFT_NAME_MAX); }
CORRUPTION(name_empty) { f[MF(name)] = '\0'; }
CORRUPTION(name_upper) { f[MF(name)] = 'F'; }
CORRUPTION(point_newline) { f[MF(point) + 4] = '\n'; }
CORRUPTION(signature_open) { memset(f + MF(signature), '(', GRAFT_SIGNATURE_MAX); }
CORRUPTION(entry_text_end)
{
	struct elf64_symbol entry = symbol_of(graft_fixture, symbol_index(graft_fixture, "fixture_entry"));
	put64(f, RELA(".rela.graft.manifest", 0, addend), TEXT_SIZE() - entry.value);
}
CORRUPTION(entry_text_last)
{
	struct elf64_symbol entry = symbol_of(graft_fixture, symbol_index(graft_fixture, "fixture_entry"));
	put64(f, RELA(".rela.graft.manifest", 0, addend), TEXT_SIZE() - 1 - entry.value);
}
CORRUPTION(entry_in_data)
{
	uint64_t info = rela_info(".rela.graft.manifest", 0);
	put64(f, RELA(".rela.graft.manifest", 0, info),
	      ((uint64_t)symbol_index(graft_fixture, "fixture_total") << 32) | (uint32_t)info);
}
CORRUPTION(entry_unrelocated) { put32(f, SH(".rela.graft.manifest", type), SHT_PROGBITS); }

struct corruption {
	const char *what;
	void (*apply)(uint8_t *f);
	int rc;
	const char *message;		/* a substring of the error line */
};

static const struct corruption corruptions[] = {
	{ "bad magic", bad_magic, -ENOEXEC, "not an ELF file" },
	{ "32-bit class", class_32, -ENOEXEC, "is not ELFCLASS64" },
	{ "big-endian", big_endian, -ENOEXEC, "is not little-endian" },
	{ "ET_EXEC", executable, -ENOEXEC, "ELF type 2 is not a relocatable object" },
	{ "i386", machine_i386, -ENOEXEC, "ELF machine 3 is not x86-64" },
	{ "e_shentsize", shentsize_40, -ENOEXEC, "section header size 40" },
	{ "e_shnum 0", shnum_0, -ENOEXEC, "no section header table" },
	{ "e_shnum 300", shnum_300, -EFBIG, "300 sections; a graft may have at most 256" },
	{ "e_shoff near the end", shoff_end, -ENOEXEC, "section header table (offset" },
	{ "e_shoff huge", shoff_huge, -ENOEXEC, "lies outside the file" },
	{ "e_shstrndx past", shstrndx_past, -ENOEXEC, "section name table index" },
	{ "e_shstrndx .text", shstrndx_text, -ENOEXEC, "has type 1, not SHT_STRTAB" },
	{ "section name past", section_name_past, -ENOEXEC, "name offset 0x10000 lies outside" },
	{ ".text offset past", text_offset_past, -ENOEXEC, "(.text): offset 0x" },
	{ ".text size huge", text_size_huge, -ENOEXEC, "size 0xffffffffffff lies outside the file" },
	{ ".comment size huge", comment_size_huge, -ENOEXEC, "(.comment): offset" },
	{ ".bss size huge", bss_size_huge, -EFBIG, "(.bss): size 0xffffffffffff exceeds the graft size limit" },
	{ ".bss at the limit", bss_size_limit, -EFBIG, "the graft's data exceeds the graft size limit" },
	{ "regions over the limit", bss_size_total, -EFBIG, "the graft needs 1032 KiB" },
	{ "overlapping sections", data_over_text, -ENOEXEC, "(.text) and section 3 (.data) overlap" },
	{ "alignment 3", text_align_3, -ENOEXEC, "alignment 0x3 is not a power of two" },
	{ "alignment 8 KiB", text_align_8k, -ENOEXEC, "alignment 0x2000" },
	{ "writable text", text_writable, -ENOEXEC, "both writable and executable" },
	{ "TLS section", data_tls, -ENOEXEC, "thread-local storage" },
	{ "allocated init_array", data_init_array, -ENOEXEC, "allocated section of type 0xe" },
	{ "SHT_REL", rela_is_rel, -ENOEXEC, "SHT_REL relocations are not supported" },
	{ "SHT_SYMTAB_SHNDX", shndx_table, -ENOEXEC, "SHT_SYMTAB_SHNDX" },
	{ "two symbol tables", two_symtabs, -ENOEXEC, "more than one symbol table" },
	{ "no symbol table", no_symtab, -ENOEXEC, "no symbol table" },
	{ "symtab sh_link past", symtab_link_past, -ENOEXEC, "string table index 99 is not a section" },
	{ "symtab sh_link .text", symtab_link_text, -ENOEXEC, "not SHT_STRTAB" },
	{ "symtab entsize", symtab_entsize, -ENOEXEC, "symbol size 16" },
	{ "rela sh_info past", rela_info_past, -ENOEXEC, "(.rela.text): target section index 99" },
	{ "rela sh_link", rela_link_strtab, -ENOEXEC, "is not the symbol table" },
	{ "rela into .bss", rela_into_bss, -ENOEXEC, "(.bss), which has no contents" },
	{ "rela entsize", rela_entsize, -ENOEXEC, "do not make records of 24 bytes" },
	{ "relocations of unloaded sections", debug_rela_garbage, 0, "" },
	{ "relocation in the last 4 bytes", reloc_offset_last, 0, "" },
	{ "relocation offset past", reloc_offset_past, -ENOEXEC,
	  "relocation 0 in section 2 (.rela.text): type 11 (R_X86_64_32S) at offset 0x7a + 4 bytes "
	  "lies beyond" },
	{ "relocation offset huge", reloc_offset_huge, -ENOEXEC, "lies beyond the end of the section" },
	{ "relocation symbol past", reloc_symbol_past, -ENOEXEC,
	  "symbol index 16777215 is outside the symbol table" },
	{ "GOTPCREL", reloc_gotpcrel, -ENOEXEC, "unsupported relocation type 9 (R_X86_64_GOTPCREL)" },
	{ "type 200", reloc_type_200, -ENOEXEC, "unsupported relocation type 200 (unknown)" },
	{ "symbol shndx past", symbol_shndx_past, -ENOEXEC,
	  "symbol 'fixture_total': section index 18 is not a section" },
	{ "SHN_COMMON", symbol_common, -ENOEXEC, "common symbol: build the graft with -fno-common" },
	{ "SHN_XINDEX", symbol_xindex, -ENOEXEC, "special section index 0xffff" },
	{ "TLS symbol", symbol_tls, -ENOEXEC, "symbol 'fixture_total' is thread-local" },
	{ "symbol binding", symbol_binding, -ENOEXEC, "unsupported binding 11" },
	{ "symbol name past", symbol_name_past, -ENOEXEC,
	  "name offset 0x7ffffff0 lies outside the string table" },
	{ "symbol name unterminated", symbol_name_open, -ENOEXEC, "name is not NUL-terminated" },
	{ "symbol value past", symbol_value_past, -ENOEXEC,
	  "value 0x1000 lies beyond the end of section 1 (.text)" },
	{ "symbol in .comment", symbol_in_comment, -ENOEXEC,
	  "refers to symbol 'fixture_total' in section 10 (.comment), which is not loaded" },
	{ "unexported symbol", export_renamed, -ENOENT,
	  "undefined symbol 'fixture_export_adX' is not exported to grafts" },
	{ "undefined weak", export_weak, -ENOENT, "undefined weak symbol 'fixture_export_add'" },
	{ "no manifest", no_manifest, -ENOEXEC, "no .graft.manifest section" },
	{ "two manifests", two_manifests, -ENOEXEC, "more than one .graft.manifest section" },
	{ "manifest size", manifest_small, -ENOEXEC, "size 0xc0, expected 0xc8" },
	{ "manifest not allocated", manifest_not_alloc, -ENOEXEC, "the manifest must be allocated data" },
	{ "manifest alignment", manifest_align_4, -ENOEXEC, "alignment 4, expected at least 8" },
	{ "manifest magic", manifest_magic, -ENOEXEC, "manifest magic 0xdeadbeef is not 0x54465247" },
	{ "manifest ABI", manifest_abi, -ENOEXEC,
	  "manifest ABI version 2 does not match the kernel's graft ABI version 1" },
	{ "manifest reserved", manifest_reserved, -ENOEXEC, "manifest reserved field is 0x1" },
	{ "name unterminated", name_open, -ENOEXEC, "manifest name is not NUL-terminated" },
	{ "name empty", name_empty, -ENOEXEC, "manifest name is empty" },
	{ "name charset", name_upper, -ENOEXEC, "manifest name 'Fixture' has a character outside [a-z0-9_-]" },
	{ "point newline", point_newline, -ENOEXEC,
	  "manifest point 'test?fixture' has a non-printable character" },
	{ "signature unterminated", signature_open, -ENOEXEC, "manifest signature is not NUL-terminated" },
	{ "entry at the end of text", entry_text_end, -ENOEXEC, "does not lie in the graft's text" },
	{ "entry at the last byte of text", entry_text_last, 0, "" },
	{ "entry in data", entry_in_data, -ENOEXEC, "does not lie in the graft's text" },
	{ "entry not relocated", entry_unrelocated, -ENOEXEC, "manifest entry 0x0 does not lie" },
};

/* Refusals that the first pass makes allocate nothing. */
static bool refused_before_allocating(int rc, const char *err)
{
	return rc == -ENOEXEC && !strstr(err, "manifest ") && !strstr(err, "does not fit");
}

HOST_TEST(graft_elf_targeted_corruptions)
{
	char err[ERR_MAX];
	struct graft_image img;
	bool line_ok;
	size_t size;
	uint8_t *f = fixture_copy(&size);

	for (size_t i = 0; i < sizeof(corruptions) / sizeof(corruptions[0]); i++) {
		const struct corruption *c = &corruptions[i];
		struct graft_test_mem mem = { 0 };
		memcpy(f, graft_fixture, size);
		c->apply(f);
		int rc = graft_test_load(&mem, f, size, &img, err, sizeof(err), &line_ok);
		CHECK(t, rc == c->rc && line_ok && strstr(err, c->message),
		      "%s: rc %d (expected %d), '%s'", c->what, rc, c->rc, err);
		if (refused_before_allocating(rc, err) || rc == -ENOENT || rc == -EFBIG)
			CHECK(t, !mem.allocs[0] && !mem.allocs[1] && !mem.allocs[2],
			      "%s: memory allocated for a file refused in the first pass", c->what);
		graft_test_release(&mem);
	}
	free(f);
}
