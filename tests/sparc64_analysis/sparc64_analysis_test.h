/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the files of the sparc64 analysis host tests share: a big-endian
 * ELF64 file's functions (elf_funcs.c), the kernel services the portable
 * analysis needs on the host (the heap, the text it reads, the function
 * at an address: test_sparc64_analysis.c), one function analysed, and
 * the result lines (`ok NAME`, `FAIL NAME: why`).
 */
#ifndef SPARC64_ANALYSIS_TEST_H
#define SPARC64_ANALYSIS_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <scion/cfg.h>

/* One function of an ELF file: its bytes stay in the file's image. */
struct elf_func {
	const char *name;
	uint64_t addr;
	uint32_t size;
	const uint8_t *code;
};

/* A section the file holds (PROGBITS, allocated): where jump tables are read. */
struct elf_section {
	uint64_t addr, size;
	const uint8_t *data;
};

struct elf_image {
	uint8_t *data;
	size_t size;
	struct elf_func *funcs;		/* sorted by address, aliases dropped */
	uint32_t nfuncs;
	struct elf_section *sections;
	uint32_t nsections;
};

/* Load path's functions (STT_FUNC of .symtab, else .dynsym, with a size, in executable
 * sections); 0, or -1 with a message on stderr. */
int elf_load_funcs(const char *path, struct elf_image *img);
void elf_free(struct elf_image *img);
const struct elf_func *elf_find(const struct elf_image *img, const char *name);
/* The len bytes at addr of one of img's sections, or NULL. */
const uint8_t *elf_bytes(const struct elf_image *img, uint64_t addr, uint64_t len);

/* The image whose functions are being analysed (its sections answer analysis_table). */
extern const struct elf_image *current_image;

/*
 * Analyse fn into f (the caller releases it with analysis_release): the
 * portable cfg_build_function over fn's bytes, with the function made
 * current for cfg_live_at. Return value: cfg_build_function's.
 */
int analyse(const struct elf_func *fn, struct cfg_function *f, struct ksym *sym);
void analysis_release(struct cfg_function *f);

void result(const char *name, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The consistency sweep over every function of path; false when it could not be read. */
bool sweep_file(const char *path);

#endif
