// SPDX-License-Identifier: BSD-2-Clause
/*
 * Helpers for the graft ELF loader's host tests (see graft_elf_helpers.h):
 * guarded region mappings, the test resolver, and readers and writers
 * of ELF fields in a copy of the fixture.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "graft_elf_helpers.h"

#define PAGE 4096
#define HIGH_HINT ((void *)0x600000000000ull)	/* far above 4 GiB */

static void *test_alloc(void *ctx, enum graft_region region, size_t size)
{
	struct graft_test_mem *mem = ctx;

	mem->allocs[region]++;
	if (!size || size % PAGE)
		mem->bad_size = true;
	if (mem->fail[region] || mem->mapping[region])
		return NULL;
	size_t total = size + 2 * PAGE;
	uint8_t *map = mmap(mem->high ? HIGH_HINT : NULL, total, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS | (mem->high ? 0 : MAP_32BIT), -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	if (mprotect(map + PAGE, size, PROT_READ | PROT_WRITE)) {
		munmap(map, total);
		return NULL;
	}
	mem->mapping[region] = map;
	mem->mapping_size[region] = total;
	mem->sizes[region] = size;
	return map + PAGE;
}

static uint64_t test_resolve(void *ctx, const char *name)
{
	struct graft_test_mem *mem = ctx;

	mem->resolves++;
	if (mem->hidden && !strcmp(name, mem->hidden))
		return 0;
	if (!strcmp(name, "fixture_export_add"))
		return FIXTURE_EXPORT_ADD;
	if (!strcmp(name, "fixture_export_counter"))
		return FIXTURE_EXPORT_COUNTER;
	if (!strcmp(name, "ext"))
		return mem->ext_address ? mem->ext_address : SYNTH_EXPORT_EXT;
	return 0;
}

static const struct graft_load_ops test_ops = { .alloc = test_alloc, .resolve = test_resolve };

static bool one_line(const char *err, size_t errlen, bool failed)
{
	size_t len = strnlen(err, errlen);

	if (len == errlen || (len == 0) == failed)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)err[i] < 0x20 || (unsigned char)err[i] > 0x7e)
			return false;
	return true;
}

int graft_test_load(struct graft_test_mem *mem, const void *file, size_t size,
		    struct graft_image *img, char *err, size_t errlen, bool *line_ok)
{
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		abort();
	memcpy(copy, file, size);
	memset(err, 'x', errlen);
	int rc = graft_elf_load(copy, size, &test_ops, mem, img, err, errlen);
	free(copy);
	*line_ok = one_line(err, errlen, rc != 0);
	return rc;
}

void graft_test_release(struct graft_test_mem *mem)
{
	for (unsigned r = 0; r < GRAFT_REGIONS; r++) {
		if (mem->mapping[r])
			munmap(mem->mapping[r], mem->mapping_size[r]);
		mem->mapping[r] = NULL;
		mem->allocs[r] = 0;
		mem->sizes[r] = 0;
	}
	mem->bad_size = false;
	mem->resolves = 0;
}

uint8_t *fixture_copy(size_t *size)
{
	uint8_t *f = malloc(graft_fixture_size);

	if (!f)
		abort();
	memcpy(f, graft_fixture, graft_fixture_size);
	*size = graft_fixture_size;
	return f;
}

void put16(uint8_t *f, size_t off, uint16_t v)
{
	memcpy(f + off, &v, sizeof(v));
}

void put32(uint8_t *f, size_t off, uint32_t v)
{
	memcpy(f + off, &v, sizeof(v));
}

void put64(uint8_t *f, size_t off, uint64_t v)
{
	memcpy(f + off, &v, sizeof(v));
}

uint64_t get64(const uint8_t *f, size_t off)
{
	uint64_t v;
	memcpy(&v, f + off, sizeof(v));
	return v;
}

struct elf64_header elf_header_of(const uint8_t *f)
{
	struct elf64_header eh;
	memcpy(&eh, f, sizeof(eh));
	return eh;
}

size_t section_header_offset(const uint8_t *f, unsigned index)
{
	return elf_header_of(f).shoff + (size_t)index * sizeof(struct elf64_section);
}

struct elf64_section section_of(const uint8_t *f, unsigned index)
{
	struct elf64_section sh;
	memcpy(&sh, f + section_header_offset(f, index), sizeof(sh));
	return sh;
}

const char *section_name_of(const uint8_t *f, unsigned index)
{
	struct elf64_section names = section_of(f, elf_header_of(f).shstrndx);
	return (const char *)f + names.offset + section_of(f, index).name;
}

unsigned section_index(const uint8_t *f, const char *name)
{
	for (unsigned i = 1; i < elf_header_of(f).shnum; i++)
		if (!strcmp(section_name_of(f, i), name))
			return i;
	return 0;
}

static unsigned symtab_index(const uint8_t *f)
{
	for (unsigned i = 1; i < elf_header_of(f).shnum; i++)
		if (section_of(f, i).type == SHT_SYMTAB)
			return i;
	return 0;
}

size_t symbol_offset(const uint8_t *f, unsigned index)
{
	return section_of(f, symtab_index(f)).offset + (size_t)index * sizeof(struct elf64_symbol);
}

struct elf64_symbol symbol_of(const uint8_t *f, unsigned index)
{
	struct elf64_symbol sym;
	memcpy(&sym, f + symbol_offset(f, index), sizeof(sym));
	return sym;
}

unsigned symbol_index(const uint8_t *f, const char *name)
{
	struct elf64_section symtab = section_of(f, symtab_index(f));
	struct elf64_section strings = section_of(f, symtab.link);

	for (unsigned i = 1; i < symtab.size / sizeof(struct elf64_symbol); i++)
		if (!strcmp((const char *)f + strings.offset + symbol_of(f, i).name, name))
			return i;
	return 0;
}

size_t rela_offset(const uint8_t *f, const char *name, unsigned j)
{
	return section_of(f, section_index(f, name)).offset + (size_t)j * sizeof(struct elf64_rela);
}

static bool loaded(const struct elf64_section *sh)
{
	return (sh->flags & SHF_ALLOC) && (sh->type == SHT_PROGBITS || sh->type == SHT_NOBITS);
}

static enum graft_region region_of(const struct elf64_section *sh)
{
	if (sh->flags & SHF_EXECINSTR)
		return GRAFT_REGION_TEXT;
	return (sh->flags & SHF_WRITE) ? GRAFT_REGION_DATA : GRAFT_REGION_RODATA;
}

uint64_t expected_section_address(const uint8_t *f, const struct graft_image *img, unsigned index)
{
	uint64_t used[GRAFT_REGIONS] = { 0 };

	for (unsigned i = 1; i <= index; i++) {
		struct elf64_section sh = section_of(f, i);
		if (!loaded(&sh))
			continue;
		uint64_t align = sh.addralign ? sh.addralign : 1;
		enum graft_region r = region_of(&sh);
		uint64_t at = (used[r] + align - 1) / align * align;
		if (i == index)
			return (uintptr_t)img->region[r] + at;
		used[r] = at + sh.size;
	}
	return 0;
}

uint64_t expected_symbol_address(const uint8_t *f, const struct graft_image *img, const char *name)
{
	struct elf64_symbol sym = symbol_of(f, symbol_index(f, name));
	return expected_section_address(f, img, sym.shndx) + sym.value;
}
