// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the graft ELF loader's relocation arithmetic
 * (kernel/graft/elf_reloc.c and arch/x86/elf_reloc.c) on small objects
 * built here, where every relocation's expected value is known exactly:
 * each supported type,
 * the edges of the 32-bit fields (fits / overflows by one), symbols of
 * every kind (section, defined, undefined, absolute, none), and
 * relocations of unloaded sections skipped even when they are garbage.
 */
#include <stdio.h>
#include <string.h>
#include "host_test.h"
#include "graft_elf_helpers.h"
#include <scion/errno.h>

#define ERR_MAX 256
#define OBJECT_MAX 4096
#define TEXT_SIZE 64
#define DATA_SIZE 64
#define DATA_OBJ_VALUE 8
#define ABS_VALUE 0x1234
#define FAR_AWAY 0x7f0000000000ull

/* Symbols of the synthetic object, in symbol table order. */
enum { SYM_NONE, SYM_TEXT, SYM_DATA, SYM_EXT, SYM_DATA_OBJ, SYM_ABS, SYM_ENTRY, SYMS };
static const char strings[] = "\0ext\0data_obj\0abs_sym\0entry";
enum { STR_EXT = 1, STR_DATA_OBJ = 5, STR_ABS = 14, STR_ENTRY = 22 };

/* Section indexes (the name table is appended last). */
enum { SEC_TEXT = 1, SEC_DATA, SEC_MANIFEST, SEC_RELA_MANIFEST, SEC_RELA_TEXT, SEC_SYMTAB, SEC_STRTAB,
       SEC_DEBUG, SEC_RELA_DEBUG, SEC_SHSTRTAB };

struct synth_section {
	const char *name;
	uint32_t type;
	uint64_t flags;
	uint64_t align;
	const void *data;
	size_t size;
	uint32_t link, info;
	uint64_t entsize;
};

struct synth_reloc {
	uint64_t offset;
	uint32_t type, symbol;
	int64_t addend;
};

static size_t append(uint8_t *buf, size_t *len, const void *data, size_t size, size_t align)
{
	*len = (*len + align - 1) / align * align;
	size_t at = *len;
	memcpy(buf + at, data, size);
	*len += size;
	return at;
}

/* An ELF object of sections s[0..n) (indexes 1..n) plus .shstrtab. */
static size_t synth_link(uint8_t *buf, const struct synth_section *s, unsigned n)
{
	char names[256] = "";
	size_t names_len = 1, len = sizeof(struct elf64_header);
	struct elf64_section sh[16] = { 0 };

	memset(buf, 0, OBJECT_MAX);
	for (unsigned i = 0; i <= n; i++) {
		const char *name = i < n ? s[i].name : ".shstrtab";
		sh[i + 1].name = (uint32_t)names_len;
		names_len += (size_t)sprintf(names + names_len, "%s", name) + 1;
	}
	for (unsigned i = 0; i < n; i++) {
		struct elf64_section *h = &sh[i + 1];
		h->type = s[i].type;
		h->flags = s[i].flags;
		h->addralign = s[i].align;
		h->size = s[i].size;
		h->link = s[i].link;
		h->info = s[i].info;
		h->entsize = s[i].entsize;
		h->offset = s[i].type == SHT_NOBITS ? len
			    : append(buf, &len, s[i].data, s[i].size, s[i].align ? s[i].align : 1);
	}
	sh[n + 1] = (struct elf64_section){ .name = sh[n + 1].name, .type = SHT_STRTAB, .size = names_len,
					    .offset = append(buf, &len, names, names_len, 1), .addralign = 1 };
	size_t shoff = append(buf, &len, sh, (n + 2) * sizeof(sh[0]), 8);
	struct elf64_header eh = {
		.ident = { 0x7f, 'E', 'L', 'F', ELF_CLASS_64, ELF_DATA_LSB, ELF_VERSION_CURRENT },
		.type = ELF_TYPE_REL, .machine = ELF_MACHINE_X86_64, .version = ELF_VERSION_CURRENT,
		.shoff = shoff, .ehsize = sizeof(eh), .shentsize = sizeof(struct elf64_section),
		.shnum = (uint16_t)(n + 2), .shstrndx = (uint16_t)(n + 1),
	};
	memcpy(buf, &eh, sizeof(eh));
	return len;
}

