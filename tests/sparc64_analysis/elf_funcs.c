// SPDX-License-Identifier: BSD-2-Clause
/*
 * The functions of a big-endian 64-bit ELF file (an object, an
 * executable, a shared library of the sparc64 cross toolchain, the
 * sparc64 kernel), read on a host of either byte order: every STT_FUNC
 * symbol of .symtab (or of .dynsym when the file is stripped) with a
 * nonzero size inside an executable PROGBITS section, its bytes where
 * the file holds them, and its allocated sections' bytes by address (for
 * jump tables). Aliases (the same address and size) count once.
 * Anything out of bounds is skipped, never read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sparc64_analysis_test.h"

#define SHT_PROGBITS 1
#define SHT_SYMTAB   2
#define SHT_DYNSYM   11
#define SHF_ALLOC    0x2
#define SHF_EXECINSTR 0x4
#define STT_FUNC     2
#define EI_CLASS64   2
#define EI_DATA_BE   2

static uint64_t be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static bool within(const struct elf_image *img, uint64_t off, uint64_t len)
{
	return off <= img->size && len <= img->size - off;
}

static int by_addr(const void *a, const void *b)
{
	const struct elf_func *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

static const uint8_t *section(const struct elf_image *img, unsigned i)
{
	const uint8_t *h = img->data;
	uint64_t shoff = be(h + 0x28, 8), shentsize = be(h + 0x3a, 2);
	return img->data + shoff + i * shentsize;
}

int elf_load_funcs(const char *path, struct elf_image *img)
{
	memset(img, 0, sizeof(*img));
	FILE *fp = fopen(path, "rb");
	if (!fp || fseek(fp, 0, SEEK_END) || (img->size = (size_t)ftell(fp), fseek(fp, 0, SEEK_SET))) {
		fprintf(stderr, "%s: cannot read\n", path);
		if (fp)
			fclose(fp);
		return -1;
	}
	img->data = malloc(img->size ? img->size : 1);
	size_t got = img->data ? fread(img->data, 1, img->size, fp) : 0;
	fclose(fp);
	const uint8_t *h = img->data;
	if (got != img->size || img->size < 64 || memcmp(h, "\177ELF", 4) || h[4] != EI_CLASS64 ||
	    h[5] != EI_DATA_BE) {
		fprintf(stderr, "%s: not a big-endian ELF64 file\n", path);
		return -1;
	}
	uint64_t shoff = be(h + 0x28, 8), shentsize = be(h + 0x3a, 2), shnum = be(h + 0x3c, 2);
	if (shentsize < 64 || !within(img, shoff, shnum * shentsize))
		return fprintf(stderr, "%s: bad section headers\n", path), -1;
	img->sections = calloc(shnum ? shnum : 1, sizeof(*img->sections));
	for (unsigned i = 0; i < shnum; i++) {
		const uint8_t *sec = section(img, i);
		uint64_t off = be(sec + 0x18, 8), len = be(sec + 0x20, 8);
		if (be(sec + 4, 4) == SHT_PROGBITS && (be(sec + 8, 8) & SHF_ALLOC) && within(img, off, len))
			img->sections[img->nsections++] = (struct elf_section){
				be(sec + 0x10, 8), len, img->data + off };
	}
	int symtab = -1;
	for (unsigned want = SHT_SYMTAB; symtab < 0 && want; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0)
		for (unsigned i = 0; i < shnum; i++)
			if (be(section(img, i) + 4, 4) == want) {
				symtab = (int)i;
				break;
			}
	if (symtab < 0)
		return 0;	/* no symbols: no functions */
	const uint8_t *st = section(img, (unsigned)symtab);
	uint64_t symoff = be(st + 0x18, 8), symsize = be(st + 0x20, 8), link = be(st + 0x28, 4);
	if (link >= shnum || !within(img, symoff, symsize))
		return 0;
	const uint8_t *strsec = section(img, (unsigned)link);
	uint64_t stroff = be(strsec + 0x18, 8), strsize = be(strsec + 0x20, 8);
	if (!within(img, stroff, strsize))
		return 0;
	uint64_t nsyms = symsize / 24;
	img->funcs = calloc(nsyms ? nsyms : 1, sizeof(*img->funcs));
	for (uint64_t k = 0; k < nsyms; k++) {
		const uint8_t *s = img->data + symoff + k * 24;
		uint64_t name = be(s, 4), shndx = be(s + 6, 2), value = be(s + 8, 8), size = be(s + 16, 8);
		if ((s[4] & 0xf) != STT_FUNC || !size || size > UINT32_MAX || !shndx || shndx >= shnum ||
		    name >= strsize || !memchr(img->data + stroff + name, 0, strsize - name))
			continue;
		const uint8_t *sec = section(img, (unsigned)shndx);
		uint64_t flags = be(sec + 8, 8), addr = be(sec + 0x10, 8), off = be(sec + 0x18, 8),
			 len = be(sec + 0x20, 8);
		if (be(sec + 4, 4) != SHT_PROGBITS || !(flags & SHF_EXECINSTR) || value < addr ||
		    value - addr > len || size > len - (value - addr) || !within(img, off + value - addr, size))
			continue;
		img->funcs[img->nfuncs++] = (struct elf_func){
			(const char *)img->data + stroff + name, value, (uint32_t)size,
			img->data + off + (value - addr) };
	}
	qsort(img->funcs, img->nfuncs, sizeof(*img->funcs), by_addr);
	uint32_t kept = 0;
	for (uint32_t i = 0; i < img->nfuncs; i++)
		if (!kept || img->funcs[kept - 1].addr != img->funcs[i].addr ||
		    img->funcs[kept - 1].size != img->funcs[i].size)
			img->funcs[kept++] = img->funcs[i];
	img->nfuncs = kept;
	return 0;
}

const uint8_t *elf_bytes(const struct elf_image *img, uint64_t addr, uint64_t len)
{
	for (uint32_t i = 0; i < img->nsections; i++) {
		const struct elf_section *s = &img->sections[i];
		if (addr >= s->addr && addr - s->addr <= s->size && len <= s->size - (addr - s->addr))
			return s->data + (addr - s->addr);
	}
	return NULL;
}

void elf_free(struct elf_image *img)
{
	free(img->sections);
	free(img->funcs);
	free(img->data);
	memset(img, 0, sizeof(*img));
}

const struct elf_func *elf_find(const struct elf_image *img, const char *name)
{
	for (uint32_t i = 0; i < img->nfuncs; i++)
		if (!strcmp(img->funcs[i].name, name))
			return &img->funcs[i];
	return NULL;
}