static struct elf64_rela rela(uint64_t offset, uint32_t type, uint32_t symbol, int64_t addend)
{
	return (struct elf64_rela){ offset, ((uint64_t)symbol << 32) | type, addend };
}

/* The test object with relocs applied to .text; data_size 0 leaves .data empty. */
static size_t synth_object(uint8_t *buf, const struct synth_reloc *relocs, unsigned n, size_t data_size)
{
	static const uint8_t text[TEXT_SIZE], data[DATA_SIZE], debug[16];
	struct graft_manifest m = { .magic = GRAFT_MANIFEST_MAGIC, .abi = GRAFT_ABI_VERSION,
				    .name = "synthetic", .point = "test.synthetic", .signature = "int (void)" };
	struct elf64_rela text_relas[16], manifest_rela[] = {
		rela(offsetof(struct graft_manifest, entry), R_X86_64_64, SYM_ENTRY, 0),
	}, debug_rela[] = { rela(0xffff, 200, 0xffff, 0) };
	uint64_t data_obj = data_size ? DATA_OBJ_VALUE : 0;
	struct elf64_symbol syms[SYMS] = {
		[SYM_TEXT] = { .info = STT_SECTION, .shndx = SEC_TEXT },
		[SYM_DATA] = { .info = STT_SECTION, .shndx = SEC_DATA },
		[SYM_EXT] = { .name = STR_EXT, .info = STB_GLOBAL << 4 },
		[SYM_DATA_OBJ] = { .name = STR_DATA_OBJ, .info = STB_GLOBAL << 4 | STT_OBJECT,
				   .shndx = SEC_DATA, .value = data_obj },
		[SYM_ABS] = { .name = STR_ABS, .info = STB_GLOBAL << 4, .shndx = SHN_ABS, .value = ABS_VALUE },
		[SYM_ENTRY] = { .name = STR_ENTRY, .info = STB_GLOBAL << 4 | STT_FUNC, .shndx = SEC_TEXT },
	};
	for (unsigned i = 0; i < n; i++)
		text_relas[i] = rela(relocs[i].offset, relocs[i].type, relocs[i].symbol, relocs[i].addend);
	const struct synth_section sections[] = {
		{ ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16, text, sizeof(text), 0, 0, 0 },
		{ ".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8, data, data_size, 0, 0, 0 },
		{ ".graft.manifest", SHT_PROGBITS, SHF_ALLOC, 8, &m, sizeof(m), 0, 0, 0 },
		{ ".rela.graft.manifest", SHT_RELA, 0, 8, manifest_rela, sizeof(manifest_rela), SEC_SYMTAB,
		  SEC_MANIFEST, sizeof(struct elf64_rela) },
		{ ".rela.text", SHT_RELA, 0, 8, text_relas, n * sizeof(text_relas[0]), SEC_SYMTAB, SEC_TEXT,
		  sizeof(struct elf64_rela) },
		{ ".symtab", SHT_SYMTAB, 0, 8, syms, sizeof(syms), SEC_STRTAB, SYM_EXT, sizeof(syms[0]) },
		{ ".strtab", SHT_STRTAB, 0, 1, strings, sizeof(strings), 0, 0, 0 },
		{ ".debug_info", SHT_PROGBITS, 0, 1, debug, sizeof(debug), 0, 0, 0 },
		{ ".rela.debug_info", SHT_RELA, 0, 8, debug_rela, sizeof(debug_rela), SEC_SYMTAB, SEC_DEBUG,
		  sizeof(struct elf64_rela) },
	};
	_Static_assert(sizeof(sections) / sizeof(sections[0]) == SEC_SHSTRTAB - 1, "section indexes");
	return synth_link(buf, sections, sizeof(sections) / sizeof(sections[0]));
}

static uint64_t field64(const struct graft_image *img, size_t offset)
{
	uint64_t v;
	memcpy(&v, (const uint8_t *)img->region[GRAFT_REGION_TEXT] + offset, sizeof(v));
	return v;
}

static uint32_t field32(const struct graft_image *img, size_t offset)
{
	uint32_t v;
	memcpy(&v, (const uint8_t *)img->region[GRAFT_REGION_TEXT] + offset, sizeof(v));
	return v;
}

HOST_TEST(graft_elf_reloc_each_type)
{
	static const struct synth_reloc relocs[] = {
		{ 0, R_X86_64_64, SYM_DATA_OBJ, 4 },
		{ 8, R_X86_64_PC32, SYM_EXT, -4 },
		{ 12, R_X86_64_PLT32, SYM_EXT, -4 },
		{ 16, R_X86_64_32, SYM_ABS, 0x10 },
		{ 20, R_X86_64_32S, SYM_DATA_OBJ, 0 },
		{ 24, R_X86_64_PC64, SYM_EXT, 0 },
		{ 32, R_X86_64_64, SYM_NONE, 0x55 },
		{ 40, R_X86_64_NONE, SYM_EXT, 0x77 },
		{ 48, R_X86_64_64, SYM_DATA, 0x10 },
		{ 56, R_X86_64_PC32, SYM_TEXT, 0 },
	};
	static uint8_t object[OBJECT_MAX];
	struct graft_test_mem mem = { 0 };
	struct graft_image img;
	char err[ERR_MAX];
	bool line_ok;

	size_t size = synth_object(object, relocs, sizeof(relocs) / sizeof(relocs[0]), DATA_SIZE);
	int rc = graft_test_load(&mem, object, size, &img, err, sizeof(err), &line_ok);
	REQUIRE(t, rc == 0 && line_ok, "rc %d: %s", rc, err);
	uint64_t text = (uintptr_t)img.region[GRAFT_REGION_TEXT];
	uint64_t data = (uintptr_t)img.region[GRAFT_REGION_DATA];
	CHECK(t, field64(&img, 0) == data + DATA_OBJ_VALUE + 4, "R_X86_64_64 to data_obj+4");
	CHECK(t, field32(&img, 8) == (uint32_t)(SYNTH_EXPORT_EXT - 4 - (text + 8)), "R_X86_64_PC32");
	CHECK(t, field32(&img, 12) == (uint32_t)(SYNTH_EXPORT_EXT - 4 - (text + 12)), "R_X86_64_PLT32");
	CHECK(t, field32(&img, 16) == ABS_VALUE + 0x10, "R_X86_64_32 of an absolute symbol");
	CHECK(t, field32(&img, 20) == (uint32_t)(data + DATA_OBJ_VALUE), "R_X86_64_32S");
	CHECK(t, field64(&img, 24) == SYNTH_EXPORT_EXT - (text + 24), "R_X86_64_PC64");
	CHECK(t, field64(&img, 32) == 0x55, "symbol 0 is zero");
	CHECK(t, field64(&img, 40) == 0, "R_X86_64_NONE writes nothing");
	CHECK(t, field64(&img, 48) == data + 0x10, "section symbol");
	CHECK(t, field32(&img, 56) == (uint32_t)-56, "PC32 to the start of .text");
	CHECK(t, img.entry == text && img.manifest && !strcmp(img.manifest->name, "synthetic"), "manifest");
	CHECK(t, img.nrelocs == 10, "%zu relocations counted (NONE is not)", img.nrelocs);
	CHECK(t, img.nundefined == 1, "%zu undefined", img.nundefined);
	CHECK(t, img.region[GRAFT_REGION_RODATA] != NULL, "the manifest's rodata region");
	graft_test_release(&mem);
}

/* One relocation at a time against the edges of its field. */
HOST_TEST(graft_elf_reloc_32bit_edges)
{
	static const struct {
		struct synth_reloc reloc;
		bool fits;
		uint32_t value;
	} cases[] = {
		{ { 0, R_X86_64_32, SYM_ABS, 0xffffffffll - ABS_VALUE }, true, 0xffffffffu },
		{ { 0, R_X86_64_32, SYM_ABS, 0x100000000ll - ABS_VALUE }, false, 0 },
		{ { 0, R_X86_64_32, SYM_ABS, -ABS_VALUE - 1 }, false, 0 },
		{ { 0, R_X86_64_32S, SYM_ABS, 0x7fffffffll - ABS_VALUE }, true, 0x7fffffffu },
		{ { 0, R_X86_64_32S, SYM_ABS, 0x80000000ll - ABS_VALUE }, false, 0 },
		{ { 0, R_X86_64_32S, SYM_ABS, -0x80000000ll - ABS_VALUE }, true, 0x80000000u },
		{ { 0, R_X86_64_32S, SYM_ABS, -0x80000001ll - ABS_VALUE }, false, 0 },
		{ { 0, R_X86_64_32S, SYM_ABS, -ABS_VALUE - 1 }, true, 0xffffffffu },
	};
	static uint8_t object[OBJECT_MAX];
	char err[ERR_MAX];
	struct graft_image img;
	bool line_ok;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct graft_test_mem mem = { 0 };
		size_t size = synth_object(object, &cases[i].reloc, 1, DATA_SIZE);
		int rc = graft_test_load(&mem, object, size, &img, err, sizeof(err), &line_ok);
		if (cases[i].fits)
			CHECK(t, rc == 0 && field32(&img, 0) == cases[i].value, "case %zu: rc %d, %s", i,
			      rc, err);
		else
			CHECK(t, rc == -ERANGE && line_ok && strstr(err, "symbol 'abs_sym'") &&
			      strstr(err, "does not fit in 32 bits"), "case %zu: rc %d, %s", i, rc, err);
		graft_test_release(&mem);
	}
}

HOST_TEST(graft_elf_reloc_pc32_out_of_reach)
{
	static const struct synth_reloc call = { 8, R_X86_64_PLT32, SYM_EXT, -4 };
	static uint8_t object[OBJECT_MAX];
	struct graft_test_mem mem = { .ext_address = FAR_AWAY };
	struct graft_image img;
	char err[ERR_MAX];
	bool line_ok;

	size_t size = synth_object(object, &call, 1, DATA_SIZE);
	int rc = graft_test_load(&mem, object, size, &img, err, sizeof(err), &line_ok);
	CHECK(t, rc == -ERANGE && line_ok &&
	      strstr(err, "relocation 0 in section 5 (.rela.text): R_X86_64_PLT32 to symbol 'ext'-4"),
	      "rc %d: %s", rc, err);
	graft_test_release(&mem);
}

HOST_TEST(graft_elf_reloc_to_empty_section)
{
	static const struct synth_reloc pointer = { 0, R_X86_64_64, SYM_DATA, 0 };
	static uint8_t object[OBJECT_MAX];
	struct graft_test_mem mem = { 0 };
	struct graft_image img;
	char err[ERR_MAX];
	bool line_ok;

	size_t size = synth_object(object, &pointer, 1, 0);
	int rc = graft_test_load(&mem, object, size, &img, err, sizeof(err), &line_ok);
	CHECK(t, rc == -ENOEXEC && line_ok &&
	      strstr(err, "refers to section symbol .data in section 2 (.data), which is empty"),
	      "rc %d: %s", rc, err);
	CHECK(t, !mem.allocs[GRAFT_REGION_DATA], "an empty region is not allocated");
	graft_test_release(&mem);

	size = synth_object(object, NULL, 0, 0);
	rc = graft_test_load(&mem, object, size, &img, err, sizeof(err), &line_ok);
	CHECK(t, rc == 0 && !img.region[GRAFT_REGION_DATA] && !mem.allocs[GRAFT_REGION_DATA],
	      "an unused empty .data: rc %d %s", rc, err);
	graft_test_release(&mem);
}
